"""Searcher: fuzzy search over titles, paths, frontmatter tags and type, observations, relations and
body lines of every text file, with match spans, answered from the on-disk index.

Each query word stands for vocabulary words in tiers (the word itself, longer words it starts,
words holding it or close spellings); the full-text index gives the files whose title, path or
frontmatter holds them and the body lines that hold them together. Candidates are visited best
upper bound first and in path order within a bound (SQLite hands them over in that order, so only
what is visited is fetched), each scored from its file's text, and the search stops as soon as
nothing left can beat the k-th best hit. Only visited files are read.
"""

from __future__ import annotations

import heapq
import json
import re
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from memtui.core.parsing.paths import under_root
from memtui.notes.file_checks import shown_part
from memtui.notes.index import NoteIndex
from memtui.notes.index_db import LINE_BITS, from_db, to_db
from memtui.notes.index_queries import count_matching_files
from memtui.notes.query import QueryError, SearchFilters, parse_query
from memtui.notes.reading import normalise_text, read_store_head
from memtui.notes.search_groups import (
    BODY,
    BOOSTS,
    COLUMNS,
    LINE_KIND_BOOST,
    META,
    PATH,
    PATH_BOOST,
    PHRASE_BONUS,
    TITLE,
    TITLE_BOOST,
    Group,
    GroupSource,
    Tier,
    any_of,
    in_column,
    quoted,
    word_tiers,
)
from memtui.notes.vocabulary import (
    EXACT,
    FUZZY_CHUNK,
    FUZZY_CUTOFF,
    PREFIX,
    QUALITY,
    SUBSTRING,
    Variant,
    Vocabulary,
    closest_words,
)

__all__ = [
    "FUZZY_CHUNK",
    "FUZZY_CUTOFF",
    "QueryError",
    "SearchFilters",
    "SearchHit",
    "Searcher",
    "closest_words",
    "matching_notes",
    "parse_query",
]

WORD_RE = re.compile(r"\w+")
CHUNK = 32
"""Documents visited between two checks of `cancelled()`."""
MAX_WORDS = 8
"""A query's first distinct words searched; the rest are left out (the work grows with their
number: each has its variants, tiers and groups)."""
HELD_KEPT = 4_096
"""FTS expressions whose answer (does anything match) is remembered, at most."""
MAX_WIDE_CANDIDATES = 5_000
"""Candidates the groups made past MAX_GROUPS hand over in one search, at most; past them the
search returns the best hits it found."""
TEXTS_KEPT = 4_000_000
"""Characters of recently searched texts kept in memory (twice: as written and lowered)."""
FILE_KINDS = "f.kind IN (1, 2)"
LINE_MASK = (1 << LINE_BITS) - 1
_KIND_OF_LINE = f"ifnull(substr(f.line_kinds, t.rowid & {LINE_MASK}, 1), x'')"
PLAIN_LINES = f" AND {_KIND_OF_LINE} IN (x'', x'00')"
"""The body lines that are neither observations nor relations (their kind adds nothing)."""
BOOSTED_LINES = f" AND {_KIND_OF_LINE} NOT IN (x'', x'00')"
"""Observation and relation lines: a body group's bound counts their kind's boost, so plain
lines are walked as a group of their own whose bound is that much lower (a common word's plain
lines then stop the walk once enough of them are found, instead of being visited all)."""
SQLITE_MIN, SQLITE_MAX = -(1 << 63), (1 << 63) - 1
"""SQLite's integers: an age or a limit past them means everything."""
LINE_KINDS = ("body", "observation", "relation")
NAME_KINDS = ("title", "path")
"""Kinds of hit that name a note: a note gives one of them at most."""
LINES = "lines"
"""A short query's tier of frontmatter values and body lines holding it as a whole word."""
SHORT_LINE_SCORE = 100 * QUALITY[EXACT]
"""What a short query's whole word in a line scores, whatever the kind of line (a kind's boost
would rank a later note's line above an earlier one's, and the lines are taken in path order)."""


@dataclass(frozen=True)
class SearchHit:
    """One matching line: where it is, what it says, how well it matched and which chars matched."""

    path: str
    line: int
    """1-based line in the file; 0 for title, path and listed-note hits."""
    kind: str
    """"title" | "path" | "frontmatter" | "observation" | "relation" | "body", or "note" for a
    note listed by filters alone."""
    text: str
    score: float
    spans: tuple[tuple[int, int], ...]
    """(start, end) character offsets into `text` of the matched parts, sorted, not overlapping."""


