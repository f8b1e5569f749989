"""The history's query plans: the last agent read of a path is one index seek, also after an
upgrade."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memtui.core.recording.database import SCHEMA_VERSION
from memtui.core.recording.events import PendingEvent
from memtui.core.recording.history import History

READS_INDEX = "events_path_reads"


def read_event(path: str, actor: str, when: float, command: str = "view") -> PendingEvent:
    """A successful event of `command` on `path` at `when`."""
    return PendingEvent(
        time=when, actor=actor, session=None, command=command, path=path, result="", is_error=False
    )


def traced_plan(history: History, path: str) -> tuple[float | None, list[str]]:
    """`last_agent_read(path)` and the query plan of every statement it ran."""
    conn = history._connection()
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    try:
        result = history.last_agent_read(path)
    finally:
        conn.set_trace_callback(None)
    plans = [row[3] for sql in statements for row in conn.execute("EXPLAIN QUERY PLAN " + sql)]
    return result, plans


def fill(history: History) -> None:
    """Reads and writes by agents and a human on a few paths."""
    history.record_many(
        [
            read_event("/memories/a.md", "agent:claude", 10.0),
            read_event("/memories/a.md", "agent:claude", 30.0, "str_replace"),
            read_event("/memories/a.md", "human:ann", 40.0),
            read_event("/memories/a.md", "agent:cursor", 20.0),
            read_event("/memories/b.md", "agent:claude", 50.0),
        ]
    )


def test_last_agent_read_seeks_the_path_index(tmp_path: Path) -> None:
    history = History(tmp_path)
    fill(history)
    result, plans = traced_plan(history, "/memories/a.md")
    assert result == 20.0
    assert not any(plan.startswith("SCAN") for plan in plans), plans
    assert plans[-1] == (
        f"SEARCH events USING COVERING INDEX {READS_INDEX} "
        "(path=? AND command=? AND actor_kind=? AND is_error=?)"
    )


def test_an_older_history_gains_the_index_on_open(tmp_path: Path) -> None:
    history = History(tmp_path)
    fill(history)
    history.close()
    conn = sqlite3.connect(tmp_path / ".memtui" / "history.db")
    conn.executescript(f"DROP INDEX {READS_INDEX}; PRAGMA user_version = 2;")
    conn.close()
    reopened = History(tmp_path)
    result, plans = traced_plan(reopened, "/memories/a.md")
    assert result == 20.0
    assert plans[-1].startswith(f"SEARCH events USING COVERING INDEX {READS_INDEX} ")
    conn = sqlite3.connect(tmp_path / ".memtui" / "history.db")
    assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,) == (4,)
    assert [e.time for e in reopened.events(newest_first=False)] == [10.0, 30.0, 40.0, 20.0, 50.0]
    conn.close()
