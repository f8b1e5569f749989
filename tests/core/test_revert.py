"""Reverting every kind of event restores the exact bytes on disk, refuses conflicts, and is
undoable."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path

from memtui.core.applying.site import Site
from memtui.core.applying.snapshots import restore
from memtui.core.config import Settings
from memtui.core.recording.blobs import Manifest
from memtui.core.store import MemoryStore


def make_store(root: Path, actor: str = "agent:test") -> MemoryStore:
    """A store on `root` with default settings (no user config)."""
    return MemoryStore(root, actor=actor, settings=Settings(actor="tester"))


def tree(root: Path) -> dict[str, bytes | None]:
    """Every file (bytes) and folder (None) below `root`, except memtui's own `.memtui`."""
    found: dict[str, bytes | None] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [name for name in dirnames if name != ".memtui"]
        for name in dirnames:
            found[os.path.relpath(os.path.join(dirpath, name), root)] = None
        for name in filenames:
            path = os.path.join(dirpath, name)
            found[os.path.relpath(path, root)] = Path(path).read_bytes()
    return found


def test_revert_str_replace_restores_exact_bytes(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create("/memories/a.md", "one\r\ntwo\nthree")
    edit = store.str_replace("/memories/a.md", "two", "TWO")
    assert (tmp_path / "a.md").read_bytes() == b"one\r\nTWO\nthree"

    result = store.revert(edit.event_id)

    assert result.is_error is False
    assert result.content == f"Reverted event {edit.event_id} (str_replace /memories/a.md)"
    assert (tmp_path / "a.md").read_bytes() == b"one\r\ntwo\nthree"
    original = store.history.event(edit.event_id)
    assert original is not None and original.reverted_by == result.event_id
    revert_event = store.history.event(result.event_id)
    assert revert_event is not None and revert_event.command == "revert"
    assert revert_event.args == {"event_id": edit.event_id, "force": False}


def test_revert_insert_restores_missing_final_newline(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create("/memories/a.md", "a\nb")
    edit = store.insert("/memories/a.md", 2, "c")
    assert (tmp_path / "a.md").read_bytes() == b"a\nb\nc\n"
    assert store.revert(edit.event_id).is_error is False
    assert (tmp_path / "a.md").read_bytes() == b"a\nb"


def test_revert_create_removes_the_file(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    created = store.create("/memories/notes/a.md", "hello\n")
    assert store.revert(created.event_id).is_error is False
    assert not (tmp_path / "notes" / "a.md").exists()


def test_revert_delete_file(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create("/memories/a.md", "keep me\n")
    deleted = store.delete("/memories/a.md")
    assert not (tmp_path / "a.md").exists()
    assert store.revert(deleted.event_id).is_error is False
    assert (tmp_path / "a.md").read_bytes() == b"keep me\n"
    assert oct((tmp_path / "a.md").stat().st_mode & 0o777) == "0o600"


def test_revert_delete_folder_with_nested_files_and_empty_dirs(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create("/memories/proj/a.md", "A\n")
    store.create("/memories/proj/deep/er/b.md", "B\n")
    store.create("/memories/proj/.hidden", "H")
    (tmp_path / "proj" / "empty").mkdir()
    before = tree(tmp_path)
    deleted = store.delete("/memories/proj")
    assert not (tmp_path / "proj").exists()
    event = store.history.event(deleted.event_id)
    assert event is not None and event.before_kind == "dir" and event.after_kind is None

    assert store.revert(deleted.event_id).is_error is False

    assert tree(tmp_path) == before
    assert before["proj/deep/er/b.md"] == b"B\n"


def test_revert_rename_file(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create("/memories/a.md", "x\n")
    renamed = store.rename("/memories/a.md", "/memories/sub/b.md")
    result = store.revert(renamed.event_id)
    assert result.content == (
        f"Reverted event {renamed.event_id} (rename /memories/a.md to /memories/sub/b.md)"
    )
    assert tree(tmp_path) == {"a.md": b"x\n"}
    event = store.history.event(result.event_id)
    assert event is not None
    assert (event.path, event.new_path) == ("/memories/sub/b.md", "/memories/a.md")


def test_undoing_a_move_into_new_folders_removes_the_folders_it_made(tmp_path: Path) -> None:
    """The rename records the folders it created (`folders:made-2`); its undo removes them
    again, innermost first, as they are left empty."""
    store = make_store(tmp_path)
    store.create("/memories/a.md", "x\n")
    renamed = store.rename("/memories/a.md", "/memories/new/deeper/a.md")
    event = store.history.event(renamed.event_id)
    assert event is not None and event.flags == ("folders:made-2",)
    assert not store.revert(renamed.event_id).is_error
    assert tree(tmp_path) == {"a.md": b"x\n"}


def test_undoing_a_move_keeps_folders_it_found_or_that_hold_something_now(
    tmp_path: Path,
) -> None:
    """A folder that was there before the move stays; so does a made folder something else was
    put in meanwhile (and every folder above it)."""
    store = make_store(tmp_path)
    store.create("/memories/a.md", "x\n")
    store.create("/memories/b.md", "y\n")
    store.create("/memories/kept/c.md", "z\n")
    into_existing = store.rename("/memories/a.md", "/memories/kept/a.md")
    event = store.history.event(into_existing.event_id)
    assert event is not None and event.flags == ()
    into_new = store.rename("/memories/b.md", "/memories/made/sub/b.md")
    store.create("/memories/made/other.md", "o\n")
    assert not store.revert(into_existing.event_id).is_error
    assert not store.revert(into_new.event_id).is_error
    assert tree(tmp_path) == {
        "a.md": b"x\n",
        "b.md": b"y\n",
        "kept": None,
        "kept/c.md": b"z\n",
        "made": None,
        "made/other.md": b"o\n",
    }


def test_revert_rename_folder_and_revert_of_that_revert(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create("/memories/old/a.md", "a\n")
    store.create("/memories/old/x/b.md", "b\n")
    renamed = store.rename("/memories/old", "/memories/new")
    after_rename = tree(tmp_path)

    undo = store.revert(renamed.event_id)
    assert undo.is_error is False
    assert tree(tmp_path) == {"old": None, "old/a.md": b"a\n", "old/x": None, "old/x/b.md": b"b\n"}

    redo = store.revert(undo.event_id)
    assert redo.is_error is False
    assert tree(tmp_path) == after_rename


def test_revert_of_a_revert_reapplies_the_edit(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create("/memories/a.md", "v1\n")
    edit = store.str_replace("/memories/a.md", "v1", "v2")
    undo = store.revert(edit.event_id)
    assert (tmp_path / "a.md").read_bytes() == b"v1\n"
    redo = store.revert(undo.event_id)
    assert redo.is_error is False
    assert redo.content == f"Reverted event {undo.event_id} (revert /memories/a.md)"
    assert (tmp_path / "a.md").read_bytes() == b"v2\n"


def test_revert_write(tmp_path: Path) -> None:
    store = make_store(tmp_path, actor="human:ann")
    store.write("/memories/a.md", "first\n", None)
    saved = store.write("/memories/a.md", "second\n", store.revision("/memories/a.md"))
    assert store.revert(saved.event_id).is_error is False
    assert (tmp_path / "a.md").read_bytes() == b"first\n"


def test_revert_external_change(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create("/memories/a.md", "mine\n")
    (tmp_path / "a.md").write_bytes(b"theirs\n")
    (event_id,) = store.record_external(["a.md"])
    assert store.revert(event_id).is_error is False
    assert (tmp_path / "a.md").read_bytes() == b"mine\n"


def test_revert_external_delete(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create("/memories/a.md", "mine\n")
    (tmp_path / "a.md").unlink()
    (event_id,) = store.record_external(["a.md"])
    assert store.revert(event_id).is_error is False
    assert (tmp_path / "a.md").read_bytes() == b"mine\n"


def test_conflict_when_file_changed_since_event(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create("/memories/a.md", "v1\n")
    edit = store.str_replace("/memories/a.md", "v1", "v2")
    store.str_replace("/memories/a.md", "v2", "v3")

    result = store.revert(edit.event_id)

    assert result.is_error is True
    assert result.content.startswith("Conflict: /memories/a.md changed since event 2 (str_replace)")
    assert (tmp_path / "a.md").read_bytes() == b"v3\n"
    original = store.history.event(edit.event_id)
    assert original is not None and original.reverted_by is None
    refused = store.history.event(result.event_id)
    assert refused is not None and refused.is_error and refused.before_hash is None


def test_conflict_reverting_create_when_file_edited_since(tmp_path: Path) -> None:
    """Undoing a create would delete the file; an edit made since is not thrown away."""
    store = make_store(tmp_path)
    created = store.create("/memories/a.md", "v1\n")
    store.insert("/memories/a.md", 1, "added")
    revision = store.revision("/memories/a.md")
    assert revision is not None

    result = store.revert(created.event_id)

    assert result.is_error is True
    assert result.content == (
        f"Conflict: /memories/a.md changed since event {created.event_id} (create); "
        f"it is now a file at revision {revision[:12]}."
    )
    assert (tmp_path / "a.md").read_bytes() == b"v1\nadded\n"
    forced = store.revert(created.event_id, force=True)
    assert forced.is_error is False and not (tmp_path / "a.md").exists()
    assert store.revert(forced.event_id).is_error is False
    assert (tmp_path / "a.md").read_bytes() == b"v1\nadded\n"


def test_conflict_reverting_insert_when_file_edited_or_deleted_since(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create("/memories/a.md", "one\ntwo\n")
    inserted = store.insert("/memories/a.md", 1, "middle")
    store.str_replace("/memories/a.md", "two", "TWO")

    result = store.revert(inserted.event_id)

    assert result.is_error is True
    assert result.content.startswith(
        f"Conflict: /memories/a.md changed since event {inserted.event_id} (insert); "
        "it is now a file at revision "
    )
    assert (tmp_path / "a.md").read_bytes() == b"one\nmiddle\nTWO\n"
    store.delete("/memories/a.md")
    gone = store.revert(inserted.event_id)
    assert gone.is_error is True
    assert gone.content == (
        f"Conflict: /memories/a.md changed since event {inserted.event_id} (insert); "
        "it is now missing."
    )
    assert not (tmp_path / "a.md").exists()
    assert store.revert(inserted.event_id, force=True).is_error is False
    assert (tmp_path / "a.md").read_bytes() == b"one\ntwo\n"


def test_force_overrides_conflict_and_keeps_overwritten_content(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create("/memories/a.md", "v1\n")
    edit = store.str_replace("/memories/a.md", "v1", "v2")
    store.str_replace("/memories/a.md", "v2", "v3")

    forced = store.revert(edit.event_id, force=True)

    assert forced.is_error is False
    assert (tmp_path / "a.md").read_bytes() == b"v1\n"
    assert store.revert(forced.event_id).is_error is False
    assert (tmp_path / "a.md").read_bytes() == b"v3\n"


def test_conflict_reverting_delete_when_path_recreated(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create("/memories/a.md", "old\n")
    deleted = store.delete("/memories/a.md")
    store.create("/memories/a.md", "new\n")
    result = store.revert(deleted.event_id)
    assert result.is_error and result.content.startswith("Conflict: ")
    assert (tmp_path / "a.md").read_bytes() == b"new\n"


def test_conflict_reverting_rename_when_source_exists_again(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create("/memories/a.md", "x\n")
    renamed = store.rename("/memories/a.md", "/memories/b.md")
    store.create("/memories/a.md", "other\n")
    result = store.revert(renamed.event_id, force=True)
    assert result.is_error is True
    assert result.content == (
        "Conflict: /memories/a.md exists again, so /memories/b.md cannot move back; "
        "move or delete it first."
    )
    assert tree(tmp_path) == {"a.md": b"other\n", "b.md": b"x\n"}


def test_conflict_reverting_rename_when_destination_edited(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create("/memories/a.md", "x\n")
    renamed = store.rename("/memories/a.md", "/memories/b.md")
    store.str_replace("/memories/b.md", "x", "y")
    result = store.revert(renamed.event_id)
    assert result.is_error and result.content.startswith("Conflict: /memories/b.md changed")
    forced = store.revert(renamed.event_id, force=True)
    assert forced.is_error is False
    assert tree(tmp_path) == {"a.md": b"x\n"}


def test_already_reverted_is_a_conflict(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create("/memories/a.md", "x\n")
    edit = store.str_replace("/memories/a.md", "x", "x")
    first = store.revert(edit.event_id)
    second = store.revert(edit.event_id)
    assert second.is_error is True
    assert second.content == (
        f"Conflict: event {edit.event_id} was already reverted by event {first.event_id}."
    )


def test_refused_failed_and_read_events_have_nothing_to_revert(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    failed = store.str_replace("/memories/missing.md", "a", "b")
    read = store.view("/memories")
    refused = store.view("/memories/../etc")
    for event_id, command in ((failed.event_id, "str_replace"), (read.event_id, "view")):
        result = store.revert(event_id)
        assert result.is_error is True
        assert result.content == f"Nothing to revert: event {event_id} ({command}) changed nothing"
    assert store.revert(refused.event_id).content.startswith("Nothing to revert")
    assert store.revert(999).content == "There is no event 999 to revert"
    assert tree(tmp_path) == {}


def modes(root: Path) -> dict[str, str]:
    """The permission bits of every file and folder below `root` (except `.memtui`), in octal."""
    found = {".": oct(stat.S_IMODE(root.stat().st_mode))}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [name for name in dirnames if name != ".memtui"]
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            found[str(path.relative_to(root))] = oct(stat.S_IMODE(path.lstat().st_mode))
    return found


def test_revert_delete_folder_restores_permission_modes(tmp_path: Path) -> None:
    """Files and folders come back with the modes they had, not memtui's 0600/0700."""
    store = make_store(tmp_path)
    store.create("/memories/shared/notes.md", "N\n")
    store.create("/memories/shared/team/plan.md", "P\n")
    store.create("/memories/shared/private.md", "S\n")
    os.chmod(tmp_path / "shared", 0o755)
    os.chmod(tmp_path / "shared/team", 0o750)
    os.chmod(tmp_path / "shared/notes.md", 0o640)
    os.chmod(tmp_path / "shared/team/plan.md", 0o444)
    before_modes, before_tree = modes(tmp_path / "shared"), tree(tmp_path)
    deleted = store.delete("/memories/shared")
    assert not deleted.is_error and not (tmp_path / "shared").exists()

    assert store.revert(deleted.event_id).is_error is False

    assert modes(tmp_path / "shared") == before_modes
    assert before_modes == {
        ".": "0o755",
        "team": "0o750",
        "notes.md": "0o640",
        "private.md": "0o600",
        "team/plan.md": "0o444",
    }
    assert tree(tmp_path) == before_tree


def restore_at(path: Path, kind: str, key: str, blob: Callable[[str], bytes | None]) -> None:
    """`restore` of a state at a real path, through a site on its parent folder."""
    with Site.open(path.parent) as site, site.locate((path.name,)) as location:
        restore(location, kind, key, blob, site.temps)


def test_a_folder_without_write_permission_is_restored_filled(tmp_path: Path) -> None:
    """Folder modes are set after the files are written, so a read-only folder gets its files."""
    manifest = Manifest(("deep",), {"deep/a.md": "k"}, {}, {"": 0o500, "deep": 0o500})
    restore_at(tmp_path / "ro", "dir", "m", {"m": manifest.to_bytes(), "k": b"A"}.get)
    try:
        assert modes(tmp_path / "ro") == {".": "0o500", "deep": "0o500", "deep/a.md": "0o600"}
        assert (tmp_path / "ro/deep/a.md").read_bytes() == b"A"
    finally:
        os.chmod(tmp_path / "ro", 0o700)
        os.chmod(tmp_path / "ro/deep", 0o700)


def test_a_mode_change_alone_is_not_a_conflict_for_a_folder_rename(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create("/memories/old/a.md", "a\n")
    renamed = store.rename("/memories/old", "/memories/new")
    os.chmod(tmp_path / "new/a.md", 0o644)
    result = store.revert(renamed.event_id)
    assert result.is_error is False, result.content
    assert oct(stat.S_IMODE((tmp_path / "old/a.md").stat().st_mode)) == "0o644"


def test_a_manifest_without_modes_restores_memtui_modes(tmp_path: Path) -> None:
    """Folder deletes recorded before modes were kept restore as 0700 folders and 0600 files."""
    old = json.dumps(
        {"dirs": ["d"], "files": {"d/a.md": "k"}, "links": {}},
        sort_keys=True,
        separators=(",", ":"),
    ).encode()
    manifest = Manifest.from_bytes(old)
    assert manifest.modes == {} and manifest.to_bytes() == old
    restore_at(tmp_path / "f", "dir", "m", {"m": old, "k": b"A"}.get)
    assert modes(tmp_path / "f") == {".": "0o700", "d": "0o700", "d/a.md": "0o600"}
