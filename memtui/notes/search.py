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
import itertools
import json
import re
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memtui.core.parsing.paths import under_root
from memtui.notes.file_checks import shown_part
from memtui.notes.index import NoteIndex
from memtui.notes.index_db import LINE_BITS, from_db, to_db
from memtui.notes.query import QueryError, SearchFilters, parse_query
from memtui.notes.reading import normalise_text, read_store_head
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
TITLE_BOOST = 8.0
PATH_BOOST = 4.0
LINE_KIND_BOOST = {"observation": 1.0, "relation": 1.0, "frontmatter": 1.0, "body": 0.0}
PHRASE_BONUS = 15.0
CHUNK = 32
"""Documents visited between two checks of `cancelled()`."""
TEXTS_KEPT = 4_000_000
"""Characters of recently searched texts kept in memory (twice: as written and lowered)."""
FILE_KINDS = "f.kind IN (1, 2)"
LINE_MASK = (1 << LINE_BITS) - 1
BODY, TITLE, PATH, META = "body", "title", "path", "meta"
"""The full-text index's columns, and what a visit scores."""
BOOSTS = {BODY: LINE_KIND_BOOST["observation"], TITLE: TITLE_BOOST, PATH: PATH_BOOST, META: 1.0}
LINE_KINDS = ("body", "observation", "relation")


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


@dataclass(frozen=True)
class _Group:
    """Candidates whose lines of one kind can reach `bound`: an FTS expression over the body
    lines (`what` BODY) or over one column of the files' titles, paths and frontmatter."""

    bound: float
    what: str
    match: str


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


def _quoted(term: str) -> str:
    """A term as an FTS5 string (its quotes doubled)."""
    return '"' + term.replace('"', '""') + '"'


def _any_of(terms: Iterable[str]) -> str:
    """An FTS5 expression matching any of `terms`."""
    return "(" + " OR ".join(_quoted(term) for term in sorted(terms)) + ")"


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