@dataclass
class SearchWork:
    """What one search did: the work it is bounded by."""

    groups: int = 0
    """Groups of candidates opened (one SQLite query each)."""
    candidates: int = 0
    """Candidates taken from them."""
    complete: bool = True
    """False when it stopped at MAX_WIDE_CANDIDATES with the best hits found by then."""


class _Kept:
    """The hits a search keeps, best first: at most `limit`, at most one title or path hit per
    note, at most `per_note` hits per note (None: any number).

    Keeping fewer hits per note only raises the limit-th best score as more hits come, so a
    search may stop on it as it does without these rules."""

    def __init__(self, limit: int, per_note: int | None) -> None:
        """Keep `limit` hits at most, `per_note` of one note."""
        self.limit = limit
        self.per_note = per_note
        self.hits: list[SearchHit] = []
        self._counts: dict[str, int] = {}
        self._named: set[str] = set()

    @property
    def full(self) -> bool:
        """Whether `limit` hits are kept."""
        return len(self.hits) >= self.limit

    def takes(self, path: str) -> bool:
        """Whether another hit of the note at `path` would be kept (were it the best left)."""
        return self.per_note is None or self._counts.get(path, 0) < self.per_note

    def add(self, hit: SearchHit) -> bool:
        """Keep `hit` (no better hit may come after it) unless a rule leaves it out."""
        if self.full or not self.takes(hit.path):
            return False
        if hit.kind in NAME_KINDS:
            if hit.path in self._named:
                return False
            self._named.add(hit.path)
        self._counts[hit.path] = self._counts.get(hit.path, 0) + 1
        self.hits.append(hit)
        return True

    def best_of(self, hits: list[SearchHit]) -> list[SearchHit]:
        """The hits of `hits` these rules keep, best first."""
        best = _Kept(self.limit, self.per_note)
        for hit in sorted(hits, key=_hit_order):
            best.add(hit)
            if best.full:
                break
        return best.hits


@dataclass(frozen=True, slots=True)
class _Doc:
    """What a visit needs of one file: from a group's row."""

    file_id: int
    path: str
    title: str
    body_line: int
    line_kinds: bytes
    doc: int
    """The full-text document: a new one whenever the index reads the file again."""


@dataclass
class _Query:
    """A query prepared for scoring: its words, their variants, the phrase pattern."""

    words: list[str]
    by_word: dict[str, list[Variant]]
    phrase: re.Pattern[str] | None
    """Matches the query's words in order with only non-word characters between (multi-word)."""
    phrase_terms: list[str]

    @property
    def n_words(self) -> int:
        """How many words the score averages over."""
        return len(self.words)


def _query_words(query_lower: str) -> tuple[list[str], list[str]]:
    """The distinct words searched for (single letters only when nothing longer is given; the
    first MAX_WORDS) and the query's words in order up to the first one left out."""
    tokens = WORD_RE.findall(query_lower)
    words = list(dict.fromkeys(tokens))
    if len(words) > 1:
        words = [w for w in words if len(w) > 1] or words
    if len(words) > MAX_WORDS:
        del tokens[tokens.index(words[MAX_WORDS]) :]
        del words[MAX_WORDS:]
    return words, tokens


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


def _line_kind(kinds: bytes, line_no: int) -> str:
    """The kind of a 1-based line: observation, relation or body."""
    return LINE_KINDS[kinds[line_no - 1]] if 0 < line_no <= len(kinds) else "body"


def _actor_matches(wanted: str, actor: str) -> bool:
    """`agent` matches every `agent:*`; anything with a colon must match exactly."""
    if ":" in wanted:
        return actor == wanted
    return actor == wanted or actor.startswith(wanted + ":")


class RecentTexts:
    """The lines of the files searched last, up to a size: the next keystroke's search visits
    mostly the same files. Keyed by full-text document, so a file read again is read anew."""

    def __init__(self, budget: int = TEXTS_KEPT) -> None:
        """Keep up to `budget` characters of text."""
        self.budget = budget
        self._texts: OrderedDict[int, tuple[list[str], list[str]]] = OrderedDict()
        self._sizes: dict[int, int] = {}
        self._size = 0
        self._lock = threading.Lock()

    def get(self, doc: int) -> tuple[list[str], list[str]] | None:
        """The (lines, lowered lines) of a document, if kept."""
        with self._lock:
            found = self._texts.get(doc)
            if found is not None:
                self._texts.move_to_end(doc)
            return found

    def put(self, doc: int, lines: tuple[list[str], list[str]], size: int) -> None:
        """Keep a document's lines (`size` characters), forgetting the oldest beyond the budget."""
        with self._lock:
            if doc in self._texts:
                return
            self._texts[doc] = lines
            self._sizes[doc] = size
            self._size += size
            while self._size > self.budget and self._texts:
                old, _lines = self._texts.popitem(last=False)
                self._size -= self._sizes.pop(old)


