"""A rename never replaces what it did not check: the primitive, and every rename path when
another process creates the destination just after memtui's check (deterministically: the check
is wrapped so the destination appears right after it)."""

from __future__ import annotations

import errno
import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memtui.cli import main
from memtui.core.applying import handlers, reverting
from memtui.core.config import Settings
from memtui.core.recording import history as history_module
from memtui.core.resolving import fd_paths
from memtui.core.resolving.fd_paths import rename_noreplace
from memtui.core.store import MemoryStore
from memtui.notes.operations.moving import move
from memtui.notes.workspace import Workspace

PLANTED = b"planted by another process\n"


@pytest.fixture(params=["renameat2", "link and unlink"])
def primitive(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test with RENAME_NOREPLACE, and again as on a filesystem without it (EINVAL)."""
    if request.param != "renameat2":

        def unsupported(*_args: object) -> None:
            raise OSError(errno.EINVAL, os.strerror(errno.EINVAL))

        monkeypatch.setattr(fd_paths, "renameat2", unsupported)
    return str(request.param)


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[int]:
    """A descriptor of `tmp_path`."""
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield fd
    finally:
        os.close(fd)


def plant(path: Path, kind: str) -> int:
    """Put a file (PLANTED), an empty folder or a link at `path`; its inode."""
    if kind == "file":
        path.write_bytes(PLANTED)
    elif kind == "folder":
        path.mkdir()
    else:
        path.symlink_to("nowhere")
    return path.lstat().st_ino


@pytest.mark.parametrize("source_kind", ["file", "folder"])
@pytest.mark.parametrize("planted", ["file", "folder", "link"])
def test_the_primitive_refuses_any_destination_and_keeps_both(
    tmp_path: Path, folder: int, primitive: str, source_kind: str, planted: str
) -> None:
    source = tmp_path / "a"
    if source_kind == "file":
        source.write_bytes(b"mine")
    else:
        source.mkdir()
        (source / "inside").write_bytes(b"mine")
    inode = plant(tmp_path / "b", planted)
    with pytest.raises(FileExistsError):
        rename_noreplace(folder, "a", folder, "b")
    assert (tmp_path / "b").lstat().st_ino == inode
    if planted == "file":
        assert (tmp_path / "b").read_bytes() == PLANTED
    if planted == "folder":
        assert os.listdir(tmp_path / "b") == []
    assert (source / "inside" if source_kind == "folder" else source).read_bytes() == b"mine"


@pytest.mark.parametrize("source_kind", ["file", "folder", "link"])
def test_the_primitive_moves_to_a_free_name_keeping_the_inode(
    tmp_path: Path, folder: int, primitive: str, source_kind: str
) -> None:
    inode = plant(tmp_path / "a", source_kind)
    (tmp_path / "sub").mkdir()
    sub = os.open(tmp_path / "sub", os.O_RDONLY | os.O_DIRECTORY)
    try:
        rename_noreplace(folder, "a", sub, "b")
    finally:
        os.close(sub)
    assert sorted(os.listdir(tmp_path)) == ["sub"]
    assert (tmp_path / "sub" / "b").lstat().st_ino == inode


def test_the_primitive_keeps_the_kernel_errors(tmp_path: Path, folder: int, primitive: str) -> None:
    (tmp_path / "d").mkdir()
    with pytest.raises(OSError) as into_itself:
        rename_noreplace(folder, "d", folder, "d/e")
    assert into_itself.value.errno == errno.EINVAL
    with pytest.raises(FileNotFoundError):
        rename_noreplace(folder, "missing", folder, "x")
    with pytest.raises(ValueError, match="embedded null byte"):
        rename_noreplace(folder, "d\0x", folder, "x")


# Every rename path, with the destination created right after memtui checked it.


def store_on(root: Path, actor: str = "agent:test") -> MemoryStore:
    """A store on `root` with default settings (no user config)."""
    return MemoryStore(root, actor=actor, settings=Settings(actor="tester"))


def plant_after_check(
    monkeypatch: pytest.MonkeyPatch,
    owner: Any,
    name: str,
    where: Path,
    kind: str = "file",
    call: int = 1,
) -> list[int]:
    """Wrap the check `owner.name` so that `where` is planted right after its `call`th run;
    the inode planted."""
    real: Callable[..., Any] = getattr(owner, name)
    planted: list[int] = []
    calls: list[None] = []

    def checked_then_planted(*args: Any, **kwargs: Any) -> Any:
        result = real(*args, **kwargs)
        calls.append(None)
        if len(calls) == call:
            planted.append(plant(where, kind))
        return result

    monkeypatch.setattr(owner, name, checked_then_planted)
    return planted


def rename_events(store: MemoryStore) -> list[tuple[str, bool, bool]]:
    """(command, is_error, changed) of every rename event, oldest first."""
    return [
        (event.command, event.is_error, event.changed)
        for event in store.history.events()
        if event.command == "rename"
    ]


def test_a_memory_rename_that_loses_the_race_says_already_exists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = store_on(tmp_path)
    store.create("/memories/a.md", "mine\n")
    planted = plant_after_check(monkeypatch, handlers, "_exists", tmp_path / "b.md")
    result = store.rename("/memories/a.md", "/memories/b.md")
    assert planted
    assert (result.content, result.is_error) == (
        "Error: The destination /memories/b.md already exists",
        True,
    )
    assert (tmp_path / "b.md").read_bytes() == PLANTED
    assert (tmp_path / "a.md").read_bytes() == b"mine\n"
    assert rename_events(store) == [("rename", True, False)]


def test_a_folder_move_never_replaces_an_empty_folder_made_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = store_on(tmp_path)
    store.create("/memories/d/a.md", "mine\n")
    planted = plant_after_check(monkeypatch, handlers, "_exists", tmp_path / "e", "folder")
    result = store.rename("/memories/d", "/memories/e")
    assert (result.content, result.is_error) == (
        "Error: The destination /memories/e already exists",
        True,
    )
    assert (tmp_path / "e").stat().st_ino == planted[0]
    assert os.listdir(tmp_path / "e") == []
    assert (tmp_path / "d" / "a.md").read_bytes() == b"mine\n"
    assert rename_events(store) == [("rename", True, False)]


def test_move_note_that_loses_the_race_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = store_on(tmp_path)
    store.create("/memories/a.md", "mine\n")
    plant_after_check(monkeypatch, handlers, "_exists", tmp_path / "b.md")
    moved = move(Workspace(store), "a.md", "b.md", rewrite_links=True)
    assert (moved.summary, moved.result.is_error) == (
        "Error: The destination /memories/b.md already exists",
        True,
    )
    assert (tmp_path / "b.md").read_bytes() == PLANTED
    assert (tmp_path / "a.md").read_bytes() == b"mine\n"


def test_memtui_mv_that_loses_the_race_says_already_exists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MEMTUI_CONFIG_FILE", os.devnull)
    store_on(tmp_path).create("/memories/a.md", "mine\n")
    plant_after_check(monkeypatch, handlers, "_exists", tmp_path / "b.md")
    assert main(["mv", str(tmp_path), "a.md", "b.md"]) == 1
    assert capsys.readouterr().err == (
        "memtui mv: Error: The destination /memories/b.md already exists\n"
    )
    assert (tmp_path / "b.md").read_bytes() == PLANTED
    assert (tmp_path / "a.md").read_bytes() == b"mine\n"


def moved_back_refused(store: MemoryStore, event_id: int, force: bool) -> tuple[str, bool]:
    """Undo rename `event_id` and check nothing was recorded as undone; (content, is_error)."""
    result = store.revert(event_id, force=force)
    original = store.history.event(event_id)
    assert original is not None and original.reverted_by is None
    last = store.history.event(result.event_id) if result.event_id else None
    assert last is not None and last.command == "revert" and not last.changed
    return result.content, result.is_error


@pytest.mark.parametrize("edited", [False, True], ids=["moved back", "forced over an edit"])
def test_undoing_a_rename_never_replaces_a_file_made_at_the_old_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edited: bool
) -> None:
    store = store_on(tmp_path, "human:tester")
    store.create("/memories/a.md", "mine\n")
    renamed = store.rename("/memories/a.md", "/memories/b.md")
    if edited:
        store.str_replace("/memories/b.md", "mine", "edited")
    plant_after_check(monkeypatch, reverting, "_move_refusal", tmp_path / "a.md")
    assert moved_back_refused(store, renamed.event_id or 0, force=edited) == (
        "Conflict: /memories/a.md exists again, so /memories/b.md cannot move back; "
        "move or delete it first.",
        True,
    )
    assert (tmp_path / "a.md").read_bytes() == PLANTED
    assert (tmp_path / "b.md").read_bytes() == (b"edited\n" if edited else b"mine\n")


def test_undoing_an_operation_that_moved_a_folder_keeps_a_folder_made_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = store_on(tmp_path, "human:tester")
    store.create("/memories/d/a.md", "mine\n")
    moved = move(Workspace(store), "d", "e", rewrite_links=False)
    assert moved.group_id is not None
    planted = plant_after_check(
        monkeypatch, reverting, "_move_refusal", tmp_path / "d", "folder", call=2
    )
    result = store.revert_group(moved.group_id)
    assert (result.content, result.is_error) == (
        f"Cannot undo operation {moved.group_id} (rename /memories/d to /memories/e): "
        "Conflict: /memories/d exists again, so /memories/e cannot move back; move or delete it "
        "first. Nothing changed.",
        True,
    )
    assert (tmp_path / "d").stat().st_ino == planted[0]
    assert os.listdir(tmp_path / "d") == []
    assert (tmp_path / "e" / "a.md").read_bytes() == b"mine\n"


def test_undoing_a_delete_never_replaces_a_file_made_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = store_on(tmp_path, "human:tester")
    store.create("/memories/a.md", "mine\n")
    deleted = store.delete("/memories/a.md")
    plant_after_check(monkeypatch, reverting, "_in_place_refusal", tmp_path / "a.md")
    result = store.revert(deleted.event_id or 0)
    assert result.is_error
    assert result.content.startswith(
        f"Conflict: /memories/a.md changed since event {deleted.event_id} (delete); "
        "it is now a file at revision "
    )
    assert (tmp_path / "a.md").read_bytes() == PLANTED


def test_a_rename_put_back_after_a_failed_record_never_replaces_the_old_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = store_on(tmp_path)
    store.create("/memories/a.md", "mine\n")
    real = history_module.History._replace_event

    def planted_then_full(self: Any, conn: sqlite3.Connection, *args: Any) -> None:
        real(self, conn, *args)
        (tmp_path / "a.md").write_bytes(PLANTED)
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(history_module.History, "_replace_event", planted_then_full)
    result = store.rename("/memories/a.md", "/memories/b.md")
    assert result.is_error
    assert "nor undo it" in result.content and "the change stays on disk" in result.content
    assert (tmp_path / "a.md").read_bytes() == PLANTED
    assert (tmp_path / "b.md").read_bytes() == b"mine\n"