class Searcher:
    """Fuzzy search over one NoteIndex; safe to use from any thread (each reads on its own
    connection), and always over the index's latest committed state."""

    def __init__(
        self,
        index: NoteIndex | None,
        history: object | None = None,
    ) -> None:
        """Search `index` (None: nothing is found); `history` answers the actor filter."""
        self.index = index
        self.history = history
        self._vocab = Vocabulary()
        self._texts = RecentTexts()
        self._held: dict[str, bool] = {}
        """Whether any row matches an FTS expression, at `_held_generation` of the index."""
        self._held_generation = -1

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
    ) -> list[SearchHit]:
        """The best `limit` hits for `query`, best first (ties by path, line); [] when cancelled.

        A query of filters alone lists the notes that pass them, most recently changed first.
        """
        query = query.strip()
        if self.index is None or limit <= 0:
            return []
        filters = filters if filters is not None and filters.any() else None
        if not query and filters is None:
            return []
        with self.index.db.snapshot() as conn:
            where, params = self._filter_sql(conn, filters)
            if not query:
                return self._listed(conn, where, params, limit)
            query_lower = _lower_same_length(query)
            words = list(dict.fromkeys(WORD_RE.findall(query_lower)))
            if len(words) > 1:
                words = [w for w in words if len(w) > 1] or words
            if len(query) <= 2 or not words:
                return self._search_titles(conn, query_lower, limit, where, params)
            generation = self.index.generation()
            self._vocab.refresh(conn, generation)
            if generation != self._held_generation:
                self._held, self._held_generation = {}, generation
            prepared = self._prepare(query_lower, words)
            return self._search_words(conn, prepared, limit, where, params, cancelled)

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
            params.append(int((now - filters.max_age_days * 86400) * 1e9))
        if filters.actor:
            self._fill_actor_paths(conn, filters.actor)
            conditions.append("f.path IN (SELECT path FROM temp.actor_paths)")
        return " AND " + " AND ".join(conditions), params

    def _fill_actor_paths(self, conn: sqlite3.Connection, wanted: str) -> None:
        """Put the paths last changed by `wanted` in a temporary table of this connection."""
        getter = getattr(self.history, "last_change_actors", None)
        actors: dict[str, str] = getter() if getter is not None else {}
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
            (*params, limit),
        ).fetchall()
        return [
            SearchHit(from_db(path), 0, "note", from_db(title), 0.0, ()) for path, title in rows
        ]

    # ----- short queries -----------------------------------------------------------------------

    def _search_titles(
        self,
        conn: sqlite3.Connection,
        needle: str,
        limit: int,
        where: str,
        params: list[object],
    ) -> list[SearchHit]:
        """Very short queries: titles and paths that hold the text, best first: as a whole
        word, at a word's start, inside a word (titles before paths at each), by path."""
        hits: list[SearchHit] = []
        seen: set[tuple[str, str]] = set()
        ordered = _in_path_order(conn)
        for quality, kind, docs in _short_tiers(conn, needle, where, params, ordered):
            boost = TITLE_BOOST if kind == "title" else PATH_BOOST
            with docs:
                for _line, doc in docs:
                    if len(hits) >= limit:
                        return hits
                    text = doc.title if kind == "title" else doc.path
                    found = _best_occurrence(_lower_same_length(text), needle)
                    if (doc.path, kind) in seen or found is None or found[0] != quality:
                        continue
                    seen.add((doc.path, kind))
                    span = found[1]
                    hits.append(SearchHit(doc.path, 0, kind, text, 100 * quality + boost, (span,)))
        return hits

    # ----- word queries ------------------------------------------------------------------------

    def _prepare(self, query_lower: str, words: list[str]) -> _Query:
        """The variants of each query word, and the phrase pattern of a multi-word query."""
        by_word: dict[str, list[Variant]] = {}
        for variant in self._vocab.variants(words):
            by_word.setdefault(variant.word, []).append(variant)
        tokens = WORD_RE.findall(query_lower)
        phrase = None
        if len(words) > 1:
            phrase = re.compile(
                r"(?<!\w)" + r"\W+".join(re.escape(token) for token in tokens) + r"(?!\w)"
            )
        return _Query(words, by_word, phrase, tokens)

    def _groups(self, conn: sqlite3.Connection, prepared: _Query) -> list[_Group]:
        """Every kind of line's groups of candidates by the best tier each query word can reach
        there, best bound first; tiers nothing of that kind holds are left out."""
        n_words = prepared.n_words
        per_word = [_word_tiers(word, i, prepared.by_word) for i, word in enumerate(prepared.words)]
        groups: list[_Group] = []
        for column in (BODY, TITLE, PATH, META):
            groups += self._column_groups(conn, column, per_word, n_words)
        if prepared.phrase is not None and all(
            self._vocab.holds(term) for term in prepared.phrase_terms
        ):
            phrase = " ".join(prepared.phrase_terms).replace('"', '""')
            bound = 100.0 + BOOSTS[BODY] + PHRASE_BONUS
            groups.append(_Group(bound, BODY, f'"{phrase}"'))
        groups.sort(key=lambda group: -group.bound)
        return groups

    def _column_groups(
        self,
        conn: sqlite3.Connection,
        column: str,
        per_word: list[list[tuple[float, str]]],
        n_words: int,
    ) -> list[_Group]:
        """The groups of one kind: a tier (or nothing) per word, each tier held by something."""
        options: list[list[tuple[float, str | None]]] = []
        for tiers in per_word:
            held = [
                (quality, expression)
                for quality, expression in tiers
                if self._holds(conn, _match(column, expression))
            ]
            options.append([*held, (0.0, None)])
        groups: list[_Group] = []
        for combination in itertools.product(*options):
            parts = [expression for _quality, expression in combination if expression]
            if not parts:
                continue
            qualities = [quality for quality, _expression in combination]
            bound = 100 * sum(qualities) / n_words + BOOSTS[column]
            if column != BODY and n_words > 1 and min(qualities) > 0:
                bound += PHRASE_BONUS
            groups.append(_Group(bound, column, _match(column, f"({' AND '.join(parts)})")))
        return groups

    def _holds(self, conn: sqlite3.Connection, match: str) -> bool:
        """Whether anything matches an FTS expression (remembered until the index changes)."""
        held = self._held.get(match)
        if held is None:
            table = "fts" if match.startswith("(") or match.startswith('"') else "fts_file"
            held = self._held[match] = (
                conn.execute(
                    f"SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT 1", (match,)
                ).fetchone()
                is not None
            )
        return held

    def _search_words(  # noqa: C901
        self,
        conn: sqlite3.Connection,
        prepared: _Query,
        limit: int,
        where: str,
        params: list[object],
        cancelled: Callable[[], bool] | None,
    ) -> list[SearchHit]:
        """Visit candidates best bound first (path order within a bound), stopping once the
        limit-th best hit cannot be beaten by anything not yet visited."""
        groups = self._groups(conn, prepared)
        ordered = _in_path_order(conn)
        heap: list[tuple[float, str, int, int, _Doc]] = []
        opened: list[_Stream] = []
        """The candidates of each group opened so far, by group number."""
        visited: set[tuple[int, str, int]] = set()
        hits: list[SearchHit] = []
        worst: tuple[float, str, int] | None = None
        next_group = 0
        visits = 0
        try:
            while True:
                while next_group < len(groups) and (
                    not heap or groups[next_group].bound >= -heap[0][0]
                ):
                    group = groups[next_group]
                    next_group += 1
                    if worst is not None and round(group.bound, 2) < worst[0]:
                        next_group = len(groups)
                        break
                    if cancelled is not None and cancelled():
                        return []
                    table = "fts" if group.what == BODY else "fts_file"
                    opened.append(_members(conn, table, group.match, where, params, ordered))
                    _push_next(heap, group, len(opened) - 1, opened[-1])
                if not heap:
                    break
                neg_bound, path, line, group_index, doc = heapq.heappop(heap)
                bound = round(-neg_bound, 2)
                if worst is not None and (
                    bound < worst[0] or (bound == worst[0] and (path, line) > worst[1:])
                ):
                    break
                group = groups[group_index]
                _push_next(heap, group, group_index, opened[group_index])
                key = (doc.file_id, group.what, line)
                if key in visited:
                    continue
                visited.add(key)
                visits += 1
                if visits % CHUNK == 0 and cancelled is not None and cancelled():
                    return []
                floor = worst[0] if worst is not None else -1.0
                hits.extend(self._visit(conn, doc, line, group.what, prepared, floor))
                if len(hits) >= limit * 2 or (len(hits) >= limit and worst is None):
                    hits.sort(key=_hit_order)
                    del hits[limit:]
                    if len(hits) >= limit:
                        worst = (hits[-1].score, hits[-1].path, hits[-1].line)
        finally:
            for stream in opened:
                stream.close()
        if cancelled is not None and cancelled():
            return []
        hits.sort(key=_hit_order)
        return hits[:limit]

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


