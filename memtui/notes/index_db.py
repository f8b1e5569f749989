"""The index file: SQLite in `<root>/.memtui/index.db`, checked before it is trusted, replaced when
foreign or damaged, refused when a newer memtui wrote it; one connection per thread."""

from __future__ import annotations

import atexit
import fcntl
import os
import shutil
import sqlite3
import stat
import tempfile
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext, suppress
from pathlib import Path

from memtui.core.applying.atomic import private_file
from memtui.core.resolving.lock import LockBusy, MutationLock, meta_dir
from memtui.notes.index_seal import KEY_META, left_as_is, never_left, new_key, remember

INDEX_NAME = "index.db"
LOCK_NAME = "index.lock"
"""The lock every process holds while it writes the index, so no two build it at once."""
SCHEMA_VERSION = 7
"""Raised when what an index record holds changes (2: the `lead` hash of each body; 3: the
vector tables of search by meaning; 4: each file's ctime, inode number and seal; 5: each note's
project prefix and each link's slug, for Basic Memory's permalink lookups; 6: whether a note's
frontmatter says `read_only: true`; 7: the ctime and inode number the vectors were made from),
so an older index is rebuilt rather than read with fields missing."""
APPLICATION_ID = 0x6D74_7569
"""`PRAGMA application_id` of a memtui index ("mtui")."""
BUSY_SECONDS = 30.0
MIN_SQLITE = (3, 34, 0)
"""The oldest SQLite with what the index needs (FTS5 with `fts5vocab`, UPDATE ... FROM)."""
TOKENIZER = "unicode61 remove_diacritics 0 tokenchars '_'"
"""Word tokens as `\\w+` finds them: letters, digits and `_`, case folded, accents kept."""

SCHEMA = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID",
    """CREATE TABLE files (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL,
        kind INTEGER NOT NULL,
        size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL,
        ctime_ns INTEGER NOT NULL,
        inode INTEGER NOT NULL,
        doc INTEGER UNIQUE,
        title TEXT,
        permalink TEXT,
        note_type TEXT,
        alias TEXT,
        body_line INTEGER NOT NULL DEFAULT 1,
        line_kinds BLOB,
        warned INTEGER NOT NULL DEFAULT 0,
        info TEXT NOT NULL DEFAULT '{}',
        project TEXT,
        seal BLOB
    )""",
    "CREATE UNIQUE INDEX files_path ON files (path)",
    "CREATE INDEX files_title ON files (title, path)",
    "CREATE INDEX files_permalink ON files (permalink, path)",
    "CREATE INDEX files_alias ON files (alias)",
    """CREATE TABLE links (
        source INTEGER NOT NULL,
        ord INTEGER NOT NULL,
        relation_type TEXT NOT NULL,
        target TEXT NOT NULL,
        context TEXT,
        line INTEGER NOT NULL,
        target_key TEXT NOT NULL,
        target_alias TEXT NOT NULL,
        target_slug TEXT,
        resolved INTEGER,
        PRIMARY KEY (source, ord)
    ) WITHOUT ROWID""",
    "CREATE INDEX links_resolved ON links (resolved)",
    "CREATE INDEX links_alias ON links (target_alias)",
    "CREATE INDEX links_slug ON links (target_slug)",
    """CREATE TABLE tags (
        file INTEGER NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (file, tag)
    ) WITHOUT ROWID""",
    "CREATE INDEX tags_tag ON tags (tag)",
    """CREATE TABLE categories (
        file INTEGER NOT NULL, category TEXT NOT NULL, count INTEGER NOT NULL,
        PRIMARY KEY (file, category)
    ) WITHOUT ROWID""",
    "CREATE INDEX categories_category ON categories (category)",
    "CREATE TABLE terms (term TEXT PRIMARY KEY, gen INTEGER NOT NULL) WITHOUT ROWID",
    "CREATE INDEX terms_gen ON terms (gen)",
    "CREATE TABLE dead (doc INTEGER PRIMARY KEY)",
    f"""CREATE VIRTUAL TABLE fts_file USING fts5 (
        title, path, meta, content='', columnsize=0, tokenize="{TOKENIZER}"
    )""",
    f"""CREATE VIRTUAL TABLE fts USING fts5 (
        text, content='', columnsize=0, tokenize="{TOKENIZER}"
    )""",
    """CREATE TABLE vec_files (
        path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
        ctime_ns INTEGER NOT NULL, inode INTEGER NOT NULL
    ) WITHOUT ROWID""",
    """CREATE TABLE vec_chunks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        path TEXT NOT NULL,
        line INTEGER NOT NULL,
        heading TEXT NOT NULL,
        digest BLOB NOT NULL,
        vector BLOB NOT NULL
    )""",
    "CREATE INDEX vec_chunks_path ON vec_chunks (path)",
)
"""The index's tables. Every note and text file has a `files` row, a document number (`doc`, a
new one whenever the file is read again), an `fts_file` row (rowid `doc`: its title, path and
frontmatter values) and one `fts` row per body line (rowid `doc << LINE_BITS | line`), so a
query finds the lines that hold its words together. Document numbers follow the paths' order,
so SQLite hands matches over in path order; `dead` lists the numbers whose rows the full-text
tables still hold for files gone or read again. `links` holds each relation with the note it
resolves to. A note's `alias` is its path without `.md`, lowercased with `_` as `-`; its
`project` the project prefix its permalink carries (Basic Memory's default), and the prefix most
notes carry is the meta `project` links are also resolved under; a link's `target_slug` is its
target as a permalink, NULL for a path target (`./x.md`), which resolves by path alone.
`vec_chunks` holds search by meaning's vectors (`notes/meaning/vectors.py`), one per section, and
`vec_files` the stat of each file they were made from; both stay empty while it is off."""
LINE_BITS = 16
"""Bits of an `fts` rowid that hold the line number (a shown part has at most 20,001 lines)."""
SECONDARY_INDEXES = (
    "files_title",
    "files_permalink",
    "files_alias",
    "links_resolved",
    "links_alias",
    "links_slug",
    "tags_tag",
    "categories_category",
)
"""Indexes a first build of a large store makes once at its end rather than row by row."""