class ActorLookup(Protocol):
    """What the actor filter asks of a history: who last changed each file."""

    def last_change_actors(self) -> dict[str, str]:
        """Virtual path -> the actor of its latest change."""
        ...


class Searcher:
    """Fuzzy search over one NoteIndex; safe to use from any thread (each reads on its own
    connection), and always over the index's latest committed state."""

    def __init__(
        self,
        index: NoteIndex | None,
        history: ActorLookup | None = None,
    ) -> None:
        """Search `index` (None: nothing is found); `history` answers the actor filter."""
        self.index = index
        self.history = history
        self._vocab = Vocabulary()
        self._texts = RecentTexts()
        self._held: dict[str, bool] = {}
        """Whether any row matches an FTS expression, at `_held_generation` of the index."""
        self._held_generation = -1
        self.work = SearchWork()
        """What the last search finished on this searcher did."""

    def invalidate(self, relpaths: Iterable[str]) -> None:
        """Kept for callers that announce updates: the searcher follows the index by itself."""
        del relpaths

    @property
    def root(self) -> Path:
        """The store searched."""
        assert self.index is not None
        return self.index.root

    # ----- entry point -------------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        limit: int = 50,
        filters: SearchFilters | None = None,
        cancelled: Callable[[], bool] | None = None,
        per_note: int | None = None,
        visible: Callable[[str], bool] | None = None,
    ) -> list[SearchHit]:
        """The best `limit` hits for `query`, best first (ties by path, line); [] when cancelled.
        A note gives one title or path hit at most (the better), and at most `per_note` hits in
        all when that is given (its best).

        A query of filters alone lists the notes that pass them, most recently changed first.
        With `visible`, only files it allows are candidates (what an agent may see).
        """
        query = query.strip()
        if self.index is None or limit <= 0:
            return []
        filters = filters if filters is not None and filters.any() else None
        if not query and filters is None:
            return []
        with self.index.db.snapshot() as conn:
            where, params = self._filter_sql(conn, filters)
            if visible is not None:
                where += _visible_sql(conn, visible)
            if not query:
                return self._listed(conn, where, params, limit)
            query_lower = _lower_same_length(query)
            words, tokens = _query_words(query_lower)
            kept = _Kept(limit, per_note)
            if len(query) <= 2 or not words:
                return self._search_short(conn, query_lower, kept, where, params)
            generation = self.index.generation()
            self._vocab.refresh(conn, generation)
            if generation != self._held_generation:
                self._held, self._held_generation = {}, generation
            prepared = self._prepare(words, tokens)
            return self._search_words(conn, prepared, kept, where, params, cancelled)

    def count_notes(
        self, query: str, *, filters: SearchFilters | None = None, cap: int = 1000
    ) -> tuple[int, bool] | None:
        """How many notes and text files a word query matches (any variant of any of its words,
        in a title, path, frontmatter value or body line), and whether that is all of them (the
        count stops at `cap` files or after a bounded read of the matches), without scoring
        them; None for a query of filters alone or of one or two characters."""
        query = query.strip()
        if self.index is None:
            return 0, True
        filters = filters if filters is not None and filters.any() else None
        words, tokens = _query_words(_lower_same_length(query))
        if len(query) <= 2 or not words:
            return None
        with self.index.db.snapshot() as conn:
            where, params = self._filter_sql(conn, filters)
            self._vocab.refresh(conn, self.index.generation())
            terms = self._prepare(words, tokens).by_word
            if not terms:
                return 0, True
            return count_matching_files(conn, any_of(terms), where, params, cap)

    # ----- filters -----------------------------------------------------------------------------

    def _filter_sql(
        self, conn: sqlite3.Connection, filters: SearchFilters | None
    ) -> tuple[str, list[object]]:
        """SQL conditions on `files` (as `f`) for the filters, and their parameters."""
        if filters is None:
            return "", []
        conditions: list[str] = []
        params: list[object] = []
        if filters.folder:
            folder = to_db(filters.folder.strip("/"))
            conditions.append("(f.path = ? OR (f.path > ? AND f.path < ?))")
            params += [folder, folder + "/", folder + "0"]
        if filters.note_type is not None:
            conditions.append("f.kind = 1 AND f.note_type = ?")
            params.append(filters.note_type)
        if filters.tag:
            conditions.append("f.id IN (SELECT file FROM tags WHERE tag = ?)")
            params.append(filters.tag.lstrip("#"))
        if filters.category is not None:
            conditions.append("f.id IN (SELECT file FROM categories WHERE category = ?)")
            params.append(filters.category)
        if filters.max_age_days is not None:
            now = time.time() if filters.now is None else filters.now
            conditions.append("f.mtime_ns >= ?")
            cutoff = (now - filters.max_age_days * 86400) * 1e9
            params.append(int(cutoff) if cutoff > SQLITE_MIN else SQLITE_MIN)
        if filters.actor:
            self._fill_actor_paths(conn, filters.actor)
            conditions.append("f.path IN (SELECT path FROM temp.actor_paths)")
        return " AND " + " AND ".join(conditions), params

    def _fill_actor_paths(self, conn: sqlite3.Connection, wanted: str) -> None:
        """Put the paths last changed by `wanted` in a temporary table of this connection."""
        actors = self.history.last_change_actors() if self.history is not None else {}
        conn.execute("CREATE TEMP TABLE IF NOT EXISTS actor_paths (path TEXT PRIMARY KEY)")
        conn.execute("DELETE FROM temp.actor_paths")
        conn.executemany(
            "INSERT OR IGNORE INTO temp.actor_paths VALUES (?)",
            (
                (to_db(relpath),)
                for virtual, actor in actors.items()
                if (relpath := under_root(virtual)) is not None and _actor_matches(wanted, actor)
            ),
        )

    def _listed(
        self, conn: sqlite3.Connection, where: str, params: list[object], limit: int
    ) -> list[SearchHit]:
        """Filters alone: the notes that pass them, most recently changed first."""
        rows = conn.execute(
            f"SELECT f.path, f.title FROM files f WHERE {FILE_KINDS}{where} "
            "ORDER BY f.mtime_ns DESC, f.path LIMIT ?",
            (*params, min(limit, SQLITE_MAX)),
        ).fetchall()
        return [
            SearchHit(from_db(path), 0, "note", from_db(title), 0.0, ()) for path, title in rows
        ]

    # ----- short queries -----------------------------------------------------------------------

    def _search_short(
        self,
        conn: sqlite3.Connection,
        needle: str,
        kept: _Kept,
        where: str,
        params: list[object],
    ) -> list[SearchHit]:
        """Very short queries (one or two characters), best first: titles, then paths, holding
        the text as a whole word; lines (frontmatter values and body lines) holding it as a whole
        word; then titles and paths holding it at a word's start, then inside a word; by path
        and line within each."""
        ordered = _in_path_order(conn)
        prepared = _exact_query(needle)
        for quality, kind, docs in _short_tiers(conn, needle, where, params, ordered):
            with docs:
                for line, doc in docs:
                    if kept.full:
                        return kept.hits
                    if kind == LINES:
                        if not kept.takes(doc.path):
                            continue
                        what = META if line == 0 else BODY
                        for hit in self._visit(conn, doc, line, what, prepared):
                            kept.add(replace(hit, score=SHORT_LINE_SCORE))
                        continue
                    named = _name_hit(doc, kind, needle, quality)
                    if named is not None:
                        kept.add(named)
        return kept.hits

    # ----- word queries ------------------------------------------------------------------------

    def _prepare(self, words: list[str], tokens: list[str]) -> _Query:
        """The variants of each query word, and the phrase pattern of a multi-word query (its
        `tokens`: every word of it in order, short ones too)."""
        by_word: dict[str, list[Variant]] = {}
        for variant in self._vocab.variants(words):
            by_word.setdefault(variant.word, []).append(variant)
        phrase = None
        if len(words) > 1:
            phrase = re.compile(
                r"(?<!\w)" + r"\W+".join(re.escape(token) for token in tokens) + r"(?!\w)"
            )
        return _Query(words, by_word, phrase, tokens)

    def _groups(self, conn: sqlite3.Connection, prepared: _Query) -> GroupSource:
        """The groups of candidates, best bound first: per kind of line, the best tier each query
        word reaches there (tiers nothing of that kind holds are left out), and the phrase."""
        per_word = [word_tiers(word, i, prepared.by_word) for i, word in enumerate(prepared.words)]
        options: dict[str, list[list[Tier]]] = {}
        for column in COLUMNS:
            options[column] = [
                [
                    *(tier for tier in tiers if self._holds(conn, in_column(column, tier[1]))),
                    (0.0, None),
                ]
                for tiers in per_word
            ]
        phrase_group = None
        if prepared.phrase is not None and all(
            self._vocab.holds(term) for term in prepared.phrase_terms
        ):
            phrase = " ".join(prepared.phrase_terms).replace('"', '""')
            phrase_group = Group(100.0 + BOOSTS[BODY] + PHRASE_BONUS, BODY, f'"{phrase}"')
        return GroupSource(
            options, prepared.n_words, lambda match: self._holds(conn, match), phrase_group
        )

    def _holds(self, conn: sqlite3.Connection, match: str) -> bool:
        """Whether anything matches an FTS expression (remembered until the index changes)."""
        held = self._held.get(match)
        if held is None:
            if len(self._held) >= HELD_KEPT:
                self._held.clear()
            table = "fts" if match.startswith("(") or match.startswith('"') else "fts_file"
            held = self._held[match] = (
                conn.execute(
                    f"SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT 1", (match,)
                ).fetchone()
                is not None
            )
        return held

    def _search_words(
        self,
        conn: sqlite3.Connection,
        prepared: _Query,
        kept: _Kept,
        where: str,
        params: list[object],
        cancelled: Callable[[], bool] | None,
    ) -> list[SearchHit]:
        """Visit candidates best bound first (path order within a bound), stopping once the
        limit-th best hit cannot be beaten by anything not yet visited."""
        walk = _Walk(conn, self._groups(conn, prepared), where, params, cancelled)
        limit = kept.limit
        hits: list[SearchHit] = []
        worst: tuple[float, str, int] | None = None
        trim_at = limit
        try:
            while (found := walk.next(worst)) is not None:
                line, doc, group = found
                floor = worst[0] if worst is not None else -1.0
                hits.extend(self._visit(conn, doc, line, group.what, prepared, floor))
                if len(hits) >= trim_at:
                    hits = kept.best_of(hits)
                    trim_at = len(hits) + limit
                    if len(hits) >= limit:
                        worst = (hits[-1].score, hits[-1].path, hits[-1].line)
        except _Cancelled:
            return []
        finally:
            walk.close()
            self.work = walk.work
        if cancelled is not None and cancelled():
            return []
        return kept.best_of(hits)

    # ----- scoring -----------------------------------------------------------------------------

    def _visit(
        self,
        conn: sqlite3.Connection,
        doc: _Doc,
        line: int,
        what: str,
        prepared: _Query,
        floor: float = -1.0,
    ) -> list[SearchHit]:
        """The hits of one candidate: a body line (below `floor` left out), or a file's title,
        path or frontmatter lines."""
        if what == TITLE:
            hit = _score_line(doc.path, 0, "title", doc.title, prepared)
            return [] if hit is None else [hit]
        if what == PATH:
            hit = _score_line(doc.path, 0, "path", doc.path, prepared)
            return [] if hit is None else [hit]
        if what == META:
            row = conn.execute("SELECT info FROM files WHERE id = ?", (doc.file_id,)).fetchone()
            meta = json.loads(row[0]).get("meta", []) if row is not None else []
            found = (
                _score_line(doc.path, number, "frontmatter", text, prepared)
                for number, text in meta
            )
            return [hit for hit in found if hit is not None]
        lines = self._lines(doc)
        if lines is None or not 0 < line <= len(lines[0]):
            return []
        hit = _line_hit(doc, line, lines[0][line - 1], lines[1][line - 1], prepared, floor)
        return [] if hit is None else [hit]

    def _lines(self, doc: _Doc) -> tuple[list[str], list[str]] | None:
        """A file's shown lines and their lowered form, read now or kept from a recent search;
        None when it cannot be read."""
        lines = self._texts.get(doc.doc)
        if lines is None:
            try:
                head = read_store_head(self.root, doc.path)
            except OSError:
                return None
            text = shown_part(normalise_text(head.data))
            lines = (text.split("\n"), _lower_same_length(text).split("\n"))
            self._texts.put(doc.doc, lines, len(text))
        return lines


