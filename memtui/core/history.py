"""The audit store: every command as an event in SQLite, plus compressed content-addressed blobs."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memtui.core.lock import META_DIR_NAME, meta_dir

DB_NAME = "history.db"
SCHEMA_VERSION = 1
BUSY_TIMEOUT_MS = 30_000
SQLITE_HEADER = b"SQLite format 3\x00"
KIND_FILE = "file"
KIND_DIR = "dir"
OPEN_ATTEMPTS = 10
"""How often opening the history is tried before a transient error counts as unreadable."""
TRANSIENT_ERRORS = frozenset({"disk I/O error", "database is locked"})
"""sqlite errors that another process's open or close can cause for a moment."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    time REAL NOT NULL,
    actor TEXT NOT NULL,
    actor_kind TEXT NOT NULL,
    session TEXT,
    command TEXT NOT NULL,
    path TEXT,
    new_path TEXT,
    args TEXT NOT NULL,
    result TEXT NOT NULL,
    is_error INTEGER NOT NULL,
    before_hash TEXT,
    after_hash TEXT,
    before_kind TEXT,
    after_kind TEXT,
    flags TEXT NOT NULL,
    reverted_by INTEGER
);
CREATE INDEX IF NOT EXISTS events_path ON events (path);
CREATE INDEX IF NOT EXISTS events_new_path ON events (new_path);
CREATE INDEX IF NOT EXISTS events_actor ON events (actor);
CREATE INDEX IF NOT EXISTS events_actor_kind ON events (actor_kind);
CREATE INDEX IF NOT EXISTS events_time ON events (time);
CREATE TABLE IF NOT EXISTS blobs (
    hash TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    data BLOB NOT NULL
) WITHOUT ROWID;
"""

_COLUMNS = (
    "id, time, actor, session, command, path, new_path, args, result, is_error, "
    "before_hash, after_hash, flags, reverted_by, before_kind, after_kind"
)


class HistoryCorrupt(Exception):
    """The history database cannot be opened or read; `History.set_aside` moves it away."""

    def __init__(self, path: Path, reason: str) -> None:
        """Keep the database path and a one-line reason."""
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


@dataclass(frozen=True)
class Event:
    """One recorded command: who, when, what, the result and the content hashes around it."""

    id: int
    time: float
    actor: str
    session: str | None
    command: str
    path: str | None
    new_path: str | None
    args: dict[str, Any]
    result: str
    is_error: bool
    before_hash: str | None
    after_hash: str | None
    flags: tuple[str, ...]
    reverted_by: int | None
    before_kind: str | None = None
    """`file`, `dir` (hash is of the folder's manifest) or None (nothing was there)."""
    after_kind: str | None = None
    """`file`, `dir` or None, as `before_kind`, for the state the event left."""

    @property
    def changed(self) -> bool:
        """True for a successful event that changed something on disk (and so can be reverted)."""
        return not self.is_error and self.command != "view"


@dataclass(frozen=True)
class Manifest:
    """A folder's content: every subfolder, file (relpath -> hash) and symlink (relpath -> target)."""

    dirs: tuple[str, ...]
    files: dict[str, str]
    links: dict[str, str]

    def to_bytes(self) -> bytes:
        """A canonical JSON encoding, so equal folders have equal hashes."""
        data = {"dirs": sorted(self.dirs), "files": self.files, "links": self.links}
        return json.dumps(data, sort_keys=True, separators=(",", ":")).encode("utf-8")

    @classmethod
    def from_bytes(cls, data: bytes) -> Manifest:
        """Decode a manifest written by `to_bytes`."""
        raw = json.loads(data.decode("utf-8"))
        return cls(tuple(raw["dirs"]), dict(raw["files"]), dict(raw["links"]))


def actor_kind(actor: str) -> str:
    """The part before `:` (`human`, `agent`) or the whole actor (`external`)."""
    return actor.split(":", 1)[0]


def _row_to_event(row: tuple[Any, ...]) -> Event:
    """Build an Event from a row selected with `_COLUMNS`."""
    return Event(
        id=row[0],
        time=row[1],
        actor=row[2],
        session=row[3],
        command=row[4],
        path=row[5],
        new_path=row[6],
        args=json.loads(row[7]),
        result=row[8],
        is_error=bool(row[9]),
        before_hash=row[10],
        after_hash=row[11],
        flags=tuple(flag for flag in row[12].split(" ") if flag),
        reverted_by=row[13],
        before_kind=row[14],
        after_kind=row[15],
    )


class History:
    """The audit store at `<root>/.memtui/history.db`; safe to share between threads."""

    def __init__(self, root: Path) -> None:
        """Open (creating) the database; raises HistoryCorrupt if it is unreadable."""
        self.root = Path(root)
        self.path = meta_dir(self.root) / DB_NAME
        self._local = threading.local()
        self._known_blobs: set[str] = set()
        self._connection()

    # Connections.

    def _connection(self) -> sqlite3.Connection:
        """This thread's connection, opened and checked on first use."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._open()
            self._local.conn = conn
        return conn

    def _open(self, attempt: int = 1) -> sqlite3.Connection:
        """Connect with WAL, NORMAL sync and a busy timeout; create the schema on first use.

        A transient error (another process closing the database and removing its WAL at the
        same moment) is retried briefly instead of being reported as a corrupt history.
        """
        self._check_header()
        try:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        except sqlite3.Error as error:
            raise HistoryCorrupt(self.path, f"cannot open: {error}") from error
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version != SCHEMA_VERSION:
                self._create_schema(conn, version)
            conn.execute("SELECT id, before_kind, after_kind FROM events LIMIT 1").fetchall()
            conn.execute("SELECT hash FROM blobs LIMIT 1").fetchall()
        except sqlite3.OperationalError as error:
            conn.close()
            if str(error) in TRANSIENT_ERRORS and attempt < OPEN_ATTEMPTS:
                time.sleep(0.05 * attempt)
                return self._open(attempt + 1)
            raise HistoryCorrupt(self.path, str(error)) from error
        except sqlite3.Error as error:
            conn.close()
            raise HistoryCorrupt(self.path, str(error)) from error
        mode = os.stat(self.path).st_mode & 0o777
        if mode & 0o077:
            os.chmod(self.path, 0o600)
        return conn

    def _check_header(self) -> None:
        """Refuse a non-empty file that is not SQLite before SQLite touches it (or its -wal)."""
        try:
            with open(self.path, "rb") as handle:
                header = handle.read(16)
        except FileNotFoundError:
            return
        except OSError as error:
            raise HistoryCorrupt(self.path, f"cannot read: {error.strerror or error}") from error
        if header and header != SQLITE_HEADER:
            raise HistoryCorrupt(self.path, "file is not a database")

    def _create_schema(self, conn: sqlite3.Connection, version: int) -> None:
        """Create the tables (once, racing processes serialised by a write transaction)."""
        if version > SCHEMA_VERSION:
            raise sqlite3.DatabaseError(
                f"written by a newer memtui (schema {version}, this one knows {SCHEMA_VERSION})"
            )
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def close(self) -> None:
        """Close this thread's connection (others close when their threads end)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    @staticmethod
    def set_aside(root: Path) -> Path:
        """Rename a bad `history.db` (and its -wal/-shm) to `history.db.corrupt-<time>`; deletes nothing."""
        directory = Path(root) / META_DIR_NAME
        stamp = time.strftime("%Y%m%d-%H%M%S")
        target = directory / f"{DB_NAME}.corrupt-{stamp}"
        counter = 1
        while target.exists():
            counter += 1
            target = directory / f"{DB_NAME}.corrupt-{stamp}-{counter}"
        os.rename(directory / DB_NAME, target)
        for suffix in ("-wal", "-shm"):
            companion = directory / (DB_NAME + suffix)
            if companion.exists():
                os.rename(companion, Path(str(target) + suffix))
        return target

    # Writing.

    def record(
        self,
        *,
        time: float,
        actor: str,
        session: str | None,
        command: str,
        path: str | None,
        new_path: str | None = None,
        args: Mapping[str, Any] | None = None,
        result: str,
        is_error: bool,
        before: tuple[str | None, str | None] = (None, None),
        after: tuple[str | None, str | None] = (None, None),
        flags: Iterable[str] = (),
        blobs: Mapping[str, bytes] | None = None,
        reverts: int | None = None,
    ) -> int:
        """Store one event (and the blobs it needs) in one transaction; returns its id.

        `before` and `after` are (kind, hash) pairs; `reverts` marks that event's `reverted_by`.
        """
        conn = self._connection()
        args_json = json.dumps(dict(args or {}), ensure_ascii=True, default=repr)
        conn.execute("BEGIN IMMEDIATE")
        try:
            stored = self._put_blobs(conn, blobs) if blobs else []
            cursor = conn.execute(
                "INSERT INTO events (time, actor, actor_kind, session, command, path, new_path,"
                " args, result, is_error, before_kind, before_hash, after_kind, after_hash,"
                " flags, reverted_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
                (
                    time,
                    actor,
                    actor_kind(actor),
                    session,
                    command,
                    path,
                    new_path,
                    args_json,
                    result,
                    int(is_error),
                    before[0],
                    before[1],
                    after[0],
                    after[1],
                    " ".join(flags),
                ),
            )
            event_id = int(cursor.lastrowid or 0)
            if reverts is not None:
                conn.execute("UPDATE events SET reverted_by = ? WHERE id = ?", (event_id, reverts))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        self._known_blobs.update(stored)
        return event_id

    def _put_blobs(self, conn: sqlite3.Connection, blobs: Mapping[str, bytes]) -> list[str]:
        """Insert the blobs not stored yet, compressed (inside the caller's transaction).

        Returns the digests now known to be stored once the transaction commits.
        """
        stored: list[str] = []
        for digest, data in blobs.items():
            if digest in self._known_blobs:
                continue
            exists = conn.execute("SELECT 1 FROM blobs WHERE hash = ?", (digest,)).fetchone()
            if exists is None:
                conn.execute(
                    "INSERT INTO blobs (hash, size, data) VALUES (?, ?, ?)",
                    (digest, len(data), zlib.compress(data, 6)),
                )
            stored.append(digest)
        return stored

    # Reading.

    def events(
        self,
        *,
        path: str | None = None,
        actor: str | None = None,
        command: str | None = None,
        since: float | None = None,
        until: float | None = None,
        limit: int | None = None,
        newest_first: bool = True,
    ) -> list[Event]:
        """Events matching every given filter (path also matches new_path and paths below it)."""
        clauses: list[str] = []
        params: list[Any] = []
        if path is not None:
            folder = path.rstrip("/")
            clauses.append(
                "(path = ? OR new_path = ? OR (path > ? AND path < ?)"
                " OR (new_path > ? AND new_path < ?))"
            )
            params += [folder, folder, folder + "/", folder + "0", folder + "/", folder + "0"]
        if actor is not None:
            if ":" in actor:
                clauses.append("actor = ?")
            else:
                clauses.append("actor_kind = ?")
            params.append(actor)
        if command is not None:
            clauses.append("command = ?")
            params.append(command)
        if since is not None:
            clauses.append("time >= ?")
            params.append(since)
        if until is not None:
            clauses.append("time <= ?")
            params.append(until)
        sql = f"SELECT {_COLUMNS} FROM events"
        if clauses:
            sql += " WHERE " + " AND ".join(clauses)
        sql += " ORDER BY id DESC" if newest_first else " ORDER BY id"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        rows = self._connection().execute(sql, params).fetchall()
        return [_row_to_event(row) for row in rows]

    def event(self, event_id: int) -> Event | None:
        """One event by id, or None."""
        row = (
            self._connection()
            .execute(f"SELECT {_COLUMNS} FROM events WHERE id = ?", (event_id,))
            .fetchone()
        )
        return None if row is None else _row_to_event(row)

    def last_change(self, paths: Iterable[str]) -> Event | None:
        """The newest successful change whose path or new_path is one of `paths`."""
        wanted = list(paths)
        marks = ", ".join("?" for _ in wanted)
        row = (
            self._connection()
            .execute(
                f"SELECT {_COLUMNS} FROM events WHERE (path IN ({marks}) OR new_path IN ({marks}))"
                " AND is_error = 0 AND command != 'view' ORDER BY id DESC LIMIT 1",
                wanted + wanted,
            )
            .fetchone()
        )
        return None if row is None else _row_to_event(row)

    def last_agent_read(self, path: str) -> float | None:
        """When an agent last viewed `path` successfully, or None."""
        row = (
            self._connection()
            .execute(
                "SELECT max(time) FROM events WHERE path = ? AND command = 'view'"
                " AND actor_kind = 'agent' AND is_error = 0",
                (path,),
            )
            .fetchone()
        )
        return None if row is None else row[0]

    def last_agent_reads(self) -> dict[str, float]:
        """Virtual path -> time of the last successful agent view, for every path read."""
        rows = self._connection().execute(
            "SELECT path, max(time) FROM events WHERE command = 'view' AND actor_kind = 'agent'"
            " AND is_error = 0 AND path IS NOT NULL GROUP BY path"
        )
        return {path: when for path, when in rows}

    def last_change_actors(self) -> dict[str, str]:
        """Virtual path -> actor of the last change that left something there."""
        rows = self._connection().execute(
            "SELECT path, new_path, actor, before_kind, after_kind FROM events"
            " WHERE is_error = 0 AND command != 'view' ORDER BY id"
        )
        actors: dict[str, str] = {}
        for path, new_path, actor, before_kind, after_kind in rows:
            if path is None:
                continue
            if before_kind == KIND_DIR:
                below = [key for key in actors if key.startswith(path + "/")]
                for key in below:
                    moved = actors.pop(key)
                    if new_path is not None:
                        actors[new_path + key[len(path) :]] = moved
            if new_path is not None:
                actors.pop(path, None)
                actors[new_path] = actor
            elif after_kind is None:
                actors.pop(path, None)
            else:
                actors[path] = actor
        return actors

    def blob(self, digest: str) -> bytes | None:
        """The stored bytes with this sha256 hex digest, or None."""
        row = (
            self._connection()
            .execute("SELECT data FROM blobs WHERE hash = ?", (digest,))
            .fetchone()
        )
        return None if row is None else zlib.decompress(row[0])

    def manifest(self, digest: str) -> Manifest | None:
        """A stored folder manifest, or None."""
        data = self.blob(digest)
        return None if data is None else Manifest.from_bytes(data)

    def texts(self, event: Event) -> tuple[str | None, str | None]:
        """The before and after text of an event for a diff (a folder as its file list)."""
        return (
            self._state_text(event.before_kind, event.before_hash),
            self._state_text(event.after_kind, event.after_hash),
        )

    def _state_text(self, kind: str | None, digest: str | None) -> str | None:
        """A file's text, a folder's file listing, or None when missing or not stored."""
        if kind is None or digest is None:
            return None
        if kind == KIND_DIR:
            manifest = self.manifest(digest)
            if manifest is None:
                return None
            names = sorted([*manifest.files, *(f"{d}/" for d in manifest.dirs), *manifest.links])
            return "".join(f"{name}\n" for name in names)
        data = self.blob(digest)
        return None if data is None else data.decode("utf-8", errors="replace")
