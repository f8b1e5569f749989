"""A rename never replaces what it did not check, while another process plants destinations.

Every kind of rename runs while the racer (tests/reliability/rename_race.py) creates each
rename's destination the moment memtui opens the source to keep its before-state, which is
after the "already exists" check and before the rename: MCP `memory` renames and `move_note`
through a real `memtui mcp` server, `memtui mv` processes, undo of renames, folder moves and
undo of folder moves. Nothing planted may be lost, nothing of memtui's own may be lost, every
loser gets its command's "already exists" answer, and the history has no success for a rename
that did not happen.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memtui.core.config import Settings
from memtui.core.store import MemoryStore
from memtui.notes.operations.moving import move
from memtui.notes.workspace import Workspace
from tests.agents.mcp_client import call_memory, mcp_session, result_text
from tests.reliability.rename_race import Racer, RenameFigures, racing

COUNTS = {"memory": 400, "move_note": 200, "mv": 20, "undo": 400, "folder": 200, "folder undo": 100}
"""How many renames of each kind one run makes."""
FILE_KINDS = {"memory": "m", "move_note": "n", "mv": "c", "undo": "u"}
FOLDER_KINDS = {"folder": "f", "folder undo": "g"}


def own_text(name: str) -> str:
    """The text memtui's own file `name` (or the file inside folder `name`) starts with."""
    return f"own {name}\n"


def seed(root: Path) -> None:
    """Every source file and folder of every kind, before the racer starts."""
    for kind, letter in FILE_KINDS.items():
        for number in range(COUNTS[kind]):
            (root / f"{letter}a-{number}.md").write_text(own_text(f"{letter}a-{number}.md"))
    for kind, letter in FOLDER_KINDS.items():
        for number in range(COUNTS[kind]):
            folder = root / f"{letter}a-{number}"
            folder.mkdir()
            (folder / "x.md").write_text(own_text(folder.name))


def exists_answer(path: str) -> str:
    """The memory tool's answer when a rename's destination exists."""
    return f"Error: The destination {path} already exists"


def moved_back_conflict(old: str, new: str) -> str:
    """The undo's answer when the renamed path's old name exists again."""
    return f"Conflict: {old} exists again, so {new} cannot move back; move or delete it first."


async def mcp_renames(root: Path, racer: Racer, figures: RenameFigures) -> None:
    """MCP `memory` renames and `move_note` calls through one real server."""
    async with mcp_session(root, client_name="racer-agent") as session:
        for number in range(COUNTS["memory"]):
            old, new = f"ma-{number}.md", f"mb-{number}.md"
            racer.arm(old, new)
            text, is_error = await call_memory(
                session,
                {
                    "command": "rename",
                    "old_path": f"/memories/{old}",
                    "new_path": f"/memories/{new}",
                },
            )
            figures.count("memory", is_error)
            if is_error:
                assert text == exists_answer(f"/memories/{new}")
        for number in range(COUNTS["move_note"]):
            old, new = f"na-{number}.md", f"nb-{number}.md"
            racer.arm(old, new)
            result = await session.call_tool(
                "move_note", {"old_path": f"/memories/{old}", "new_path": f"/memories/{new}"}
            )
            figures.count("move_note", bool(result.is_error))
            if result.is_error:
                assert result_text(result) == exists_answer(f"/memories/{new}")


def mv_renames(root: Path, racer: Racer, figures: RenameFigures) -> None:
    """`memtui mv` processes, one per rename."""
    environment = {**os.environ, "MEMTUI_CONFIG_FILE": os.devnull}
    for number in range(COUNTS["mv"]):
        old, new = f"ca-{number}.md", f"cb-{number}.md"
        racer.arm(old, new)
        done = subprocess.run(
            [sys.executable, "-m", "memtui", "mv", str(root), old, new],
            capture_output=True,
            text=True,
            env=environment,
            timeout=60,
        )
        figures.count("mv", done.returncode != 0)
        if done.returncode != 0:
            assert done.stderr == f"memtui mv: {exists_answer(f'/memories/{new}')}\n"


