"""Finding the sections nearest a query's vector: the index's vectors held in memory by a
resident process (refreshed by what changed), or scanned in SQL by sqlite-vec in a one-shot one."""

from __future__ import annotations

import itertools
import sqlite3
import threading
from collections.abc import Collection, Iterator
from dataclasses import dataclass

import numpy as np

from memtui.notes.index_db import IndexFile, from_db, to_db
from memtui.notes.meaning.vectors import decode, encode, generation

CANDIDATES_PER_HIT = 8
"""Nearest chunks looked at per file wanted (a file's sections may hold several of them)."""
TWO_STAGE_ROWS = 100_000
"""Vectors held from which a query first scores the leading half of every vector's dimensions
(half the memory read) and then only the best TWO_STAGE_CANDIDATES of them in full."""
TWO_STAGE_CANDIDATES = 4_000
"""Rows the first stage keeps for exact scoring (at least; 40 per file wanted)."""
HEAD_VARIANCE = 0.6
"""Share of the vectors' variance their leading half must hold for the first stage to be used:
true of a model whose dimensions are ordered by variance, as model2vec's PCA leaves them."""
VARIANCE_SAMPLE = 20_000
"""Rows sampled to measure that share."""
LOAD_BATCH = 20_000
"""Vectors read from the index at a time while loading them."""
BLAS_ELEMENTS = 16_000_000
"""Elements of a matrix (64 MB of float32) from which a product goes through the BLAS library's
threads: from about 100k rows of 128 dimensions they read it faster than one core, even on a
busy machine; below it their hand-offs cost more than they save."""


@dataclass(frozen=True, slots=True)
class MeaningHit:
    """A file found by meaning: its nearest section and how near (cosine similarity)."""

    path: str
    line: int
    """1-based first line of the section."""
    heading: str
    """The section's heading (or the file's title): why it matched."""
    score: float


