"""Start-up recovery records changes the history missed as `external` events, and nothing else."""

from __future__ import annotations

import hashlib
from pathlib import Path

from memtui.core.opening.recovery import recover
from memtui.core.store import MemoryStore


def externals(root: Path) -> list[tuple[str | None, str, str | None]]:
    """(path, result, after_hash) of every external event, oldest first."""
    return [
        (event.path, event.result, event.after_hash)
        for event in MemoryStore(root, actor="human:t").history.events(
            command="external", newest_first=False
        )
    ]


def test_edits_creations_and_deletions_behind_memtuis_back_are_recorded(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path, actor="agent:a")
    assert not store.create("/memories/keep.md", "same\n").is_error
    assert not store.create("/memories/edit.md", "old\n").is_error
    assert not store.create("/memories/gone/file.md", "bye\n").is_error
    assert not store.delete("/memories/gone").is_error
    assert not store.create("/memories/del.md", "x\n").is_error
    (tmp_path / "edit.md").write_bytes(b"new\n")
    (tmp_path / "del.md").unlink()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "made.md").write_bytes(b"made\n")

    assert externals(tmp_path) == [
        ("/memories/del.md", "/memories/del.md was deleted outside memtui", None),
        (
            "/memories/edit.md",
            "/memories/edit.md was changed outside memtui",
            hashlib.sha256(b"new\n").hexdigest(),
        ),
        (
            "/memories/sub/made.md",
            "/memories/sub/made.md was created outside memtui",
            hashlib.sha256(b"made\n").hexdigest(),
        ),
    ]
    assert recover(MemoryStore(tmp_path)).external_event_ids == []


def test_folder_rename_and_revert_leave_nothing_to_record(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path, actor="agent:a")
    assert not store.create("/memories/a/one.md", "1\n").is_error
    assert not store.create("/memories/a/b/two.md", "2\n").is_error
    assert not store.rename("/memories/a", "/memories/z").is_error
    deleted = store.delete("/memories/z")
    assert not deleted.is_error
    assert deleted.event_id is not None
    assert not store.revert(deleted.event_id).is_error
    assert (tmp_path / "z" / "b" / "two.md").read_bytes() == b"2\n"

    assert externals(tmp_path) == []
