"""What a sync keeps per machine, in tables of its own beside the history's (same database, so
a query can join them with the events and review marks): settings (`sync_meta`), where pulled
events came from (`sync_origins`), review marks sent or received (`sync_marks`, `sync_sent`),
clashes waiting for a person (`sync_clashes`) and files held back (`sync_held`)."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from memtui.core.recording import db_text
from memtui.core.recording.database import SQL_BATCH
from memtui.core.recording.db_text import TEXT
from memtui.core.recording.history import History

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sync_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sync_origins (
    uid TEXT NOT NULL,
    event_id INTEGER NOT NULL,
    PRIMARY KEY (uid, event_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sync_origins_event ON sync_origins (event_id);
CREATE TABLE IF NOT EXISTS sync_marks (
    uid TEXT PRIMARY KEY,
    reviewer TEXT NOT NULL,
    time REAL NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sync_sent (
    event_id INTEGER PRIMARY KEY
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sync_clashes (
    id INTEGER PRIMARY KEY,
    time REAL NOT NULL,
    path TEXT NOT NULL,
    kind TEXT NOT NULL,
    base BLOB,
    ours BLOB,
    theirs BLOB,
    actor TEXT NOT NULL,
    machine TEXT NOT NULL,
    commit_id TEXT NOT NULL,
    resolved_time REAL,
    resolved_by TEXT,
    resolution TEXT
);
CREATE INDEX IF NOT EXISTS sync_clashes_open ON sync_clashes (resolved_time, path);
CREATE TABLE IF NOT EXISTS sync_held (
    path TEXT PRIMARY KEY,
    reason TEXT NOT NULL
) WITHOUT ROWID;
"""

MACHINE_ID = "machine_id"
"""Key of this history's random machine id (the first part of its changes' global ids)."""
MACHINE_NAME = "machine_name"
"""Key of the machine name last given to a sync (`--machine`), used when none is given."""
FIRST_EVENT = "first_event"
"""Key of the last event before sync was set up: later local changes are committed."""
COMMITTED = "committed"
"""Key of the last event the commits made so far cover."""
LAST_TIP = "last_tip"
"""Key of the branch tip memtui last set (a tip moved elsewhere since is kept as a rescue)."""
LAST_SYNC = "last_sync"
"""Key of the time the last sync finished."""
MERGING = "merging"
"""Key of the commit being merged into the files while a merge is applied (a sync killed
half-way finishes it next time)."""

CLASH_TEXT = "text"
"""A clash: the same lines changed two ways (ours kept in the file)."""
CLASH_DELETED_THERE = "deleted-there"
"""A clash: this machine changed a note the other deleted (the note kept)."""
CLASH_DELETED_HERE = "deleted-here"
"""A clash: this machine deleted a note the other changed (their change kept)."""
CLASH_MARKERS = "markers"
"""A clash: their text holds git conflict markers (a merge made outside memtui); this machine's
text kept."""
CLASH_KEPT = "kept"
"""A clash: their change could not be applied here (a folder or link in the way, a file held
back); this machine's state kept."""


@dataclass(frozen=True)
class Clash:
    """A pulled change that waits for a person: both texts, and where theirs came from."""

    id: int
    time: float
    path: str
    """The path relative to the store."""
    kind: str
    base: bytes | None
    ours: bytes | None
    """What this machine had (and, but for a deleted-here clash, still has)."""
    theirs: bytes | None
    actor: str
    machine: str
    commit: str
    resolved_time: float | None = None
    resolved_by: str | None = None
    resolution: str | None = None

    @property
    def virtual(self) -> str:
        """The virtual path, `/memories/...`."""
        return "/memories/" + self.path


def uid_of(machine_id: str, event_id: int) -> str:
    """The global id of a change made on a machine: its history's machine id and event id."""
    return f"{machine_id}.{event_id}"


