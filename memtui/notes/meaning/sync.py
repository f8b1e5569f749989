"""Bringing the vectors up to date with the text index: the files it holds whose vectors are
missing or stale are read (the version the index holds), cut into chunks and embedded off the
lock, then written in short transactions under the index lock."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from memtui.notes.file_checks import shown_part
from memtui.notes.index_db import IndexFile, from_db, inode_to_db, transaction
from memtui.notes.meaning.chunks import Chunk, chunk_file
from memtui.notes.meaning.embedder import Embedder
from memtui.notes.meaning.vectors import (
    Pending,
    adopt_model,
    bump,
    digest,
    drop_gone,
    encode,
    known_vectors,
    pending,
    replace_file,
    still_current,
)
from memtui.notes.reading import normalise_text, read_store_head
from memtui.notes.records import NOTE, after_line

BATCH_FILES = 256
"""Files read and embedded between two write transactions (the lock is free in between)."""
EMBED_SLICE = 64
"""Texts embedded in one call of the model, between two rests of a paced catch-up."""


@dataclass
class VectorSync:
    """What one catch-up did."""

    files: int = 0
    """Files whose vectors were written."""
    embedded: int = 0
    """Chunks the model embedded (the rest kept their vectors)."""
    removed: int = 0
    """Files whose vectors were dropped (gone from the index, or the model changed)."""
    skipped: list[str] = field(default_factory=list)
    """Files that changed or went while being read: the next catch-up takes them."""
    seconds: float = 0.0


def sync_vectors(
    db: IndexFile,
    root: Path,
    embedder: Embedder,
    paths: Iterable[str] | None = None,
    *,
    cancelled: Callable[[], bool] = lambda: False,
    pace: Callable[[], None] | None = None,
) -> VectorSync:
    """Make the vectors of `paths` (else of every file) match the text index, with `embedder`'s
    model (another model's vectors are dropped first). Stops early when `cancelled()`; calls
    `pace` after each file read and each slice of texts embedded (a `bulk.Pacer` rests there,
    so an app's UI thread gets the interpreter lock)."""
    started = time.perf_counter()
    outcome = VectorSync()
    wanted = None if paths is None else list(paths)
    with db.writing() as conn, transaction(conn):
        if adopt_model(conn, embedder.identity):
            wanted = None
        outcome.removed = drop_gone(conn, wanted)
        if outcome.removed:
            bump(conn)
    todo = pending(db.connection(), wanted)
    rest = pace if pace is not None else _no_rest
    for start in range(0, len(todo), BATCH_FILES):
        if cancelled():
            break
        _embed_batch(db, root, embedder, todo[start : start + BATCH_FILES], outcome, rest)
    outcome.seconds = time.perf_counter() - started
    return outcome


def _no_rest() -> None:
    """A loop that never rests (no `pace` given)."""


def _embed_batch(
    db: IndexFile,
    root: Path,
    embedder: Embedder,
    batch: list[Pending],
    outcome: VectorSync,
    pace: Callable[[], None],
) -> None:
    """Read, chunk and embed a batch of files (resting at `pace` after each file and each
    EMBED_SLICE texts), then write them in one transaction."""
    read = []
    for item in batch:
        read.append((item, _chunks(root, item)))
        pace()
    kept = known_vectors(db.connection(), [item.path for item, _ in read], embedder.dims)
    fresh = list(
        {digest(chunk.text): chunk.text for _, chunks in read for chunk in chunks or ()}.items()
    )
    fresh = [(key, text) for key, text in fresh if key not in kept]
    for start in range(0, len(fresh), EMBED_SLICE):
        part = fresh[start : start + EMBED_SLICE]
        matrix = embedder.embed([text for _, text in part])
        kept.update((key, encode(row)) for (key, _), row in zip(part, matrix, strict=True))
        outcome.embedded += len(part)
        pace()
    with db.writing() as conn, transaction(conn):
        for item, chunks in read:
            if chunks is None or not still_current(conn, item):
                outcome.skipped.append(from_db(item.path))
                continue
            replace_file(conn, item, chunks, [kept[digest(chunk.text)] for chunk in chunks])
            outcome.files += 1
        bump(conn)


def _chunks(root: Path, item: Pending) -> list[Chunk] | None:
    """The chunks of the file as the index holds it (None: it changed or went since)."""
    try:
        head = read_store_head(root, from_db(item.path))
    except OSError:
        return None
    read = (head.size, head.mtime_ns, head.ctime_ns, inode_to_db(head.inode))
    if read != item.stat:
        return None
    text = shown_part(normalise_text(head.data))
    meta = json.loads(item.info).get("meta", [])
    meta_text = " ".join(line.split(":", 1)[1].strip() for _number, line in meta)
    return chunk_file(
        from_db(item.title or ""),
        after_line(text, item.body_line),
        item.body_line,
        markdown=item.kind == NOTE,
        meta=meta_text,
    )
