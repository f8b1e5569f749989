"""Searcher: fuzzy search over titles, paths, observations, relations and body lines, with spans.

Candidates are narrowed with a word index (exact, prefix, substring and typo-tolerant variants
of each query word), notes are visited best-bound first in cancellable chunks, and the scan stops
as soon as no remaining note can beat the current k-th best hit. Which notes hold a multi-word
query's exact phrase is remembered across searches (also cancelled ones), so while the user types
each keystroke reuses the checks made for the query it extends instead of starting over.
"""

from __future__ import annotations

import bisect
import heapq
import math
import re
import sys
import time
from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import accumulate, pairwise
from pathlib import Path
from typing import TypeAlias

from rapidfuzz import fuzz, process

from memtui.notes import cache as note_cache
from memtui.notes.bulk import KEEP_MIN_NOTES, collector_paused
from memtui.notes.file_checks import LARGE_NOTE_BYTES, LARGE_NOTE_LINES
from memtui.notes.index import NoteIndex

WORD_RE = re.compile(r"\w+")

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
TITLE_BOOST = 8.0
PATH_BOOST = 4.0
LINE_KIND_BOOST = {"observation": 1.0, "relation": 1.0, "body": 0.0}
PHRASE_BONUS = 15.0
MAX_VARIANTS = 200
INSERT_WORDS_MAX = 500
"""New words inserted one by one into the sorted vocabulary; more rebuild it."""
BODY, BODY_MAYBE_PHRASE, LINE_TITLE, LINE_PATH = 0, 1, 2, 3
"""What a heap entry stands for: a note's body lines (maybe holding the phrase), title or path."""
BODY_LINE, OBSERVATION_LINE, RELATION_LINE = 0, 1, 2
LINE_KIND_NAMES = ("body", "observation", "relation")
SNAPSHOT_NAME = "search-snapshot.pickle"
YIELD_EVERY = 0.01
"""Seconds of building after which the build sleeps for YIELD_FOR. Unpacking a note releases
the interpreter lock for a moment, which starves other threads (a UI's keys) of it for tenths of
a second unless the builder also really waits now and then."""
YIELD_FOR = 0.0005
PROGRESS_EVERY = 500
"""Notes indexed between two progress reports while the search index builds."""
CHUNK = 32
"""Notes scored between two checks of `cancelled()`."""
PHRASE_CHECKS_KEPT = 32
"""Phrases whose checked notes are remembered, so a keystroke reuses the query it extends."""


@dataclass(frozen=True)
class SearchHit:
    """One matching line: where it is, what it says, how well it matched and which chars matched."""

    path: str
    line: int
    """1-based line in the file; 0 for title and path hits."""
    kind: str
    """"title" | "path" | "observation" | "relation" | "body"."""
    text: str
    score: float
    spans: tuple[tuple[int, int], ...]
    """(start, end) character offsets into `text` of the matched parts, sorted, not overlapping."""


@dataclass(frozen=True)
class SearchFilters:
    """Restrictions on which notes a search may return."""

    folder: str | None = None
    tag: str | None = None
    category: str | None = None
    note_type: str | None = None
    actor: str | None = None
    """`human`, `agent`, `external` (any of that kind) or an exact actor like `agent:claude`."""
    max_age_days: float | None = None
    now: float | None = None
    """The present `max_age_days` counts back from (the caller's clock); None: the wall clock."""


@dataclass(frozen=True, slots=True)
class _Variant:
    """A vocabulary word standing in for query word `word_index`."""

    word: str
    word_index: int
    how: int
    quality: float
    offset: int
    """Where the query word starts inside `word` (substring matches), else 0."""
    length: int
    """How many chars of `word` from `offset` are highlighted."""


@dataclass(frozen=True, slots=True)
class _Doc:
    """What search needs of one note besides its text: title, line kinds and filter fields.

    Kept small (shared strings, one byte per line up to the last observation or relation):
    there is one per note.
    """

    title: str
    note_type: str
    tags: tuple[str, ...]
    categories: tuple[str, ...]
    mtime: float
    line_kinds: bytes
    """Byte i is the kind of line i + 1: BODY_LINE, OBSERVATION_LINE or RELATION_LINE."""

    def line_kind(self, line_no: int) -> str:
        """The kind of a 1-based line: observation, relation or body."""
        kinds = self.line_kinds
        return LINE_KIND_NAMES[kinds[line_no - 1]] if 0 < line_no <= len(kinds) else "body"


@dataclass(slots=True)
class _PhraseChecks:
    """Notes already checked for holding one phrase, and those that do; kept across searches."""

    checked: set[int]
    found: set[int]


