"""The vector tables of `.memtui/index.db`: which files have vectors (and under which stat),
their chunks' vectors as float32 blobs (sqlite-vec's own format), and the model that made them."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from memtui.notes.index_db import to_db
from memtui.notes.meaning.chunks import Chunk

VECTOR_DTYPE = np.dtype("<f4")
"""How a vector is stored: little-endian float32, as sqlite-vec reads a blob."""
MODEL_KEY = "vec_model"
"""The meta key naming the embedder whose vectors the tables hold."""
GENERATION_KEY = "vec_gen"
"""The meta key that grows with every change to the vector tables (readers reload on a change)."""
TEXT_KINDS = "kind IN (1, 2)"


@dataclass(frozen=True, slots=True)
class Pending:
    """A file of the index whose vectors are missing or were made from another version of it."""

    path: str
    """As the index stores it (see `index_db.to_db`)."""
    kind: int
    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int
    """As the index stores it (see `index_db.inode_to_db`)."""
    title: str
    body_line: int
    info: str

    @property
    def stat(self) -> tuple[int, int, int, int]:
        """(size, mtime_ns, ctime_ns, inode as stored): what says which version was read."""
        return (self.size, self.mtime_ns, self.ctime_ns, self.inode)


def encode(vector: np.ndarray) -> bytes:
    """A vector as the table stores it."""
    return np.ascontiguousarray(vector, dtype=VECTOR_DTYPE).tobytes()


def decode(blobs: Sequence[bytes], dims: int) -> np.ndarray:
    """The (len(blobs), dims) float32 matrix of stored vectors."""
    if not blobs:
        return np.zeros((0, dims), dtype=np.float32)
    return np.frombuffer(b"".join(blobs), dtype=VECTOR_DTYPE).reshape(len(blobs), dims)


def digest(text: str) -> bytes:
    """What identifies a chunk's text, so an unchanged section keeps its vector."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def meta_value(conn: sqlite3.Connection, key: str) -> str | None:
    """A value of the index's meta table, as text (None when absent)."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def generation(conn: sqlite3.Connection) -> int:
    """The vector tables' change counter."""
    return int(meta_value(conn, GENERATION_KEY) or 0)


def bump(conn: sqlite3.Connection) -> None:
    """Record a change to the vector tables (inside the writing transaction)."""
    conn.execute(
        "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
        (GENERATION_KEY, generation(conn) + 1),
    )


def adopt_model(conn: sqlite3.Connection, identity: str) -> bool:
    """Make `identity` the tables' model, dropping another model's vectors; whether it changed."""
    if meta_value(conn, MODEL_KEY) == identity:
        return False
    conn.execute("DELETE FROM vec_chunks")
    conn.execute("DELETE FROM vec_files")
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (MODEL_KEY, identity))
    bump(conn)
    return True


def drop_gone(conn: sqlite3.Connection, paths: Iterable[str] | None = None) -> int:
    """Drop the vectors of files the index no longer holds as text (of `paths`, else of all);
    returns how many files lost theirs."""
    gone_sql = (
        f"NOT EXISTS (SELECT 1 FROM files WHERE files.path = vec_files.path AND files.{TEXT_KINDS})"
    )
    if paths is None:
        gone = [row[0] for row in conn.execute(f"SELECT path FROM vec_files WHERE {gone_sql}")]
    else:
        wanted = [to_db(path) for path in paths]
        gone = [
            path
            for path in wanted
            if conn.execute(
                f"SELECT 1 FROM vec_files WHERE path = ? AND {gone_sql}", (path,)
            ).fetchone()
        ]
    for path in gone:
        conn.execute("DELETE FROM vec_chunks WHERE path = ?", (path,))
        conn.execute("DELETE FROM vec_files WHERE path = ?", (path,))
    return len(gone)


_PENDING = f"""SELECT f.path, f.kind, f.size, f.mtime_ns, f.ctime_ns, f.inode, f.title,
        f.body_line, f.info
    FROM files f LEFT JOIN vec_files v ON v.path = f.path
    WHERE f.{TEXT_KINDS} AND (v.path IS NULL OR v.size != f.size OR v.mtime_ns != f.mtime_ns
        OR v.ctime_ns != f.ctime_ns OR v.inode != f.inode)"""


def pending(conn: sqlite3.Connection, paths: Iterable[str] | None = None) -> list[Pending]:
    """The text files whose vectors are missing or were made from another version (a size,
    mtime, ctime or inode number other than the text index's: as it compares files), of `paths`
    (else of all), in path order."""
    if paths is None:
        rows = conn.execute(_PENDING + " ORDER BY f.path").fetchall()
    else:
        rows = [
            row
            for path in sorted({to_db(path) for path in paths})
            for row in conn.execute(_PENDING + " AND f.path = ?", (path,)).fetchall()
        ]
    return [Pending(*row) for row in rows]


def still_current(conn: sqlite3.Connection, item: Pending) -> bool:
    """Whether the index still holds the version of the file `item` was read as."""
    row = conn.execute(
        f"SELECT size, mtime_ns, ctime_ns, inode FROM files WHERE path = ? AND {TEXT_KINDS}",
        (item.path,),
    ).fetchone()
    return row is not None and tuple(row) == item.stat


def known_vectors(conn: sqlite3.Connection, paths: Iterable[str], dims: int) -> dict[bytes, bytes]:
    """Digest -> stored vector of the chunks these files (as stored) have now."""
    known: dict[bytes, bytes] = {}
    for path in paths:
        for chunk_digest, blob in conn.execute(
            "SELECT digest, vector FROM vec_chunks WHERE path = ?", (path,)
        ):
            if len(blob) == dims * VECTOR_DTYPE.itemsize:
                known[bytes(chunk_digest)] = bytes(blob)
    return known


def replace_file(
    conn: sqlite3.Connection,
    item: Pending,
    chunks: Sequence[Chunk],
    vectors: Sequence[bytes],
) -> None:
    """Store a file's chunks and vectors in place of those it had, under the stat they were made
    from."""
    conn.execute("DELETE FROM vec_chunks WHERE path = ?", (item.path,))
    conn.executemany(
        "INSERT INTO vec_chunks (path, line, heading, digest, vector) VALUES (?, ?, ?, ?, ?)",
        (
            (item.path, chunk.line, chunk.heading, digest(chunk.text), vector)
            for chunk, vector in zip(chunks, vectors, strict=True)
        ),
    )
    conn.execute(
        "INSERT OR REPLACE INTO vec_files (path, size, mtime_ns, ctime_ns, inode) "
        "VALUES (?, ?, ?, ?, ?)",
        (item.path, *item.stat),
    )


def counts(conn: sqlite3.Connection) -> tuple[int, int]:
    """(files with vectors, chunks) in the tables."""
    files = conn.execute("SELECT count(*) FROM vec_files").fetchone()[0]
    chunks = conn.execute("SELECT count(*) FROM vec_chunks").fetchone()[0]
    return int(files), int(chunks)