class SyncState:
    """The sync tables of one store's history database (one connection per thread)."""

    def __init__(self, history: History) -> None:
        """Open the tables beside `history` (created on first use)."""
        self.history = history
        self._made = threading.local()
        self._connection()

    @classmethod
    def existing(cls, history: History) -> SyncState | None:
        """The sync tables of a store that has synced, or None (nothing is created)."""
        row = (
            history.connection()
            .execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sync_clashes'")
            .fetchone()
        )
        return None if row is None else cls(history)

    def _connection(self) -> sqlite3.Connection:
        """The history's connection of this thread (so no second handle on the database is
        ever opened or closed beside it), the tables made on first use."""
        conn = self.history.connection()
        if getattr(self._made, "conn", None) is not conn:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            self._made.conn = conn
        return conn

    @contextlib.contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """One write transaction."""
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    # Settings.

    def get(self, key: str) -> str | None:
        """A setting, or None."""
        row = (
            self._connection()
            .execute("SELECT value FROM sync_meta WHERE key = ?", (key,))
            .fetchone()
        )
        return None if row is None else str(row[0])

    def put(self, key: str, value: str | int | float) -> None:
        """Set a setting."""
        self._connection().execute(
            "INSERT OR REPLACE INTO sync_meta (key, value) VALUES (?, ?)", (key, str(value))
        )

    def number(self, key: str, default: int = 0) -> int:
        """A whole-number setting."""
        value = self.get(key)
        return default if value is None else int(value)

    def machine_id(self) -> str:
        """This history's machine id (made once: 16 random hex digits)."""
        with self.writing() as conn:
            row = conn.execute(
                "SELECT value FROM sync_meta WHERE key = ?", (MACHINE_ID,)
            ).fetchone()
            if row is not None:
                return str(row[0])
            import secrets

            made = secrets.token_hex(8)
            conn.execute("INSERT INTO sync_meta (key, value) VALUES (?, ?)", (MACHINE_ID, made))
            return made

    def changes_after(self, event_id: int) -> int:
        """How many of this machine's own changes (pulls left out) came after `event_id`."""
        row = (
            self._connection()
            .execute(
                "SELECT count(*) FROM events WHERE id > ? AND is_error = 0"
                " AND command NOT IN ('view', 'baseline', 'pull')",
                (event_id,),
            )
            .fetchone()
        )
        return int(row[0])

    # Where pulled events came from.

    def add_origins(self, event_id: int, uids: Iterable[str]) -> None:
        """Record that a pulled event stands for other machines' changes `uids`."""
        self._connection().executemany(
            "INSERT OR IGNORE INTO sync_origins (uid, event_id) VALUES (?, ?)",
            [(uid, event_id) for uid in uids],
        )

    def origins(self, event_ids: Iterable[int]) -> dict[int, list[str]]:
        """Pulled event id -> the global ids it stands for (events with none left out)."""
        found: dict[int, list[str]] = {}
        for event_id, uid in self._rows_in(
            "SELECT event_id, uid FROM sync_origins", "event_id", event_ids
        ):
            found.setdefault(int(event_id), []).append(uid)
        return found

    def events_for(self, uids: Iterable[str]) -> dict[str, list[int]]:
        """Global id -> the pulled events here that stand for it."""
        found: dict[str, list[int]] = {}
        for uid, event_id in self._rows_in("SELECT uid, event_id FROM sync_origins", "uid", uids):
            found.setdefault(uid, []).append(int(event_id))
        return found

    def _rows_in(self, select: str, column: str, values: Iterable[object]) -> list[tuple[Any, ...]]:
        """The rows of `select` whose `column` is one of `values`, asked in batches."""
        wanted = list(dict.fromkeys(values))
        rows: list[tuple[Any, ...]] = []
        conn = self._connection()
        for start in range(0, len(wanted), SQL_BATCH):
            batch = wanted[start : start + SQL_BATCH]
            marks = ", ".join("?" for _ in batch)
            rows += conn.execute(f"{select} WHERE {column} IN ({marks})", batch).fetchall()
        return rows

    # Review marks.

    def marked(self, uids: Iterable[str]) -> set[str]:
        """Those of `uids` whose review mark this machine has sent or received."""
        return {uid for (uid,) in self._rows_in("SELECT uid FROM sync_marks", "uid", uids)}

    def add_marks(self, marks: Iterable[tuple[str, str, float]]) -> None:
        """Keep review marks (uid, reviewer, time) sent or received (the first one stays)."""
        self._connection().executemany(
            "INSERT OR IGNORE INTO sync_marks (uid, reviewer, time) VALUES (?, ?, ?)", list(marks)
        )

    def unsent_reviews(self, first_event: int) -> list[tuple[int, str, float]]:
        """Review marks on events after `first_event` not sent yet: (event id, reviewer, time)."""
        rows = self._connection().execute(
            "SELECT event_id, reviewer, time FROM reviews WHERE event_id > ?"
            " AND event_id NOT IN (SELECT event_id FROM sync_sent) ORDER BY event_id",
            (first_event,),
        )
        return [(int(event_id), reviewer, float(when)) for event_id, reviewer, when in rows]

    def mark_sent(self, event_ids: Iterable[int]) -> None:
        """Remember that these events' review marks went out (or need not)."""
        self._connection().executemany(
            "INSERT OR IGNORE INTO sync_sent (event_id) VALUES (?)", [(i,) for i in event_ids]
        )

    # Clashes.

    def add_clash(self, clash: Clash) -> int:
        """Keep a clash (one already open for the same path and texts is not kept twice);
        its id."""
        conn = self._connection()
        row = conn.execute(
            f"SELECT id, theirs, ours FROM sync_clashes WHERE path = {TEXT} AND kind = ?"
            " AND resolved_time IS NULL",
            (db_text.param(clash.path), clash.kind),
        ).fetchall()
        for clash_id, theirs, ours in row:
            if _unpack(theirs) == clash.theirs and _unpack(ours) == clash.ours:
                return int(clash_id)
        cursor = conn.execute(
            "INSERT INTO sync_clashes (time, path, kind, base, ours, theirs, actor, machine,"
            f" commit_id) VALUES (?, {TEXT}, ?, ?, ?, ?, ?, ?, ?)",
            (
                clash.time,
                db_text.param(clash.path),
                clash.kind,
                _pack(clash.base),
                _pack(clash.ours),
                _pack(clash.theirs),
                clash.actor,
                clash.machine,
                clash.commit,
            ),
        )
        return int(cursor.lastrowid or 0)

    def clashes(self, *, include_resolved: bool = False) -> list[Clash]:
        """The clashes waiting for a person (or every one), oldest first."""
        where = "" if include_resolved else " WHERE resolved_time IS NULL"
        rows = self._connection().execute(
            "SELECT id, time, path, kind, base, ours, theirs, actor, machine, commit_id,"
            f" resolved_time, resolved_by, resolution FROM sync_clashes{where} ORDER BY id"
        )
        return [_clash(row) for row in rows]

    def clash(self, clash_id: int) -> Clash | None:
        """One clash by id, or None."""
        row = (
            self._connection()
            .execute(
                "SELECT id, time, path, kind, base, ours, theirs, actor, machine, commit_id,"
                " resolved_time, resolved_by, resolution FROM sync_clashes WHERE id = ?",
                (clash_id,),
            )
            .fetchone()
        )
        return None if row is None else _clash(row)

    def open_clash_count(self) -> int:
        """How many clashes wait."""
        row = (
            self._connection()
            .execute("SELECT count(*) FROM sync_clashes WHERE resolved_time IS NULL")
            .fetchone()
        )
        return int(row[0])

    def resolve(self, clash_id: int, by: str, resolution: str, when: float) -> bool:
        """Mark a clash resolved; False if it was not waiting."""
        cursor = self._connection().execute(
            "UPDATE sync_clashes SET resolved_time = ?, resolved_by = ?, resolution = ?"
            " WHERE id = ? AND resolved_time IS NULL",
            (when, by, resolution, clash_id),
        )
        return cursor.rowcount == 1

    # Files held back.

    def set_held(self, held: dict[str, str]) -> None:
        """Replace the list of files held back (relative path -> reason)."""
        with self.writing() as conn:
            conn.execute("DELETE FROM sync_held")
            conn.executemany(
                f"INSERT INTO sync_held (path, reason) VALUES ({TEXT}, ?)",
                [(db_text.param(path), reason) for path, reason in held.items()],
            )

    def held(self) -> dict[str, str]:
        """The files held back (relative path -> reason), by path."""
        rows = self._connection().execute("SELECT path, reason FROM sync_held ORDER BY path")
        return {path: reason for path, reason in rows}


def _pack(data: bytes | None) -> bytes | None:
    """Bytes as a clash keeps them (compressed)."""
    return None if data is None else zlib.compress(data, 6)


def _unpack(data: bytes | None) -> bytes | None:
    """Bytes kept by `_pack`."""
    return None if data is None else zlib.decompress(data)


def _clash(row: tuple[object, ...]) -> Clash:
    """A clash from its row."""
    (clash_id, when, path, kind, base, ours, theirs, actor, machine, commit, done, by, how) = row
    return Clash(
        int(clash_id),  # type: ignore[call-overload]
        float(when),  # type: ignore[arg-type]
        str(path),
        str(kind),
        _unpack(base),  # type: ignore[arg-type]
        _unpack(ours),  # type: ignore[arg-type]
        _unpack(theirs),  # type: ignore[arg-type]
        str(actor),
        str(machine),
        str(commit),
        None if done is None else float(done),  # type: ignore[arg-type]
        None if by is None else str(by),
        None if how is None else str(how),
    )
