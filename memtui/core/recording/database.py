"""The history's SQLite file: created complete in one step, checked before SQLite touches it,
opened once per thread with WAL and a busy timeout, and set aside when it cannot be read.

The schema is one file's (`history.db`): the events, their operations (groups), blobs, review
marks, file state and meta tables, which the modules beside this one read and write.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import threading
import time
import urllib.parse
from collections import deque
from pathlib import Path

from memtui.core.recording import db_text
from memtui.core.recording.db_errors import explain, sqlite_words
from memtui.core.resolving.lock import meta_dir
from memtui.core.resolving.regular import open_regular

DB_NAME = "history.db"
SCHEMA_VERSION = 4
BUSY_TIMEOUT_MS = 30_000
SQLITE_HEADER = b"SQLite format 3\x00"
OPEN_ATTEMPTS = 10
"""How often opening the history is tried before a transient error counts as unreadable."""
SQL_BATCH = 500
"""Ids per `IN (...)` list, well under SQLite's limit on parameters."""
TRANSIENT_ERRORS = frozenset({"disk I/O error", "database is locked"})
"""sqlite errors that another process's open or close can cause for a moment."""
FILE_STATE_BUILT = "file_state_built"
"""Key in `meta` set once file_state describes every file the history knows."""
SEEN = "seen"
"""Key in `meta` set when memtui first opened a folder that held no file (so no baseline)."""

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
    read_only: str | None = None
    """Why the history behind it cannot be written, when it was opened for reading only."""

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

EVENT_COLUMNS = (
    "id, time, actor, session, command, path, new_path, args, result, is_error, "
    "before_hash, after_hash, flags, reverted_by, before_kind, after_kind, group_id"
)
_REQUIRED_COLUMNS: dict[str, tuple[str, ...]] = {
    "events": tuple(
        column.strip() for column in EVENT_COLUMNS.split(",") if "group_id" not in column
    ),
    "blobs": ("hash", "size", "data"),
    "file_state": ("path", "sha256", "size", "mtime_ns", "checked_ns"),
    "groups": ("id", "time", "actor", "kind", "summary"),
    "reviews": ("event_id", "reviewer", "time"),
}
"""Columns every memtui history of schema 1 on has (file_state from schema 2; groups, reviews
and events.group_id from schema 4)."""
_SINCE_VERSION = {"file_state": 2, "groups": 4, "reviews": 4}
"""The schema version that brought each table that schema 1 did not have."""


SYMLINK_REFUSED = "is a symbolic link; memtui opens only a real history file inside the store"


class RecordFailed(Exception):
    """An event could not be stored; says why in one line and whether the disk was changed.

    `applied` is False when the change never happened or was undone (`undone`); True only
    when the change stayed on disk because undoing it failed too (`undo_failed` says why).
    """

    def __init__(
        self,
        reason: str,
        *,
        applied: bool,
        undone: bool = False,
        undo_failed: str = "",
        read_only: bool = False,
    ) -> None:
        """Keep the reason and what became of the change (`read_only`: the reason is that the
        store cannot be written at all, see `read_only_failure`)."""
        super().__init__(reason)
        self.reason = reason
        self.applied = applied
        self.undone = undone
        self.undo_failed = undo_failed
        self.read_only = read_only


def read_only_failure(why: str) -> RecordFailed:
    """The failure of any change to a store that cannot be written (`why`: read-only file
    system, no space left on device); nothing was changed."""
    return RecordFailed(
        f"the memory folder cannot be written ({why})", applied=False, read_only=True
    )


CANNOT_WRITE = frozenset({errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC, errno.EDQUOT})
"""The errors of a write that say the store cannot be written (rather than that it is broken)."""


def cannot_write(error: OSError) -> str:
    """Why a store cannot be written, in a few words (`read-only file system`, `no space left
    on device`)."""
    return (error.strerror or str(error)).lower()


def read_only_reason(folder: Path) -> str:
    """Why `folder` cannot be written, as `cannot_write` words it."""
    try:
        on_read_only_mount = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        on_read_only_mount = False
    return os.strerror(errno.EROFS if on_read_only_mount else errno.EACCES).lower()


class CannotCreate(Exception):
    """The history file could not be made because the folder cannot be written."""

    def __init__(self, reason: str) -> None:
        """Keep why."""
        super().__init__(reason)
        self.reason = reason


def unrecorded_message(what: str, problem: RecordFailed) -> str:
    """The one-line answer for a change the history could not record."""
    if problem.read_only:
        return f"Cannot {what}: {problem.reason}; nothing changed"
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


