"""The parsed-note cache: reused when size and mtime match, rebuilt when corrupt or stale."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from memtui.notes import cache as note_cache
from memtui.notes.index import NoteIndex

TEXT = "---\ntitle: Alpha\ntags: [t]\n---\n\n- [fact] first #x (ctx)\n- uses [[Beta]]\n"


def fail_parse(*args: object, **kwargs: object) -> object:
    """Stands in for the parser when a test requires that nothing is parsed."""
    raise AssertionError("parsed although the cache was valid")


def test_second_load_uses_the_cache_without_parsing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.md").write_text(TEXT)
    first = NoteIndex.load(tmp_path)
    assert note_cache.cache_path(tmp_path).is_file()
    assert sorted(os.listdir(tmp_path / ".memtui")) == ["notes-cache.pickle"]
    monkeypatch.setattr("memtui.notes.parser.parse_note", fail_parse)
    second = NoteIndex.load(tmp_path)
    assert second.notes == first.notes
    assert second.texts == {"a.md": TEXT}
    assert second.notes["a.md"].observations[0].tags == ["x"]


def test_changed_file_is_reparsed(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text(TEXT)
    NoteIndex.load(tmp_path)
    path.write_text(TEXT.replace("Alpha", "Gamma, longer"))
    assert NoteIndex.load(tmp_path).notes["a.md"].title == "Gamma, longer"
    stat = path.stat()
    path.write_text(TEXT.replace("Alpha", "Delta"))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert NoteIndex.load(tmp_path).notes["a.md"].title == "Delta"


@pytest.mark.parametrize(
    "payload",
    [b"not a pickle", pickle.dumps(("wrong", {})), pickle.dumps([1, 2, 3]), b""],
)
def test_corrupt_or_foreign_cache_is_ignored_and_rebuilt(tmp_path: Path, payload: bytes) -> None:
    (tmp_path / "a.md").write_text(TEXT)
    cache_file = note_cache.cache_path(tmp_path)
    cache_file.parent.mkdir()
    cache_file.write_bytes(payload)
    index = NoteIndex.load(tmp_path)
    assert index.notes["a.md"].title == "Alpha"
    assert set(note_cache.load_cache(tmp_path)) == {"a.md"}


def test_bad_entry_in_a_valid_cache_is_reread(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(TEXT)
    NoteIndex.load(tmp_path)
    entries = note_cache.load_cache(tmp_path)
    size, mtime_ns, _, text = entries["a.md"]
    entries["a.md"] = (size, mtime_ns, ("too", "short"), text)
    note_cache.save_cache(tmp_path, entries)
    assert NoteIndex.load(tmp_path).notes["a.md"].title == "Alpha"


def test_use_cache_false_neither_reads_nor_writes(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(TEXT)
    NoteIndex.load(tmp_path, use_cache=False)
    assert not (tmp_path / ".memtui").exists()


def test_read_only_store_still_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.md").write_text(TEXT)

    def refuse(*args: object, **kwargs: object) -> object:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(note_cache.tempfile, "mkstemp", refuse)
    assert NoteIndex.load(tmp_path).notes["a.md"].title == "Alpha"
    assert not note_cache.cache_path(tmp_path).exists()


def test_deleted_file_drops_out_of_the_cache(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(TEXT)
    (tmp_path / "b.md").write_text("---\ntitle: Beta\n---\n")
    NoteIndex.load(tmp_path)
    (tmp_path / "b.md").unlink()
    index = NoteIndex.load(tmp_path)
    assert sorted(index.notes) == ["a.md"]
    assert set(note_cache.load_cache(tmp_path)) == {"a.md"}
    assert index.outgoing("a.md")[0][1] is None