def _visible_sql(conn: sqlite3.Connection, visible: Callable[[str], bool]) -> str:
    """The condition that keeps only the files `visible` allows (a function of this
    connection, set for this search)."""
    conn.create_function("memtui_visible", 1, lambda path: visible(from_db(path)))
    return " AND memtui_visible(f.path)"


def _in_path_order(conn: sqlite3.Connection) -> bool:
    """Whether the full-text tables' document numbers follow the paths' order."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'ordered'").fetchone()
    return row is not None and bool(row[0])


_DOC_COLUMNS = "f.id, f.path, f.title, f.body_line, f.line_kinds, f.doc"


class _Stream:
    """Candidates as (line, file) in path and line order, fetched as they are taken from a query
    whose rows are (line, files columns); close it when done."""

    def __init__(self, cursor: sqlite3.Cursor, ordered: bool) -> None:
        """Take the rows of `cursor`; `ordered`: they come in path order (else sort them here)."""
        self._cursor: sqlite3.Cursor | None = cursor
        self._rows: Iterator[tuple[Any, ...]] = cursor
        if not ordered:
            rows = sorted(cursor.fetchall(), key=lambda row: (row[2], row[0]))
            self.close()
            self._rows = iter(rows)
        self._doc: _Doc | None = None

    def __iter__(self) -> _Stream:
        """The stream itself."""
        return self

    def __next__(self) -> tuple[int, _Doc]:
        """The next (line, file): line 0 for a file's title, path or frontmatter."""
        row = next(self._rows)
        doc = self._doc
        if doc is None or doc.doc != row[6]:
            doc = self._doc = _doc(row[1:])
        return row[0], doc

    def __enter__(self) -> _Stream:
        """Use as a context manager: closed on exit."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close the query."""
        self.close()

    def close(self) -> None:
        """Stop the query (its statement is reset, so the read transaction can end)."""
        if self._cursor is not None:
            self._cursor.close()
            self._cursor = None
            self._rows = iter(())


