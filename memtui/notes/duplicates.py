"""Near-duplicate files: the same body, or near-identical bodies of files that open the same way
or have near-identical titles, compared only inside small blocks."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator

from rapidfuzz import fuzz

from memtui.notes.bulk import Pacer
from memtui.notes.index import NoteIndex
from memtui.notes.records import body_sample
from memtui.notes.review_facts import NoteFacts, all_facts

DUPLICATE_TITLE_RATIO = 90.0
DUPLICATE_CONTENT_RATIO = 80.0
MAX_BLOCK = 64
"""Blocks (an opening, a title word) shared by more files than this are too common to compare."""
SAME_CONTENT = "same content"

_TITLE_WORD = re.compile(r"[^\W\d_]{3,}")


def near_duplicates(
    index: NoteIndex, facts: dict[str, NoteFacts] | None = None, *, pace: Pacer | None = None
) -> dict[str, list[tuple[str, str]]]:
    """relpath -> [(other relpath, why)] for files with the same body, or near-identical bodies
    that open the same way or have near-identical titles.

    Archived files are left out. Pairs are only compared inside small blocks (same body hash,
    same opening, or a shared uncommon title word), so the work grows with the number of files,
    not its square; a body is read from its file only when a pair is compared.
    """
    pace = pace or Pacer()
    facts = all_facts(index, pace) if facts is None else facts
    by_hash, by_lead, by_word = _blocks(facts, pace)
    found: dict[str, dict[str, str]] = defaultdict(dict)
    for group in by_hash.values():
        for a, b in _pairs(group):
            _pair(found, a, b, SAME_CONTENT)
    compare = _Comparer(index)
    for a, b in _block_pairs(by_lead.values(), pace):
        if b not in found[a] and (ratio := compare(a, b)):
            _pair(found, a, b, f"{ratio}% similar content")
    for a, b in _block_pairs(by_word.values(), pace):
        if b in found[a] or not fuzz.token_sort_ratio(
            facts[a].title, facts[b].title, score_cutoff=DUPLICATE_TITLE_RATIO
        ):
            continue
        if ratio := compare(a, b):
            _pair(found, a, b, f"{ratio}% similar content")
    return {p: sorted(others.items()) for p, others in found.items() if others}


def _pair(found: dict[str, dict[str, str]], a: str, b: str, why: str) -> None:
    """Record that `a` and `b` are near-duplicates, unless they already are."""
    found[a].setdefault(b, why)
    found[b].setdefault(a, why)


def _pairs(group: list[str]) -> Iterator[tuple[str, str]]:
    """Every pair of a group, in order."""
    for i, a in enumerate(group):
        for b in group[i + 1 :]:
            yield a, b


def _block_pairs(groups: Iterable[list[str]], pace: Pacer) -> Iterator[tuple[str, str]]:
    """Each pair of every block small enough to compare, once."""
    seen: set[tuple[str, str]] = set()
    for group in groups:
        if len(group) < 2 or len(group) > MAX_BLOCK:
            continue
        pace()
        for pair in _pairs(group):
            if pair not in seen:
                seen.add(pair)
                yield pair


def _blocks(
    facts: dict[str, NoteFacts], pace: Pacer
) -> tuple[dict[str, list[str]], dict[str, list[str]], dict[str, list[str]]]:
    """Files by body hash, by the hash of their opening, and by each word of their titles."""
    by_hash: dict[str, list[str]] = defaultdict(list)
    by_lead: dict[str, list[str]] = defaultdict(list)
    by_word: dict[str, list[str]] = defaultdict(list)
    for relpath, fact in facts.items():
        pace()
        if fact.sample_hash is not None:
            by_hash[fact.sample_hash].append(relpath)
        if fact.lead_hash is not None and fact.lead_hash != fact.sample_hash:
            by_lead[fact.lead_hash].append(relpath)
        for word in set(_TITLE_WORD.findall(fact.title)):
            by_word[word].append(relpath)
    return by_hash, by_lead, by_word


class _Comparer:
    """Compares the body samples of two files, reading each file at most once."""

    def __init__(self, index: NoteIndex) -> None:
        """Compare files of `index`."""
        self.index = index
        self.samples: dict[str, str] = {}

    def sample(self, relpath: str) -> str:
        """The body sample of a file, read now."""
        if relpath not in self.samples:
            self.samples[relpath] = body_sample(self.index.read_text(relpath) or "")
        return self.samples[relpath]

    def __call__(self, a: str, b: str) -> int:
        """The similarity of two bodies in percent when near-identical, else 0."""
        ratio = fuzz.ratio(self.sample(a), self.sample(b), score_cutoff=DUPLICATE_CONTENT_RATIO)
        return int(ratio)