_OPEN: weakref.WeakSet[IndexFile] = weakref.WeakSet()
"""Shared indexes of this process, closed at exit: closing the last connection folds the log into
the file, and `close` then notes the stat memtui leaves it with (see `index_seal`)."""


@atexit.register
def _close_at_exit() -> None:
    """Close every shared index still open as the process ends."""
    for index in list(_OPEN):
        with suppress(Exception):
            index.close(idle_only=True)


_reference_schema: list[tuple[str, str, str, str | None]] | None = None
_reference_lock = threading.Lock()


class IndexUnavailable(Exception):
    """The index cannot be used; the message is one line for the user."""


class NewerIndex(IndexUnavailable):
    """The index file was written by a newer memtui, whose format this one cannot read."""


def check_sqlite() -> None:
    """Raise IndexUnavailable (one line) when this Python's SQLite lacks what the index needs."""
    if sqlite3.sqlite_version_info < MIN_SQLITE:
        wanted = ".".join(map(str, MIN_SQLITE))
        raise IndexUnavailable(
            f"SQLite {sqlite3.sqlite_version} is too old for memtui's index (needs {wanted} "
            "or newer, with FTS5)"
        )
    probe = sqlite3.connect(":memory:")
    try:
        probe.execute(f'CREATE VIRTUAL TABLE t USING fts5 (x, tokenize="{TOKENIZER}")')
        probe.execute("CREATE VIRTUAL TABLE v USING fts5vocab (t, 'row')")
    except sqlite3.OperationalError as error:
        raise IndexUnavailable(
            f"this Python's SQLite {sqlite3.sqlite_version} has no FTS5 ({error}); memtui's "
            "index needs it"
        ) from error
    finally:
        probe.close()


def reference_schema() -> list[tuple[str, str, str, str | None]]:
    """`sqlite_master` of a fresh index, made in memory once: what a trusted file must hold."""
    global _reference_schema
    with _reference_lock:
        if _reference_schema is None:
            check_sqlite()
            probe = sqlite3.connect(":memory:", isolation_level=None)
            try:
                for statement in SCHEMA:
                    probe.execute(statement)
                _reference_schema = _schema_of(probe)
            finally:
                probe.close()
        return _reference_schema


def _schema_of(conn: sqlite3.Connection) -> list[tuple[str, str, str, str | None]]:
    """Every schema object of a database, in a fixed order."""
    rows = conn.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
    ).fetchall()
    return [tuple(row) for row in rows]  # type: ignore[misc]


def configure(conn: sqlite3.Connection) -> sqlite3.Connection:
    """Settings every index connection uses: a busy timeout, nothing run from the schema."""
    conn.execute(f"PRAGMA busy_timeout = {int(BUSY_SECONDS * 1000)}")
    conn.execute("PRAGMA trusted_schema = OFF")
    conn.execute("PRAGMA cell_size_check = ON")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA temp_store = FILE")
    return conn


