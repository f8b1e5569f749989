"""The parsed-note cache: reused when size and mtime match, rebuilt when corrupt or stale."""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any

import pytest

from memtui.notes import cache as note_cache
from memtui.notes.index import NoteIndex

TEXT = "---\ntitle: Alpha\ntags: [t]\n---\n\n- [fact] first #x (ctx)\n- uses [[Beta]]\n"


def cached_paths(root: Path) -> list[str] | None:
    """The relpaths the cache holds (None when there is no usable cache)."""
    cached = note_cache.load_cache(root)
    return cached.relpaths if cached is not None else None


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


def test_a_change_of_size_alone_is_seen(tmp_path: Path) -> None:
    """Same mtime, another size: the cached parse is not used."""
    path = tmp_path / "a.md"
    path.write_text(TEXT)
    NoteIndex.load(tmp_path)
    before = path.stat()
    path.write_text(TEXT.replace("Alpha", "Alpha longer"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_mtime_ns == before.st_mtime_ns
    assert NoteIndex.load(tmp_path).notes["a.md"].title == "Alpha longer"


def test_a_change_of_mtime_alone_is_seen(tmp_path: Path) -> None:
    """Same size, another mtime: the cached parse is not used."""
    path = tmp_path / "a.md"
    path.write_text(TEXT)
    NoteIndex.load(tmp_path)
    before = path.stat()
    path.write_text(TEXT.replace("Alpha", "Gamma"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))
    assert path.stat().st_size == before.st_size
    assert NoteIndex.load(tmp_path).notes["a.md"].title == "Gamma"


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
    assert cached_paths(tmp_path) == ["a.md"]


def test_bad_entry_in_a_valid_cache_is_reread(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(TEXT)
    NoteIndex.load(tmp_path)
    cached = note_cache.load_cache(tmp_path)
    assert cached is not None
    cached.packed[cached.relpaths.index("a.md")] = ("too", "short")  # type: ignore[assignment]
    note_cache.save_cache(tmp_path, cached)
    assert NoteIndex.load(tmp_path).notes["a.md"].title == "Alpha"


def test_use_cache_false_neither_reads_nor_writes(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(TEXT)
    NoteIndex.load(tmp_path, use_cache=False)
    assert not (tmp_path / ".memtui").exists()


def test_read_only_store_still_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.md").write_text(TEXT)

    real_mkstemp = note_cache.sealed.tempfile.mkstemp

    def refuse_in_store(*args: Any, **kwargs: Any) -> Any:
        if tmp_path in Path(kwargs["dir"]).parents:
            raise PermissionError(13, "Permission denied")
        return real_mkstemp(*args, **kwargs)

    monkeypatch.setattr(note_cache.sealed.tempfile, "mkstemp", refuse_in_store)
    assert NoteIndex.load(tmp_path).notes["a.md"].title == "Alpha"
    assert not note_cache.cache_path(tmp_path).exists()


def test_deleted_file_drops_out_of_the_cache(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(TEXT)
    (tmp_path / "b.md").write_text("---\ntitle: Beta\n---\n")
    NoteIndex.load(tmp_path)
    (tmp_path / "b.md").unlink()
    index = NoteIndex.load(tmp_path)
    assert sorted(index.notes) == ["a.md"]
    assert cached_paths(tmp_path) == ["a.md"]
    assert index.outgoing("a.md")[0][1] is None


LONG_BODY = "".join(f"- [fact] point number {i} about caching #c{i % 3}\n" for i in range(40))


def test_notes_read_like_a_dict_of_parsed_notes(tmp_path: Path) -> None:
    from memtui.notes.parser import parse_note

    (tmp_path / "b.md").write_text(TEXT)
    (tmp_path / "a.md").write_text("---\ntitle: Long\n---\n\n" + LONG_BODY)
    for index in (NoteIndex.load(tmp_path), NoteIndex.load(tmp_path)):
        assert len(index.notes) == 2
        assert "a.md" in index.notes and "c.md" not in index.notes
        assert index.notes.get("c.md") is None
        with pytest.raises(KeyError):
            index.notes["c.md"]
        for relpath, note in index.notes.items():
            data = (tmp_path / relpath).read_bytes()
            mtime = (tmp_path / relpath).stat().st_mtime_ns / 1e9
            expected = parse_note(data, relpath, mtime=mtime)
            assert note == expected
        assert [n.title for n in index.notes.values()] == [
            index.notes[p].title for p in index.notes
        ]
        assert index.notes["a.md"] is index.notes["a.md"]
        assert index.notes["a.md"].observations[39].content == "point number 39 about caching #c0"
        assert index.notes["a.md"].observations[39].tags == ["c0"]
        assert index.texts["a.md"] == "---\ntitle: Long\n---\n\n" + LONG_BODY
        assert index.texts.get("c.md") is None


def test_cache_holds_notes_packed_and_texts_plain(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(TEXT)
    NoteIndex.load(tmp_path)
    cached = note_cache.load_cache(tmp_path)
    assert cached is not None
    row = cached.relpaths.index("a.md")
    size, packed, text = cached.sizes[row], cached.packed[row], cached.texts[row]
    assert size == len(TEXT)
    assert text == TEXT
    assert packed[:4] == ("Alpha", "a", "note", ("uses", "Beta", None, 7))
    assert note_cache.unpack_note("a.md", packed, text).observations[0].content == "first #x"


def test_update_replaces_a_note_already_read(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(TEXT)
    index = NoteIndex.load(tmp_path)
    before = index.notes["a.md"]
    assert before.title == "Alpha"
    (tmp_path / "a.md").write_text(TEXT.replace("Alpha", "Renamed title") + LONG_BODY)
    assert index.update_paths(["a.md"]) == {"a.md"}
    assert index.notes["a.md"].title == "Renamed title"
    assert len(index.notes["a.md"].observations) == 41
    assert index.texts["a.md"] == TEXT.replace("Alpha", "Renamed title") + LONG_BODY
    assert before.title == "Alpha"
    (tmp_path / "a.md").unlink()
    assert index.update_paths(["a.md"]) == {"a.md"}
    assert "a.md" not in index.notes and "a.md" not in index.texts
    assert len(index.notes) == 0 and list(index.texts) == []


def test_search_snapshot_keeps_the_packed_texts(tmp_path: Path) -> None:
    from memtui.notes.search import Searcher

    long_text = "---\ntitle: Long\n---\n\n" + LONG_BODY
    (tmp_path / "a.md").write_text(long_text)
    index = NoteIndex.load(tmp_path)
    assert Searcher(index).save_snapshot(tmp_path, index.file_stats())
    restored = Searcher.from_snapshot(tmp_path, index.file_stats())
    assert restored is not None
    assert restored.texts["a.md"] == long_text
    hits = restored.search("number 17", limit=1)
    assert [(h.path, h.line) for h in hits] == [("a.md", 22)]


def test_payload_from_other_code_is_not_unpickled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class Loud:
        def __reduce__(self) -> tuple[object, tuple[str]]:
            return (print, ("payload was unpickled",))

    monkeypatch.setattr(note_cache, "_code_stamp", lambda: ("older code",))
    assert note_cache.write_payload(tmp_path, note_cache.CACHE_NAME, Loud())
    monkeypatch.undo()
    assert note_cache.load_cache(tmp_path) is None
    assert capsys.readouterr().out == ""


def test_iteration_survives_updates_made_while_iterating(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(TEXT)
    (tmp_path / "b.md").write_text("---\ntitle: Beta\n---\n")
    (tmp_path / "c.md").write_text("---\ntitle: Gamma\n---\n")
    index = NoteIndex.load(tmp_path)
    assert index.titles() == {"a.md": "Alpha", "b.md": "Beta", "c.md": "Gamma"}
    seen = []
    for relpath, note in index.notes.items():
        seen.append((relpath, note.title))
        if relpath == "a.md":
            (tmp_path / "c.md").unlink()
            (tmp_path / "d.md").write_text("---\ntitle: Delta\n---\n")
            assert index.update_paths(["c.md", "d.md"]) == {"c.md", "d.md"}
    assert seen == [("a.md", "Alpha"), ("b.md", "Beta"), ("c.md", "Gamma")]
    assert list(index.notes) == ["a.md", "b.md", "d.md"]
    assert [n.title for n in index.notes.values()] == ["Alpha", "Beta", "Delta"]
    assert index.titles() == {"a.md": "Alpha", "b.md": "Beta", "d.md": "Delta"}


def test_a_cache_whose_rows_are_out_of_order_is_ignored(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(TEXT)
    (tmp_path / "b.md").write_text("---\ntitle: Beta\n---\n")
    NoteIndex.load(tmp_path)
    cached = note_cache.load_cache(tmp_path)
    assert cached is not None and cached.relpaths == ["a.md", "b.md"]
    swapped = cached._replace(relpaths=["b.md", "a.md"])
    assert note_cache.save_cache(tmp_path, swapped)
    assert note_cache.load_cache(tmp_path) is None
    index = NoteIndex.load(tmp_path)
    assert index.titles() == {"a.md": "Alpha", "b.md": "Beta"}
    assert cached_paths(tmp_path) == ["a.md", "b.md"]
