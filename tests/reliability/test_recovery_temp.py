"""Start-up removal of temp files left by killed writes: only memtui's own, only stale ones."""

from __future__ import annotations

import os
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from memtui.core.config import Settings
from memtui.core.recovery import remove_stale_temp_files, temp_writer_pid
from memtui.core.store import MemoryStore

AREA = Path(".memtui") / "tmp"


def dead_pid() -> int:
    """The pid of a process that has exited and been reaped."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def temp_name(pid: int) -> str:
    """An atomic-write temp name for `pid`, in the exact format memtui's writer uses."""
    return f".tmp-{pid}-{uuid.uuid4()}"


def area(root: Path) -> Path:
    """The store's temp folder, created."""
    folder = root / AREA
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_temp_name_format_is_recognised_exactly() -> None:
    name = temp_name(4242)
    assert temp_writer_pid(name) == 4242
    assert temp_writer_pid(".tmp-notes.md") is None
    assert temp_writer_pid(name + ".md") is None
    assert temp_writer_pid("x" + name) is None
    assert temp_writer_pid(".tmp-12-not-a-uuid") is None


def test_removes_temp_of_dead_writer_from_the_temp_folder(tmp_path: Path) -> None:
    pid = dead_pid()
    name = temp_name(pid)
    (area(tmp_path) / name).write_bytes(b"half a wri")
    (tmp_path / "keep.md").write_bytes(b"keep\n")

    removed = remove_stale_temp_files(tmp_path)

    assert removed == [f".memtui/tmp/{name}"]
    assert os.listdir(tmp_path / AREA) == []
    assert (tmp_path / "keep.md").read_bytes() == b"keep\n"


def test_keeps_fresh_temp_of_live_writer_but_removes_old_one(tmp_path: Path) -> None:
    fresh = area(tmp_path) / temp_name(os.getpid())
    old = area(tmp_path) / temp_name(os.getpid())
    fresh.write_bytes(b"in progress")
    old.write_bytes(b"abandoned")
    two_minutes_ago = time.time() - 120
    os.utime(old, (two_minutes_ago, two_minutes_ago))

    removed = remove_stale_temp_files(tmp_path)

    assert removed == [f".memtui/tmp/{old.name}"]
    assert fresh.read_bytes() == b"in progress"
    assert not old.exists()


def test_an_agent_note_named_like_a_temp_file_survives_recovery(tmp_path: Path) -> None:
    """A note is a note whatever its name: memtui's temp files never sit among the notes."""
    agent = MemoryStore(tmp_path, actor="agent:t", settings=Settings())
    name = f".tmp-999999-{uuid.uuid4()}"
    pid = dead_pid()
    planted = temp_name(pid)
    assert not agent.create(f"/memories/{name}", "an agent's note\n").is_error
    assert not agent.create(f"/memories/deep/{planted}", "another\n").is_error
    two_minutes_ago = time.time() - 120
    os.utime(tmp_path / name, (two_minutes_ago, two_minutes_ago))

    report = MemoryStore(tmp_path, actor="agent:t", settings=Settings()).recovery

    assert report is not None and report.removed_temp_files == []
    assert (tmp_path / name).read_text() == "an agent's note\n"
    assert (tmp_path / "deep" / planted).read_text() == "another\n"
    assert report.external_event_ids == []


def test_a_marked_temp_beside_its_target_is_removed_with_its_marker(tmp_path: Path) -> None:
    """A write to a folder on another filesystem leaves its temp beside the target, marked."""
    pid = dead_pid()
    name = temp_name(pid)
    (tmp_path / "mount" / "sub").mkdir(parents=True)
    (tmp_path / "mount" / "sub" / name).write_bytes(b"half")
    (area(tmp_path) / f"{name}.where").write_bytes(b"mount/sub")
    unmarked = tmp_path / "mount" / temp_name(pid)
    unmarked.write_bytes(b"a note of that name\n")

    removed = remove_stale_temp_files(tmp_path)

    assert sorted(removed) == [f".memtui/tmp/{name}.where", f"mount/sub/{name}"]
    assert os.listdir(tmp_path / "mount" / "sub") == []
    assert unmarked.read_bytes() == b"a note of that name\n"


def test_never_touches_lookalikes_links_folders_or_outside(tmp_path: Path) -> None:
    store = tmp_path / "store"
    outside = tmp_path / "outside"
    store.mkdir()
    outside.mkdir()
    pid = dead_pid()
    user_note = area(store) / ".tmp-notes.md"
    user_note.write_bytes(b"mine\n")
    outside_temp = outside / temp_name(pid)
    outside_temp.write_bytes(b"not memtui's")
    link = area(store) / temp_name(pid)
    os.symlink(outside_temp, link)
    folder = area(store) / temp_name(pid)
    folder.mkdir()
    escaping = temp_name(pid)
    (area(store) / f"{escaping}.where").write_bytes(b"../../outside")
    (outside / escaping).write_bytes(b"outside, named like the marked temp")

    removed = remove_stale_temp_files(store)

    assert removed == [f".memtui/tmp/{escaping}.where"]
    assert user_note.read_bytes() == b"mine\n"
    assert outside_temp.read_bytes() == b"not memtui's"
    assert os.readlink(link) == str(outside_temp)
    assert folder.is_dir()
    assert (outside / escaping).read_bytes() == b"outside, named like the marked temp"


@pytest.mark.parametrize("linked", [".memtui", ".memtui/tmp"])
def test_a_linked_temp_folder_is_never_entered(tmp_path: Path, linked: str) -> None:
    store = tmp_path / "store"
    outside = tmp_path / "outside"
    (store / ".memtui").mkdir(parents=True)
    outside.mkdir()
    stale = outside / temp_name(dead_pid())
    stale.write_bytes(b"outside")
    if linked == ".memtui":
        os.rmdir(store / ".memtui")
        (outside / "tmp").mkdir()
        (outside / "tmp" / stale.name).write_bytes(b"outside")
    (store / linked).symlink_to(outside)

    assert remove_stale_temp_files(store) == []
    assert stale.read_bytes() == b"outside"