class IndexFile:
    """Where a store's index lives, its lock, and one connection per thread to it.

    `private` indexes (asked for, or when the store's `.memtui` cannot hold one) live in a
    temporary folder removed on close; they are rebuilt by each process.
    """

    def __init__(self, path: Path, lock: MutationLock | None, *, private: bool) -> None:
        """Use the index at `path` (already checked) with `lock` (None: a private index)."""
        self.path = path
        self.private = private
        self._lock = lock
        self._mutex = threading.RLock()
        self._local = threading.local()
        self._connections: dict[threading.Thread, sqlite3.Connection] = {}
        self._connections_lock = threading.Lock()
        if private:
            weakref.finalize(self, shutil.rmtree, str(path.parent), True)
        else:
            _OPEN.add(self)

    # ----- opening ---------------------------------------------------------------------------

    @classmethod
    def open(cls, root: Path, *, shared: bool = True) -> IndexFile:
        """The store's index, checked and ready (made if missing, replaced if foreign or damaged).

        With `shared` False, or when `.memtui` cannot hold an index, a private temporary one.
        Raises NewerIndex when a newer memtui wrote the store's index (it is left untouched).
        """
        reference_schema()
        if shared:
            try:
                folder = meta_dir(Path(root))
                lock = MutationLock(Path(root), LOCK_NAME)
                return cls._open_shared(folder / INDEX_NAME, lock)
            except (OSError, sqlite3.OperationalError):
                pass
        return cls.open_private()

    @classmethod
    def open_private(cls) -> IndexFile:
        """A fresh index in a temporary folder of its own."""
        folder = Path(tempfile.mkdtemp(prefix="memtui-index-"))
        index = cls(folder / INDEX_NAME, None, private=True)
        conn = index.connection()
        conn.execute("PRAGMA journal_mode = WAL")
        _create_schema(conn)
        return index

    @classmethod
    def _open_shared(cls, path: Path, lock: MutationLock) -> IndexFile:
        """Open the index at `path`, making or replacing it under the index lock when needed."""
        index = cls(path, lock, private=False)
        if index._trusted() == "ok":
            with suppress(FileNotFoundError):
                private_file(path, create=False)
            return index
        index.close()
        with index._holding():
            verdict = index._trusted()
            if verdict != "ok":
                index.close()
                if verdict != "missing":
                    _remove(path)
                private_file(path)
                conn = index.connection()
                conn.execute("PRAGMA journal_mode = WAL")
                _create_schema(conn)
                remember(path)
        return index

    def _trusted(self) -> str:
        """`ok`, `missing`, or why the file at `path` must be replaced; raises NewerIndex."""
        try:
            info = os.lstat(self.path)
        except FileNotFoundError:
            return "missing"
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file"
        if info.st_size == 0:
            return "empty"
        try:
            conn = self.connection()
            application_id = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if application_id != APPLICATION_ID:
                return "not a memtui index"
            if version > SCHEMA_VERSION:
                raise NewerIndex(
                    f"{self.path} was written by a newer memtui (index format {version}; this "
                    f"one reads {SCHEMA_VERSION}): upgrade memtui, or delete the file to rebuild it"
                )
            if version < SCHEMA_VERSION:
                return "an older index format"
            if _schema_of(conn) != reference_schema():
                return "tables memtui did not make"
            conn.execute("SELECT count(*) FROM meta").fetchone()
        except sqlite3.DatabaseError as error:
            return f"damaged ({error})"
        if never_left(self.path):
            return "not left by this user's memtui (it came with the store)"
        return "ok"

    # ----- connections -------------------------------------------------------------------------

    def connection(self) -> sqlite3.Connection:
        """This thread's connection (autocommit: transactions are explicit). Connections of
        threads that have ended are closed as new ones open (workers come and go)."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = configure(
                sqlite3.connect(
                    self.path, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False
                )
            )
            self._local.conn = conn
            with self._connections_lock:
                ended = [t for t in self._connections if not t.is_alive()]
                for thread in ended:
                    with suppress(sqlite3.Error):
                        self._connections.pop(thread).close()
                self._connections[threading.current_thread()] = conn
        return conn

    def close(self, *, idle_only: bool = False) -> None:
        """Close every connection this object opened (in any thread; with `idle_only`, those of
        this thread and of threads that ended). Closing the last one may fold the write-ahead
        log into the file, so the stat memtui left it with is noted again, when every connection
        closed, the index lock is free and the files were as memtui left them."""
        me = threading.current_thread()
        with self._connections_lock:
            busy = {
                thread: conn
                for thread, conn in self._connections.items()
                if idle_only and thread is not me and thread.is_alive()
            }
            connections = {t: c for t, c in self._connections.items() if t not in busy}
            self._connections = busy
        try:
            held = self._lock.hold(timeout=0) if self._lock is not None else nullcontext()
            with held:
                known = bool(connections) and not busy and left_as_is(self.path)
                self._close_all(connections)
                if known and self._lock is not None:
                    remember(self.path)
        except (LockBusy, OSError):
            self._close_all(connections)
        if idle_only:
            self._local.__dict__.pop("conn", None)
        else:
            self._local = threading.local()

    @staticmethod
    def _close_all(connections: dict[threading.Thread, sqlite3.Connection]) -> None:
        """Close these connections."""
        for conn in connections.values():
            with suppress(sqlite3.Error):
                conn.close()

    def reset(self) -> None:
        """Replace the file with an empty index (it was found damaged while in use)."""
        with self.writing():
            self.close()
            _remove(self.path)
            conn = self.connection()
            conn.execute("PRAGMA journal_mode = WAL")
            _create_schema(conn)
            if not self.private:
                remember(self.path)

    # ----- transactions ------------------------------------------------------------------------

    @contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """Hold the index lock (every process, every thread) for a series of write transactions."""
        with self._mutex:
            if self._lock is None:
                yield self.connection()
                return
            with self._holding():
                known = left_as_is(self.path)
                yield self.connection()
                if known:
                    remember(self.path)

    @contextmanager
    def _holding(self) -> Iterator[None]:
        """Hold the index lock, first replacing what is not a regular file in its place."""
        assert self._lock is not None
        _replace_planted(self._lock.path)
        with self._lock.hold():
            yield

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: every query inside sees the same committed state."""
        conn = self.connection()
        if conn.in_transaction:
            yield conn
            return
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            with suppress(sqlite3.Error):
                conn.execute("COMMIT")


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction: committed at the end of the block, rolled back on any error."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        with suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _create_schema(conn: sqlite3.Connection) -> None:
    """Make the tables of an empty index file (a racing process may have made them: kept)."""
    with transaction(conn):
        if conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
            return
        for statement in SCHEMA:
            conn.execute(statement)
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?)",
            [
                ("generation", 0),
                ("top_doc", 0),
                ("ordered", 1),
                ("terms_gen", 0),
                ("terms_stale", 0),
                (KEY_META, new_key()),
            ],
        )