class _Merged:
    """Candidates of several streams as one, in path and line order; close it when done."""

    def __init__(self, *streams: _Stream) -> None:
        """Merge `streams`, each in path and line order."""
        self._streams = streams
        self._rows = heapq.merge(*streams, key=lambda row: (row[1].path, row[0]))

    def __iter__(self) -> Iterator[tuple[int, _Doc]]:
        """The merged candidates."""
        return self._rows

    def __enter__(self) -> _Merged:
        """Use as a context manager: closed on exit."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close every stream."""
        for stream in self._streams:
            stream.close()


class _Cancelled(Exception):
    """The search was called off (the next keystroke's search takes over)."""


class _Walk:
    """The candidates of a search's groups, best bound first and in path order within a bound,
    each file's title, path, frontmatter or body line handed over once."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        source: GroupSource,
        where: str,
        params: list[object],
        cancelled: Callable[[], bool] | None,
    ) -> None:
        """Walk the groups `source` makes, over the files that pass the filters (`where`)."""
        self._conn = conn
        self._source = source
        self._where, self._params = where, params
        self._ordered = _in_path_order(conn)
        self._cancelled = cancelled
        self._heap: list[tuple[float, str, int, int, _Doc]] = []
        """The next candidate of each open group: (-bound, path, line, group number, file)."""
        self._groups: list[Group] = []
        self._streams: list[_Stream] = []
        self._visited: set[tuple[int, str, int]] = set()
        self._opening = True
        self._wide_taken = 0
        self.work = SearchWork()

    def next(self, worst: tuple[float, str, int] | None) -> tuple[int, _Doc, Group] | None:
        """The next candidate (line, file, its group) that could beat `worst` (the limit-th best
        hit so far: score, path, line), or None when nothing left can."""
        while True:
            self._open(worst)
            if not self._heap:
                return None
            neg_bound, path, line, number, doc = heapq.heappop(self._heap)
            bound = round(-neg_bound, 2)
            if worst is not None and (
                bound < worst[0] or (bound == worst[0] and (path, line) > worst[1:])
            ):
                return None
            group = self._groups[number]
            self._push_next(number)
            self.work.candidates += 1
            if group.wide:
                self._wide_taken += 1
                if self._wide_taken > MAX_WIDE_CANDIDATES:
                    self.work.complete = False
                    return None
            key = (doc.file_id, group.what, line)
            if key in self._visited:
                continue
            self._visited.add(key)
            if len(self._visited) % CHUNK == 0:
                self._check()
            return line, doc, group

    def _open(self, worst: tuple[float, str, int] | None) -> None:
        """Open the groups whose bound reaches the best waiting candidate's (any, when none
        waits); none after one that cannot beat `worst`."""
        while (
            self._opening
            and (group := self._source.peek()) is not None
            and (not self._heap or group.bound >= -self._heap[0][0])
        ):
            self._source.take()
            if worst is not None and round(group.bound, 2) < worst[0]:
                self._opening = False
                return
            self._check()
            self.work.groups += 1
            if group.what != BODY:
                self._add(group, "fts_file", "")
                continue
            self._add(group, "fts", BOOSTED_LINES)
            plain = Group(group.bound - BOOSTS[BODY], BODY, group.match, group.wide)
            self._add(plain, "fts", PLAIN_LINES)

    def _add(self, group: Group, table: str, lines: str) -> None:
        """Open a group over `table` (body lines: of the kinds `lines` keeps) and take its
        first candidate."""
        where = self._where + lines
        self._groups.append(group)
        self._streams.append(
            _members(self._conn, table, group.match, where, self._params, self._ordered)
        )
        self._push_next(len(self._groups) - 1)

    def _push_next(self, number: int) -> None:
        """Put a group's next candidate (in path order) on the heap; close it when it has none."""
        stream = self._streams[number]
        found = next(stream, None)
        if found is None:
            stream.close()
            return
        line, doc = found
        heapq.heappush(self._heap, (-self._groups[number].bound, doc.path, line, number, doc))

    def _check(self) -> None:
        """Raise _Cancelled when the search was called off."""
        if self._cancelled is not None and self._cancelled():
            raise _Cancelled

    def close(self) -> None:
        """Close every group's query."""
        for stream in self._streams:
            stream.close()


