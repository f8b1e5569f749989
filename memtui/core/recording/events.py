"""The events table: every call and change, who made it and when, found by an `EventQuery` (one
WHERE clause for every filter), and the operations (groups) whose parts they are."""

from __future__ import annotations

import bisect
import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memtui.core.recording import db_text
from memtui.core.recording.blobs import KIND_DIR, Manifest
from memtui.core.recording.database import EVENT_COLUMNS, SQL_BATCH
from memtui.core.recording.db_text import TEXT
from memtui.core.recording.event_query import EventQuery
from memtui.core.recording.file_state import FileRecord
from memtui.core.recording.lineage import Lineage, at_or_below_params, at_or_below_sql, trace

BASELINE = "baseline"
"""The command of the one event that lists what a folder held when memtui first opened it."""


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


def actor_kind(actor: str) -> str:
    """The part before `:` (`human`, `agent`) or the whole actor (`external`)."""
    return actor.split(":", 1)[0]


_WORD_CLAUSE = (
    "instr(memtui_lower(CAST(coalesce(path, '') || ' ' || coalesce(new_path, '') || ' ' || actor"
    " || ' ' || command || ' ' || result AS BLOB)), ?) > 0"
)
"""A free word appears in the event's path, new path, actor, command or result (any case)."""


def _path_clause(query: EventQuery, lineage: Lineage | None) -> tuple[list[str], list[Any]]:
    """The clause of the query's path: every earlier name (`lineage`), or the path and below."""
    if lineage is not None:
        clause, values = lineage.sql()
        return [clause], list(values)
    if query.path is not None:
        return [at_or_below_sql()], list(at_or_below_params(query.path))
    return [], []


def _field_clauses(query: EventQuery) -> tuple[list[str], list[Any]]:
    """The clauses of the query's actor, command, times and kinds."""
    clauses: list[str] = []
    params: list[Any] = []
    if query.actor is not None:
        clauses.append("actor = ?" if ":" in query.actor else "actor_kind = ?")
        params.append(query.actor)
    for clause, value in (
        ("command = ?", query.command),
        ("time >= ?", query.since),
        ("time <= ?", query.until),
    ):
        if value is not None:
            clauses.append(clause)
            params.append(value)
    if query.actor_kinds is not None:
        kinds = sorted(query.actor_kinds)
        clauses.append(f"actor_kind IN ({', '.join('?' for _ in kinds)})")
        params += kinds
    return clauses, params


def _kind_clauses(query: EventQuery) -> list[str]:
    """The clauses of the query's switches: no reads, errors only, changes only, reviewed."""
    clauses: list[str] = []
    if query.skip_reads:
        clauses.append("command != 'view'")
    if query.errors_only:
        clauses.append("is_error = 1")
    if query.changes_only:
        clauses.append(f"is_error = 0 AND command NOT IN ('view', '{BASELINE}')")
    if query.reviewed is not None:
        negation = "" if query.reviewed else "NOT "
        clauses.append(f"id {negation}IN (SELECT event_id FROM reviews)")
    return clauses


def where(
    query: EventQuery,
    *,
    lineage: Lineage | None = None,
    before_id: int | None = None,
    after_id: int | None = None,
) -> tuple[str, list[Any]]:
    """The WHERE clause (empty or with a leading space) and parameters of a query, paged by
    event id (`before_id`, `after_id`); `lineage` stands for the query's path followed back
    through its names (see `EventLog.lineage`). `is_reviewable` is the inbox's rule in Python."""
    clauses, params = _path_clause(query, lineage)
    fields, values = _field_clauses(query)
    clauses += fields
    params += values
    for word in query.words:
        clauses.append(_WORD_CLAUSE)
        params.append(db_text.folded(word))
    clauses += _kind_clauses(query)
    for clause, value in (("id < ?", before_id), ("id > ?", after_id)):
        if value is not None:
            clauses.append(clause)
            params.append(value)
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), params


def row_to_event(row: tuple[Any, ...]) -> Event:
    """Build an Event from a row selected with `EVENT_COLUMNS`."""
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