def _remove(path: Path) -> None:
    """Take away a foreign or damaged index file and its journals."""
    for suffix in ("-wal", "-shm", ""):
        _remove_entry(Path(f"{path}{suffix}"))


def _remove_entry(target: Path) -> None:
    """Take away one entry of `.memtui` (a folder is moved aside, anything else unlinked)."""
    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISDIR(mode):
        target.rename(f"{target}.replaced-{time.time_ns()}")
    else:
        target.unlink()


def _replace_planted(lock_path: Path) -> None:
    """Take away a symlink, folder or other non-file where the index lock goes, as a foreign
    index file is (the lock file is then made anew). Done holding a flock of `.memtui` itself,
    so two processes never both replace it: the second would remove the file the first made."""
    try:
        if stat.S_ISREG(os.lstat(lock_path).st_mode):
            return
    except FileNotFoundError:
        return
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    folder = os.open(lock_path.parent, flags)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        with suppress(FileNotFoundError):
            if not stat.S_ISREG(os.lstat(lock_path).st_mode):
                _remove_entry(lock_path)
    finally:
        os.close(folder)


_ESCAPES = {0xDC80 + i: 0x10FF80 + i for i in range(128)}
_UNESCAPES = {value: key for key, value in _ESCAPES.items()}


def inode_to_db(number: int) -> int:
    """An inode number as SQLite holds integers (signed 64-bit), one to one."""
    return number - (1 << 64) if number >= 1 << 63 else number


def inode_from_db(number: int) -> int:
    """The inode number `inode_to_db` was given."""
    return number + (1 << 64) if number < 0 else number


def to_db(text: str) -> str:
    """Text as the index stores it: a file name's bytes that are not UTF-8 (lone surrogates in
    Python) become private-use characters SQLite can hold; everything else is unchanged."""
    return text if text.isascii() else text.translate(_ESCAPES)


def from_db(text: str) -> str:
    """The text `to_db` was given."""
    return text if text.isascii() else text.translate(_UNESCAPES)