def _members(
    conn: sqlite3.Connection,
    table: str,
    match: str,
    where: str,
    params: list[object],
    ordered: bool,
) -> _Stream:
    """The candidates of an FTS expression over `table` (the body lines' `fts`, or `fts_file`)
    that pass the filters, in path and line order."""
    if table == "fts":
        sql = (
            f"SELECT t.rowid & {LINE_MASK}, {_DOC_COLUMNS} FROM fts t JOIN files f "
            f"ON f.doc = t.rowid >> {LINE_BITS} WHERE t.fts MATCH ?{where} ORDER BY t.rowid"
        )
    else:
        sql = (
            f"SELECT 0, {_DOC_COLUMNS} FROM fts_file t JOIN files f ON f.doc = t.rowid "
            f"WHERE t.fts_file MATCH ?{where} ORDER BY t.rowid"
        )
    return _Stream(conn.execute(sql, (match, *params)), ordered)


def _doc(row: tuple[Any, ...]) -> _Doc:
    """A _Doc from its row (id, path, title, body_line, line_kinds, doc)."""
    return _Doc(row[0], from_db(row[1]), from_db(row[2] or ""), row[3], row[4] or b"", row[5])


def _best_occurrence(lowered: str, needle: str) -> tuple[float, tuple[int, int]] | None:
    """How well `needle` occurs in a lowered text at its best (a whole word, a word's start,
    inside a word) and where; None when it does not occur."""
    best: tuple[float, tuple[int, int]] | None = None
    pos = lowered.find(needle)
    while pos >= 0:
        end = pos + len(needle)
        starts_word = pos == 0 or not _is_word_char(lowered[pos - 1])
        ends_word = end == len(lowered) or not _is_word_char(lowered[end])
        if starts_word and ends_word:
            return QUALITY[EXACT], (pos, end)
        quality = QUALITY[PREFIX] if starts_word else QUALITY[SUBSTRING]
        if best is None or quality > best[0]:
            best = (quality, (pos, end))
        pos = lowered.find(needle, pos + 1)
    return best


