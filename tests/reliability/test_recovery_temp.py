"""Start-up removal of temp files left by killed writes: only memtui's own, only stale ones."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from memtui.core.config import Settings
from memtui.core.opening.recovery import remove_stale_temp_files, temp_writer_pid
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


CRASH_IN_PLACE = """
import errno, os, sys
from memtui.core.applying.atomic import TempArea
from memtui.core.resolving.fd_paths import StoreRoot
root = StoreRoot(sys.argv[1])
folder = os.open(os.path.join(sys.argv[1], "mount", "sub"), os.O_RDONLY | os.O_DIRECTORY)
calls = []
def put(temp_fd, temp):
    calls.append(temp)
    if len(calls) == 1:
        raise OSError(errno.EXDEV, os.strerror(errno.EXDEV))
    os._exit(9)
TempArea(root).place(folder, b"half", 0o600, put)
"""


def crash_in_place(root: Path) -> str:
    """A process killed while writing to a folder on another filesystem (EXDEV): its temp
    file is left beside the target, marked; the temp's name."""
    (root / "mount" / "sub").mkdir(parents=True)
    done = subprocess.run([sys.executable, "-c", CRASH_IN_PLACE, str(root)], check=False)
    assert done.returncode == 9
    (temp,) = os.listdir(root / "mount" / "sub")
    assert f"{temp}.where" in os.listdir(area(root))
    return temp


def test_a_marked_temp_beside_its_target_is_removed_with_its_marker(tmp_path: Path) -> None:
    """A write to a folder on another filesystem leaves its temp beside the target, marked."""
    name = crash_in_place(tmp_path)
    unmarked = tmp_path / "mount" / temp_name(dead_pid())
    unmarked.write_bytes(b"a note of that name\n")

    removed = remove_stale_temp_files(tmp_path)

    assert sorted(removed) == [f".memtui/tmp/{name}.where", f"mount/sub/{name}"]
    assert os.listdir(tmp_path / "mount" / "sub") == []
    assert unmarked.read_bytes() == b"a note of that name\n"


def test_a_marker_never_removes_a_file_it_was_not_written_for(tmp_path: Path) -> None:
    """A marker planted in `.memtui/tmp` naming an agent's note (or naming another file's
    inode), or the marker of a temp replaced by a note since, removes only itself: the notes
    stay and no outside delete is recorded."""
    agent = MemoryStore(tmp_path, actor="agent:t", settings=Settings())
    named = temp_name(dead_pid())
    assert not agent.create(f"/memories/notes/{named}", "an agent's note\n").is_error
    (area(tmp_path) / f"{named}.where").write_bytes(b"notes")
    other = tmp_path / "other.md"
    other.write_bytes(b"x")
    forged = temp_name(dead_pid())
    assert not agent.create(f"/memories/notes/{forged}", "another note\n").is_error
    identity = f"{other.stat().st_dev} {other.stat().st_ino}\n".encode()
    (area(tmp_path) / f"{forged}.where").write_bytes(identity + b"notes")
    swapped = crash_in_place(tmp_path)
    (tmp_path / "moved.md").write_bytes(b"a note moved there since\n")
    os.replace(tmp_path / "moved.md", tmp_path / "mount" / "sub" / swapped)
    agent.close()

    report = MemoryStore(tmp_path, actor="agent:t", settings=Settings()).recovery

    assert report is not None
    assert sorted(report.removed_temp_files) == sorted(
        f".memtui/tmp/{name}.where" for name in (named, forged, swapped)
    )
    assert (tmp_path / "notes" / named).read_text() == "an agent's note\n"
    assert (tmp_path / "notes" / forged).read_text() == "another note\n"
    assert (tmp_path / "mount" / "sub" / swapped).read_text() == "a note moved there since\n"
    assert f"/memories/notes/{named}" not in report.external_paths
    assert f"/memories/notes/{forged}" not in report.external_paths


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
