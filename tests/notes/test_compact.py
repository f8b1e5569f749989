"""The compact in-memory forms: packed notes sharing their text, path sets, stamps, line kinds."""

from __future__ import annotations

import pickle
import zlib
from pathlib import Path

import pytest

from memtui.notes import cache as note_cache
from memtui.notes.index import (
    SMALL_SET,
    NoteIndex,
    add_member,
    discard_member,
    members,
    stamp,
    unstamp,
)
from memtui.notes.parser import parse_note
from memtui.notes.search import Searcher

TEXT = (
    "---\ntitle: Alpha\n---\n\n"
    "- [fact] first fact #x (ctx)\n"
    "- [idea] second idea\n"
    "- uses [[Beta]]\n"
    "- links_to [[Gamma]] (why)\n"
)


def test_a_packed_note_shares_observation_contents_with_its_text() -> None:
    note = parse_note(TEXT.encode(), "a.md")
    packed = note_cache.pack_note(note, TEXT)
    rows = pickle.loads(zlib.decompress(packed[4]))
    assert "second idea" not in repr(rows)
    assert note_cache.unpack_note("a.md", packed, TEXT) == note
    with pytest.raises(ValueError):
        note_cache.unpack_note("a.md", packed)


def test_a_note_packed_without_its_text_keeps_its_contents() -> None:
    note = parse_note(TEXT.encode(), "a.md")
    packed = note_cache.pack_note(note)
    assert "second idea" in repr(pickle.loads(zlib.decompress(packed[4])))
    assert note_cache.unpack_note("a.md", packed) == note


def test_content_missing_from_the_text_is_kept_verbatim() -> None:
    note = parse_note(TEXT.encode(), "a.md")
    note.observations[1].content = "not in the text"
    packed = note_cache.pack_note(note, TEXT)
    assert note_cache.unpack_note("a.md", packed, TEXT).observations[1].content == (
        "not in the text"
    )


def test_the_index_materialises_cached_notes_with_their_texts(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(TEXT)
    fresh = NoteIndex.load(tmp_path).notes["a.md"]
    warm = NoteIndex.load(tmp_path)
    assert warm.notes["a.md"] == fresh
    assert [o.content for o in fresh.observations] == ["first fact #x", "second idea"]


@pytest.mark.parametrize("count", [2, SMALL_SET, SMALL_SET + 1, 3 * SMALL_SET])
def test_path_sets_of_any_size_add_and_discard(count: int) -> None:
    table: dict[str, object] = {}
    names = [f"n{i:02}.md" for i in range(count)]
    for name in names:
        add_member(table, "k", name)  # type: ignore[arg-type]
        add_member(table, "k", name)  # type: ignore[arg-type]
    assert sorted(members(table, "k")) == names  # type: ignore[arg-type]
    for i, name in enumerate(names):
        discard_member(table, "k", name)  # type: ignore[arg-type]
        assert sorted(members(table, "k")) == names[i + 1 :]  # type: ignore[arg-type]
    assert table == {}


def test_backlinks_of_a_hub_follow_links_added_and_removed(tmp_path: Path) -> None:
    (tmp_path / "hub.md").write_text("# Hub\n")
    count = 2 * SMALL_SET + 3
    for i in range(count):
        (tmp_path / f"s{i:02}.md").write_text(f"# S{i}\n\n- uses [[Hub]]\n")
    index = NoteIndex.load(tmp_path)
    assert len(index.backlinks("hub.md")) == count
    for i in range(count - 1):
        (tmp_path / f"s{i:02}.md").unlink()
        index.update_paths([f"s{i:02}.md"])
        assert [s for s, _ in index.backlinks("hub.md")] == [
            f"s{j:02}.md" for j in range(i + 1, count)
        ]


@pytest.mark.parametrize(
    ("size", "mtime_ns"), [(0, 0), (1, -1), (2**40, 1_780_000_000_123_456_789), (5, -(10**18))]
)
def test_a_stamp_gives_back_its_size_and_mtime(size: int, mtime_ns: int) -> None:
    assert unstamp(stamp(size, mtime_ns)) == (size, mtime_ns)


def test_search_hits_know_observation_relation_and_body_lines(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(TEXT + "\nplain idea line\n")
    kinds = {hit.line: hit.kind for hit in Searcher(NoteIndex.load(tmp_path)).search("idea")}
    assert kinds[6] == "observation"
    assert kinds[10] == "body"
    relation_kinds = {h.line: h.kind for h in Searcher(NoteIndex.load(tmp_path)).search("gamma")}
    assert relation_kinds[8] == "relation"
