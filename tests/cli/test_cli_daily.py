"""Daily use on the command line: a refused undo says how to force it, and `memtui log` fits
its path column before the result's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from memtui.core.config import Settings
from memtui.core.store import MemoryStore

MEMTUI = str(Path(sys.executable).with_name("memtui"))


def run(*args: str, columns: int = 200) -> subprocess.CompletedProcess[str]:
    """Run `memtui ARGS` with an isolated config and a terminal `columns` wide."""
    env = {
        "PATH": "/usr/bin:/bin",
        "MEMTUI_CONFIG_FILE": os.devnull,
        "COLUMNS": str(columns),
        "MEMTUI_ACTOR": "ann",
    }
    return subprocess.run([MEMTUI, *args], capture_output=True, text=True, env=env, timeout=60)


def test_a_conflicting_undo_names_the_force_flag(tmp_path: Path) -> None:
    """The core's conflict says what changed; the command line adds `--force`, never `force`."""
    store = MemoryStore(tmp_path / "mem", actor="agent:claude", settings=Settings())
    store.create("/memories/a.md", "one\n")
    edited = store.str_replace("/memories/a.md", "one", "two")
    store.str_replace("/memories/a.md", "two", "three")
    done = run("undo", str(store.root), str(edited.event_id))
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.startswith("memtui undo: Conflict: /memories/a.md changed since event ")
    assert done.stderr.endswith(". Use --force to undo it anyway.\n")
    assert "Use force" not in done.stderr
    assert (store.root / "a.md").read_text() == "three\n"


def test_log_at_120_columns_keeps_the_path_whole_and_cuts_the_result(tmp_path: Path) -> None:
    """A long path and a long result at 120 columns: the path shows whole, the result is cut
    (before, the path was cut to two fifths of the room while the result kept the rest)."""
    store = MemoryStore(tmp_path / "mem", actor="agent:claude", settings=Settings())
    path = "/memories/claude/user_preferences.xml"
    store.create(path, "x\n")
    store.view(path)
    done = run("log", str(store.root), "--limit", "1", columns=120)
    assert done.returncode == 0, done.stderr
    header, _rule, row = done.stdout.splitlines()
    assert max(len(line) for line in (header, row)) <= 120
    cells = [cell.strip() for cell in row.split("   ") if cell.strip()]
    assert cells[4] == path
    assert cells[5].startswith("Here's the content") and cells[5].endswith("…")


def test_log_at_80_columns_cuts_a_path_in_the_middle(tmp_path: Path) -> None:
    """A path cut for width keeps its start and its file name."""
    store = MemoryStore(tmp_path / "mem", actor="agent:claude", settings=Settings())
    store.create("/memories/sessions/2026-11-06-textual-snapshots.md", "x\n")
    done = run("log", str(store.root), "--limit", "1", columns=80)
    assert done.returncode == 0, done.stderr
    row = done.stdout.splitlines()[2]
    cell = next(part.strip() for part in row.split("   ") if "…" in part and "/me" in part)
    assert cell.startswith("/me") and cell.endswith("shots.md")
