"""The audit store: every command as an event in SQLite, plus compressed content-addressed blobs."""

from __future__ import annotations

import bisect
import contextlib
import dataclasses
import errno
import json
import os
import sqlite3
import threading
import time
import urllib.parse
import uuid
import zlib
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memtui.core.recording import db_text
from memtui.core.recording.db_errors import explain, sqlite_words
from memtui.core.recording.db_text import TEXT
from memtui.core.recording.lineage import (
    Lineage,
    at_or_below_params,
    at_or_below_sql,
    trace,
)
from memtui.core.recording.read_refs import viewed_text
from memtui.core.resolving.lock import META_DIR_NAME, UnsafeMetaDir, meta_dir
from memtui.core.resolving.regular import open_regular

DB_NAME = "history.db"
SCHEMA_VERSION = 4
BUSY_TIMEOUT_MS = 30_000
SQLITE_HEADER = b"SQLite format 3\x00"
KIND_FILE = "file"
KIND_DIR = "dir"
OPEN_ATTEMPTS = 10
"""How often opening the history is tried before a transient error counts as unreadable."""
SQL_BATCH = 500
"""Ids per `IN (...)` list, well under SQLite's limit on parameters."""
TRANSIENT_ERRORS = frozenset({"disk I/O error", "database is locked"})
"""sqlite errors that another process's open or close can cause for a moment."""
UNKNOWN_STAT = -1
"""Size and mtime of a file_state row whose stat is not known yet, so the next check hashes it."""
FILE_STATE_BUILT = "file_state_built"
"""Key in `meta` set once file_state describes every file the history knows."""
BASELINE = "baseline"
"""The command of the one event that lists what a folder held when memtui first opened it."""
SEEN = "seen"
"""Key in `meta` set when memtui first opened a folder that held no file (so no baseline)."""
REVIEWED_KINDS = frozenset({"agent", "external"})
"""Actor kinds whose changes wait for a person's review (see `is_reviewable`)."""

_open_connections: dict[str, int] = {}
"""Open SQLite connections of this process per database file. While there are any, the file is
never opened with a plain file handle: closing one would release every POSIX lock the process's
connections hold on it, and another process could then delete the WAL under them."""
_closed_connections: deque[str] = deque()
"""Database files of connections closed or collected since `_open_connections` was last settled
(appended without a lock, since a collection can run while the lock is held)."""
_opening = threading.Lock()


def _settle_open_connections() -> None:
    """Take closed connections off `_open_connections`; called with `_opening` held."""
    while _closed_connections:
        key = _closed_connections.popleft()
        _open_connections[key] -= 1
        if not _open_connections[key]:
            del _open_connections[key]