class VectorScan:
    """The index's vectors in memory (float32, one row per chunk, held as two matrices: the
    leading half of the dimensions and the rest), brought up to date with the index by loading
    only the chunks written since the last look and dropping those gone."""

    def __init__(self, db: IndexFile) -> None:
        """Vectors of `db`, loaded on first use."""
        self._db = db
        self._lock = threading.Lock()
        self._generation = -1
        self._ids = np.zeros(0, dtype=np.int64)
        self._head = np.zeros((0, 0), dtype=np.float32)
        self._rest = np.zeros((0, 0), dtype=np.float32)
        self._two_stage = False
        self._row_file = np.zeros(0, dtype=np.int32)
        self._paths: list[str] = []
        self._path_numbers: dict[str, int] = {}

    def __len__(self) -> int:
        """How many chunk vectors are held."""
        return len(self._ids)

    def refresh(self) -> None:
        """Take in what the vector tables gained or lost since the last look."""
        conn = self._db.connection()
        with self._lock, self._db.snapshot():
            now = generation(conn)
            if now == self._generation:
                return
            keep = self._still_there(conn)
            top = int(self._ids.max()) if len(self._ids) else 0
            count = conn.execute(
                "SELECT count(*) FROM vec_chunks" + (" WHERE id > ?" if top else ""),
                (top,) if top else (),
            ).fetchone()[0]
            cursor = conn.execute(
                "SELECT id, path, vector FROM vec_chunks WHERE id > ? ORDER BY id", (top,)
            )
            self._take(keep, count, iter(lambda: cursor.fetchmany(LOAD_BATCH), []))
            self._generation = now

    def _still_there(self, conn: sqlite3.Connection) -> np.ndarray:
        """Which of the held rows the index still has."""
        if not len(self._ids):
            return np.zeros(0, dtype=bool)
        ids = np.array([row[0] for row in conn.execute("SELECT id FROM vec_chunks")], np.int64)
        return np.isin(self._ids, ids, assume_unique=True)

    def _take(
        self, keep: np.ndarray, count: int, batches: Iterator[list[tuple[int, str, bytes]]]
    ) -> None:
        """Keep the rows `keep` marks and append the `count` new rows, read in `batches` (in one
        read transaction, so `count` is theirs): each batch's vectors are copied once, into
        matrices made at their final size (memory is touched once, not again to grow them)."""
        first = next(batches, None)
        held = self._head.shape[1] + self._rest.shape[1]
        dims = len(first[0][2]) // 4 if first else held
        if dims != held:
            keep = np.zeros(len(self._ids), dtype=bool)
        half = dims // 2 if dims != held else self._head.shape[1]
        kept = int(np.count_nonzero(keep))
        size = kept + (count if first else 0)
        ids, files = np.empty(size, np.int64), np.empty(size, np.int32)
        head = np.empty((size, half), np.float32)
        rest = np.empty((size, dims - half), np.float32)
        if kept:
            ids[:kept], files[:kept] = self._ids[keep], self._row_file[keep]
            head[:kept], rest[:kept] = self._head[keep], self._rest[keep]
        at = kept
        for rows in itertools.chain([first] if first else [], batches):
            end = at + len(rows)
            new = decode([row[2] for row in rows], dims)
            ids[at:end] = [row[0] for row in rows]
            files[at:end] = [self._number(row[1]) for row in rows]
            head[at:end], rest[at:end] = new[:, :half], new[:, half:]
            at = end
        self._ids, self._row_file, self._head, self._rest = ids, files, head, rest
        self._two_stage = (
            len(self._ids) >= TWO_STAGE_ROWS
            and leading_share(self._head, self._rest) >= HEAD_VARIANCE
        )

    def _number(self, path: str) -> int:
        """A small number for a stored path (rows hold it instead of the text)."""
        number = self._path_numbers.get(path)
        if number is None:
            number = self._path_numbers[path] = len(self._paths)
            self._paths.append(path)
        return number

    def nearest(
        self, query: np.ndarray, k: int, *, paths: Collection[str] | None = None
    ) -> list[MeaningHit]:
        """The `k` files whose best section is nearest `query` (a unit vector), best first, each
        with that section; only files of `paths` when given."""
        self.refresh()
        with self._lock:
            head, rest, row_file, ids = self._head, self._rest, self._row_file, self._ids
            two_stage = self._two_stage
            allowed = None
            if paths is not None:
                numbers = [
                    self._path_numbers[p] for p in map(to_db, paths) if p in self._path_numbers
                ]
                allowed = np.isin(row_file, np.asarray(numbers, dtype=np.int32))
        if k <= 0 or not len(ids) or not np.any(query):
            return []
        vector = np.asarray(query, dtype=np.float32)
        half = head.shape[1]
        if two_stage:
            first = product(head, vector[:half])
            if allowed is not None:
                first = np.where(allowed, first, -np.inf)
            rows = _leading_rows(first, max(TWO_STAGE_CANDIDATES, 40 * k))
            scores = dot(head[rows], vector[:half]) + dot(rest[rows], vector[half:])
        else:
            scores = product(head, vector[:half]) + product(rest, vector[half:])
            rows = np.arange(len(scores)) if allowed is None else np.flatnonzero(allowed)
            scores = scores[rows] if allowed is not None else scores
        best = _best_per_file(scores, row_file[rows], k)
        return self._hits([(int(ids[rows[i]]), float(scores[i])) for i in best])

    def _hits(self, found: list[tuple[int, float]]) -> list[MeaningHit]:
        """The hits of (chunk id, score) pairs, with their path, line and heading."""
        conn = self._db.connection()
        hits = []
        for chunk_id, score in found:
            row = conn.execute(
                "SELECT path, line, heading FROM vec_chunks WHERE id = ?", (chunk_id,)
            ).fetchone()
            if row is not None:
                hits.append(MeaningHit(from_db(row[0]), row[1], row[2], score))
        return hits


