"""An unreadable history (a folder in its place, a permission error): one clear line,
nothing lost."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from memtui.cli import main
from memtui.core.store import MemoryStore
from memtui.tui.app import MemtuiApp
from memtui.tui.widgets.confirm import ConfirmScreen
from tests.reliability.hostile import snapshot
from tests.reliability.test_bad_input import memtui, one_line
from tests.tui.settle import wait_idle

CORRUPT = b"not a database " * 100
COMMANDS: list[tuple[tuple[str, ...], bytes]] = [
    (("tool",), b'{"command": "create", "path": "/memories/b.md", "file_text": "x"}\n'),
    (("log",), b""),
    (("undo",), b""),
    (("stale",), b""),
    (("mcp",), b""),
    (("approve",), b""),
]


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A store with one note written through memtui, its history closed."""
    root = tmp_path / "store"
    store = MemoryStore(root, actor="human:t")
    assert not store.create("/memories/a.md", "keep\n").is_error
    store.history.close()
    return root


def folder_for_history(root: Path) -> Path:
    """Replace the history database with a folder holding one file; returns the folder."""
    database = root / ".memtui" / "history.db"
    for path in (database, Path(f"{database}-wal"), Path(f"{database}-shm")):
        path.unlink(missing_ok=True)
    database.mkdir()
    (database / "inside").write_bytes(b"kept\n")
    return database


def deny_history_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make opening any history.db fail with PermissionError, as for a file of mode 000."""
    from memtui.core.recording import database as history

    real_open = history.open_regular

    def guarded_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if str(file).endswith("history.db"):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(history, "open_regular", guarded_open)


def command_args(args: tuple[str, ...], root: Path) -> list[str]:
    """The command line for one command on `root`."""
    return [*args, str(root), *(("1",) if args in (("undo",), ("approve",)) else ())]


@pytest.mark.parametrize(("args", "stdin"), COMMANDS)
def test_commands_refuse_a_folder_in_place_of_the_history(
    store: Path, args: tuple[str, ...], stdin: bytes
) -> None:
    database = folder_for_history(store)
    before = snapshot(store, skip=())
    process = memtui(*command_args(args, store), stdin=stdin)
    assert process.returncode == 2
    assert process.stdout == b""
    assert one_line(process.stderr) == (
        f"memtui {args[0]}: {database}: cannot read: it is a folder, not a regular file"
    )
    assert snapshot(store, skip=()) == before


@pytest.mark.parametrize(("args", "stdin"), COMMANDS)
def test_commands_refuse_a_history_they_may_not_read(
    store: Path,
    args: tuple[str, ...],
    stdin: bytes,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    database = store / ".memtui" / "history.db"
    kept = database.read_bytes()
    before = snapshot(store, skip=())
    deny_history_reads(monkeypatch)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = main(command_args(args, store))
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err == f"memtui {args[0]}: {database}: cannot read: Permission denied\n"
    assert snapshot(store, skip=()) == before
    assert database.read_bytes() == kept


async def test_the_app_sets_a_folder_in_place_of_the_history_aside(store: Path) -> None:
    database = folder_for_history(store)
    app = MemtuiApp(store, actor="human:t", watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot, index=False)
        assert isinstance(app.screen, ConfirmScreen)
        body = str(app.screen.query_one(".confirm-body", Static).render())
        assert body.startswith(
            f"The history at {database} cannot be read: cannot read: it is a folder"
        )
        await pilot.click("#confirm")
        await wait_idle(pilot)
        kept = sorted((store / ".memtui").glob("history.db.corrupt-*"))
        assert len(kept) == 1 and (kept[0] / "inside").read_bytes() == b"kept\n"
        assert not app.ctx.store.write("/memories/b.md", "new\n", None).is_error
    assert database.is_file()


async def test_the_app_explains_a_history_it_cannot_move_aside_and_keeps_it(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = store / ".memtui" / "history.db"
    for companion in (Path(f"{database}-wal"), Path(f"{database}-shm")):
        companion.unlink(missing_ok=True)
    database.write_bytes(CORRUPT)
    before = snapshot(store, skip=())
    real_rename = os.rename

    def refused_rename(source: Any, target: Any, *args: Any, **kwargs: Any) -> None:
        if str(source) == str(database):
            raise PermissionError(13, "Permission denied", str(source))
        real_rename(source, target, *args, **kwargs)

    monkeypatch.setattr(os, "rename", refused_rename)
    app = MemtuiApp(store, actor="human:t", watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot, index=False)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.click("#confirm")
        await pilot.pause()
        assert [str(message) for message in app._exit_renderables] == [
            f"memtui: the history at {database} cannot be read (file is not a database) and "
            "could not be moved aside (Permission denied); it was left as it is."
        ]
    assert app.return_code == 1
    lock = b".memtui/lock"
    after = {path: state for path, state in snapshot(store, skip=()).items() if path != lock}
    assert after == {path: state for path, state in before.items() if path != lock}
    assert database.read_bytes() == CORRUPT


@pytest.mark.parametrize(("args", "stdin"), COMMANDS)
def test_commands_refuse_an_empty_history_file(
    store: Path, args: tuple[str, ...], stdin: bytes
) -> None:
    """A 0-byte history.db is not taken for a new, empty history (every event would vanish)."""
    database = store / ".memtui" / "history.db"
    for path in (database, Path(f"{database}-wal"), Path(f"{database}-shm")):
        path.unlink(missing_ok=True)
    database.write_bytes(b"")
    before = snapshot(store, skip=())
    process = memtui(*command_args(args, store), stdin=stdin)
    assert (process.returncode, process.stdout) == (2, b"")
    assert one_line(process.stderr) == (
        f"memtui {args[0]}: {database}: the file is empty (0 bytes), not a memtui history"
    )
    assert snapshot(store, skip=()) == before
    assert database.read_bytes() == b""


def test_a_new_history_is_never_seen_empty(tmp_path: Path) -> None:
    """memtui creates its history whole (schema written, then linked into place)."""
    store = MemoryStore(tmp_path / "store", actor="human:t")
    store.history  # noqa: B018 - create it
    database = tmp_path / "store" / ".memtui" / "history.db"
    assert database.read_bytes()[:16] == b"SQLite format 3\x00"
    leftovers = [p.name for p in database.parent.iterdir() if p.name.startswith("history.db.new")]
    assert leftovers == []