class _CountedConnection(sqlite3.Connection):
    """A connection counted in `_open_connections` from connect until close or collection."""

    counted_key: str | None = None

    def _release(self) -> None:
        """Stop counting this connection (once)."""
        key, self.counted_key = self.counted_key, None
        if key is not None:
            _closed_connections.append(key)

    def close(self) -> None:
        """Close, then stop counting."""
        super().close()
        self._release()

    def __del__(self) -> None:
        """A connection dropped without close stops counting when it is collected."""
        self._release()


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
    reverted_by INTEGER,
    group_id INTEGER
);
CREATE INDEX IF NOT EXISTS events_path ON events (path);
CREATE INDEX IF NOT EXISTS events_new_path ON events (new_path);
CREATE INDEX IF NOT EXISTS events_actor ON events (actor);
CREATE INDEX IF NOT EXISTS events_actor_kind ON events (actor_kind);
CREATE INDEX IF NOT EXISTS events_time ON events (time);
CREATE INDEX IF NOT EXISTS events_flagged ON events (after_hash) WHERE flags != '';
CREATE INDEX IF NOT EXISTS events_path_reads ON events (path, command, actor_kind, is_error, time);
CREATE TABLE IF NOT EXISTS blobs (
    hash TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    data BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS file_state (
    path TEXT PRIMARY KEY,
    sha256 TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    checked_ns INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS groups (
    id INTEGER PRIMARY KEY,
    time REAL NOT NULL,
    actor TEXT NOT NULL,
    kind TEXT NOT NULL,
    summary TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS reviews (
    event_id INTEGER PRIMARY KEY,
    reviewer TEXT NOT NULL,
    time REAL NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
"""

_COLUMNS = (
    "id, time, actor, session, command, path, new_path, args, result, is_error, "
    "before_hash, after_hash, flags, reverted_by, before_kind, after_kind, group_id"
)
_REQUIRED_COLUMNS: dict[str, tuple[str, ...]] = {
    "events": tuple(column.strip() for column in _COLUMNS.split(",") if "group_id" not in column),
    "blobs": ("hash", "size", "data"),
    "file_state": ("path", "sha256", "size", "mtime_ns", "checked_ns"),
    "groups": ("id", "time", "actor", "kind", "summary"),
    "reviews": ("event_id", "reviewer", "time"),
}
"""Columns every memtui history of schema 1 on has (file_state from schema 2; groups, reviews
and events.group_id from schema 4)."""
_SINCE_VERSION = {"file_state": 2, "groups": 4, "reviews": 4}
"""The schema version that brought each table that schema 1 did not have."""
_WORD_CLAUSE = (
    "instr(memtui_lower(CAST(coalesce(path, '') || ' ' || coalesce(new_path, '') || ' ' || actor"
    " || ' ' || command || ' ' || result AS BLOB)), ?) > 0"
)
"""A free word appears in the event's path, new path, actor, command or result (any case)."""


SYMLINK_REFUSED = "is a symbolic link; memtui opens only a real history file inside the store"


class RecordFailed(Exception):
    """An event could not be stored; says why in one line and whether the disk was changed.

    `applied` is False when the change never happened or was undone (`undone`); True only
    when the change stayed on disk because undoing it failed too (`undo_failed` says why).
    """

    def __init__(
        self, reason: str, *, applied: bool, undone: bool = False, undo_failed: str = ""
    ) -> None:
        """Keep the reason and what became of the change."""
        super().__init__(reason)
        self.reason = reason
        self.applied = applied
        self.undone = undone
        self.undo_failed = undo_failed


def unrecorded_message(what: str, problem: RecordFailed) -> str:
    """The one-line answer for a change the history could not record."""
    if problem.applied:
        return (
            f"Cannot {what}: memtui could not record the change in its history "
            f"({problem.reason}) nor undo it ({problem.undo_failed}); the change stays on "
            "disk and will be recorded as an outside change"
        )
    if problem.undone:
        return (
            f"Cannot {what}: memtui could not record the change in its history "
            f"({problem.reason}), so it undid it; nothing changed"
        )
    return (
        f"Cannot {what}: memtui could not record the change in its history "
        f"({problem.reason}); nothing changed"
    )


def failure_reason(problem: BaseException, database: Path | None = None) -> str:
    """One line saying why the history could not be written (sqlite's own words, after the
    cause when `database` is given and the cause can be named: a full disk, a linked -wal)."""
    if isinstance(problem, UnicodeError):
        return "a value could not be encoded"
    if database is not None and isinstance(problem, sqlite3.Error):
        return explain(problem, database)
    return sqlite_words(problem)


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
    group_id: int | None = None
    """The operation this event is a part of (a rename and its link rewrites), or None."""

    @property
    def changed(self) -> bool:
        """True for a successful event that changed something on disk (and so can be reverted)."""
        return not self.is_error and self.command != "view"


@dataclass(frozen=True)
class Group:
    """One operation: the events that share its id were made as one change (a rename and the
    link rewrites it needed) and are undone as one."""

    id: int
    time: float
    actor: str
    kind: str
    """What the operation was: `create`, `rename`, `archive`, `delete`, `revert`..."""
    summary: str
    """One line naming it, for example `rename /memories/a.md to /memories/b.md`."""


@dataclass(frozen=True)
class Manifest:
    """A folder's content: every subfolder, file (relpath -> hash) and symlink (relpath -> target).

    `modes` holds the permission bits of the folder itself (`""`), its subfolders and files
    where they differ from memtui's own (0700 folders, 0600 files); older manifests have none.
    """

    dirs: tuple[str, ...]
    files: dict[str, str]
    links: dict[str, str]
    modes: dict[str, int] = field(default_factory=dict)

    def to_bytes(self) -> bytes:
        """A canonical JSON encoding, so equal folders have equal hashes."""
        data: dict[str, Any] = {"dirs": sorted(self.dirs), "files": self.files, "links": self.links}
        if self.modes:
            data["modes"] = self.modes
        return json.dumps(data, sort_keys=True, separators=(",", ":")).encode("utf-8")

    @classmethod
    def from_bytes(cls, data: bytes) -> Manifest:
        """Decode a manifest written by `to_bytes`."""
        raw = json.loads(data.decode("utf-8"))
        modes = {str(name): int(mode) for name, mode in raw.get("modes", {}).items()}
        return cls(tuple(raw["dirs"]), dict(raw["files"]), dict(raw["links"]), modes)

    def same_content(self, other: Manifest) -> bool:
        """True if both list the same folders, file contents and links (modes aside)."""
        return (set(self.dirs), self.files, self.links) == (
            set(other.dirs),
            other.files,
            other.links,
        )


@dataclass(frozen=True)
class FileRecord:
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
        return (
            self.size == size
            and self.mtime_ns == mtime_ns
            and self.checked_ns - self.mtime_ns >= RACY_WINDOW_NS
        )


RACY_WINDOW_NS = 2_000_000_000
"""A stat this close to the file's mtime may hide a same-size rewrite within the same tick."""


@dataclass(frozen=True)
class PendingEvent:
    """One event to store, with the file_state changes it makes (see `History.record`)."""

    time: float
    actor: str
    session: str | None
    command: str
    path: str | None
    result: str
    is_error: bool
    new_path: str | None = None
    args: Mapping[str, Any] | None = None
    before: tuple[str | None, str | None] = (None, None)
    after: tuple[str | None, str | None] = (None, None)
    flags: Iterable[str] = ()
    blobs: Mapping[str, bytes] | None = None
    reverts: int | None = None
    cleared: Iterable[str] = ()
    """Virtual paths whose file_state rows (at and below) are dropped before `files` are set."""
    files: Mapping[str, FileRecord | None] | None = None
    """file_state rows (virtual path of the real file -> record, None drops that one row)."""
    group_id: int | None = None
    """The operation (`History.open_group`) this event is a part of, or None."""
    reviews: Iterable[int] = ()
    """Events this one marks reviewed by its actor at its time (a person's undo or save)."""


@dataclass(frozen=True)
class Review:
    """Who marked a change reviewed, and when."""

    reviewer: str
    time: float


class NotReviewable(Exception):
    """Some event ids asked to be marked reviewed are not in the history or are no change
    to review."""

    def __init__(self, unknown: Sequence[int], not_changes: Sequence[Event]) -> None:
        """Keep the unknown ids and the events that are not agent or outside changes."""
        super().__init__(f"unknown: {list(unknown)}, not changes: {[e.id for e in not_changes]}")
        self.unknown = list(unknown)
        self.not_changes = list(not_changes)


def is_reviewable(event: Event) -> bool:
    """True for a change that waits for review: made by an agent or outside memtui (the baseline,
    reads, refusals and people's own changes are not); `_filter_sql(changes_only=True,
    actor_kinds=REVIEWED_KINDS)` is the same rule in SQL."""
    return event.changed and event.command != BASELINE and actor_kind(event.actor) in REVIEWED_KINDS


def actor_kind(actor: str) -> str:
    """The part before `:` (`human`, `agent`) or the whole actor (`external`)."""
    return actor.split(":", 1)[0]


def _filter_sql(  # noqa: C901
    *,
    path: str | None = None,
    actor: str | None = None,
    command: str | None = None,
    since: float | None = None,
    until: float | None = None,
    actor_kinds: Collection[str] | None = None,
    skip_reads: bool = False,
    errors_only: bool = False,
    words: Sequence[str] = (),
    before_id: int | None = None,
    after_id: int | None = None,
    changes_only: bool = False,
    reviewed: bool | None = None,
    lineage: Lineage | None = None,
) -> tuple[str, list[Any]]:
    """The WHERE clause (empty or with a leading space) and parameters of the event filters.

    `lineage` replaces `path` with every name the path had (see `History.lineage`).
    """
    clauses: list[str] = []
    params: list[Any] = []
    if lineage is not None:
        clause, values = lineage.sql()
        clauses.append(clause)
        params += values
    elif path is not None:
        clauses.append(at_or_below_sql())
        params += at_or_below_params(path)
    if actor is not None:
        clauses.append("actor = ?" if ":" in actor else "actor_kind = ?")
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
    if actor_kinds is not None:
        kinds = sorted(actor_kinds)
        clauses.append(f"actor_kind IN ({', '.join('?' for _ in kinds)})")
        params += kinds
    if skip_reads:
        clauses.append("command != 'view'")
    if errors_only:
        clauses.append("is_error = 1")
    for word in words:
        clauses.append(_WORD_CLAUSE)
        params.append(db_text.folded(word))
    if before_id is not None:
        clauses.append("id < ?")
        params.append(before_id)
    if after_id is not None:
        clauses.append("id > ?")
        params.append(after_id)
    if changes_only:
        clauses.append(f"is_error = 0 AND command NOT IN ('view', '{BASELINE}')")
    if reviewed is not None:
        negation = "" if reviewed else "NOT "
        clauses.append(f"id {negation}IN (SELECT event_id FROM reviews)")
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), params


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
        group_id=row[16],
    )


def _check_schema(conn: sqlite3.Connection) -> int:
    """The database's schema version, after checking (only reading) that it is a memtui history.

    A database without a version must hold no tables yet; a versioned one must have the tables
    and columns that version had. Raises sqlite3.DatabaseError otherwise, before anything
    (journal mode, migration) writes to the file.
    """
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version > SCHEMA_VERSION:
        raise sqlite3.DatabaseError(
            f"written by a newer memtui (schema {version}, this one knows {SCHEMA_VERSION})"
        )
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if version == 0:
        if tables:
            raise sqlite3.DatabaseError(
                "not a memtui history (it holds tables memtui did not create: "
                f"{', '.join(sorted(tables))})"
            )
        return version
    for table, columns in _REQUIRED_COLUMNS.items():
        if version < _SINCE_VERSION.get(table, 1):
            continue
        if table not in tables:
            raise sqlite3.DatabaseError(f"not a memtui history (it has no {table} table)")
        present = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        missing = [column for column in columns if column not in present]
        if missing:
            raise sqlite3.DatabaseError(
                f"not a memtui history (its {table} table has no column {missing[0]})"
            )
    return version


class History:
    """The audit store at `<root>/.memtui/history.db`; safe to share between threads."""

    def __init__(self, root: Path) -> None:
        """Open (creating) the database; raises HistoryCorrupt if it is unreadable."""
        self.root = Path(root)
        try:
            self.path = meta_dir(self.root) / DB_NAME
        except UnsafeMetaDir as error:
            raise HistoryCorrupt(self.root / META_DIR_NAME / DB_NAME, str(error.args[0])) from error
        self._local = threading.local()
        self._known_blobs: set[str] = set()
        self._baseline_paths: tuple[int | None, tuple[str, ...]] | None = None
        """The baseline's id and sorted listing, read once (the baseline never changes)."""
        self._connection()

    # Connections.

    def _connection(self) -> sqlite3.Connection:
        """This thread's connection, opened and checked on first use."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._open()
            self._local.conn = conn
        return conn

    def _open(self, attempt: int = 1, *, read_only: bool = False) -> sqlite3.Connection:
        """Connect with WAL, NORMAL sync and a busy timeout; create the schema on first use.

        A transient error (another process closing the database and removing its WAL at the
        same moment) is retried briefly instead of being reported as a corrupt history. A
        history on a read-only filesystem is opened for reading only (`read_only`): its events
        show, and every attempt to record one fails with one line.
        """
        key = os.path.realpath(self.path)
        with _opening:
            _settle_open_connections()
            if not os.path.lexists(self.path):
                self._create_file()
            if not _open_connections.get(key):
                self._check_header()
            target = f"file:{urllib.parse.quote(str(self.path))}?immutable=1" if read_only else None
            try:
                conn = sqlite3.connect(
                    target or self.path,
                    timeout=BUSY_TIMEOUT_MS / 1000,
                    isolation_level=None,
                    factory=_CountedConnection,
                    uri=read_only,
                )
            except sqlite3.Error as error:
                raise HistoryCorrupt(
                    self.path, f"cannot open: {explain(error, self.path)}"
                ) from error
            conn.counted_key = key
            _open_connections[key] = _open_connections.get(key, 0) + 1
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            version = _check_schema(conn)
            if not read_only:
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = NORMAL")
            conn.create_function("memtui_lower", 1, db_text.folded, deterministic=True)
            conn.text_factory = db_text.read_text
            if version != SCHEMA_VERSION and read_only and version:
                raise sqlite3.DatabaseError(
                    f"written by an older memtui (schema {version}) on a read-only filesystem,"
                    " so it cannot be upgraded here"
                )
            if version != SCHEMA_VERSION:
                self._create_schema(conn, version)
            conn.execute("SELECT id, before_kind, after_kind FROM events LIMIT 1").fetchall()
            conn.execute("SELECT hash FROM blobs LIMIT 1").fetchall()
            conn.execute("SELECT path, checked_ns FROM file_state LIMIT 1").fetchall()
        except sqlite3.DatabaseError as error:
            conn.close()
            if str(error) in TRANSIENT_ERRORS and attempt < OPEN_ATTEMPTS:
                time.sleep(0.05 * attempt)
                return self._open(attempt + 1)
            if not read_only and self._on_read_only_filesystem(error):
                return self._open(attempt, read_only=True)
            raise HistoryCorrupt(self.path, explain(error, self.path)) from error
        except sqlite3.Error as error:
            conn.close()
            raise HistoryCorrupt(self.path, explain(error, self.path)) from error
        mode = os.stat(self.path).st_mode & 0o777
        if mode & 0o077:
            with contextlib.suppress(OSError):
                os.chmod(self.path, 0o600)
        return conn

    def _on_read_only_filesystem(self, error: sqlite3.Error) -> bool:
        """True if `error` came from a history that exists in a folder that cannot be written."""
        return (
            str(error) in ("unable to open database file", "attempt to write a readonly database")
            and os.path.isfile(self.path)
            and not os.access(self.path.parent, os.W_OK)
        )

    def _create_file(self) -> None:
        """Create a new, complete history file in one step, so none is ever seen half made.

        The schema is written to a temp file beside it, which is then hard-linked into place
        (losing the race to another process is fine: its file is used). An empty file is
        therefore never memtui's, and is refused like any foreign one.
        """
        temp = self.path.with_name(f"{DB_NAME}.new-{os.getpid()}-{uuid.uuid4().hex}")
        try:
            conn = sqlite3.connect(temp, isolation_level=None)
            try:
                conn.execute("PRAGMA journal_mode = WAL")
                self._create_schema(conn, 0)
            finally:
                conn.close()
            os.chmod(temp, 0o600)
            with contextlib.suppress(FileExistsError):
                os.link(temp, self.path)
        except (sqlite3.Error, OSError) as error:
            raise HistoryCorrupt(
                self.path, f"cannot create: {failure_reason(error, self.path)}"
            ) from error
        finally:
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(OSError):
                    os.unlink(f"{temp}{suffix}")

    def _check_header(self) -> None:
        """Refuse a symlink, or a non-empty file that is not SQLite, before SQLite touches it."""
        try:
            with open_regular(self.path) as (handle, _info):
                header = handle.read(16)
        except FileNotFoundError:
            return
        except OSError as error:
            if error.errno == errno.ELOOP:
                raise HistoryCorrupt(self.path, SYMLINK_REFUSED) from error
            raise HistoryCorrupt(self.path, f"cannot read: {error.strerror or error}") from error
        if not header:
            raise HistoryCorrupt(self.path, "the file is empty (0 bytes), not a memtui history")
        if header != SQLITE_HEADER:
            raise HistoryCorrupt(self.path, "file is not a database")

    def _create_schema(self, conn: sqlite3.Connection, version: int) -> None:
        """Create or upgrade the tables (racing processes serialised by a write transaction).

        A history without events gets an empty, complete file_state at once; an older history
        with events gets an empty one that start-up recovery builds from the replay.
        """
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            columns = {row[1] for row in conn.execute("PRAGMA table_info(events)")}
            if "group_id" not in columns:
                conn.execute("ALTER TABLE events ADD COLUMN group_id INTEGER")
            conn.execute("CREATE INDEX IF NOT EXISTS events_group ON events (group_id)")
            if conn.execute("SELECT 1 FROM events LIMIT 1").fetchone() is None:
                conn.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?, '1')", (FILE_STATE_BUILT,)
                )
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def connection(self) -> sqlite3.Connection:
        """This thread's connection, for tables kept beside the history's (proposals)."""
        return self._connection()

    def close(self) -> None:
        """Close this thread's connection (others close when their threads end)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    @staticmethod
    def set_aside(root: Path) -> Path:
        """Rename a bad `history.db` (and its -wal/-shm) to `history.db.corrupt-<time>`; deletes
        nothing.

        Raises OSError (nothing renamed) when `.memtui` is a symlink or not a folder.
        """
        directory = meta_dir(Path(root))
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
        cleared: Iterable[str] = (),
        files: Mapping[str, FileRecord | None] | None = None,
        group_id: int | None = None,
    ) -> int:
        """Store one event, its blobs and its file_state changes in one transaction; returns its id.

        `before` and `after` are (kind, hash) pairs; `reverts` marks that event's `reverted_by`;
        `cleared` and `files` update file_state as described on `PendingEvent`; `group_id` makes
        it a part of an operation (`open_group`).
        """
        pending = PendingEvent(
            time=time,
            actor=actor,
            session=session,
            command=command,
            path=path,
            new_path=new_path,
            args=args,
            result=result,
            is_error=is_error,
            before=before,
            after=after,
            flags=flags,
            blobs=blobs,
            reverts=reverts,
            cleared=cleared,
            files=files,
            group_id=group_id,
        )
        return self.record_many([pending])[0]

    def open_group(self, *, time: float, actor: str, kind: str, summary: str) -> int:
        """Start an operation whose events share its id (a rename and its link rewrites).

        Raises RecordFailed when the history cannot be written, before anything changes.
        """
        conn = self._connection()
        try:
            cursor = conn.execute(
                f"INSERT INTO groups (time, actor, kind, summary) VALUES (?, ?, ?, {TEXT})",
                (time, actor, kind, db_text.param(summary)),
            )
        except (sqlite3.Error, UnicodeError, ValueError) as problem:
            raise RecordFailed(failure_reason(problem, self.path), applied=False) from problem
        return int(cursor.lastrowid or 0)

    def group(self, group_id: int) -> Group | None:
        """One operation by id, or None."""
        return self.groups([group_id]).get(group_id)

    def groups(self, group_ids: Iterable[int]) -> dict[int, Group]:
        """The operations with these ids, by id (ids that are not there are left out)."""
        wanted = sorted(set(group_ids))
        found: dict[int, Group] = {}
        conn = self._connection()
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            rows = conn.execute(
                f"SELECT id, time, actor, kind, summary FROM groups WHERE id IN ({marks})", chunk
            )
            found.update({row[0]: Group(*row) for row in rows})
        return found

    def group_events(self, group_id: int) -> list[Event]:
        """Every event of an operation, oldest first."""
        rows = (
            self._connection()
            .execute(f"SELECT {_COLUMNS} FROM events WHERE group_id = ? ORDER BY id", (group_id,))
            .fetchall()
        )
        return [_row_to_event(row) for row in rows]

    def record_many(
        self,
        events: Iterable[PendingEvent],
        *,
        files: Mapping[str, FileRecord | None] | None = None,
    ) -> list[int]:
        """Store every event (consumed lazily) and extra file_state rows in ONE transaction.

        Returns the new event ids in order. Nothing is stored if any part fails; a history
        that cannot be written raises RecordFailed.
        """
        conn = self._connection()
        with self._writing(conn) as stored:
            ids = [self._insert_event(conn, event, stored) for event in events]
            if files:
                self._put_files(conn, files)
        return ids

    @contextlib.contextmanager
    def _writing(self, conn: sqlite3.Connection) -> Iterator[list[str]]:
        """One write transaction: committed if the block ends, rolled back if it raises (a
        history that cannot be written as RecordFailed). Yields the list the block adds the
        digests of stored blobs to; they count as stored once committed."""
        stored: list[str] = []
        try:
            conn.execute("BEGIN IMMEDIATE")
            yield stored
            conn.execute("COMMIT")
        except (sqlite3.Error, UnicodeError, ValueError) as problem:
            self._rollback(conn)
            raise RecordFailed(failure_reason(problem, self.path), applied=False) from problem
        except BaseException:
            self._rollback(conn)
            raise
        self._known_blobs.update(stored)

    def record_with_blobs(
        self, blobs: Iterable[tuple[str, bytes]], event: Callable[[], PendingEvent]
    ) -> int:
        """Store blobs as they come, then the event `event()` builds once all were read, in ONE
        transaction (so many files never sit in memory at once); returns the event's id.

        Nothing is stored if any part fails; a history that cannot be written raises RecordFailed.
        """
        conn = self._connection()
        with self._writing(conn) as stored:
            for digest, data in blobs:
                stored += self._put_blobs(conn, {digest: data})
            return self._insert_event(conn, event(), stored)

    def change(
        self,
        prepared: PendingEvent,
        apply: Callable[[], PendingEvent],
        undo: Callable[[PendingEvent], None],
    ) -> int:
        """Record a change and make it as one unit: it is in the history, or it did not happen.

        In one write transaction: `prepared` (the event as intended; its review marks wait for
        the final event) is stored first, so a history that cannot be written refuses before
        anything changes; then `apply()` changes the disk and returns the event as it turned out
        (a refusal if the disk no longer allowed it), which replaces the prepared row. If that
        cannot be committed (disk full, an I/O error), `undo(event)` puts the disk back before
        RecordFailed is raised.
        """
        conn = self._connection()
        stored: list[str] = []
        try:
            conn.execute("BEGIN IMMEDIATE")
            event_id = self._insert_event(conn, dataclasses.replace(prepared, reviews=()), stored)
        except (sqlite3.Error, UnicodeError, ValueError) as problem:
            self._rollback(conn)
            raise RecordFailed(failure_reason(problem, self.path), applied=False) from problem
        try:
            final = apply()
        except BaseException:
            self._rollback(conn)
            raise
        try:
            self._replace_event(conn, event_id, final, stored)
            conn.execute("COMMIT")
        except (sqlite3.Error, UnicodeError, ValueError) as problem:
            self._rollback(conn)
            reason = failure_reason(problem, self.path)
            if final.is_error:
                raise RecordFailed(reason, applied=False) from problem
            try:
                undo(final)
            except Exception as undo_problem:
                raise RecordFailed(reason, applied=True, undo_failed=str(undo_problem)) from problem
            raise RecordFailed(reason, applied=False, undone=True) from problem
        self._known_blobs.update(stored)
        return event_id

    @staticmethod
    def _rollback(conn: sqlite3.Connection) -> None:
        """Roll back the open transaction, if there is one."""
        if conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")

    def _replace_event(
        self, conn: sqlite3.Connection, event_id: int, event: PendingEvent, stored: list[str]
    ) -> None:
        """Overwrite the prepared row `event_id` with `event` and store its blobs and file_state."""
        conn.execute("DELETE FROM events WHERE id = ?", (event_id,))
        self._insert_event(conn, event, stored, event_id=event_id)

    def _insert_event(
        self,
        conn: sqlite3.Connection,
        event: PendingEvent,
        stored: list[str],
        *,
        event_id: int | None = None,
    ) -> int:
        """Insert one event, its blobs and file_state changes (inside the caller's transaction)."""
        if event.blobs:
            stored += self._put_blobs(conn, event.blobs)
        args_json = json.dumps(dict(event.args or {}), ensure_ascii=True, default=repr)
        cursor = conn.execute(
            "INSERT INTO events (id, time, actor, actor_kind, session, command, path, new_path,"
            " args, result, is_error, before_kind, before_hash, after_kind, after_hash,"
            " flags, reverted_by, group_id)"
            f" VALUES (?, ?, ?, ?, ?, ?, {TEXT}, {TEXT}, ?, {TEXT}, ?, ?, ?, ?, ?, ?, NULL, ?)",
            (
                event_id,
                event.time,
                event.actor,
                actor_kind(event.actor),
                event.session,
                event.command,
                db_text.param(event.path),
                db_text.param(event.new_path),
                args_json,
                db_text.param(event.result),
                int(event.is_error),
                event.before[0],
                event.before[1],
                event.after[0],
                event.after[1],
                " ".join(event.flags),
                event.group_id,
            ),
        )
        event_id = int(cursor.lastrowid or 0)
        conn.executemany(
            "INSERT OR IGNORE INTO reviews (event_id, reviewer, time) VALUES (?, ?, ?)",
            [(reviewed, event.actor, event.time) for reviewed in event.reviews],
        )
        if event.reverts is not None:
            conn.execute(
                "UPDATE events SET reverted_by = ? WHERE id = ?", (event_id, event.reverts)
            )
        for base in event.cleared:
            conn.execute(
                f"DELETE FROM file_state WHERE path = {TEXT} OR (path > {TEXT} AND path < {TEXT})",
                db_text.params([base, base + "/", base + "0"]),
            )
        if event.files:
            self._put_files(conn, event.files)
        return event_id

    @staticmethod
    def _put_files(conn: sqlite3.Connection, files: Mapping[str, FileRecord | None]) -> None:
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

    # file_state.

    def file_state_built(self) -> bool:
        """True once file_state describes every file the history knows (see `build_file_state`)."""
        row = (
            self._connection()
            .execute("SELECT value FROM meta WHERE key = ?", (FILE_STATE_BUILT,))
            .fetchone()
        )
        return row is not None

    def build_file_state(self, known: Callable[[], Mapping[str, str]]) -> bool:
        """Fill file_state once from `known()` (virtual path -> sha256), stats left unknown.

        Runs in one transaction and only if no other process built it first; returns whether
        this call built it. Unknown stats make the next check hash each of these files once.
        """
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            if self.file_state_built():
                conn.execute("ROLLBACK")
                return False
            conn.execute("DELETE FROM file_state")
            rows = {
                path: FileRecord(digest, UNKNOWN_STAT, UNKNOWN_STAT, UNKNOWN_STAT)
                for path, digest in known().items()
            }
            self._put_files(conn, rows)
            conn.execute("INSERT INTO meta (key, value) VALUES (?, '1')", (FILE_STATE_BUILT,))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return True

    def file_record(self, path: str) -> FileRecord | None:
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

    def files_below(self, folder: str) -> dict[str, str]:
        """Path below the virtual `folder` -> sha256, of every file_state row there."""
        rows = self._connection().execute(
            f"SELECT path, sha256 FROM file_state WHERE path > {TEXT} AND path < {TEXT}",
            db_text.params([folder + "/", folder + "0"]),
        )
        return {path[len(folder) + 1 :]: digest for path, digest in rows}

    def file_records(self) -> dict[str, FileRecord]:
        """Every file_state row: virtual path -> record."""
        rows = self._connection().execute(
            "SELECT path, sha256, size, mtime_ns, checked_ns FROM file_state"
        )
        return {
            path: FileRecord(digest, size, mtime, checked)
            for path, digest, size, mtime, checked in rows
        }

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
        actor_kinds: Collection[str] | None = None,
        skip_reads: bool = False,
        errors_only: bool = False,
        words: Sequence[str] = (),
        before_id: int | None = None,
        after_id: int | None = None,
        follow: bool = False,
        changes_only: bool = False,
        reviewed: bool | None = None,
    ) -> list[Event]:
        """Events matching every given filter.

        `path` also matches new_path and paths below it, and with `follow` every earlier name of
        what is there now (`lineage`); `actor` is a full actor or a kind; `actor_kinds` keeps
        only those kinds; `skip_reads` drops views; `words` must each appear in the path, new
        path, actor, command or result (any case); `before_id` and `after_id` page by event id;
        `changes_only` keeps successful changes but the baseline; `reviewed` keeps events with
        (True) or without (False) a review mark.
        """
        where, params = _filter_sql(
            path=path,
            actor=actor,
            command=command,
            since=since,
            until=until,
            actor_kinds=actor_kinds,
            skip_reads=skip_reads,
            errors_only=errors_only,
            words=words,
            before_id=before_id,
            after_id=after_id,
            changes_only=changes_only,
            reviewed=reviewed,
            lineage=self.lineage(path) if follow and path is not None else None,
        )
        sql = f"SELECT {_COLUMNS} FROM events{where}"
        sql += " ORDER BY id DESC" if newest_first else " ORDER BY id"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        rows = self._connection().execute(sql, params).fetchall()
        return [_row_to_event(row) for row in rows]

    def count_events(
        self,
        *,
        path: str | None = None,
        actor: str | None = None,
        command: str | None = None,
        since: float | None = None,
        actor_kinds: Collection[str] | None = None,
        skip_reads: bool = False,
        errors_only: bool = False,
        words: Sequence[str] = (),
        follow: bool = False,
        changes_only: bool = False,
        reviewed: bool | None = None,
    ) -> int:
        """How many events `events` would return with the same filters and no limit."""
        where, params = _filter_sql(
            path=path,
            actor=actor,
            command=command,
            since=since,
            actor_kinds=actor_kinds,
            skip_reads=skip_reads,
            errors_only=errors_only,
            words=words,
            changes_only=changes_only,
            reviewed=reviewed,
            lineage=self.lineage(path) if follow and path is not None else None,
        )
        row = self._connection().execute(f"SELECT count(*) FROM events{where}", params).fetchone()
        return int(row[0])

    def lineage(self, path: str) -> Lineage:
        """Every name what is at the virtual `path` had, back through renames and folder moves to
        where it began: its creation, the name's last vacating move, or the baseline."""
        return trace(self._connection(), path, self._baseline_listing)

    def moves(self, after_id: int) -> list[tuple[int, str, str]]:
        """(id, from, to) of every successful rename (and undone rename) after `after_id`, oldest
        first."""
        rows = self._connection().execute(
            "SELECT id, path, new_path FROM events WHERE new_path IS NOT NULL AND is_error = 0"
            " AND command != 'view' AND id > ? ORDER BY id",
            (after_id,),
        )
        return [(int(event_id), source, target) for event_id, source, target in rows]

    def baseline(self) -> Event | None:
        """The baseline event (what the folder held when memtui first opened it), if there
        is one."""
        row = (
            self._connection()
            .execute(f"SELECT {_COLUMNS} FROM events WHERE command = ? LIMIT 1", (BASELINE,))
            .fetchone()
        )
        return None if row is None else _row_to_event(row)

    def _baseline_listing(self, path: str) -> int | None:
        """The baseline event's id if it listed the virtual `path` or a file below it, else None."""
        if self._baseline_paths is None:
            event = self.baseline()
            names: list[str] = []
            if event is not None and event.after_hash is not None:
                manifest = self.manifest(event.after_hash)
                files = manifest.files if manifest is not None else {}
                names = sorted(f"{event.path}/{name}" for name in files)
            self._baseline_paths = (None if event is None else event.id, tuple(names))
        event_id, listed = self._baseline_paths
        if event_id is None:
            return None
        exact = bisect.bisect_left(listed, path)
        below = bisect.bisect_left(listed, path + "/")
        if (exact < len(listed) and listed[exact] == path) or (
            below < len(listed) and listed[below].startswith(path + "/")
        ):
            return event_id
        return None

    # Reviews.

    def pending_review_count(self) -> int:
        """How many agent and outside changes wait for review."""
        return self.count_events(actor_kinds=REVIEWED_KINDS, changes_only=True, reviewed=False)

    def reviews(self, event_ids: Iterable[int]) -> dict[int, Review]:
        """The review marks of those events that have one: event id -> review."""
        wanted = list(dict.fromkeys(event_ids))
        found: dict[int, Review] = {}
        conn = self._connection()
        for start in range(0, len(wanted), SQL_BATCH):
            batch = wanted[start : start + SQL_BATCH]
            rows = conn.execute(
                "SELECT event_id, reviewer, time FROM reviews"
                f" WHERE event_id IN ({', '.join('?' for _ in batch)})",
                batch,
            )
            found.update({event_id: Review(who, when) for event_id, who, when in rows})
        return found

    def mark_reviewed(
        self, event_ids: Iterable[int], reviewer: str, when: float
    ) -> tuple[list[int], dict[int, Review]]:
        """Mark changes reviewed by `reviewer` at `when`, all in one transaction.

        Returns the ids marked now and the marks found on the others. Raises NotReviewable
        (nothing marked) if an id is not in the history or is no agent or outside change, and
        RecordFailed if the history cannot be written.
        """
        wanted = list(dict.fromkeys(event_ids))
        conn = self._connection()
        with self._writing(conn):
            found = {event.id: event for event in self._events_by_id(conn, wanted)}
            unknown = [event_id for event_id in wanted if event_id not in found]
            not_changes = [found[i] for i in wanted if i in found and not is_reviewable(found[i])]
            if unknown or not_changes:
                raise NotReviewable(unknown, not_changes)
            earlier = self.reviews(wanted)
            marked = [event_id for event_id in wanted if event_id not in earlier]
            conn.executemany(
                "INSERT INTO reviews (event_id, reviewer, time) VALUES (?, ?, ?)",
                [(event_id, reviewer, when) for event_id in marked],
            )
        return marked, earlier

    @staticmethod
    def _events_by_id(conn: sqlite3.Connection, event_ids: Sequence[int]) -> list[Event]:
        """The events with these ids (those that exist), in batches of `SQL_BATCH`."""
        events: list[Event] = []
        for start in range(0, len(event_ids), SQL_BATCH):
            batch = event_ids[start : start + SQL_BATCH]
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM events WHERE id IN ({', '.join('?' for _ in batch)})",
                batch,
            )
            events += [_row_to_event(row) for row in rows]
        return events

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
        wanted = db_text.params(list(paths))
        marks = db_text.marks(len(wanted))
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

    def seen(self) -> bool:
        """Whether memtui has opened this folder before: the history has events or says so."""
        conn = self._connection()
        if conn.execute("SELECT 1 FROM events LIMIT 1").fetchone() is not None:
            return True
        return conn.execute("SELECT 1 FROM meta WHERE key = ?", (SEEN,)).fetchone() is not None

    def mark_seen(self) -> None:
        """Remember that memtui opened this (empty) folder, so files that appear later are
        changes."""
        conn = self._connection()
        try:
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, '1')", (SEEN,))
        except (sqlite3.Error, UnicodeError) as problem:
            raise RecordFailed(failure_reason(problem, self.path), applied=False) from problem

    def recording_since(self) -> float | None:
        """The time of the first recorded event, or None for an empty history."""
        row = self._connection().execute("SELECT time FROM events ORDER BY id LIMIT 1").fetchone()
        return None if row is None else float(row[0])

    def last_agent_read(self, path: str) -> float | None:
        """When an agent last viewed what is now at `path` successfully, or None.

        One index seek, unless a rename or delete ever touched `path` or a folder above it;
        then the reads are followed through the history as `last_agent_reads` does.
        """
        conn = self._connection()
        parts = path.split("/")
        places = db_text.params(["/".join(parts[:end]) for end in range(3, len(parts) + 1)])
        marks = db_text.marks(len(places))
        moved = conn.execute(
            f"SELECT 1 FROM events WHERE is_error = 0 AND command != 'view'"
            f" AND (path IN ({marks}) OR new_path IN ({marks}))"
            " AND (new_path IS NOT NULL OR (after_kind IS NULL AND before_kind IS NOT NULL))"
            " LIMIT 1",
            (*places, *places),
        ).fetchone()
        if moved is not None:
            return self.last_agent_reads().get(path)
        row = conn.execute(
            f"SELECT max(time) FROM events WHERE path = {TEXT} AND command = 'view'"
            " AND actor_kind = 'agent' AND is_error = 0",
            (db_text.param(path),),
        ).fetchone()
        return None if row is None else row[0]

    def last_agent_reads(self) -> dict[str, float]:
        """Virtual path -> time of the last successful agent view of what is there now.

        A read follows its file through renames (its own or a folder's) and ends with a delete.
        """
        rows = self._connection().execute(
            "SELECT command, path, new_path, time, before_kind, after_kind FROM events"
            " WHERE is_error = 0 AND path IS NOT NULL AND ("
            "(command = 'view' AND actor_kind = 'agent')"
            " OR (command != 'view' AND (new_path IS NOT NULL OR after_kind IS NULL))"
            ") ORDER BY id"
        )
        reads: dict[str, float] = {}
        for command, path, new_path, when, before_kind, after_kind in rows:
            if command == "view":
                reads[path] = max(when, reads.get(path, when))
                continue
            if before_kind is None and after_kind is None:
                continue
            moved = reads.pop(path, None)
            if before_kind == KIND_DIR:
                prefix = path + "/"
                below = [key for key in reads if key.startswith(prefix)]
                for key in below:
                    read = reads.pop(key)
                    if new_path is not None:
                        reads[new_path + key[len(path) :]] = read
            if new_path is not None:
                reads.pop(new_path, None)
                if moved is not None:
                    reads[new_path] = moved
        return reads

    def last_change_actors(self, since: float | None = None) -> dict[str, str]:
        """Virtual path -> actor of the last change that left something there (at `since`
        or later)."""
        window = "" if since is None else " AND time >= ?"
        rows = self._connection().execute(
            "SELECT path, new_path, actor, before_kind, after_kind FROM events"
            f" WHERE is_error = 0 AND command != 'view'{window} ORDER BY id",
            () if since is None else (since,),
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

    def secret_flagged_paths(self) -> set[str]:
        """Virtual paths whose recorded content is exactly what a secret-flagged event wrote."""
        rows = self._connection().execute(
            "SELECT path FROM file_state WHERE sha256 IN (SELECT after_hash FROM events"
            " WHERE flags != '' AND flags LIKE '%secret:%' AND after_hash IS NOT NULL)"
        )
        return {path for (path,) in rows}

    def secret_flagged_event_paths(self) -> set[str]:
        """Virtual paths that a secret-flagged event wrote to, whatever they hold now."""
        rows = self._connection().execute(
            "SELECT DISTINCT COALESCE(new_path, path) FROM events"
            " WHERE flags != '' AND flags LIKE '%secret:%' AND path IS NOT NULL"
        )
        return {path for (path,) in rows}

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
        """The before and after text of an event for a diff (a folder as its file list); for a
        view kept as a reference, (None, the text it showed)."""
        if event.command == "view" and not event.is_error:
            return None, viewed_text(event.result, self.blob)
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
