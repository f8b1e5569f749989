"""The index's vocabulary in memory, and the words that stand in for a query word: the word
itself, longer words it starts or is part of, and close spellings (rapidfuzz) for typos."""

from __future__ import annotations

import bisect
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import accumulate

from rapidfuzz import fuzz, process

EXACT, PREFIX, SUBSTRING, FUZZY = 0, 1, 2, 3
"""How a vocabulary word matches a query word."""
QUALITY = {EXACT: 1.0, PREFIX: 0.9, SUBSTRING: 0.75}
FUZZY_WEIGHT = 0.85
"""A typo match is worth at most this much of a verbatim one, so verbatim words always win."""
FUZZY_CUTOFF = 70.0
FUZZY_LIMIT = 20
"""Typo variants kept for one query word."""
FUZZY_CHUNK = 4096
"""Vocabulary words scored in one rapidfuzz call (about 2 ms, so other threads get a turn)."""
MAX_VARIANTS = 200
INSERT_WORDS_MAX = 500
"""New words inserted one by one into the sorted vocabulary; more rebuild it."""


@dataclass(frozen=True, slots=True)
class Variant:
    """A vocabulary word standing in for query word `word_index`."""

    word: str
    word_index: int
    how: int
    quality: float
    offset: int
    """Where the query word starts inside `word` (substring matches), else 0."""
    length: int
    """How many chars of `word` from `offset` are highlighted."""


def closest_words(word: str, pool: list[str], limit: int) -> list[tuple[str, float]]:
    """The `limit` words of `pool` closest to `word`, as one `process.extract` call ranks them.

    The pool is scored in chunks: rapidfuzz holds the GIL for a whole call, and one call over
    50k words would stall a UI thread for tens of milliseconds.
    """
    found: list[tuple[float, int, str]] = []
    for start in range(0, len(pool), FUZZY_CHUNK):
        chunk = pool[start : start + FUZZY_CHUNK]
        for candidate, ratio, position in process.extract(
            word, chunk, scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF, limit=limit
        ):
            found.append((-ratio, start + position, candidate))
    found.sort()
    return [(candidate, -negated) for negated, _, candidate in found[:limit]]


class Vocabulary:
    """Every word of the index, sorted, by length, and as one text for substring lookups."""

    def __init__(self) -> None:
        """An empty vocabulary; `refresh` fills it from an index."""
        self.words: list[str] = []
        self.by_length: dict[int, list[str]] = {}
        self.text = "\n"
        """Every word between newlines, so substring lookups run in C."""
        self.starts: list[int] = []
        self.generation = -1
        """The index generation the vocabulary was last brought up to."""

    def refresh(self, conn: sqlite3.Connection, generation: int) -> None:
        """Bring the vocabulary up to `generation` of the index behind `conn`: new words only,
        unless the index took its whole vocabulary afresh since."""
        if generation == self.generation:
            return
        row = conn.execute("SELECT value FROM meta WHERE key = 'terms_gen'").fetchone()
        renewed = int(row[0]) if row is not None else 0
        if self.generation < 0 or renewed > self.generation:
            words = [r[0] for r in conn.execute("SELECT term FROM terms ORDER BY term")]
            self._rebuild(words)
        else:
            rows = conn.execute("SELECT term FROM terms WHERE gen > ?", (self.generation,))
            self._insert([r[0] for r in rows])
        self.generation = generation

    def _rebuild(self, words: list[str]) -> None:
        """Take a whole sorted vocabulary."""
        self.words = words
        buckets: dict[int, list[str]] = {}
        for word in words:
            buckets.setdefault(len(word), []).append(word)
        self.by_length = buckets
        self._index_text()

    def _insert(self, new: list[str]) -> None:
        """Add words (a few are inserted in place; many rebuild everything)."""
        fresh = sorted(set(new).difference(self._present(new)))
        if not fresh:
            return
        if len(fresh) > INSERT_WORDS_MAX:
            self._rebuild(sorted({*self.words, *fresh}))
            return
        for word in fresh:
            bisect.insort(self.words, word)
            bisect.insort(self.by_length.setdefault(len(word), []), word)
        self._index_text()

    def _present(self, words: list[str]) -> set[str]:
        """Which of `words` the vocabulary holds already."""
        return {word for word in words if self.holds(word)}

    def _index_text(self) -> None:
        """The words as one newline-separated text and each word's offset in it."""
        self.text = "\n" + "\n".join(self.words) + "\n"
        self.starts = list(accumulate((len(word) + 1 for word in self.words), initial=1))[:-1]

    def holds(self, word: str) -> bool:
        """Whether `word` is one of the index's words."""
        at = bisect.bisect_left(self.words, word)
        return at < len(self.words) and self.words[at] == word

    def variants(self, words: list[str]) -> list[Variant]:
        """Words that stand in for each query word: exact, prefix, substring, typo (the best way
        a vocabulary word matches a query word counts)."""
        found: dict[tuple[str, int], Variant] = {}
        for i, word in enumerate(words):
            for variant in self._variants_of(word, i):
                key = (variant.word, variant.word_index)
                current = found.get(key)
                if current is None or variant.quality > current.quality:
                    found[key] = variant
        return list(found.values())

    def _variants_of(self, word: str, i: int) -> Iterator[Variant]:
        """Every vocabulary word matching query word number `i`, in each way it matches."""
        vocab = self.words
        lo = bisect.bisect_left(vocab, word)
        if lo < len(vocab) and vocab[lo] == word:
            yield Variant(word, i, EXACT, QUALITY[EXACT], 0, len(word))
        count = 0
        for candidate in vocab[lo : lo + MAX_VARIANTS + 1]:
            if not candidate.startswith(word) or count >= MAX_VARIANTS:
                break
            if candidate != word:
                yield Variant(candidate, i, PREFIX, QUALITY[PREFIX], 0, len(word))
                count += 1
        if len(word) >= 3:
            for candidate in self.containing(word):
                offset = candidate.find(word)
                yield Variant(candidate, i, SUBSTRING, QUALITY[SUBSTRING], offset, len(word))
        if len(word) >= 4:
            pool: list[str] = []
            for length in range(len(word) - 2, len(word) + 3):
                pool.extend(self.by_length.get(length, ()))
            for candidate, ratio in closest_words(word, pool, FUZZY_LIMIT):
                if candidate != word:
                    quality = FUZZY_WEIGHT * ratio / 100
                    yield Variant(candidate, i, FUZZY, quality, 0, len(candidate))

    def containing(self, word: str) -> list[str]:
        """Up to MAX_VARIANTS vocabulary words, in order, holding `word` but not starting
        with it."""
        vocab, starts, blob = self.words, self.starts, self.text
        found: list[str] = []
        pos = blob.find(word, 1)
        while pos >= 0 and len(found) < MAX_VARIANTS:
            k = bisect.bisect_right(starts, pos) - 1
            candidate = vocab[k]
            if pos != starts[k]:
                found.append(candidate)
            pos = blob.find(word, starts[k] + len(candidate) + 1)
        return found
