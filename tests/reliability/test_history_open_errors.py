"""A history SQLite cannot open is explained by its cause in one line: a full disk (SQLite says
`disk I/O error`), a `-wal` or `-shm` that is a symbolic link or not a file (SQLite says
`unable to open database file`)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from memtui.core.recording import db_errors
from memtui.core.recording.db_errors import explain
from tests.reliability.test_bad_input import memtui
from tests.reliability.test_unrecorded_changes import fill, small_disk

VIEW = {"command": "view", "path": "/memories"}
CREATE = {"command": "create", "path": "/memories/new.md", "file_text": "new\n"}


def memtui_text(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """`memtui ARGS` with no user config, its output as text."""
    done = memtui(*args, stdin=stdin.encode(), env={"MEMTUI_CONFIG_FILE": os.devnull})
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


def tool(root: Path, *inputs: dict[str, object]) -> subprocess.CompletedProcess[str]:
    """`memtui tool root` with `inputs` as JSON lines."""
    lines = "".join(json.dumps(item) + "\n" for item in inputs)
    return memtui_text("tool", str(root), stdin=lines)


def test_tool_and_log_on_a_full_disk_say_the_disk_is_full(tmp_path: Path) -> None:
    """A real full filesystem: a 2 MiB tmpfs holding the store, filled to the last byte."""
    with small_disk(tmp_path / "disk") as disk:
        root = disk / "store"
        root.mkdir()
        (root / "a.md").write_text("a\n")
        assert tool(root, VIEW).returncode == 0
        filler = fill(disk)
        try:
            database = root / ".memtui" / "history.db"
            for command, done in (
                ("tool", tool(root, CREATE)),
                ("log", memtui_text("log", str(root))),
            ):
                assert (done.returncode, done.stdout) == (2, ""), done
                assert done.stderr.startswith(f"memtui {command}: {database}: the disk is full")
                assert done.stderr.count("\n") == 1, done.stderr
            assert not (root / "new.md").exists()
        finally:
            filler.unlink()
        assert tool(root, CREATE).returncode == 0
        assert (root / "new.md").read_text() == "new\n"


def store_with_history(tmp_path: Path) -> Path:
    """A store with one note and a history, beside an empty `outside` folder."""
    root = tmp_path / "store"
    root.mkdir()
    (root / "a.md").write_text("a\n")
    assert tool(root, VIEW).returncode == 0
    (tmp_path / "outside").mkdir()
    return root


@pytest.mark.parametrize(
    ("suffix", "kind"), [("-wal", "link"), ("-shm", "link"), ("-wal", "folder")]
)
def test_a_linked_or_foreign_wal_or_shm_is_named(tmp_path: Path, suffix: str, kind: str) -> None:
    root = store_with_history(tmp_path)
    outside = tmp_path / "outside"
    companion = root / ".memtui" / f"history.db{suffix}"
    companion.unlink(missing_ok=True)
    if kind == "link":
        companion.symlink_to(outside / "target")
        cause = f"history.db{suffix} is a symbolic link, which SQLite will not open: remove it"
    else:
        companion.mkdir()
        cause = f"history.db{suffix} is not a regular file, which SQLite cannot use: remove it"
    database = root / ".memtui" / "history.db"
    for command, done in (("tool", tool(root, CREATE)), ("log", memtui_text("log", str(root)))):
        assert (done.returncode, done.stdout) == (2, ""), done
        assert done.stderr == (
            f"memtui {command}: {database}: {cause} (SQLite: unable to open database file)\n"
        )
    assert os.listdir(outside) == []
    assert not (root / "new.md").exists()


def test_a_folder_in_place_of_the_shm_is_named_when_a_change_cannot_be_recorded(
    tmp_path: Path,
) -> None:
    """SQLite opens the history read-only when its -shm cannot be used: reads work, a change
    is refused in one line that names the cause."""
    root = store_with_history(tmp_path)
    (root / ".memtui" / "history.db-shm").unlink(missing_ok=True)
    (root / ".memtui" / "history.db-shm").mkdir()
    done = tool(root, CREATE)
    assert done.returncode == 0
    assert json.loads(done.stdout) == {
        "is_error": True,
        "content": "Cannot create /memories/new.md: memtui could not record the change in its "
        "history (history.db-shm is not a regular file, which SQLite cannot use: remove it "
        "(SQLite: attempt to write a readonly database)); nothing changed",
    }
    assert not (root / "new.md").exists()


def test_a_disk_io_error_is_a_full_disk_only_when_the_disk_is_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The simulated layer: SQLite's error as it raises it, the filesystem's free space faked."""
    error = sqlite3.OperationalError("disk I/O error")
    database = tmp_path / "history.db"
    assert explain(error, database) == "disk I/O error"
    full = os.statvfs_result((4096, 4096, 512, 0, 0, 100, 0, 0, 0, 255))
    monkeypatch.setattr(db_errors.os, "statvfs", lambda _folder: full)
    assert explain(error, database) == "the disk is full (SQLite: disk I/O error)"
    no_inodes = os.statvfs_result((4096, 4096, 512, 400, 400, 100, 0, 0, 0, 255))
    monkeypatch.setattr(db_errors.os, "statvfs", lambda _folder: no_inodes)
    cantopen = sqlite3.OperationalError("unable to open database file")
    assert explain(cantopen, database) == "the disk is full (SQLite: unable to open database file)"
    assert explain(sqlite3.OperationalError("database is locked"), database) == (
        "database is locked"
    )