def _match(column: str, expression: str) -> str:
    """An FTS expression over the body lines (BODY) or over one column of `fts_file`."""
    return expression if column == BODY else f"{{{column}}} : {expression}"


def _word_tiers(
    word: str, index: int, by_word: dict[str, list[Variant]]
) -> list[tuple[float, str]]:
    """(best quality, FTS expression) of each tier of one query word, best first: the word
    itself, the words it starts, and words holding it or spelt close to it (each tier names its
    vocabulary words: SQLite then walks only their rows)."""
    exact = False
    prefix: list[str] = []
    other: dict[str, float] = {}
    for term, variants in by_word.items():
        for variant in variants:
            if variant.word_index != index:
                continue
            if variant.how == EXACT:
                exact = True
            elif variant.how == PREFIX:
                prefix.append(term)
            else:
                other[term] = max(other.get(term, 0.0), variant.quality)
    tiers: list[tuple[float, str]] = []
    if exact:
        tiers.append((QUALITY[EXACT], "(" + _quoted(word) + ")"))
    if prefix:
        tiers.append((QUALITY[PREFIX], _any_of(prefix)))
    if other:
        tiers.append((max(other.values()), _any_of(other)))
    return tiers


def _push_next(
    heap: list[tuple[float, str, int, int, _Doc]],
    group: _Group,
    group_index: int,
    members: _Stream,
) -> None:
    """Put a group's next candidate (in path order) on the heap."""
    found = next(members, None)
    if found is not None:
        line, doc = found
        heapq.heappush(heap, (-group.bound, doc.path, line, group_index, doc))


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
) -> Iterator[tuple[float, str, _Stream]]:
    """For a short query: (quality, kind, candidate files in path order) from the best tier
    down; candidates may hold the text less well (their own tier says so)."""
    word = WORD_RE.fullmatch(needle) is not None
    for quality, match in (
        (QUALITY[EXACT], _quoted(needle)),
        (QUALITY[PREFIX], _quoted(needle) + " *"),
    ):
        for kind in ("title", "path"):
            if word:
                stream = _members(conn, "fts_file", f"{{{kind}}} : {match}", where, params, ordered)
                yield quality, kind, stream
    for kind in ("title", "path"):
        yield QUALITY[SUBSTRING], kind, _containing(conn, kind, needle, where, params)
    if not word:
        for quality in (QUALITY[EXACT], QUALITY[PREFIX]):
            for kind in ("title", "path"):
                yield quality, kind, _containing(conn, kind, needle, where, params)


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


def matching_notes(index: NoteIndex, filters: SearchFilters, history: object | None) -> set[str]:
    """Relpaths of the indexed files that pass every filter."""
    searcher = Searcher(index, history)
    with index.db.snapshot() as conn:
        where, params = searcher._filter_sql(conn, filters if filters.any() else None)
        rows = conn.execute(
            f"SELECT f.path FROM files f WHERE {FILE_KINDS}{where}", params
        ).fetchall()
    return {from_db(row[0]) for row in rows}
