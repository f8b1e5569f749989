"""The audit store: every command as an event in SQLite, plus compressed content-addressed blobs.

`History` is the one handle a store opens on `.memtui/history.db` (`database`). Its parts each
read one table: `event_log` the events and their operations, `blob_store` the content they
keep, `review_marks` the reviews, `file_states` what each file last held. An event is written
with its blobs, review marks and file state in one transaction (`record_many`, `change`); the
reads are also offered here, as the parts answer them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from memtui.core.recording import db_text
from memtui.core.recording.blobs import Blobs, Manifest
from memtui.core.recording.database import (
    CANNOT_WRITE,
    DB_NAME,
    SEEN,
    CannotCreate,
    HistoryCorrupt,
    RecordFailed,
    cannot_write,
    failure_reason,
    open_connection,
    open_empty,
    read_only_failure,
    set_aside,
)
from memtui.core.recording.db_text import TEXT
from memtui.core.recording.event_query import EventQuery
from memtui.core.recording.events import Event, EventLog, Group, PendingEvent, actor_kind
from memtui.core.recording.file_state import FileRecord, FileStates
from memtui.core.recording.kept_pairs import KeptPair, KeptPairs
from memtui.core.recording.lineage import Lineage
from memtui.core.recording.read_refs import rebuilt_args, viewed_text
from memtui.core.recording.reviews import Review, ReviewMarks
from memtui.core.resolving.lock import META_DIR_NAME, UnsafeMetaDir, meta_dir


def _query(query: EventQuery | None, filters: Mapping[str, Any]) -> EventQuery:
    """`query`, or the query the keyword `filters` (the fields of `EventQuery`) make."""
    if query is not None and filters:
        raise TypeError("give an EventQuery or its fields as keywords, not both")
    return query if query is not None else EventQuery(**filters)


class History:
    """The audit store at `<root>/.memtui/history.db`; safe to share between threads."""

    def __init__(self, root: Path) -> None:
        """Open (creating) the database; raises HistoryCorrupt if it is unreadable.

        A store that cannot be written (a read-only folder or filesystem, a full disk) opens
        read-only: `read_only` says why, its history (empty if it had none) shows, and every
        attempt to record is refused at once (`read_only_failure`).
        """
        self.root = Path(root)
        self.read_only: str | None = None
        """Why the history cannot be written, or None when it can."""
        try:
            self.path = meta_dir(self.root) / DB_NAME
        except UnsafeMetaDir as error:
            raise HistoryCorrupt(self.root / META_DIR_NAME / DB_NAME, str(error.args[0])) from error
        except OSError as error:
            if error.errno not in CANNOT_WRITE:
                raise
            self.path = self.root / META_DIR_NAME / DB_NAME
            self.read_only = cannot_write(error)
        self._local = threading.local()
        self.blob_store = Blobs(self._connection)
        """The content events keep (file bytes, folder manifests), by sha256."""
        self.event_log = EventLog(self._connection, self.blob_store.manifest)
        """The events and the operations they are parts of."""
        self.review_marks = ReviewMarks(self._connection, self._writing, self.event_log)
        """Who reviewed which change, and when."""
        self.file_states = FileStates(self._connection)
        """What the history last recorded of each file (start-up recovery compares it)."""
        self.kept_pairs = KeptPairs(self._connection, self._writing)
        """Pairs of statements a person decided to keep both of."""
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
        """A new connection to the database (see `database.open_connection`); an empty one in
        memory (`open_empty`) when the folder cannot hold a history."""
        if self.read_only is not None and not os.path.lexists(self.path):
            return open_empty()
        try:
            conn = open_connection(self.path, attempt, read_only=read_only)
        except CannotCreate as error:
            self.read_only = error.reason
            return open_empty()
        why = getattr(conn, "read_only", None)
        if why is not None and self.read_only is None:
            self.read_only = why
        return conn

    def _writable(self) -> sqlite3.Connection:
        """This thread's connection for a write; raises `read_only_failure` at once when the
        store cannot be written."""
        if self.read_only is not None:
            raise read_only_failure(self.read_only)
        return self._connection()

    def connection(self) -> sqlite3.Connection:
        """This thread's connection, for tables kept beside the history's (sync's, the held
        proposals')."""
        return self._connection()

    def close(self) -> None:
        """Close this thread's connection (others close when their threads end)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    @staticmethod
    def set_aside(root: Path) -> Path:
        """Rename a bad `history.db` (and its -wal/-shm) aside; see `database.set_aside`."""
        return set_aside(root)

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
        conn = self._writable()
        try:
            cursor = conn.execute(
                f"INSERT INTO groups (time, actor, kind, summary) VALUES (?, ?, ?, {TEXT})",
                (time, actor, kind, db_text.param(summary)),
            )
        except (sqlite3.Error, UnicodeError, ValueError) as problem:
            raise RecordFailed(failure_reason(problem, self.path), applied=False) from problem
        return int(cursor.lastrowid or 0)

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
                self.file_states.put(conn, files)
        return ids

    @contextlib.contextmanager
    def _writing(self, conn: sqlite3.Connection) -> Iterator[list[str]]:
        """One write transaction: committed if the block ends, rolled back if it raises (a
        history that cannot be written as RecordFailed). Yields the list the block adds the
        digests of stored blobs to; they count as stored once committed."""
        stored: list[str] = []
        if self.read_only is not None:
            raise read_only_failure(self.read_only)
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
        self.blob_store.remember(stored)

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
                stored += self.blob_store.put(conn, {digest: data})
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
        conn = self._writable()
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
        self.blob_store.remember(stored)
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
        """Insert one event with its blobs, review marks and file_state changes (inside the
        caller's transaction); the digests of blobs it stored are added to `stored`."""
        if event.blobs:
            stored += self.blob_store.put(conn, event.blobs)
        event_id = self.event_log.insert(conn, event, event_id)
        self.review_marks.add(conn, event.reviews, event.actor, event.time)
        for base in event.cleared:
            self.file_states.clear(conn, base)
        if event.files:
            self.file_states.put(conn, event.files)
        return event_id

    def seen(self) -> bool:
        """Whether memtui has opened this folder before: the history has events or says so."""
        conn = self._connection()
        if conn.execute("SELECT 1 FROM events LIMIT 1").fetchone() is not None:
            return True
        return conn.execute("SELECT 1 FROM meta WHERE key = ?", (SEEN,)).fetchone() is not None

    def mark_seen(self) -> None:
        """Remember that memtui opened this (empty) folder, so files that appear later are
        changes."""
        conn = self._writable()
        try:
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, '1')", (SEEN,))
        except (sqlite3.Error, UnicodeError) as problem:
            raise RecordFailed(failure_reason(problem, self.path), applied=False) from problem

    # Reading (each part answers its own table).

    def events(
        self,
        query: EventQuery | None = None,
        /,
        *,
        limit: int | None = None,
        newest_first: bool = True,
        before_id: int | None = None,
        after_id: int | None = None,
        **filters: Any,
    ) -> list[Event]:
        """The events `query` (or the `EventQuery` fields given as keywords) asks for, newest
        first (or oldest), at most `limit`, paged by event id (`before_id`, `after_id`)."""
        return self.event_log.events(
            _query(query, filters),
            limit=limit,
            newest_first=newest_first,
            before_id=before_id,
            after_id=after_id,
        )

    def count_events(self, query: EventQuery | None = None, /, **filters: Any) -> int:
        """How many events `events` would return with the same query and no limit."""
        return self.event_log.count_events(_query(query, filters))

    def event(self, event_id: int) -> Event | None:
        """One event by id, or None."""
        return self.event_log.event(event_id)

    def last_change(self, paths: Iterable[str]) -> Event | None:
        """The newest successful change whose path or new_path is one of `paths`."""
        return self.event_log.last_change(paths)

    def lineage(self, path: str) -> Lineage:
        """Every name what is at the virtual `path` had (see `EventLog.lineage`)."""
        return self.event_log.lineage(path)

    def moves(self, after_id: int) -> list[tuple[int, str, str]]:
        """(id, from, to) of every successful rename after `after_id`, oldest first."""
        return self.event_log.moves(after_id)

    def baseline(self) -> Event | None:
        """The baseline event, if there is one."""
        return self.event_log.baseline()

    def recording_since(self) -> float | None:
        """The time of the first recorded event, or None for an empty history."""
        return self.event_log.recording_since()

    def group(self, group_id: int) -> Group | None:
        """One operation by id, or None."""
        return self.event_log.group(group_id)

    def groups(self, group_ids: Iterable[int]) -> dict[int, Group]:
        """The operations with these ids, by id."""
        return self.event_log.groups(group_ids)

    def group_events(self, group_id: int) -> list[Event]:
        """Every event of an operation, oldest first."""
        return self.event_log.group_events(group_id)

    def last_agent_read(self, path: str) -> float | None:
        """When an agent last viewed what is now at `path` successfully, or None."""
        return self.event_log.last_agent_read(path)

    def last_agent_reads(self) -> dict[str, float]:
        """Virtual path -> time of the last successful agent view of what is there now."""
        return self.event_log.last_agent_reads()

    def last_change_actors(self, since: float | None = None) -> dict[str, str]:
        """Virtual path -> actor of the last change that left something there."""
        return self.event_log.last_change_actors(since)

    def secret_flagged_event_paths(self) -> set[str]:
        """Virtual paths that a secret-flagged event wrote to, whatever they hold now."""
        return self.event_log.secret_flagged_event_paths()

    def blob(self, digest: str) -> bytes | None:
        """The stored bytes with this sha256 hex digest, or None."""
        return self.blob_store.blob(digest)

    def manifest(self, digest: str) -> Manifest | None:
        """A stored folder manifest, or None."""
        return self.blob_store.manifest(digest)

    def texts(self, event: Event) -> tuple[str | None, str | None]:
        """The before and after text of an event for a diff (a folder as its file list); for a
        view kept as a reference, (None, the text it showed)."""
        if event.command == "view" and not event.is_error:
            return None, viewed_text(event.result, self.blob_store.blob)
        return (
            self.blob_store.state_text(event.before_kind, event.before_hash),
            self.blob_store.state_text(event.after_kind, event.after_hash),
        )

    def args(self, event: Event) -> dict[str, Any]:
        """The arguments an event's call sent, as recorded (an agent's redacted); a long text
        kept as a reference to the file a create left is rebuilt from that blob."""
        agent = actor_kind(event.actor) == "agent"
        return rebuilt_args(event.args, agent, self.blob_store.blob)

    def pending_review_count(self) -> int:
        """How many agent and outside changes wait for review."""
        return self.review_marks.pending_review_count()

    def reviews(self, event_ids: Iterable[int]) -> dict[int, Review]:
        """The review marks of those events that have one: event id -> review."""
        return self.review_marks.reviews(event_ids)

    def mark_reviewed(
        self, event_ids: Iterable[int], reviewer: str, when: float
    ) -> tuple[list[int], dict[int, Review]]:
        """Mark changes reviewed in one transaction (see `ReviewMarks.mark_reviewed`)."""
        return self.review_marks.mark_reviewed(event_ids, reviewer, when)

    def keep_pair(self, pair: KeptPair) -> None:
        """Remember a "keep both" decision (see `KeptPairs.keep`)."""
        self.kept_pairs.keep(pair)

    def forget_pair(self, key: str) -> bool:
        """Undo a "keep both" decision; False when the pair was not kept."""
        return self.kept_pairs.forget(key)

    def kept_pair_keys(self) -> frozenset[str]:
        """The keys of the pairs kept both."""
        return self.kept_pairs.keys()

    def file_state_built(self) -> bool:
        """True once file_state describes every file the history knows."""
        return self.file_states.built()

    def build_file_state(self, known: Callable[[], Mapping[str, str]]) -> bool:
        """Fill file_state once from `known()` (see `FileStates.build`)."""
        return self.file_states.build(known)

    def file_record(self, path: str) -> FileRecord | None:
        """The file_state row of one virtual path, or None."""
        return self.file_states.record(path)

    def files_below(self, folder: str) -> dict[str, str]:
        """Path below the virtual `folder` -> sha256, of every file_state row there."""
        return self.file_states.below(folder)

    def file_records(self) -> dict[str, FileRecord]:
        """Every file_state row: virtual path -> record."""
        return self.file_states.records()

    def file_stats(self) -> dict[str, tuple[int, int, int]]:
        """Every file_state row's stat: virtual path -> (size, mtime_ns, checked_ns)."""
        return self.file_states.stats()

    def secret_flagged_paths(self) -> set[str]:
        """Virtual paths whose recorded content is exactly what a secret-flagged event wrote."""
        return self.file_states.secret_flagged_paths()
