"""Held changes: an agent's change the policy holds for a person's approval, in a table of its own
beside the history's (same database, so holding, approving and rejecting are each one
transaction with their events).

A proposal's id is the id of the agent's call that was held. It keeps what the change started
from (`base`, the file or folder as it was) and, for a change that leaves a file's text, that
text (`proposed`); both are blobs of the history. Approving applies it as the agent's change and
records who decided and when; rejecting applies nothing and records the same.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Literal

from memtui.core.recording import db_text
from memtui.core.recording.db_text import TEXT
from memtui.core.recording.history import History

Decision = Literal["approved", "rejected"]
APPROVED: Decision = "approved"
REJECTED: Decision = "rejected"

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS proposals (
    id INTEGER PRIMARY KEY,
    time REAL NOT NULL,
    actor TEXT NOT NULL,
    session TEXT,
    command TEXT NOT NULL,
    path TEXT NOT NULL,
    new_path TEXT,
    base_kind TEXT,
    base_hash TEXT,
    proposed_hash TEXT,
    decision TEXT,
    decided_by TEXT,
    decided_time REAL,
    applied_event INTEGER
)""",
    "CREATE INDEX IF NOT EXISTS proposals_open ON proposals (decision, path)",
    "CREATE INDEX IF NOT EXISTS proposals_applied ON proposals (applied_event)",
)
_COLUMNS = (
    "id, time, actor, session, command, path, new_path, base_kind, base_hash, proposed_hash, "
    "decision, decided_by, decided_time, applied_event"
)


@dataclass(frozen=True)
class Proposal:
    """One held change: who proposed what, from which state, and what became of it."""

    id: int
    """The id of the agent's call that was held."""
    time: float
    actor: str
    session: str | None
    command: str
    path: str
    """The virtual path it changes (a rename's source)."""
    new_path: str | None
    base_kind: str | None
    base_hash: str | None
    """What was at `path` when it was proposed (kind and hash, as events keep them)."""
    proposed_hash: str | None
    """The file's whole new text, for a change that leaves one (create, edit, write)."""
    decision: Decision | None = None
    decided_by: str | None = None
    decided_time: float | None = None
    applied_event: int | None = None
    """The event that applied it, once approved."""

    @property
    def waiting(self) -> bool:
        """Whether nobody has decided yet."""
        return self.decision is None

    @property
    def paths(self) -> tuple[str, ...]:
        """Every virtual path it touches."""
        return (self.path,) if self.new_path is None else (self.path, self.new_path)

    @property
    def base(self) -> tuple[str | None, str | None]:
        """(kind, hash) of what it started from."""
        return (self.base_kind, self.base_hash)


class NotWaiting(Exception):
    """The proposal is not there, or was decided already."""


def _row(row: tuple[object, ...]) -> Proposal:
    """A proposal from a row of `_COLUMNS`."""
    return Proposal(*row)  # type: ignore[arg-type]


def prepared_event_id(conn: sqlite3.Connection) -> int:
    """The id of the event the open write transaction stored last (the one `History.change`
    prepared): no other writer can add one while the transaction holds the write lock."""
    row = conn.execute("SELECT max(id) FROM events").fetchone()
    return int(row[0])


class Proposals:
    """The held changes of one history."""

    def __init__(self, history: History) -> None:
        """Read and write the proposals of `history`."""
        self.history = history
        self._made = False

    def _table(self, conn: sqlite3.Connection) -> bool:
        """Whether the table exists yet (it is made by the first proposal)."""
        if not self._made:
            found = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'proposals'"
            ).fetchone()
            self._made = found is not None
        return self._made

    def add(self, conn: sqlite3.Connection, proposal: Proposal) -> None:
        """Store a new proposal (inside the caller's write transaction)."""
        for statement in _SCHEMA:
            conn.execute(statement)
        self._made = True
        conn.execute(
            f"INSERT INTO proposals ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, {TEXT}, {TEXT}, ?, ?, ?, "
            "NULL, NULL, NULL, NULL)",
            (
                proposal.id,
                proposal.time,
                proposal.actor,
                proposal.session,
                proposal.command,
                db_text.param(proposal.path),
                db_text.param(proposal.new_path),
                proposal.base_kind,
                proposal.base_hash,
                proposal.proposed_hash,
            ),
        )

    def decide(
        self,
        conn: sqlite3.Connection,
        proposal_id: int,
        decision: Decision,
        by: str,
        when: float,
        applied_event: int | None = None,
    ) -> None:
        """Record the decision on a waiting proposal (inside the caller's write transaction);
        an approval marks the event that applied it reviewed by the same person. Raises
        NotWaiting when it is not waiting."""
        if not self._table(conn):
            raise NotWaiting(proposal_id)
        cursor = conn.execute(
            "UPDATE proposals SET decision = ?, decided_by = ?, decided_time = ?,"
            " applied_event = ? WHERE id = ? AND decision IS NULL",
            (decision, by, when, applied_event, proposal_id),
        )
        if cursor.rowcount != 1:
            raise NotWaiting(proposal_id)
        if applied_event is not None:
            conn.execute(
                "INSERT OR IGNORE INTO reviews (event_id, reviewer, time) VALUES (?, ?, ?)",
                (applied_event, by, when),
            )

    def get(self, proposal_id: int) -> Proposal | None:
        """One proposal by id, or None."""
        conn = self.history.connection()
        if not self._table(conn):
            return None
        row = conn.execute(
            f"SELECT {_COLUMNS} FROM proposals WHERE id = ?", (proposal_id,)
        ).fetchone()
        return None if row is None else _row(row)

    def listing(self, *, decided: bool = False, path: str | None = None) -> list[Proposal]:
        """The waiting proposals (with `decided`, every one), oldest first; with `path`, those
        touching that path or a path below it."""
        conn = self.history.connection()
        if not self._table(conn):
            return []
        where = "" if decided else " WHERE decision IS NULL"
        rows = conn.execute(f"SELECT {_COLUMNS} FROM proposals{where} ORDER BY id").fetchall()
        found = [_row(row) for row in rows]
        if path is None:
            return found
        prefix = path.rstrip("/") + "/"
        return [
            proposal
            for proposal in found
            if any(touched == path or touched.startswith(prefix) for touched in proposal.paths)
        ]

    def count_waiting(self) -> int:
        """How many proposals wait for a decision."""
        conn = self.history.connection()
        if not self._table(conn):
            return 0
        row = conn.execute("SELECT count(*) FROM proposals WHERE decision IS NULL").fetchone()
        return int(row[0])

    def earlier_waiting(self, proposal: Proposal) -> Proposal | None:
        """The oldest proposal made before `proposal` that still waits and touches one of its
        paths (they apply in order)."""
        for other in self.listing():
            if other.id >= proposal.id:
                return None
            if set(other.paths) & set(proposal.paths):
                return other
        return None
