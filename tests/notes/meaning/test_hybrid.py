"""Text and meaning together through MeaningSearch, as the app, the CLI and MCP will call it."""

from __future__ import annotations

from pathlib import Path

from memtui.notes.index import NoteIndex
from memtui.notes.meaning.embedder import load_embedder
from memtui.notes.meaning.hybrid import MeaningSearch, text_ranking
from memtui.notes.meaning.sync import sync_vectors
from memtui.notes.query import SearchFilters
from memtui.notes.search import Searcher
from tests.notes.meaning.conftest import write
from tests.notes.meaning.test_vector_sync import FILES


def searches(root: Path, model_folder: Path) -> tuple[Searcher, MeaningSearch]:
    """A text searcher and a meaning search over the FILES store."""
    write(root, FILES)
    index = NoteIndex.load(root)
    embedder = load_embedder(str(model_folder))
    sync_vectors(index.db, root, embedder)
    return Searcher(index), MeaningSearch(index, embedder)


def test_a_word_query_keeps_its_text_hit_first(tmp_path: Path, model_folder: Path) -> None:
    searcher, meaning = searches(tmp_path, model_folder)
    fused = meaning.hybrid_hits(searcher, "automobile", limit=3)[0]
    assert fused[0].path == "garage.txt"
    assert fused[0].text == 1.0 and fused[0].meaning == 1.0


def test_a_query_sharing_no_word_finds_the_note_and_its_section(
    tmp_path: Path, model_folder: Path
) -> None:
    searcher, meaning = searches(tmp_path, model_folder)
    assert text_ranking(searcher.search("typeface", limit=10)) == []
    [best, *_] = meaning.hybrid_hits(searcher, "typeface", limit=3)[0]
    assert best.path == "prefs/editor.md"
    assert best.section is not None
    assert (best.section.line, best.section.heading) == (9, "Fonts")


def test_filters_hold_for_meaning_hits_too(tmp_path: Path, model_folder: Path) -> None:
    searcher, meaning = searches(tmp_path, model_folder)
    query = "automobile scheme"
    assert [f.path for f in meaning.hybrid_hits(searcher, query, limit=5)[0]] == [
        "garage.txt",
        "prefs/editor.md",
    ]
    fused = meaning.hybrid_hits(searcher, query, limit=5, filters=SearchFilters(folder="prefs"))[0]
    assert [f.path for f in fused] == ["prefs/editor.md"]


def test_a_file_no_nearer_than_unrelated_is_not_a_meaning_hit(
    tmp_path: Path, model_folder: Path
) -> None:
    _searcher, meaning = searches(tmp_path, model_folder)
    assert [hit.path for hit in meaning.nearest("car", 5)] == [
        "garage.txt",
        "food.md",
        "prefs/editor.md",
    ]
    assert [hit.path for hit in meaning.nearest_passing("car", 5, None, None)] == ["garage.txt"]