def dot(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """`matrix @ vector` on this thread alone (numpy's own loop, not the BLAS library's threads:
    on a busy machine their hand-offs cost a small product 10-60 times the product itself)."""
    return np.einsum("ij,j->i", matrix, vector)


def product(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """`matrix @ vector`, through the BLAS library's threads for a matrix of BLAS_ELEMENTS or
    more (a product read at memory speed, which one core alone does not reach), else `dot`."""
    if matrix.size >= BLAS_ELEMENTS:
        return np.asarray(matrix @ vector, dtype=np.float32)
    return dot(matrix, vector)


def leading_share(head: np.ndarray, rest: np.ndarray) -> float:
    """The share of the vectors' variance in their leading dimensions (`head`), measured on
    about VARIANCE_SAMPLE rows spread over all of them."""
    step = max(1, len(head) // VARIANCE_SAMPLE)
    leading = float(head[::step].var(axis=0).sum())
    total = leading + float(rest[::step].var(axis=0).sum())
    return leading / total if total > 0 else 0.0


def _leading_rows(first: np.ndarray, wanted: int) -> np.ndarray:
    """The rows (ascending) of the `wanted` best finite scores of `first`, the first stage's."""
    finite = int(np.count_nonzero(np.isfinite(first)))
    wanted = min(wanted, finite)
    if wanted <= 0:
        return np.zeros(0, dtype=np.intp)
    rows = (
        np.argpartition(-first, wanted - 1)[:wanted]
        if wanted < len(first)
        else np.arange(len(first))
    )
    return np.sort(rows[np.isfinite(first[rows])])


def _best_per_file(scores: np.ndarray, row_file: np.ndarray, k: int) -> list[int]:
    """Positions (in `scores`, whose rows are in ascending order) of the best chunk of each of
    the `k` best files, `row_file` naming each row's file (ties: lower row first)."""
    finite = int(np.count_nonzero(np.isfinite(scores)))
    wanted = min(finite, k * CANDIDATES_PER_HIT)
    while True:
        top = (
            np.argpartition(-scores, wanted - 1)[:wanted]
            if wanted < len(scores)
            else np.arange(len(scores))
        )
        top = top[np.isfinite(scores[top])]
        order = top[np.lexsort((top, -scores[top]))]
        seen: dict[int, int] = {}
        for row in order:
            seen.setdefault(int(row_file[row]), int(row))
            if len(seen) == k:
                break
        if len(seen) == k or wanted >= finite:
            return list(seen.values())
        wanted = min(finite, wanted * 4)


def sql_nearest(
    conn: sqlite3.Connection, query: np.ndarray, k: int, *, paths: Collection[str] | None = None
) -> list[MeaningHit]:
    """`VectorScan.nearest` computed by sqlite-vec inside SQLite (the connection has it loaded),
    without holding the vectors in memory: for a process that asks once."""
    if k <= 0 or not np.any(query):
        return []
    where = ""
    params: list[object] = [encode(query)]
    if paths is not None:
        conn.execute("CREATE TEMP TABLE IF NOT EXISTS wanted_paths (path TEXT PRIMARY KEY)")
        conn.execute("DELETE FROM temp.wanted_paths")
        conn.executemany(
            "INSERT OR IGNORE INTO temp.wanted_paths VALUES (?)", ((to_db(p),) for p in paths)
        )
        where = "WHERE path IN (SELECT path FROM temp.wanted_paths)"
    rows = conn.execute(
        f"""SELECT path, line, heading, max(score) AS best FROM (
              SELECT path, line, heading, 1 - vec_distance_cosine(vector, ?) AS score
              FROM vec_chunks {where})
            GROUP BY path ORDER BY best DESC, path LIMIT ?""",
        (*params, k),
    ).fetchall()
    return [
        MeaningHit(from_db(path), line, heading, float(best)) for path, line, heading, best in rows
    ]


def load_sqlite_vec(conn: sqlite3.Connection) -> bool:
    """Load sqlite-vec into `conn`; whether it could (this Python's SQLite may not load
    extensions, or the package is missing)."""
    try:
        import sqlite_vec

        conn.enable_load_extension(True)
        try:
            sqlite_vec.load(conn)
        finally:
            conn.enable_load_extension(False)
    except (ImportError, AttributeError, sqlite3.Error):
        return False
    return True