def _short_tiers(
    conn: sqlite3.Connection, needle: str, where: str, params: list[object], ordered: bool
) -> Iterator[tuple[float, str, _Stream | _Merged]]:
    """For a short query: (quality, kind, candidates in path order) from the best tier down:
    titles and paths, and for a word (LINES) the frontmatter values and body lines holding it;
    title and path candidates may hold the text less well (their own tier says so)."""
    if WORD_RE.fullmatch(needle) is None:
        for quality in (QUALITY[EXACT], QUALITY[PREFIX], QUALITY[SUBSTRING]):
            for kind in ("title", "path"):
                yield quality, kind, _containing(conn, kind, needle, where, params)
        return
    for quality, match in (
        (QUALITY[EXACT], quoted(needle)),
        (QUALITY[PREFIX], quoted(needle) + " *"),
    ):
        for kind in ("title", "path"):
            stream = _members(conn, "fts_file", f"{{{kind}}} : {match}", where, params, ordered)
            yield quality, kind, stream
        if quality == QUALITY[EXACT]:
            meta = _members(conn, "fts_file", in_column(META, match), where, params, ordered)
            yield (
                quality,
                LINES,
                _Merged(meta, _members(conn, "fts", match, where, params, ordered)),
            )
    for kind in ("title", "path"):
        yield QUALITY[SUBSTRING], kind, _containing(conn, kind, needle, where, params)


