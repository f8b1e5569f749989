"""Start-up removal of temp files left by killed writes: only stale ones, only inside the store."""

from __future__ import annotations

import os
import subprocess
import time
import uuid
from pathlib import Path

from memtui.core.recovery import remove_stale_temp_files, temp_writer_pid


def dead_pid() -> int:
    """The pid of a process that has exited and been reaped."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def temp_name(pid: int) -> str:
    """An atomic-write temp name for `pid`, in the exact format memtui's writer uses."""
    return f".tmp-{pid}-{uuid.uuid4()}"


def test_temp_name_format_is_recognised_exactly() -> None:
    name = temp_name(4242)
    assert temp_writer_pid(name) == 4242
    assert temp_writer_pid(".tmp-notes.md") is None
    assert temp_writer_pid(name + ".md") is None
    assert temp_writer_pid("x" + name) is None
    assert temp_writer_pid(".tmp-12-not-a-uuid") is None


def test_removes_temp_of_dead_writer_anywhere_in_store(tmp_path: Path) -> None:
    pid = dead_pid()
    (tmp_path / "deep" / "er").mkdir(parents=True)
    top = temp_name(pid)
    nested = temp_name(pid)
    (tmp_path / top).write_bytes(b"half a wri")
    (tmp_path / "deep" / "er" / nested).write_bytes(b"half")
    (tmp_path / "deep" / "keep.md").write_bytes(b"keep\n")

    removed = remove_stale_temp_files(tmp_path)

    assert sorted(removed) == sorted([top, f"deep/er/{nested}"])
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["deep", "er", "keep.md"]
    assert (tmp_path / "deep" / "keep.md").read_bytes() == b"keep\n"


def test_keeps_fresh_temp_of_live_writer_but_removes_old_one(tmp_path: Path) -> None:
    fresh = tmp_path / temp_name(os.getpid())
    old = tmp_path / temp_name(os.getpid())
    fresh.write_bytes(b"in progress")
    old.write_bytes(b"abandoned")
    two_minutes_ago = time.time() - 120
    os.utime(old, (two_minutes_ago, two_minutes_ago))

    removed = remove_stale_temp_files(tmp_path)

    assert removed == [old.name]
    assert fresh.read_bytes() == b"in progress"
    assert not old.exists()


def test_never_touches_lookalikes_links_folders_history_or_outside(tmp_path: Path) -> None:
    store = tmp_path / "store"
    outside = tmp_path / "outside"
    (store / ".memtui").mkdir(parents=True)
    outside.mkdir()
    pid = dead_pid()
    user_note = store / ".tmp-notes.md"
    user_note.write_bytes(b"mine\n")
    outside_temp = outside / temp_name(pid)
    outside_temp.write_bytes(b"not memtui's")
    os.symlink(outside, store / "linked-folder")
    link = store / temp_name(pid)
    os.symlink(outside_temp, link)
    folder = store / temp_name(pid)
    folder.mkdir()
    reserved = store / ".memtui" / temp_name(pid)
    reserved.write_bytes(b"history internals")

    removed = remove_stale_temp_files(store)

    assert removed == []
    assert user_note.read_bytes() == b"mine\n"
    assert outside_temp.read_bytes() == b"not memtui's"
    assert os.readlink(link) == str(outside_temp)
    assert folder.is_dir()
    assert reserved.read_bytes() == b"history internals"