class EventLog:
    """The events table, read on the connection of the calling thread."""

    def __init__(
        self,
        connection: Callable[[], sqlite3.Connection],
        manifest: Callable[[str], Manifest | None],
    ) -> None:
        """The events of the history whose connection (this thread's) `connection` gives;
        `manifest` reads a folder's manifest (the baseline's listing)."""
        self._connection = connection
        self._manifest = manifest
        self._baseline_paths: tuple[int | None, tuple[str, ...]] | None = None
        """The baseline's id and sorted listing, read once (the baseline never changes)."""

    def _where(
        self, query: EventQuery, before_id: int | None = None, after_id: int | None = None
    ) -> tuple[str, list[Any]]:
        """`where` of a query, its path followed back through its names when it says so."""
        followed = query.follow and query.path is not None
        lineage = self.lineage(query.path) if followed and query.path is not None else None
        return where(query, lineage=lineage, before_id=before_id, after_id=after_id)

    def events(
        self,
        query: EventQuery,
        *,
        limit: int | None = None,
        newest_first: bool = True,
        before_id: int | None = None,
        after_id: int | None = None,
    ) -> list[Event]:
        """The events `query` asks for, newest first (or oldest first), at most `limit`, paged
        by event id (`before_id`, `after_id`)."""
        where_sql, params = self._where(query, before_id, after_id)
        sql = f"SELECT {EVENT_COLUMNS} FROM events{where_sql}"
        sql += " ORDER BY id DESC" if newest_first else " ORDER BY id"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        rows = self._connection().execute(sql, params).fetchall()
        return [row_to_event(row) for row in rows]

    def count_events(self, query: EventQuery) -> int:
        """How many events `query` asks for."""
        where_sql, params = self._where(query)
        sql = f"SELECT count(*) FROM events{where_sql}"
        return int(self._connection().execute(sql, params).fetchone()[0])

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
            .execute(f"SELECT {EVENT_COLUMNS} FROM events WHERE command = ? LIMIT 1", (BASELINE,))
            .fetchone()
        )
        return None if row is None else row_to_event(row)

    def _baseline_listing(self, path: str) -> int | None:
        """The baseline event's id if it listed the virtual `path` or a file below it, else None."""
        if self._baseline_paths is None:
            event = self.baseline()
            names: list[str] = []
            if event is not None and event.after_hash is not None:
                manifest = self._manifest(event.after_hash)
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

    @staticmethod
    def events_by_id(conn: sqlite3.Connection, event_ids: Sequence[int]) -> list[Event]:
        """The events with these ids (those that exist), in batches of `SQL_BATCH`."""
        events: list[Event] = []
        for start in range(0, len(event_ids), SQL_BATCH):
            batch = event_ids[start : start + SQL_BATCH]
            rows = conn.execute(
                f"SELECT {EVENT_COLUMNS} FROM events WHERE id IN ({', '.join('?' for _ in batch)})",
                batch,
            )
            events += [row_to_event(row) for row in rows]
        return events

    def event(self, event_id: int) -> Event | None:
        """One event by id, or None."""
        row = (
            self._connection()
            .execute(f"SELECT {EVENT_COLUMNS} FROM events WHERE id = ?", (event_id,))
            .fetchone()
        )
        return None if row is None else row_to_event(row)

    def last_change(self, paths: Iterable[str]) -> Event | None:
        """The newest successful change whose path or new_path is one of `paths`."""
        wanted = db_text.params(list(paths))
        marks = db_text.marks(len(wanted))
        row = (
            self._connection()
            .execute(
                f"SELECT {EVENT_COLUMNS} FROM events"
                f" WHERE (path IN ({marks}) OR new_path IN ({marks}))"
                " AND is_error = 0 AND command != 'view' ORDER BY id DESC LIMIT 1",
                wanted + wanted,
            )
            .fetchone()
        )
        return None if row is None else row_to_event(row)

    def recording_since(self) -> float | None:
        """The time of the first recorded event, or None for an empty history."""
        row = self._connection().execute("SELECT time FROM events ORDER BY id LIMIT 1").fetchone()
        return None if row is None else float(row[0])

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
            .execute(
                f"SELECT {EVENT_COLUMNS} FROM events WHERE group_id = ? ORDER BY id", (group_id,)
            )
            .fetchall()
        )
        return [row_to_event(row) for row in rows]

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

    def secret_flagged_event_paths(self) -> set[str]:
        """Virtual paths that a secret-flagged event wrote to, whatever they hold now."""
        rows = self._connection().execute(
            "SELECT DISTINCT COALESCE(new_path, path) FROM events"
            " WHERE flags != '' AND flags LIKE '%secret:%' AND path IS NOT NULL"
        )
        return {path for (path,) in rows}

    @staticmethod
    def insert(conn: sqlite3.Connection, event: PendingEvent, event_id: int | None = None) -> int:
        """Insert one event's row (as `event_id`, or a new id), marking the event it reverts
        (inside the caller's transaction); returns its id."""
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
        if event.reverts is not None:
            conn.execute(
                "UPDATE events SET reverted_by = ? WHERE id = ?", (event_id, event.reverts)
            )
        return event_id
