"""Bringing the index in step with the files: a stat walk finds what changed, only that is read."""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from memtui.core.resolving.regular import Head
from memtui.notes.index_db import IndexFile, from_db, inode_from_db, to_db
from memtui.notes.index_seal import left_as_is, remember, unsealed_paths
from memtui.notes.index_write import (
    BULK,
    BULK_FILES,
    FRESH,
    UPDATE,
    begin_fresh,
    compact,
    finish_bulk,
    needs_compaction,
    store_digest,
    stored_digest,
    write_batch,
)
from memtui.notes.parse_pool import helpers_for, pooled_records, read_record
from memtui.notes.reading import read_store_head
from memtui.notes.records import FileRecord
from memtui.notes.scan import Stat, scan_files, stat_file

ProgressCallback = Callable[[int, int], None]

BATCH_FILES = 500
"""Files written per transaction: readers see the index grow, a crash loses at most one batch."""
BATCH_BYTES = 32 << 20
"""Bytes of text written per transaction at most."""
PROGRESS_EVERY = 500


@dataclass
class SyncOutcome:
    """What a sync did: the paths whose record changed, files it could not read, seconds spent."""

    changed: set[str] = field(default_factory=set)
    unreadable: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)


Known = dict[str, tuple[int, int, int, int]]
"""relpath -> (size, mtime_ns, ctime_ns, inode) of files as the index read them."""
_STAT_COLUMNS = "path, size, mtime_ns, ctime_ns, inode"


def known_stats(db: IndexFile) -> Known:
    """The stat every file the index holds was read under."""
    rows = db.connection().execute(f"SELECT {_STAT_COLUMNS} FROM files").fetchall()
    return {
        from_db(path): (size, mtime, ctime, inode_from_db(inode))
        for path, size, mtime, ctime, inode in rows
    }


def _differences(known: Known, files: Iterable[Stat]) -> tuple[list[Stat], list[str]]:
    """Files new or changed since the index read them (any of size, mtime, ctime or inode
    differs), and paths the index has that are gone."""
    todo: list[Stat] = []
    seen: set[str] = set()
    for file in files:
        relpath = file[0]
        seen.add(relpath)
        if known.get(relpath) != file[1:]:
            todo.append(file)
    return todo, [path for path in known if path not in seen]


def sync_store(
    db: IndexFile, root: Path, files: list[Stat], progress: ProgressCallback | None = None
) -> SyncOutcome:
    """Index what changed among `files` (a whole walk of the store); drop what is gone.

    Nothing is written (and no lock taken) when the index already matches; otherwise the
    differences are taken again under the index lock, so a process that waited for another's
    build only reads what is still missing.
    """
    started = time.perf_counter()
    outcome = SyncOutcome()
    if not db.private and not left_as_is(db.path):
        _reseal(db, root, progress, outcome)
    digest = walk_digest(files)
    conn = db.connection()
    if stored_digest(conn) == digest:
        outcome.timings["compare"] = time.perf_counter() - started
        if progress is not None:
            progress(0, 0)
        return outcome
    todo, gone = _differences(known_stats(db), files)
    outcome.timings["compare"] = time.perf_counter() - started
    if todo or gone:
        with db.writing() as conn:
            todo, gone = _differences(known_stats(db), files)
            _apply(conn, root, todo, gone, progress, outcome)
            if needs_compaction(conn):
                _compact(conn, root, progress, outcome)
    elif progress is not None:
        progress(0, 0)
    if not outcome.unreadable:
        with db.writing() as conn:
            store_digest(conn, digest)
    return outcome


def _reseal(
    db: IndexFile, root: Path, progress: ProgressCallback | None, outcome: SyncOutcome
) -> None:
    """The index files changed since this user's memtui left them: read again every file whose
    row no longer matches its seal (another program wrote it), then note the files' stat."""
    started = time.perf_counter()
    with db.writing() as conn:
        if left_as_is(db.path):
            return
        failing = [from_db(path) for path in unsealed_paths(conn)]
        if failing:
            found = [stat_file(root, path)[0] for path in failing]
            present: list[Stat] = [file for file in found if file is not None]
            names = {file[0] for file in present}
            gone = [path for path in failing if path not in names]
            _apply(conn, root, present, gone, progress, outcome)
        remember(db.path)
    outcome.timings["reseal"] = time.perf_counter() - started