def undo_renames(store: MemoryStore, racer: Racer, figures: RenameFigures) -> None:
    """Renames made unraced, then undone while the old name is planted."""
    renamed = [
        store.rename(f"/memories/ua-{number}.md", f"/memories/ub-{number}.md")
        for number in range(COUNTS["undo"])
    ]
    for number, rename in enumerate(renamed):
        assert not rename.is_error and rename.event_id is not None, rename.content
        old, new = f"ua-{number}.md", f"ub-{number}.md"
        racer.arm(new, old)
        result = store.revert(rename.event_id)
        figures.count("undo", result.is_error)
        if result.is_error:
            assert result.content == moved_back_conflict(f"/memories/{old}", f"/memories/{new}")


def folder_moves(store: MemoryStore, racer: Racer, figures: RenameFigures) -> None:
    """Folder moves (the notes operation the app and MCP share) onto a planted empty folder."""
    for number in range(COUNTS["folder"]):
        old, new = f"fa-{number}", f"fb-{number}"
        racer.arm(old, new, "folder")
        moved = move(Workspace(store), old, new, rewrite_links=False)
        figures.count("folder", moved.result.is_error)
        if moved.result.is_error:
            assert moved.summary == exists_answer(f"/memories/{new}")


def folder_undos(store: MemoryStore, racer: Racer, figures: RenameFigures) -> None:
    """Folder moves made unraced, then undone as operations while the old name is planted."""
    groups = []
    for number in range(COUNTS["folder undo"]):
        moved = move(Workspace(store), f"ga-{number}", f"gb-{number}", rewrite_links=False)
        assert not moved.result.is_error and moved.group_id is not None, moved.summary
        groups.append(moved.group_id)
    for number, group in enumerate(groups):
        old, new = f"/memories/ga-{number}", f"/memories/gb-{number}"
        racer.arm(f"gb-{number}", f"ga-{number}", "folder")
        result = store.revert_group(group)
        figures.count("folder undo", result.is_error)
        if result.is_error:
            conflict = moved_back_conflict(old, new)
            summary = f"rename {old} to {new}"
            assert result.content in (
                f"{conflict} Nothing of operation {group} ({summary}) was undone.",
                f"Cannot undo operation {group} ({summary}): {conflict} Nothing changed.",
            )


def holds(path: Path, own: str) -> bool:
    """True if `path` is memtui's own file, or its own folder, with text `own`."""
    inside = path / "x.md" if path.is_dir() else path
    return inside.is_file() and inside.read_text() == own


def check(root: Path, store: MemoryStore, figures: RenameFigures) -> None:
    """Fill in what was lost: planted entries, memtui's own files, false successes."""
    figures.lost_planted = [entry.name for entry in figures.planted if not entry.intact(root)]
    letters = {**FILE_KINDS, **FOLDER_KINDS}
    for kind, letter in letters.items():
        suffix = ".md" if kind in FILE_KINDS else ""
        for number in range(COUNTS[kind]):
            names = (f"{letter}a-{number}{suffix}", f"{letter}b-{number}{suffix}")
            own = own_text(names[0])
            if sum(holds(root / name, own) for name in names) != 1:
                figures.lost_own.append(names[0])
    planted = {f"/memories/{entry.name}" for entry in figures.planted}
    figures.false_successes = [
        f"event {event.id} ({event.command} {event.path} -> {event.new_path})"
        for event in store.history.events(changes_only=True, newest_first=False)
        if event.new_path in planted
    ]


@pytest.mark.slow
async def test_no_rename_replaces_a_destination_planted_by_another_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMTUI_CONFIG_FILE", os.devnull)
    root = tmp_path / "store"
    root.mkdir()
    seed(root)
    store = MemoryStore(root, actor="human:racer", settings=Settings(actor="racer"))
    store.history  # noqa: B018 - the first open's baseline reads every file before the race
    figures = RenameFigures()
    started = time.monotonic()
    with racing(root, tmp_path / "control") as racer:
        await mcp_renames(root, racer, figures)
        mv_renames(root, racer, figures)
        undo_renames(store, racer, figures)
        folder_moves(store, racer, figures)
        folder_undos(store, racer, figures)
        racer.finish(figures)
    figures.seconds = time.monotonic() - started
    check(root, store, figures)
    print(figures.summary())
    assert figures.planted, figures.summary()
    assert set(figures.refused) == set(COUNTS), figures.summary()
    assert figures.lost_planted == [], figures.summary()
    assert figures.lost_own == [], figures.summary()
    assert figures.false_successes == [], figures.summary()