def _name_hit(doc: _Doc, kind: str, needle: str, quality: float) -> SearchHit | None:
    """A short query's title or path hit, when the text occurs there best at `quality`."""
    text = doc.title if kind == "title" else doc.path
    found = _best_occurrence(_lower_same_length(text), needle)
    if found is None or found[0] != quality:
        return None
    boost = TITLE_BOOST if kind == "title" else PATH_BOOST
    return SearchHit(doc.path, 0, kind, text, 100 * quality + boost, (found[1],))


def _exact_query(word: str) -> _Query:
    """A one-word query matching the word itself only (a short query's lines)."""
    variant = Variant(word, 0, EXACT, QUALITY[EXACT], 0, len(word))
    return _Query([word], {word: [variant]}, None, [word])


def _containing(
    conn: sqlite3.Connection, column: str, needle: str, where: str, params: list[object]
) -> _Stream:
    """Files whose title or path holds `needle` (ignoring ASCII case), in path order."""
    if needle.isascii():
        condition, first = f"instr(lower(f.{column}), ?) > 0", [to_db(needle)]
    else:
        condition, first = "1", []
    cursor = conn.execute(
        f"SELECT 0, {_DOC_COLUMNS} FROM files f INDEXED BY files_path WHERE {FILE_KINDS} "
        f"AND {condition}{where} ORDER BY f.path",
        (*first, *params),
    )
    return _Stream(cursor, True)


def _score_line(
    relpath: str, line_no: int, kind: str, text: str, prepared: _Query
) -> SearchHit | None:
    """Score one line: mean best quality per query word, plus phrase and kind boosts."""
    lowered = _lower_same_length(text)
    n_words = prepared.n_words
    qualities = [0.0] * n_words
    spans: list[tuple[int, int]] = []
    for match in WORD_RE.finditer(lowered):
        for variant in prepared.by_word.get(match.group(), ()):
            if variant.quality > qualities[variant.word_index]:
                qualities[variant.word_index] = variant.quality
            start = match.start() + variant.offset
            spans.append((start, start + variant.length))
    if not spans:
        return None
    score = 100 * sum(qualities) / n_words
    if prepared.phrase is not None:
        found = prepared.phrase.search(lowered)
        if found is not None:
            score += PHRASE_BONUS
            spans.append(found.span())
    if kind == "title":
        score += TITLE_BOOST
    elif kind == "path":
        score += PATH_BOOST
    else:
        score += LINE_KIND_BOOST.get(kind, 0.0)
    return SearchHit(relpath, line_no, kind, text, round(score, 2), _merge_spans(spans))


def _line_hit(
    doc: _Doc, line_no: int, text: str, lowered: str, prepared: _Query, floor: float = -1.0
) -> SearchHit | None:
    """A body line's hit when it holds a variant word and scores at least `floor` (what the
    limit-th best hit so far scores); `lowered` is `text` lowered char for char."""
    n_words = prepared.n_words
    qualities = [0.0] * n_words
    spans: list[tuple[int, int]] = []
    by_word = prepared.by_word
    for match in WORD_RE.finditer(lowered):
        variants = by_word.get(match.group())
        if variants is None:
            continue
        pos = match.start()
        for variant in variants:
            if variant.quality > qualities[variant.word_index]:
                qualities[variant.word_index] = variant.quality
            start = pos + variant.offset
            spans.append((start, start + variant.length))
    if not spans:
        return None
    kind = _line_kind(doc.line_kinds, line_no)
    score = 100 * sum(qualities) / n_words + LINE_KIND_BOOST.get(kind, 0.0)
    if prepared.phrase is not None and min(qualities) >= 1.0:
        found = prepared.phrase.search(lowered)
        if found is not None:
            score += PHRASE_BONUS
            spans.append(found.span())
    if round(score, 2) < floor:
        return None
    return SearchHit(doc.path, line_no, kind, text, round(score, 2), _merge_spans(spans))


def matching_notes(
    index: NoteIndex, filters: SearchFilters, history: ActorLookup | None
) -> set[str]:
    """Relpaths of the indexed files that pass every filter."""
    searcher = Searcher(index, history)
    with index.db.snapshot() as conn:
        where, params = searcher._filter_sql(conn, filters if filters.any() else None)
        rows = conn.execute(
            f"SELECT f.path FROM files f WHERE {FILE_KINDS}{where}", params
        ).fetchall()
    return {from_db(row[0]) for row in rows}
