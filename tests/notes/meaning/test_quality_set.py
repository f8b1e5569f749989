"""The labelled set benchmarks/meaning_bench.py measures recall on holds what it claims."""

from __future__ import annotations

import re

from tests.notes.meaning.quality_set import MEANING, NOTES, WORDS

WORD = re.compile(r"\w+")


def words(text: str) -> set[str]:
    """The lowercased words of a text, as search splits them."""
    return set(WORD.findall(text.lower()))


def test_at_least_fifty_meaning_queries_each_answered_by_a_note() -> None:
    assert len(MEANING) >= 50
    assert {answer for _query, answer in MEANING + WORDS} <= NOTES.keys()
    assert len({query for query, _answer in MEANING}) == len(MEANING)


def test_no_meaning_query_shares_a_word_with_its_note_or_its_path() -> None:
    shared = {
        query: words(query) & (words(NOTES[answer]) | words(answer)) for query, answer in MEANING
    }
    assert {query: common for query, common in shared.items() if common} == {}


def test_every_word_query_is_in_its_note() -> None:
    assert [query for query, answer in WORDS if not words(query) <= words(NOTES[answer])] == []