def _doc_of_packed(packed: note_cache.PackedNote) -> _Doc:
    """The search view of a packed note, without materialising it."""
    intern = sys.intern
    mtime, note_tags, observations = note_cache.search_fields(packed)
    tags = dict.fromkeys(intern(t) for t in note_tags)
    categories: dict[str, None] = {}
    observation_lines: list[int] = []
    for category, observation_tags, line in observations:
        if observation_tags:
            tags.update((intern(t), None) for t in observation_tags if t)
        if category is not None:
            categories[intern(category)] = None
        observation_lines.append(line)
    return _Doc(
        packed[0],
        intern(packed[2]),
        tuple(tags),
        tuple(categories),
        mtime,
        _line_kinds(observation_lines, note_cache.relation_lines(packed)),
    )


def _line_kinds(observation_lines: Iterable[int], relation_lines: Iterable[int]) -> bytes:
    """One byte per line up to the last observation or relation: which kind of line it is."""
    observations = [line for line in observation_lines if line > 0]
    relations = [line for line in relation_lines if line > 0]
    if not observations and not relations:
        return b""
    kinds = bytearray(max(observations + relations))
    for line in relations:
        kinds[line - 1] = RELATION_LINE
    for line in observations:
        kinds[line - 1] = OBSERVATION_LINE
    return bytes(kinds)


def _closest_words(word: str, pool: list[str], limit: int) -> list[tuple[str, float]]:
    """The `limit` words of `pool` closest to `word`, as one `process.extract` call ranks them.

    The pool is scored in chunks: rapidfuzz holds the GIL for a whole call, and one call over
    50k words would stall the UI thread for tens of milliseconds.
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


def _lower_same_length(text: str) -> str:
    """`text.lower()`, char for char, so offsets in the result are offsets in `text`."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(ch.lower()[:1] or ch for ch in text)


def _is_word_char(ch: str) -> bool:
    """True for chars that `\\w` matches."""
    return ch.isalnum() or ch == "_"


def _hit_order(hit: SearchHit) -> tuple[float, str, int, str]:
    """Best score first, then path, line and kind, so equal scores come in a stable order."""
    return (-hit.score, hit.path, hit.line, hit.kind)


