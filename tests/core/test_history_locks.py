"""The history never drops this process's SQLite locks: no second file handle on history.db."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from memtui.core.recording.history import History

CHILD = """
import sys
from pathlib import Path
from memtui.core.recording.history import History
history = History(Path(sys.argv[1]))
history.record(time=2.0, actor="agent:child", session=None, command="view", path="/memories/c",
               result="child", is_error=False)
history.close()
"""


def record(history: History, actor: str, when: float) -> None:
    """One small event from `actor`."""
    history.record(
        time=when,
        actor=actor,
        session=None,
        command="view",
        path="/memories/p",
        result=actor,
        is_error=False,
    )


def test_a_second_thread_opening_the_history_keeps_the_first_connections_lock(
    tmp_path: Path,
) -> None:
    """Thread 2 opening the history must not release thread 1's lock on the database file:
    otherwise another process closing its last connection checkpoints and deletes the WAL
    under thread 1, whose next write is lost or fails with a disk I/O error."""
    history = History(tmp_path)
    record(history, "human:first", 1.0)
    opened = threading.Thread(target=lambda: History(tmp_path).events(limit=1))
    opened.start()
    opened.join()
    subprocess.run([sys.executable, "-c", CHILD, str(tmp_path)], check=True, timeout=60)
    record(history, "human:after-child", 3.0)
    history.close()
    reopened = History(tmp_path)
    actors = [event.actor for event in reopened.events(newest_first=False)]
    reopened.close()
    assert actors == ["human:first", "agent:child", "human:after-child"]


def test_a_connection_collected_while_a_history_opens_does_not_deadlock(tmp_path: Path) -> None:
    """A connection collected while the open lock is held (a GC run inside `History._open`)
    must not wait for that lock."""
    from memtui.core.recording import database as history_module

    history = History(tmp_path)

    def collect_under_the_lock() -> None:
        extra = history._open()
        with history_module._opening:
            del extra
        History(tmp_path).close()

    worker = threading.Thread(target=collect_under_the_lock, daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert not worker.is_alive(), "collecting a connection under the open lock deadlocked"
    history.close()
