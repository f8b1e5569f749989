"""Human `write`: whole-file saves checked against the loaded revision, with clear refusals."""

from __future__ import annotations

import hashlib
from pathlib import Path

from memtui.core.config import Settings
from memtui.core.store import MemoryStore


def make_store(root: Path, **settings: object) -> MemoryStore:
    """A human store on `root` with the given settings."""
    return MemoryStore(root, actor="human:ann", settings=Settings(actor="ann", **settings))  # type: ignore[arg-type]


def sha(data: bytes) -> str:
    """sha256 hex."""
    return hashlib.sha256(data).hexdigest()


def test_write_new_file_with_none_revision(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    result = store.write("/memories/notes/a.md", "hello\n", None)
    assert (result.content, result.is_error) == ("Saved /memories/notes/a.md", False)
    assert (tmp_path / "notes" / "a.md").read_bytes() == b"hello\n"
    assert oct((tmp_path / "notes").stat().st_mode & 0o777) == "0o700"
    assert oct((tmp_path / "notes" / "a.md").stat().st_mode & 0o777) == "0o600"
    event = store.history.event(result.event_id)
    assert event is not None
    assert (event.command, event.actor, event.path) == (
        "write",
        "human:ann",
        "/memories/notes/a.md",
    )
    assert (event.before_hash, event.after_hash) == (None, sha(b"hello\n"))
    assert event.args == {"path": "/memories/notes/a.md", "expected_revision": None, "size": 6}


def test_write_replaces_when_revision_matches(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    (tmp_path / "a.md").write_bytes(b"old\n")
    revision = store.revision("/memories/a.md")
    assert revision == sha(b"old\n")
    result = store.write("/memories/a.md", "new\n", revision)
    assert result.is_error is False
    assert (tmp_path / "a.md").read_bytes() == b"new\n"
    assert store.revision("/memories/a.md") == sha(b"new\n")
    assert store.read("/memories/a.md") == ("new\n", sha(b"new\n"))


def test_write_conflict_when_file_changed(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    loaded, theirs = b"loaded\n", b"agent edit\n"
    (tmp_path / "a.md").write_bytes(loaded)
    revision = store.revision("/memories/a.md")
    (tmp_path / "a.md").write_bytes(theirs)
    result = store.write("/memories/a.md", "mine\n", revision)
    assert result.is_error is True
    assert result.content == (
        f"Conflict: /memories/a.md changed since revision {sha(loaded)[:12]} was "
        f"loaded (now {sha(theirs)[:12]}); reload it or merge before saving."
    )
    assert (tmp_path / "a.md").read_bytes() == theirs
    event = store.history.event(result.event_id)
    assert event is not None and event.is_error and event.after_hash is None


def test_write_conflict_when_new_file_already_exists(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    (tmp_path / "a.md").write_bytes(b"x")
    result = store.write("/memories/a.md", "mine", None)
    assert result.is_error is True
    assert result.content == (
        f"Conflict: /memories/a.md already exists (revision {sha(b'x')[:12]}); reload it before "
        "saving."
    )
    assert (tmp_path / "a.md").read_bytes() == b"x"


def test_write_conflict_when_file_was_deleted(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    result = store.write("/memories/a.md", "mine", sha(b"x"))
    assert result.is_error is True
    assert (
        result.content
        == f"Conflict: /memories/a.md was deleted since revision {sha(b'x')[:12]} was loaded."
    )
    assert not (tmp_path / "a.md").exists()


def test_write_refuses_folder_path_traversal_and_reserved(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    (tmp_path / "dir").mkdir()
    assert (
        store.write("/memories/dir", "x", None).content
        == "Cannot write /memories/dir: it is a folder"
    )
    traversal = store.write("/memories/../x.md", "x", None)
    assert traversal.content == "Path /memories/../x.md would escape /memories directory"
    event = store.history.event(traversal.event_id)
    assert event is not None and event.flags == ("security:refused", "security:traversal")
    reserved = store.write("/memories/.memtui/history.db", "x", None)
    assert (
        reserved.content == "The path /memories/.memtui/history.db is reserved for memtui's history"
    )
    assert not (tmp_path.parent / "x.md").exists()


def test_write_refuses_text_over_max_file_size(tmp_path: Path) -> None:
    store = make_store(tmp_path, max_file_size=10)
    result = store.write("/memories/a.md", "x" * 11, None)
    assert result.is_error is True
    assert result.content == (
        "Refused: /memories/a.md would be 11B (11 bytes), over the maximum file size of "
        "10B (10 bytes). Nothing was written."
    )
    assert not (tmp_path / "a.md").exists()
    assert store.write("/memories/a.md", "x" * 10, None).is_error is False


def test_agent_commands_respect_max_file_size(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path, actor="agent:a", settings=Settings(max_file_size=20))
    assert store.create("/memories/big.md", "y" * 21).content.startswith(
        "Refused: /memories/big.md would be 21B"
    )
    assert store.create("/memories/a.md", "0123456789\n").is_error is False
    refused = store.insert("/memories/a.md", 1, "0123456789")
    assert refused.is_error and refused.content.startswith("Refused: /memories/a.md would be")
    assert (tmp_path / "a.md").read_bytes() == b"0123456789\n"
    assert not (tmp_path / "big.md").exists()


def test_write_refuses_unencodable_text(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    result = store.write("/memories/a.md", "bad \ud800", None)
    assert (result.content, result.is_error) == (
        "The text for /memories/a.md is not valid Unicode",
        True,
    )
    assert not (tmp_path / "a.md").exists()


def test_read_errors_are_one_line(tmp_path: Path) -> None:
    import pytest

    from memtui.core.store import StoreError

    store = make_store(tmp_path)
    (tmp_path / "bin").write_bytes(b"\xff\xfe")
    (tmp_path / "d").mkdir()
    for path, message in (
        ("/memories/none.md", "The path /memories/none.md does not exist"),
        ("/memories/bin", "The file /memories/bin is not valid UTF-8 text"),
        ("/memories/d", "The path /memories/d is a folder, not a file"),
        ("/etc/passwd", "Path must start with /memories, got: /etc/passwd"),
    ):
        with pytest.raises(StoreError) as caught:
            store.read(path)
        assert str(caught.value) == message
    assert store.revision("/memories/none.md") is None
    assert store.revision("/memories/d") is None
