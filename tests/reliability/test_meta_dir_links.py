"""A store's `.memtui` can arrive by git, sync or zip: links in it never make memtui write
outside."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memtui.core.recording.database import HistoryCorrupt
from memtui.core.recording.history import History
from memtui.notes.index import NoteIndex

CREATE = {"command": "create", "path": "/memories/new.md", "file_text": "new\n"}


def memtui_tool(root: Path, *inputs: dict[str, object]) -> subprocess.CompletedProcess[str]:
    """`memtui tool root` with `inputs` as JSON lines on stdin."""
    return subprocess.run(
        [sys.executable, "-m", "memtui", "tool", str(root)],
        input="".join(json.dumps(item) + "\n" for item in inputs),
        capture_output=True,
        text=True,
        timeout=60,
    )


def listing(folder: Path) -> list[str]:
    """Every name below `folder`, sorted."""
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A store with one note, beside an `outside` folder that must stay empty."""
    root = tmp_path / "store"
    root.mkdir()
    (root / "a.md").write_text("---\ntitle: A\n---\n- [fact] one\n")
    (tmp_path / "outside").mkdir()
    return root


def test_a_linked_memtui_folder_is_refused_and_nothing_is_written_through_it(
    store: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    (store / ".memtui").symlink_to(outside)
    done = memtui_tool(store, CREATE)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        f"memtui tool: {store}/.memtui/history.db: {store}/.memtui is a symbolic link; "
        "memtui keeps its history only in a real folder inside the store\n"
    )
    with pytest.raises(HistoryCorrupt, match="is a symbolic link"):
        History(store)
    with pytest.raises(OSError, match="is a symbolic link"):
        History.set_aside(store)
    index = NoteIndex.load(store)
    assert index.notes["a.md"].title == "A"
    assert listing(outside) == []
    assert not (store / "new.md").exists()


@pytest.mark.parametrize("name", ["history.db", "lock"])
def test_a_linked_history_or_lock_file_is_refused_and_not_created(
    store: Path, tmp_path: Path, name: str
) -> None:
    outside = tmp_path / "outside"
    (store / ".memtui").mkdir()
    (store / ".memtui" / name).symlink_to(outside / name)
    done = memtui_tool(store, CREATE)
    assert done.returncode == 2
    assert "is a symbolic link" in done.stderr
    assert done.stderr.count("\n") == 1
    assert listing(outside) == []
    assert not (store / "new.md").exists()


def search(store: Path) -> subprocess.CompletedProcess[str]:
    """`memtui search store one --json`."""
    return subprocess.run(
        [sys.executable, "-m", "memtui", "search", str(store), "one", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_fifo_in_place_of_the_index_is_replaced_without_waiting(store: Path) -> None:
    assert search(store).returncode == 0
    index = store / ".memtui" / "index.db"
    for name in ("index.db", "index.db-wal", "index.db-shm"):
        (store / ".memtui" / name).unlink(missing_ok=True)
    os.mkfifo(index)
    done = search(store)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[0])["path"] == "a.md"
    assert index.is_file()


def test_a_linked_index_lock_is_replaced_and_nothing_written_through_it(
    store: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    (store / ".memtui").mkdir()
    lock = store / ".memtui" / "index.lock"
    lock.symlink_to(outside / "index.lock")
    done = search(store)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[0])["path"] == "a.md"
    assert listing(outside) == []
    assert lock.is_file() and not lock.is_symlink()
    assert (store / ".memtui" / "index.db").is_file()