def _merge_spans(spans: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Sort and merge overlapping or touching spans."""
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return tuple((s, e) for s, e in merged)


def searchable(text: str) -> str:
    """The part of a note search covers: what the app shows of it, its first 20,000 lines
    within its first MiB (all of any ordinary note)."""
    if len(text) <= LARGE_NOTE_LINES:
        return text
    head = text[:LARGE_NOTE_BYTES]
    if head.count("\n") < LARGE_NOTE_LINES:
        return head
    end = -1
    for _ in range(LARGE_NOTE_LINES):
        end = head.find("\n", end + 1)
    return head[: end + 1]


def _body_start(text: str) -> int:
    """Offset of the first char after the frontmatter block (0 when there is none)."""
    if not text.startswith("---"):
        return 0
    first_end = text.find("\n")
    if first_end < 0 or text[:first_end].rstrip(" \t") != "---":
        return 0
    close = re.compile(r"^---[ \t]*$", re.M).search(text, first_end + 1)
    if close is None:
        return 0
    end = text.find("\n", close.end())
    return len(text) if end < 0 else end + 1


Postings: TypeAlias = "int | array[int]"
"""Ids of the notes holding a word: one id alone (most title and path words), or an array."""


def posting_ids(postings: Postings | None) -> Iterable[int]:
    """The note ids of a postings value (empty for None)."""
    if postings is None:
        return ()
    if isinstance(postings, int):
        return (postings,)
    return postings


class _WordIndex:
    """Word -> ids of notes containing it, for note text, titles and paths; grows incrementally."""

    def __init__(self) -> None:
        """An empty index."""
        self.paths: list[str] = []
        self.ids: dict[str, int] = {}
        self.dead: set[int] = set()
        self.body: dict[str, Postings] = {}
        self.title: dict[str, Postings] = {}
        self.path: dict[str, Postings] = {}
        self.vocab: list[str] = []
        self.vocab_text = "\n"
        """Every vocabulary word between newlines, so substring lookups run in C."""
        self.vocab_starts: list[int] = []
        self.by_length: dict[int, list[str]] = {}
        self.new_words: set[str] = set()
        """Words added to the tables since the vocabulary was last brought up to date."""
        self.in_path_order = True
        """Whether ids were given in path order (then an id's order is its path's order)."""
        self._rank: array[int] | None = None

    def add(self, relpath: str, text: str, title: str) -> None:
        """Index one note under a fresh id (an older id for the same path becomes dead)."""
        old = self.ids.get(relpath)
        if old is not None:
            self.dead.add(old)
        note_id = len(self.paths)
        if self.paths and relpath < self.paths[-1]:
            self.in_path_order = False
        self._rank = None
        self.paths.append(relpath)
        self.ids[relpath] = note_id
        intern = sys.intern
        for table, source in (
            (self.body, text),
            (self.title, title),
            (self.path, relpath),
        ):
            for word in set(WORD_RE.findall(source.lower())):
                postings = table.get(word)
                if postings is None:
                    word = intern(word)
                    if word not in self.body and word not in self.title and word not in self.path:
                        self.new_words.add(word)
                    table[word] = note_id
                elif isinstance(postings, int):
                    table[word] = array("I", (postings, note_id))
                else:
                    postings.append(note_id)

    def rank(self) -> array[int] | None:
        """id -> position of its path in path order; None while ids are in path order already."""
        if self.in_path_order:
            return None
        if self._rank is None:
            rank = array("I", bytes(4 * len(self.paths)))
            order = sorted(range(len(self.paths)), key=self.paths.__getitem__)
            for position, note_id in enumerate(order):
                rank[note_id] = position
            self._rank = rank
        return self._rank

    def remove(self, relpath: str) -> None:
        """Forget a note (its id becomes dead)."""
        old = self.ids.pop(relpath, None)
        if old is not None:
            self.dead.add(old)

    def refresh_vocab(self) -> None:
        """Bring the sorted vocabulary and its by-length buckets up to date with the tables.

        A few new words are inserted in place; many (a first build) rebuild everything.
        """
        if not self.new_words:
            return
        if len(self.new_words) > INSERT_WORDS_MAX or not self.vocab:
            self.rebuild_vocab()
            return
        new = sorted(self.new_words)
        self.new_words.clear()
        for word in new:
            bisect.insort(self.vocab, word)
            bisect.insort(self.by_length.setdefault(len(word), []), word)
        self._index_vocab_text()

    def rebuild_vocab(self) -> None:
        """Rebuild the sorted vocabulary and its by-length buckets from the tables."""
        self.new_words.clear()
        words = set(self.body)
        words.update(self.title)
        words.update(self.path)
        self.vocab = sorted(words)
        del words
        buckets: dict[int, list[str]] = {}
        for word in self.vocab:
            buckets.setdefault(len(word), []).append(word)
        self.by_length = buckets
        self._index_vocab_text()

    def _index_vocab_text(self) -> None:
        """The vocabulary as one newline-separated string and each word's offset in it."""
        self.vocab_text = "\n" + "\n".join(self.vocab) + "\n"
        self.vocab_starts = list(accumulate((len(word) + 1 for word in self.vocab), initial=1))[:-1]


class Searcher:
    """Fuzzy search over one NoteIndex; call `invalidate` after the index updated some paths."""

    def __init__(
        self,
        index: NoteIndex | None,
        history: object | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        """Build the word index of every note (a few seconds at 50k notes; run it in a worker).

        `progress(done, total)` is called every PROGRESS_EVERY notes and once at the end.
        """
        self.index = index
        self.history = history
        self.texts: dict[str, str] = index.texts if index is not None else {}
        self._docs: dict[str, _Doc] = {}
        self._words = _WordIndex()
        self._filter_cache: dict[SearchFilters, set[str]] = {}
        self._phrase_checks: dict[str, _PhraseChecks] = {}
        if index is not None:
            entries = list(index.notes.packed_items())
            with collector_paused(keep=len(entries) >= KEEP_MIN_NOTES):
                turn = time.perf_counter() + YIELD_EVERY
                for done, (relpath, packed) in enumerate(entries, 1):
                    self._docs[relpath] = _doc_of_packed(packed)
                    self._words.add(relpath, searchable(self.texts.get(relpath, "")), packed[0])
                    if progress is not None and done % PROGRESS_EVERY == 0 and done < len(entries):
                        progress(done, len(entries))
                    if time.perf_counter() > turn:
                        time.sleep(YIELD_FOR)
                        turn = time.perf_counter() + YIELD_EVERY
                del entries
                self._words.refresh_vocab()
            if progress is not None:
                progress(len(self._docs), len(self._docs))

    def invalidate(self, relpaths: Iterable[str]) -> None:
        """Re-index the given paths from the (already updated) NoteIndex."""
        if self.index is None:
            raise RuntimeError("a searcher loaded from a snapshot cannot follow index updates")
        for relpath in relpaths:
            note = self.index.notes.get(relpath)
            if note is None:
                self._words.remove(relpath)
                self._docs.pop(relpath, None)
            else:
                packed = self.index.notes.packed(relpath)
                self._docs[relpath] = _doc_of_packed(packed)
                self._words.add(relpath, searchable(self.texts.get(relpath, "")), packed[0])
        self._words.refresh_vocab()
        self._filter_cache.clear()
        self._phrase_checks.clear()
        if len(self._words.dead) > max(1000, len(self._words.paths) // 4):
            self.__init__(self.index, self.history)  # type: ignore[misc]

    # ----- snapshot ----------------------------------------------------------------------------

    def save_snapshot(self, root: Path, stats: dict[str, tuple[int, int]]) -> bool:
        """Persist everything search needs, valid while every note's (size, mtime_ns) is `stats`."""
        payload = (
            stats,
            {p: tuple(getattr(d, f) for f in _Doc.__slots__) for p, d in self._docs.items()},
            self.texts,
            self._words.paths,
            self._words.ids,
            self._words.dead,
            self._words.body,
            self._words.title,
            self._words.path,
        )
        return note_cache.write_payload(root, SNAPSHOT_NAME, payload)

    @classmethod
    def from_snapshot(
        cls, root: Path, stats: dict[str, tuple[int, int]], history: object | None = None
    ) -> Searcher | None:
        """A searcher from the saved snapshot if it matches `stats` exactly, else None."""
        payload = note_cache.read_payload(root, SNAPSHOT_NAME)
        if not isinstance(payload, tuple) or len(payload) != 9 or payload[0] != stats:
            return None
        searcher = cls(None, history)
        try:
            _, docs, texts, paths, ids, dead, body, title, path = payload
            searcher._docs = {p: _Doc(*values) for p, values in docs.items()}
            searcher.texts = texts
            words = searcher._words
            words.paths, words.ids, words.dead = paths, ids, dead
            words.in_path_order = all(a <= b for a, b in pairwise(paths))
            words.body, words.title, words.path = body, title, path
            words.rebuild_vocab()
        except (TypeError, ValueError):
            return None
        return searcher

    # ----- filters -----------------------------------------------------------------------------

    def _allowed(self, filters: SearchFilters | None) -> set[str] | None:
        """Relpaths that pass the filters, or None when there are none."""
        if filters is None or filters == SearchFilters():
            return None
        if filters.max_age_days is not None:
            return _matching(self._docs, filters, self.history)
        cached = self._filter_cache.get(filters)
        if cached is not None:
            return cached
        allowed = _matching(self._docs, filters, self.history)
        self._filter_cache[filters] = allowed
        return allowed

    # ----- search ------------------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        limit: int = 50,
        filters: SearchFilters | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> list[SearchHit]:
        """The best `limit` hits for `query`, best first (ties by path, line); [] when cancelled."""
        query = query.strip()
        if not query or limit <= 0:
            return []
        allowed = self._allowed(filters)
        query_lower = _lower_same_length(query)
        words = list(dict.fromkeys(WORD_RE.findall(query_lower)))
        if len(words) > 1:
            words = [w for w in words if len(w) > 1] or words
        if len(query) <= 2 or not words:
            return self._search_titles(query_lower, limit, allowed)
        variants = self._variants(words)
        return self._search_words(query_lower, words, variants, limit, allowed, cancelled)

    def _search_titles(self, needle: str, limit: int, allowed: set[str] | None) -> list[SearchHit]:
        """Very short queries: substring matches in titles and paths only."""
        hits: list[SearchHit] = []
        for relpath, doc in self._docs.items():
            if allowed is not None and relpath not in allowed:
                continue
            for kind, text, boost in (
                ("title", doc.title, TITLE_BOOST),
                ("path", relpath, PATH_BOOST),
            ):
                lowered = _lower_same_length(text)
                pos = lowered.find(needle)
                if pos < 0:
                    continue
                end = pos + len(needle)
                starts_word = pos == 0 or not _is_word_char(lowered[pos - 1])
                ends_word = end == len(lowered) or not _is_word_char(lowered[end])
                if starts_word and ends_word:
                    quality = QUALITY[EXACT]
                elif starts_word:
                    quality = QUALITY[PREFIX]
                else:
                    quality = QUALITY[SUBSTRING]
                hits.append(SearchHit(relpath, 0, kind, text, 100 * quality + boost, ((pos, end),)))
        return heapq.nsmallest(limit, hits, key=lambda h: (-h.score, h.path, h.kind != "title"))

    def _variants(self, words: list[str]) -> list[_Variant]:
        """Vocabulary words that stand in for each query word: exact, prefix, substring, typo."""
        vocab = self._words.vocab
        found: dict[tuple[str, int], _Variant] = {}

        def offer(variant: _Variant) -> None:
            key = (variant.word, variant.word_index)
            current = found.get(key)
            if current is None or variant.quality > current.quality:
                found[key] = variant

        for i, word in enumerate(words):
            lo = bisect.bisect_left(vocab, word)
            if lo < len(vocab) and vocab[lo] == word:
                offer(_Variant(word, i, EXACT, QUALITY[EXACT], 0, len(word)))
            count = 0
            for candidate in vocab[lo : lo + MAX_VARIANTS + 1]:
                if not candidate.startswith(word) or count >= MAX_VARIANTS:
                    break
                if candidate != word:
                    offer(_Variant(candidate, i, PREFIX, QUALITY[PREFIX], 0, len(word)))
                    count += 1
            if len(word) >= 3:
                for candidate in self._containing(word):
                    offset = candidate.find(word)
                    offer(_Variant(candidate, i, SUBSTRING, QUALITY[SUBSTRING], offset, len(word)))
            if len(word) >= 4:
                pool: list[str] = []
                for length in range(len(word) - 2, len(word) + 3):
                    pool.extend(self._words.by_length.get(length, ()))
                for candidate, ratio in _closest_words(word, pool, FUZZY_LIMIT):
                    if candidate != word:
                        quality = FUZZY_WEIGHT * ratio / 100
                        offer(_Variant(candidate, i, FUZZY, quality, 0, len(candidate)))
        return list(found.values())

    def _containing(self, word: str) -> list[str]:
        """Up to MAX_VARIANTS vocabulary words, in order, holding `word` but not starting with it."""
        vocab = self._words.vocab
        starts = self._words.vocab_starts
        blob = self._words.vocab_text
        found: list[str] = []
        pos = blob.find(word, 1)
        while pos >= 0 and len(found) < MAX_VARIANTS:
            k = bisect.bisect_right(starts, pos) - 1
            candidate = vocab[k]
            if pos != starts[k]:
                found.append(candidate)
            pos = blob.find(word, starts[k] + len(candidate) + 1)
        return found

    def _search_words(
        self,
        query_lower: str,
        words: list[str],
        variants: list[_Variant],
        limit: int,
        allowed: set[str] | None,
        cancelled: Callable[[], bool] | None,
    ) -> list[SearchHit]:
        """Score lines of candidate notes, best upper bound first, stopping when none can win.

        Notes are grouped by how well they can match each query word (set algebra, no per-note
        Python work), groups are opened best bound first, and notes inside them in path order.
        """
        wi = self._words
        n_words = len(words)
        phrase = query_lower if n_words > 1 else None
        by_word: dict[str, list[_Variant]] = {}
        for variant in variants:
            by_word.setdefault(variant.word, []).append(variant)
        note_sets: dict[str, set[int]] = {}
        level_sets: list[dict[float, set[int]]] = [{} for _ in words]
        title_levels: list[dict[float, set[int]]] = [{} for _ in words]
        path_levels: list[dict[float, set[int]]] = [{} for _ in words]
        for word, word_variants in by_word.items():
            postings = wi.body.get(word)
            if postings is not None:
                ids = note_sets[word] = set(posting_ids(postings))
                for variant in word_variants:
                    level = math.ceil(variant.quality * 100) / 100
                    level_sets[variant.word_index].setdefault(level, set()).update(ids)
            for table, per_word in ((wi.title, title_levels), (wi.path, path_levels)):
                line_postings = table.get(word)
                if line_postings is not None:
                    line_ids = posting_ids(line_postings)
                    for variant in word_variants:
                        level = math.ceil(variant.quality * 100) / 100
                        per_word[variant.word_index].setdefault(level, set()).update(line_ids)
        hits: list[SearchHit] = []
        groups = _bound_groups(level_sets, n_words, phrase is not None)
        checks = self._checks_for(phrase) if phrase is not None else None
        if checks is not None:
            groups = _split_checked(groups, checks)
        groups += _line_groups(title_levels, n_words, TITLE_BOOST, LINE_TITLE)
        groups += _line_groups(path_levels, n_words, PATH_BOOST, LINE_PATH)
        groups.sort(key=lambda group: -group[0])
        allowed_ids = None if allowed is None else {wi.ids[p] for p in allowed if p in wi.ids}
        rank = wi.rank()
        opened_members: list[list[int]] = []
        heap: list[tuple[float, int, int, int, int, int]] = []
        worst: tuple[float, int] | None = None
        """(score, path rank) of the limit-th best hit so far, once there are that many."""
        next_group = 0
        visited = 0
        while True:
            while next_group < len(groups) and (not heap or groups[next_group][0] >= -heap[0][0]):
                bound, members, what = groups[next_group]
                next_group += 1
                if worst is not None and round(bound, 2) < worst[0]:
                    next_group = len(groups)
                    break
                members = members - wi.dead
                if allowed_ids is not None:
                    members &= allowed_ids
                if members:
                    ordered = (
                        sorted(members) if rank is None else sorted(members, key=rank.__getitem__)
                    )
                    opened_members.append(ordered)
                    first = ordered[0]
                    key = first if rank is None else rank[first]
                    heapq.heappush(heap, (-bound, key, first, what, len(opened_members) - 1, 0))
            if not heap or (worst is not None and _cannot_enter(heap[0], worst)):
                break
            neg_bound, key, note_id, what, group, position = heapq.heappop(heap)
            if group >= 0 and position + 1 < len(opened_members[group]):
                following = opened_members[group][position + 1]
                following_key = following if rank is None else rank[following]
                heapq.heappush(
                    heap, (neg_bound, following_key, following, what, group, position + 1)
                )
            relpath = wi.paths[note_id]
            visited += 1
            if visited % CHUNK == 0 and cancelled is not None and cancelled():
                return []
            if what in (LINE_TITLE, LINE_PATH):
                doc = self._docs.get(relpath)
                if doc is not None:
                    kind, text = ("title", doc.title) if what == LINE_TITLE else ("path", relpath)
                    hit = self._score_line(relpath, 0, kind, text, by_word, n_words, phrase)
                    if hit is not None:
                        hits.append(hit)
            else:
                if (
                    what == BODY_MAYBE_PHRASE
                    and phrase is not None
                    and checks is not None
                    and not self._check_phrase(note_id, phrase, checks)
                ):
                    heapq.heappush(heap, (neg_bound + PHRASE_BONUS, key, note_id, BODY, -1, -1))
                    continue
                present = [w for w, ids in note_sets.items() if note_id in ids]
                hits.extend(self._note_hits(relpath, present, by_word, n_words, phrase))
            if len(hits) >= limit * 2:
                hits.sort(key=_hit_order)
                del hits[limit:]
                worst_id = wi.ids[hits[-1].path]
                worst = (hits[-1].score, worst_id if rank is None else rank[worst_id])
        if cancelled is not None and cancelled():
            return []
        hits.sort(key=_hit_order)
        return hits[:limit]

    def _holds(self, note_id: int, phrase: str) -> bool:
        """True if the note's lowered text contains `phrase`."""
        return phrase in searchable(self.texts.get(self._words.paths[note_id], "")).lower()

    def _check_phrase(self, note_id: int, phrase: str, checks: _PhraseChecks) -> bool:
        """Whether the note holds the phrase, remembered in `checks`."""
        holds = self._holds(note_id, phrase)
        checks.checked.add(note_id)
        if holds:
            checks.found.add(note_id)
        return holds

    def _checks_for(self, phrase: str) -> _PhraseChecks:
        """The remembered checks for `phrase`, seeded from the longest phrase it extends.

        A note holding `phrase` holds every phrase `phrase` starts with, so notes a shorter
        phrase rejected need no new check; only the shorter phrase's holders are rechecked.
        """
        remembered = self._phrase_checks
        checks = remembered.get(phrase)
        if checks is not None:
            return checks
        shorter = max((p for p in remembered if phrase.startswith(p)), key=len, default=None)
        if shorter is None:
            checks = _PhraseChecks(set(), set())
        else:
            previous = remembered[shorter]
            found = {i for i in previous.found if self._holds(i, phrase)}
            checks = _PhraseChecks(set(previous.checked), found)
        remembered[phrase] = checks
        while len(remembered) > PHRASE_CHECKS_KEPT:
            del remembered[next(iter(remembered))]
        return checks

    def _title_and_path_hits(
        self,
        title_ids: set[int],
        path_ids: set[int],
        allowed: set[str] | None,
        by_word: dict[str, list[_Variant]],
        n_words: int,
        phrase: str | None,
    ) -> list[SearchHit]:
        """Score the titles and paths that contain a variant word."""
        hits: list[SearchHit] = []
        for note_id in title_ids | path_ids:
            if note_id in self._words.dead:
                continue
            relpath = self._words.paths[note_id]
            doc = self._docs.get(relpath)
            if doc is None or (allowed is not None and relpath not in allowed):
                continue
            if note_id in title_ids:
                hit = self._score_line(relpath, 0, "title", doc.title, by_word, n_words, phrase)
                if hit is not None:
                    hits.append(hit)
            if note_id in path_ids:
                hit = self._score_line(relpath, 0, "path", relpath, by_word, n_words, phrase)
                if hit is not None:
                    hits.append(hit)
        return hits

    def _note_hits(
        self,
        relpath: str,
        present: list[str],
        by_word: dict[str, list[_Variant]],
        n_words: int,
        phrase: str | None,
    ) -> list[SearchHit]:
        """Every body line of one note that contains a variant word, scored."""
        doc = self._docs.get(relpath)
        if doc is None:
            return []
        text = searchable(self.texts.get(relpath, ""))
        lowered = _lower_same_length(text)
        body_start = _body_start(text)
        lines: dict[int, tuple[list[float], list[tuple[int, int]]]] = {}
        size = len(lowered)
        for word in present:
            word_variants = by_word[word]
            pos = lowered.find(word, body_start)
            while pos >= 0:
                end = pos + len(word)
                if (pos == 0 or not _is_word_char(lowered[pos - 1])) and (
                    end == size or not _is_word_char(lowered[end])
                ):
                    offset = lowered.rfind("\n", 0, pos) + 1
                    entry = lines.get(offset)
                    if entry is None:
                        entry = lines[offset] = ([0.0] * n_words, [])
                    qualities, spans = entry
                    for variant in word_variants:
                        if variant.quality > qualities[variant.word_index]:
                            qualities[variant.word_index] = variant.quality
                        start = pos - offset + variant.offset
                        spans.append((start, start + variant.length))
                pos = lowered.find(word, end)
        if not lines:
            return []
        hits: list[SearchHit] = []
        line_no = 1
        counted_to = 0
        for offset in sorted(lines):
            qualities, spans = lines[offset]
            line_no += text.count("\n", counted_to, offset)
            counted_to = offset
            end = text.find("\n", offset)
            line_text = text[offset:] if end < 0 else text[offset:end]
            kind = doc.line_kind(line_no)
            score = 100 * sum(qualities) / n_words + LINE_KIND_BOOST.get(kind, 0.0)
            if phrase is not None and min(qualities) >= 1.0:
                line_lower = lowered[offset : offset + len(line_text)]
                pos = line_lower.find(phrase)
                if pos >= 0:
                    score += PHRASE_BONUS
                    spans.append((pos, pos + len(phrase)))
            hits.append(
                SearchHit(relpath, line_no, kind, line_text, round(score, 2), _merge_spans(spans))
            )
        return hits

    @staticmethod
    def _score_line(
        relpath: str,
        line_no: int,
        kind: str,
        text: str,
        by_word: dict[str, list[_Variant]],
        n_words: int,
        phrase: str | None,
    ) -> SearchHit | None:
        """Score one line: mean best quality per query word, plus phrase and kind boosts."""
        lowered = _lower_same_length(text)
        qualities = [0.0] * n_words
        spans: list[tuple[int, int]] = []
        for match in WORD_RE.finditer(lowered):
            for variant in by_word.get(match.group(), ()):
                if variant.quality > qualities[variant.word_index]:
                    qualities[variant.word_index] = variant.quality
                start = match.start() + variant.offset
                spans.append((start, start + variant.length))
        if not spans:
            return None
        score = 100 * sum(qualities) / n_words
        if phrase is not None:
            pos = lowered.find(phrase)
            if pos >= 0:
                score += PHRASE_BONUS
                spans.append((pos, pos + len(phrase)))
        if kind == "title":
            score += TITLE_BOOST
        elif kind == "path":
            score += PATH_BOOST
        else:
            score += LINE_KIND_BOOST.get(kind, 0.0)
        return SearchHit(relpath, line_no, kind, text, round(score, 2), _merge_spans(spans))


def _cannot_enter(entry: tuple[float, int, int, int, int, int], worst: tuple[float, int]) -> bool:
    """Whether no line of a heap entry can rank before the limit-th best hit (score, path rank).

    Equal scores are ordered by path, so an entry whose bound ties the worst score may still
    enter if its note's path comes first (or is the same note).
    """
    bound = round(-entry[0], 2)
    return bound < worst[0] or (bound == worst[0] and entry[1] > worst[1])


def _line_groups(
    level_sets: list[dict[float, set[int]]], n_words: int, boost: float, what: int
) -> list[tuple[float, set[int], int]]:
    """Title (or path) candidates grouped by the best quality reachable per query word."""

    def bound_of(qualities: list[float]) -> tuple[float, int]:
        phrase_possible = n_words > 1 and min(qualities) > 0
        bonus = PHRASE_BONUS if phrase_possible else 0.0
        return 100 * sum(qualities) / n_words + boost + bonus, what

    return _split_by_levels(level_sets, n_words, bound_of)


def _bound_groups(
    level_sets: list[dict[float, set[int]]], n_words: int, multi_word: bool
) -> list[tuple[float, set[int], int]]:
    """Notes grouped by the best quality they can reach for each query word, best bound first.

    Each group is (upper bound of any line score, note ids, whether the exact phrase may occur).
    """

    def bound_of(qualities: list[float]) -> tuple[float, int]:
        exact_all = multi_word and min(qualities) >= 1.0
        bound = 100 * sum(qualities) / n_words + LINE_KIND_BOOST["observation"]
        if exact_all:
            return bound + PHRASE_BONUS, BODY_MAYBE_PHRASE
        return bound, BODY

    groups = _split_by_levels(level_sets, n_words, bound_of)
    groups.sort(key=lambda group: -group[0])
    return groups


def _split_by_levels(
    level_sets: list[dict[float, set[int]]],
    n_words: int,
    bound_of: Callable[[list[float]], tuple[float, int]],
) -> list[tuple[float, set[int], int]]:
    """Partition ids by the best level each reaches per query word; `bound_of` scores a group."""
    per_word: list[tuple[list[tuple[float, set[int]]], set[int]]] = []
    universe: set[int] = set()
    for levels in level_sets:
        seen: set[int] = set()
        exclusive: list[tuple[float, set[int]]] = []
        for quality in sorted(levels, reverse=True):
            only_here = levels[quality] - seen
            if only_here:
                exclusive.append((quality, only_here))
                seen |= only_here
        per_word.append((exclusive, seen))
        universe |= seen
    groups: list[tuple[float, set[int], int]] = []

    def split(i: int, members: set[int], qualities: list[float]) -> None:
        if not members:
            return
        if i == n_words:
            if max(qualities) <= 0:
                return
            bound, what = bound_of(qualities)
            groups.append((bound, members, what))
            return
        exclusive, seen = per_word[i]
        for quality, ids in exclusive:
            split(i + 1, members & ids, [*qualities, quality])
        split(i + 1, members - seen, [*qualities, 0.0])

    split(0, universe, [])
    return groups


def _split_checked(
    groups: list[tuple[float, set[int], int]], checks: _PhraseChecks
) -> list[tuple[float, set[int], int]]:
    """Split may-hold-the-phrase groups by what `checks` already knows; the rest stay unchecked."""
    result: list[tuple[float, set[int], int]] = []
    for bound, members, what in groups:
        if what != BODY_MAYBE_PHRASE or not checks.checked:
            result.append((bound, members, what))
            continue
        known = members & checks.checked
        result.append((bound, known & checks.found, BODY))
        result.append((bound - PHRASE_BONUS, known - checks.found, BODY))
        result.append((bound, members - checks.checked, what))
    return result


def _actor_matches(wanted: str, actor: str) -> bool:
    """`agent` matches every `agent:*`; anything with a colon must match exactly."""
    if ":" in wanted:
        return actor == wanted
    return actor == wanted or actor.startswith(wanted + ":")


def matching_notes(index: NoteIndex, filters: SearchFilters, history: object | None) -> set[str]:
    """Relpaths of the index's notes that pass every filter."""
    return _matching(
        {p: _doc_of_packed(packed) for p, packed in index.notes.packed_items()}, filters, history
    )


def _matching(docs: dict[str, _Doc], filters: SearchFilters, history: object | None) -> set[str]:
    """Relpaths of the notes that pass every filter."""
    folder = filters.folder.strip("/") if filters.folder else None
    tag = filters.tag.lstrip("#") if filters.tag else None
    actors: dict[str, str] = {}
    if filters.actor:
        getter = getattr(history, "last_change_actors", None)
        actors = getter() if getter is not None else {}
    now = time.time() if filters.now is None else filters.now
    oldest = now - filters.max_age_days * 86400 if filters.max_age_days is not None else None
    allowed: set[str] = set()
    for relpath, doc in docs.items():
        if folder and not (relpath == folder or relpath.startswith(folder + "/")):
            continue
        if filters.note_type is not None and doc.note_type != filters.note_type:
            continue
        if tag is not None and tag not in doc.tags:
            continue
        if filters.category is not None and filters.category not in doc.categories:
            continue
        if oldest is not None and doc.mtime < oldest:
            continue
        if filters.actor:
            actor = actors.get("/memories/" + relpath)
            if actor is None or not _actor_matches(filters.actor, actor):
                continue
        allowed.add(relpath)
    return allowed