def open_connection(path: Path, attempt: int = 1, *, read_only: bool = False) -> sqlite3.Connection:
    """Connect with WAL, NORMAL sync and a busy timeout; create the schema on first use.

    A transient error (another process closing the database and removing its WAL at the
    same moment) is retried briefly instead of being reported as a corrupt history. A
    history on a read-only filesystem is opened for reading only (`read_only`): its events
    show, and every attempt to record one fails with one line.
    """
    key = os.path.realpath(path)
    with _opening:
        _settle_open_connections()
        if not os.path.lexists(path):
            create_file(path)
        if not _open_connections.get(key):
            check_header(path)
        target = f"file:{urllib.parse.quote(str(path))}?immutable=1" if read_only else None
        try:
            conn = sqlite3.connect(
                target or path,
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                factory=_CountedConnection,
                uri=read_only,
            )
        except sqlite3.Error as error:
            raise HistoryCorrupt(path, f"cannot open: {explain(error, path)}") from error
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
            create_schema(conn, version)
        conn.execute("SELECT id, before_kind, after_kind FROM events LIMIT 1").fetchall()
        conn.execute("SELECT hash FROM blobs LIMIT 1").fetchall()
        conn.execute("SELECT path, checked_ns FROM file_state LIMIT 1").fetchall()
    except sqlite3.DatabaseError as error:
        conn.close()
        if str(error) in TRANSIENT_ERRORS and attempt < OPEN_ATTEMPTS:
            time.sleep(0.05 * attempt)
            return open_connection(path, attempt + 1)
        if not read_only and on_read_only_filesystem(path, error):
            return _opened_read_only(path, attempt)
        raise HistoryCorrupt(path, explain(error, path)) from error
    except sqlite3.Error as error:
        conn.close()
        raise HistoryCorrupt(path, explain(error, path)) from error
    mode = os.stat(path).st_mode & 0o777
    if mode & 0o077:
        with contextlib.suppress(OSError):
            os.chmod(path, 0o600)
    return conn


def _opened_read_only(path: Path, attempt: int) -> sqlite3.Connection:
    """`open_connection` for reading only, the connection saying why (`read_only`)."""
    conn = open_connection(path, attempt, read_only=True)
    if isinstance(conn, _CountedConnection):
        conn.read_only = read_only_reason(path.parent)
    return conn


def open_empty() -> sqlite3.Connection:
    """An empty history in memory that refuses every write (`query_only`), for a store whose
    folder cannot hold one."""
    conn = sqlite3.connect(":memory:", isolation_level=None, factory=_CountedConnection)
    create_schema(conn, 0)
    conn.execute("PRAGMA query_only = 1")
    conn.create_function("memtui_lower", 1, db_text.folded, deterministic=True)
    conn.text_factory = db_text.read_text
    return conn


def on_read_only_filesystem(path: Path, error: sqlite3.Error) -> bool:
    """True if `error` came from a history that exists in a folder that cannot be written."""
    return (
        str(error) in ("unable to open database file", "attempt to write a readonly database")
        and os.path.isfile(path)
        and not os.access(path.parent, os.W_OK)
    )


def create_file(path: Path) -> None:
    """Create a new, complete history file in one step, so none is ever seen half made.

    The schema is written to a temp file beside it, which is then hard-linked into place
    (losing the race to another process is fine: its file is used). An empty file is
    therefore never memtui's, and is refused like any foreign one.
    """
    temp = path.with_name(f"{DB_NAME}.new-{os.getpid()}-{os.urandom(16).hex()}")
    try:
        conn = sqlite3.connect(temp, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            create_schema(conn, 0)
        finally:
            conn.close()
        os.chmod(temp, 0o600)
        with contextlib.suppress(FileExistsError):
            os.link(temp, path)
    except (sqlite3.Error, OSError) as error:
        if isinstance(error, OSError) and error.errno in CANNOT_WRITE:
            raise CannotCreate(cannot_write(error)) from error
        raise HistoryCorrupt(path, f"cannot create: {failure_reason(error, path)}") from error
    finally:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.unlink(f"{temp}{suffix}")


def check_header(path: Path) -> None:
    """Refuse a symlink, or a non-empty file that is not SQLite, before SQLite touches it."""
    try:
        with open_regular(path) as (handle, _info):
            header = handle.read(16)
    except FileNotFoundError:
        return
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise HistoryCorrupt(path, SYMLINK_REFUSED) from error
        raise HistoryCorrupt(path, f"cannot read: {error.strerror or error}") from error
    if not header:
        raise HistoryCorrupt(path, "the file is empty (0 bytes), not a memtui history")
    if header != SQLITE_HEADER:
        raise HistoryCorrupt(path, "file is not a database")


def create_schema(conn: sqlite3.Connection, version: int) -> None:
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