def walk_digest(files: list[Stat]) -> str:
    """One digest of a whole walk: the path, ctime and inode of every file (a change of size or
    mtime moves the ctime too), in walk order (a walk in another order only costs a full
    comparison)."""
    listing = "\n".join([f"{path}\0{ctime}\0{inode}" for path, _s, _m, ctime, inode in files])
    return hashlib.blake2b(listing.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


def sync_paths(
    db: IndexFile, root: Path, relpaths: Iterable[str], progress: ProgressCallback | None = None
) -> SyncOutcome:
    """Index again just these paths (added, changed, deleted or renamed); a folder path stands for
    every file indexed or present below it."""
    outcome = SyncOutcome()
    with db.writing() as conn:
        known, wanted = _expand(conn, root, relpaths)
        present: list[Stat] = []
        for relpath in wanted:
            found, problem = stat_file(root, relpath)
            if found is not None:
                present.append(found)
            elif problem is not None:
                outcome.unreadable.append(problem)
        todo, _ = _differences(known, present)
        names = {file[0] for file in present}
        gone = [path for path in wanted if path in known and path not in names]
        if todo or gone:
            _apply(conn, root, todo, gone, progress, outcome)
    return outcome


def _expand(
    conn: sqlite3.Connection, root: Path, relpaths: Iterable[str]
) -> tuple[Known, list[str]]:
    """The index's stats of the given paths and of everything below them, and the paths to look
    at: each folder replaced by the files indexed or present below it."""
    known: Known = {}
    expanded: dict[str, None] = {}
    for raw in relpaths:
        relpath = raw.strip("/")
        if not relpath or any(part.startswith(".") for part in relpath.split("/")):
            continue
        stored = to_db(relpath)
        rows = conn.execute(
            f"SELECT {_STAT_COLUMNS} FROM files WHERE path = ? OR (path > ? AND path < ?)",
            (stored, stored + "/", stored + "0"),
        ).fetchall()
        for path, size, mtime_ns, ctime_ns, inode in rows:
            known[from_db(path)] = (size, mtime_ns, ctime_ns, inode_from_db(inode))
            expanded[from_db(path)] = None
        folder = root / relpath
        if folder.is_dir() and not folder.is_symlink():
            prefix = relpath + "/"
            expanded.update(dict.fromkeys(prefix + f[0] for f in scan_files(folder).stats))
        expanded[relpath] = None
    return known, list(expanded)


def _records(
    root: Path, files: list[Stat], outcome: SyncOutcome
) -> Iterator[tuple[FileRecord | None, int]]:
    """Each file's record (None when it cannot be read now), with the bytes it holds; many files
    are read and parsed by helper processes."""
    relpaths = [file[0] for file in files]
    helpers = helpers_for(len(relpaths))
    outcomes = (
        pooled_records(root, relpaths, helpers)
        if helpers
        else (read_record(root, relpath) for relpath in relpaths)
    )
    for record, nbytes, problem in outcomes:
        if problem is not None:
            outcome.unreadable.append(problem)
        yield record, nbytes


def _apply(
    conn: sqlite3.Connection,
    root: Path,
    todo: list[Stat],
    gone: list[str],
    progress: ProgressCallback | None,
    outcome: SyncOutcome,
) -> None:
    """Read and write the differences in batches, one transaction each."""
    started = time.perf_counter()
    total = len(todo)
    mode = UPDATE
    if total >= BULK_FILES:
        empty = conn.execute("SELECT 1 FROM files LIMIT 1").fetchone() is None
        mode = FRESH if empty else BULK
    if mode == FRESH:
        begin_fresh(conn)
        todo = sorted(todo, key=lambda file: to_db(file[0]))
    limit = BATCH_FILES * (4 if mode == FRESH else 1)
    batch: list[FileRecord] = []
    size = 0
    pending_gone = list(gone)
    for done, (file, (record, nbytes)) in enumerate(
        zip(todo, _records(root, todo, outcome), strict=True), 1
    ):
        if record is not None:
            batch.append(record)
            size += nbytes
        else:
            pending_gone.append(file[0])
        if len(batch) >= limit or size >= BATCH_BYTES:
            outcome.changed |= write_batch(conn, batch, pending_gone, mode=mode).paths
            batch, size, pending_gone = [], 0, []
        if progress is not None and (done % PROGRESS_EVERY == 0 or done == total):
            progress(done, total)
    if batch or pending_gone:
        outcome.changed |= write_batch(conn, batch, pending_gone, mode=mode).paths
    finish_bulk(conn)
    if progress is not None and total == 0:
        progress(0, 0)
    outcome.timings["write"] = time.perf_counter() - started


def _compact(
    conn: sqlite3.Connection, root: Path, progress: ProgressCallback | None, outcome: SyncOutcome
) -> None:
    """Rebuild the full-text index without dead documents; re-index files that changed meanwhile."""

    def read(relpath: str) -> Head | None:
        try:
            return read_store_head(root, relpath)
        except OSError:
            return None

    stale = compact(conn, read)
    if stale:
        found: list[Stat] = [f for f in (stat_file(root, p)[0] for p in stale) if f is not None]
        names = {f[0] for f in found}
        _apply(conn, root, found, [p for p in stale if p not in names], progress, outcome)
