"""No query can exhaust the machine: the words searched, the groups of candidates and the
candidates taken past the exact groups are bounded, and the hits stay the exact ranking."""

from __future__ import annotations

import shutil
import tempfile
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtui.notes import search as search_module
from memtui.notes import search_groups
from memtui.notes.index import NoteIndex
from memtui.notes.search import MAX_WORDS, Searcher, SearchFilters
from memtui.notes.search_groups import COLUMNS, MAX_GROUPS
from tests.notes.search_flood import (
    BEST_LINE,
    FLOOD_QUERY,
    FLOOD_WORDS,
    memory_ceiling,
    write_flood_store,
)
from tests.notes.test_search_ties import QUERIES, store, write

MOST_GROUPS = MAX_GROUPS + MAX_WORDS * len(COLUMNS) + 1
"""The exact groups, then one per word and kind of line, then the phrase."""


def test_a_500_word_query_opens_a_bounded_number_of_groups(tmp_path: Path) -> None:
    searcher = Searcher(NoteIndex.load(write_flood_store(tmp_path)))
    tracemalloc.start()
    try:
        with memory_ceiling():
            hits = searcher.search(FLOOD_QUERY, limit=20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (hits[0].path, hits[0].line, hits[0].text, hits[0].score) == (
        "best.md",
        3,
        BEST_LINE,
        115.0,
    )
    assert len(hits) == 20
    assert searcher.work.groups <= MOST_GROUPS
    assert searcher.work.candidates <= 1_000
    assert searcher.work.complete
    assert peak < 16 << 20


def test_only_the_first_words_of_a_long_query_are_searched(tmp_path: Path) -> None:
    names = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india"]
    assert len(names) == MAX_WORDS + 1
    write(tmp_path, "first.md", "# First\n\nalpha here\n")
    write(tmp_path, "last.md", "# Last\n\nindia here\n")
    hits = Searcher(NoteIndex.load(tmp_path)).search(" ".join(names))
    assert [(hit.path, hit.line, hit.text) for hit in hits] == [("first.md", 3, "alpha here")]


def test_the_groups_past_the_budget_give_the_exact_ranking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_flood_store(tmp_path)
    query = " ".join(FLOOD_WORDS[:5])
    exact = Searcher(NoteIndex.load(root)).search(query, limit=40)
    for budget in (0, 1, 7, 40):
        monkeypatch.setattr(search_groups, "MAX_GROUPS", budget)
        searcher = Searcher(NoteIndex.load(root))
        assert searcher.search(query, limit=40) == exact, budget
        assert searcher.work.groups <= budget + 5 * len(COLUMNS) + 1


def test_the_candidates_past_the_budget_are_capped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_flood_store(tmp_path)
    monkeypatch.setattr(search_groups, "MAX_GROUPS", 0)
    monkeypatch.setattr(search_module, "MAX_WIDE_CANDIDATES", 5)
    searcher = Searcher(NoteIndex.load(root))
    hits = searcher.search(" ".join(FLOOD_WORDS[:3]), limit=40)
    assert searcher.work.candidates == 1 + 6
    """The phrase's line (best.md), then the wide group's, the sixth past the cap."""
    assert not searcher.work.complete
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)
    assert 0 < len(hits) <= 1 + 5


LONGER_QUERIES = (*QUERIES, "render deploy api cache python", "tool tol pyhton deplay apis")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(initial=store, budget=st.integers(min_value=0, max_value=12))
def test_any_group_budget_gives_the_same_hits(initial: dict[str, str], budget: int) -> None:
    root = Path(tempfile.mkdtemp())
    try:
        for name, text in initial.items():
            write(root, name, text)
        index = NoteIndex.load(root, use_cache=False)
        exact = {query: Searcher(index).search(query, limit=1000) for query in LONGER_QUERIES}
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(search_groups, "MAX_GROUPS", budget)
            bounded = Searcher(index)
            for query, hits in exact.items():
                for limit in (1, 3, 1000):
                    assert bounded.search(query, limit=limit) == hits[:limit], (query, limit)
    finally:
        shutil.rmtree(root)


@pytest.mark.parametrize("days", [1e20, 1e300])
def test_an_age_past_every_date_lists_every_note(tmp_path: Path, days: float) -> None:
    write(tmp_path, "a.md", "# A\n\nkiwi\n")
    searcher = Searcher(NoteIndex.load(tmp_path))
    filters = SearchFilters(max_age_days=days)
    assert [(hit.path, hit.line) for hit in searcher.search("kiwi", filters=filters)] == [
        ("a.md", 3)
    ]
    assert [hit.path for hit in searcher.search("", filters=filters, limit=1 << 70)] == ["a.md"]
