"""The file_state table: what the history last recorded of each file (its hash and the stat it
had), so start-up recovery hashes only the files whose stat changed."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from operator import itemgetter
from typing import NamedTuple

from memtui.core.recording import db_text
from memtui.core.recording.database import FILE_STATE_BUILT
from memtui.core.recording.db_text import TEXT

UNKNOWN_STAT = -1
"""Size and mtime of a file_state row whose stat is not known yet, so the next check hashes it."""


class FileRecord(NamedTuple):
    """What the history last recorded for one file: its hash and the stat it had then.

    `checked_ns` is the wall-clock time just before that stat was taken; a stat taken within
    `RACY_WINDOW_NS` of the file's mtime cannot rule out a later same-size rewrite in the same
    mtime tick, so such a row is verified by hashing.
    """

    sha256: str
    size: int
    mtime_ns: int
    checked_ns: int

    def matches(self, size: int, mtime_ns: int) -> bool:
        """True if a file with this stat certainly still holds `sha256` (no hash needed)."""
        return stat_matches((self.size, self.mtime_ns, self.checked_ns), size, mtime_ns)


def stat_matches(recorded: tuple[int, int, int], size: int, mtime_ns: int) -> bool:
    """True if a file whose row recorded `(size, mtime_ns, checked_ns)` and whose stat is now
    `size`, `mtime_ns` certainly still holds the row's content (no hash needed)."""
    return (
        recorded[0] == size
        and recorded[1] == mtime_ns
        and recorded[2] - recorded[1] >= RACY_WINDOW_NS
    )


RACY_WINDOW_NS = 2_000_000_000
"""A stat this close to the file's mtime may hide a same-size rewrite within the same tick."""


class FileStates:
    """The file_state table: virtual path of a file -> what the history last recorded of it."""

    def __init__(self, connection: Callable[[], sqlite3.Connection]) -> None:
        """The file state of the history whose connection (this thread's) `connection` gives."""
        self._connection = connection

    def built(self) -> bool:
        """True once file_state describes every file the history knows (see `build`)."""
        row = (
            self._connection()
            .execute("SELECT value FROM meta WHERE key = ?", (FILE_STATE_BUILT,))
            .fetchone()
        )
        return row is not None

    def build(self, known: Callable[[], Mapping[str, str]]) -> bool:
        """Fill file_state once from `known()` (virtual path -> sha256), stats left unknown.

        Runs in one transaction and only if no other process built it first; returns whether
        this call built it. Unknown stats make the next check hash each of these files once.
        """
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            if self.built():
                conn.execute("ROLLBACK")
                return False
            conn.execute("DELETE FROM file_state")
            rows = {
                path: FileRecord(digest, UNKNOWN_STAT, UNKNOWN_STAT, UNKNOWN_STAT)
                for path, digest in known().items()
            }
            self.put(conn, rows)
            conn.execute("INSERT INTO meta (key, value) VALUES (?, '1')", (FILE_STATE_BUILT,))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return True

    def record(self, path: str) -> FileRecord | None:
        """The file_state row of one virtual path, or None."""
        row = (
            self._connection()
            .execute(
                f"SELECT sha256, size, mtime_ns, checked_ns FROM file_state WHERE path = {TEXT}",
                (db_text.param(path),),
            )
            .fetchone()
        )
        return None if row is None else FileRecord(*row)

    def below(self, folder: str) -> dict[str, str]:
        """Path below the virtual `folder` -> sha256, of every file_state row there."""
        rows = self._connection().execute(
            f"SELECT path, sha256 FROM file_state WHERE path > {TEXT} AND path < {TEXT}",
            db_text.params([folder + "/", folder + "0"]),
        )
        return {path[len(folder) + 1 :]: digest for path, digest in rows}

    def stats(self) -> dict[str, tuple[int, int, int]]:
        """Every file_state row's stat: virtual path -> (size, mtime_ns, checked_ns), read
        without a Python call per row (start-up recovery reads them all)."""
        rows = (
            self._connection()
            .execute("SELECT path, size, mtime_ns, checked_ns FROM file_state")
            .fetchall()
        )
        return dict(
            zip(map(itemgetter(0), rows), map(itemgetter(slice(1, None)), rows), strict=True)
        )

    def records(self) -> dict[str, FileRecord]:
        """Every file_state row: virtual path -> record."""
        rows = self._connection().execute(
            "SELECT path, sha256, size, mtime_ns, checked_ns FROM file_state"
        )
        return {
            path: FileRecord(digest, size, mtime, checked)
            for path, digest, size, mtime, checked in rows
        }

    def secret_flagged_paths(self) -> set[str]:
        """Virtual paths whose recorded content is exactly what a secret-flagged event wrote."""
        rows = self._connection().execute(
            "SELECT path FROM file_state WHERE sha256 IN (SELECT after_hash FROM events"
            " WHERE flags != '' AND flags LIKE '%secret:%' AND after_hash IS NOT NULL)"
        )
        return {path for (path,) in rows}

    @staticmethod
    def put(conn: sqlite3.Connection, files: Mapping[str, FileRecord | None]) -> None:
        """Insert, replace or (for None) drop file_state rows (inside the caller's transaction)."""
        conn.executemany(
            f"DELETE FROM file_state WHERE path = {TEXT}",
            [(db_text.param(path),) for path, row in files.items() if row is None],
        )
        conn.executemany(
            "INSERT OR REPLACE INTO file_state (path, sha256, size, mtime_ns, checked_ns)"
            f" VALUES ({TEXT}, ?, ?, ?, ?)",
            [
                (db_text.param(path), row.sha256, row.size, row.mtime_ns, row.checked_ns)
                for path, row in files.items()
                if row is not None
            ],
        )

    @staticmethod
    def clear(conn: sqlite3.Connection, base: str) -> None:
        """Drop the rows of the virtual path `base` and of everything below it (inside the
        caller's transaction)."""
        conn.execute(
            f"DELETE FROM file_state WHERE path = {TEXT} OR (path > {TEXT} AND path < {TEXT})",
            db_text.params([base, base + "/", base + "0"]),
        )
