"""History: indexed queries, compressed deduplicated blobs, threads, corruption handling."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from memtui.core.config import Settings
from memtui.core.recording.database import HistoryCorrupt
from memtui.core.recording.events import PendingEvent
from memtui.core.recording.file_state import FileRecord
from memtui.core.recording.history import History
from memtui.core.store import MemoryStore


def make_store(root: Path, actor: str, clock_value: list[float]) -> MemoryStore:
    """A store whose clock reads `clock_value[0]`."""
    return MemoryStore(root, actor=actor, settings=Settings(), clock=lambda: clock_value[0])


def test_database_is_wal_with_private_folder(tmp_path: Path) -> None:
    History(tmp_path)
    assert oct((tmp_path / ".memtui").stat().st_mode & 0o777) == "0o700"
    conn = sqlite3.connect(tmp_path / ".memtui" / "history.db")
    assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    indexes = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert {"events_path", "events_actor", "events_time"} <= indexes


def test_query_filters(tmp_path: Path) -> None:
    now = [1000.0]
    agent = make_store(tmp_path, "agent:claude", now)
    other = agent.with_actor("agent:cursor")
    human = agent.with_actor("human:ann")
    agent.create("/memories/p/a.md", "a\n")  # 1 @1000
    now[0] = 2000.0
    other.view("/memories/p/a.md")  # 2 @2000
    human.rename("/memories/p/a.md", "/memories/q.md")  # 3 @2000
    now[0] = 3000.0
    agent.create("/memories/pp.md", "not below p\n")  # 4 @3000
    h = agent.history

    def ids(**filters: object) -> list[int]:
        return [event.id for event in h.events(**filters)]  # type: ignore[arg-type]

    assert ids() == [4, 3, 2, 1]
    assert ids(newest_first=False) == [1, 2, 3, 4]
    assert ids(path="/memories/p") == [3, 2, 1]
    assert ids(path="/memories/q.md") == [3]
    assert ids(actor="agent") == [4, 2, 1]
    assert ids(actor="agent:claude") == [4, 1]
    assert ids(actor="human") == [3]
    assert ids(command="view") == [2]
    assert ids(since=2000.0) == [4, 3, 2]
    assert ids(until=2000.0) == [3, 2, 1]
    assert ids(since=1500.0, until=2500.0, actor="agent") == [2]
    assert ids(limit=2) == [4, 3]


def test_screen_filters_words_paging_and_counts(tmp_path: Path) -> None:
    now = [1000.0]
    agent = make_store(tmp_path, "agent:claude", now)
    human = agent.with_actor("human:ann")
    agent.create("/memories/Ärger.md", "a\n")  # 1
    agent.view("/memories/Ärger.md")  # 2
    human.view("/memories/missing.md")  # 3, an error
    human.create("/memories/notes/Plan.md", "b\n")  # 4
    (tmp_path / "outside.md").write_text("c\n")
    agent.record_external(["outside.md"])  # 5
    h = agent.history

    def ids(**filters: object) -> list[int]:
        return [event.id for event in h.events(**filters)]  # type: ignore[arg-type]

    assert ids(actor_kinds={"agent", "human"}) == [4, 3, 2, 1]
    assert ids(actor_kinds=set()) == []
    assert ids(skip_reads=True) == [5, 4, 1]
    assert ids(errors_only=True) == [3]
    assert ids(words=["ärger"]) == [2, 1]
    assert ids(words=["ÄRGER"]) == [2, 1]
    assert ids(words=["plan", "human:ann"]) == [4]
    assert ids(words=["outside memtui"]) == [5]
    assert ids(limit=2, before_id=4) == [3, 2]
    assert ids(after_id=3) == [5, 4]
    assert h.count_events() == 5
    assert h.count_events(skip_reads=True, actor_kinds={"agent"}) == 1
    assert h.count_events(words=["ärger"], path="/memories/Ärger.md") == 2


def test_agent_reads_and_change_actors(tmp_path: Path) -> None:
    now = [10.0]
    agent = make_store(tmp_path, "agent:claude", now)
    human = agent.with_actor("human:ann")
    human.create("/memories/a.md", "a\n")
    agent.view("/memories/a.md")
    now[0] = 20.0
    agent.view("/memories/a.md")
    human.view("/memories/b.md")
    agent.view("/memories/missing.md")
    agent.create("/memories/d/x.md", "x")
    agent.rename("/memories/d", "/memories/e")
    h = agent.history
    assert h.last_agent_read("/memories/a.md") == 20.0
    assert h.last_agent_read("/memories/b.md") is None
    assert h.last_agent_read("/memories/missing.md") is None
    assert h.last_agent_reads() == {"/memories/a.md": 20.0}
    assert h.last_change_actors() == {
        "/memories/a.md": "human:ann",
        "/memories/e": "agent:claude",
        "/memories/e/x.md": "agent:claude",
    }


def test_change_actors_since_a_time_replay_only_that_window(tmp_path: Path) -> None:
    now = [10.0]
    agent = make_store(tmp_path, "agent:claude", now)
    human = agent.with_actor("human:ann")
    agent.create("/memories/old.md", "old\n")
    agent.create("/memories/d/x.md", "x\n")
    now[0] = 100.0
    human.create("/memories/new.md", "new\n")
    agent.str_replace("/memories/d/x.md", "x", "y")
    human.rename("/memories/d", "/memories/e")
    assert agent.history.last_change_actors(since=100.0) == {
        "/memories/new.md": "human:ann",
        "/memories/e": "human:ann",
        "/memories/e/x.md": "agent:claude",
    }


def test_secret_flagged_paths_follow_the_current_content(tmp_path: Path) -> None:
    now = [10.0]
    agent = make_store(tmp_path, "agent:claude", now)
    human = agent.with_actor("human:ann")
    agent.create("/memories/a.md", "plain\n")
    assert agent.history.secret_flagged_paths() == set()
    leak = agent.str_replace("/memories/a.md", "plain", "key AKIAABCDEFGHIJKLMNOP")
    assert leak.is_error is False
    assert agent.history.secret_flagged_paths() == {"/memories/a.md"}
    human.rename("/memories/a.md", "/memories/b.md")
    assert agent.history.secret_flagged_paths() == {"/memories/b.md"}
    _text, revision = human.read("/memories/b.md")
    removal = human.write("/memories/b.md", "plain\n", revision)
    assert agent.history.secret_flagged_paths() == set()
    assert removal.event_id is not None
    human.revert(removal.event_id)
    assert agent.history.secret_flagged_paths() == {"/memories/b.md"}
    conn = sqlite3.connect(tmp_path / ".memtui" / "history.db")
    plan = conn.execute(
        "EXPLAIN QUERY PLAN SELECT after_hash FROM events WHERE flags != ''"
        " AND flags LIKE '%secret:%' AND after_hash IS NOT NULL"
    ).fetchall()
    assert "USING INDEX events_flagged" in " ".join(str(row[3]) for row in plan)


def test_a_schema_2_history_gains_the_flagged_index_on_open(tmp_path: Path) -> None:
    History(tmp_path).close()
    conn = sqlite3.connect(tmp_path / ".memtui" / "history.db")
    conn.executescript("DROP INDEX events_flagged; PRAGMA user_version = 2;")
    conn.close()
    History(tmp_path).close()
    conn = sqlite3.connect(tmp_path / ".memtui" / "history.db")
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert "events_flagged" in names
    assert conn.execute("PRAGMA user_version").fetchone() == (4,)


def test_agent_reads_follow_renames_and_end_with_deletes(tmp_path: Path) -> None:
    now = [10.0]
    agent = make_store(tmp_path, "agent:claude", now)
    human = agent.with_actor("human:ann")
    for name in ("a.md", "b.md", "d/x.md", "d/y.md", "gone.md"):
        human.create(f"/memories/{name}", "text\n")
        agent.view(f"/memories/{name}")
    now[0] = 20.0
    human.rename("/memories/a.md", "/memories/c.md")
    human.rename("/memories/d", "/memories/e")
    human.delete("/memories/gone.md")
    human.create("/memories/gone.md", "new\n")
    human.create("/memories/unread.md", "u\n")
    human.delete("/memories/b.md")
    human.rename("/memories/unread.md", "/memories/b.md")
    h = agent.history
    assert h.last_agent_reads() == {
        "/memories/c.md": 10.0,
        "/memories/e/x.md": 10.0,
        "/memories/e/y.md": 10.0,
    }
    assert h.last_agent_read("/memories/c.md") == 10.0
    assert h.last_agent_read("/memories/a.md") is None


def test_blobs_are_compressed_and_deduplicated(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path, actor="agent:a", settings=Settings())
    text = "same content " * 200 + "\n"
    store.create("/memories/a.md", text)
    store.create("/memories/b.md", text)
    edit = store.str_replace("/memories/a.md", "same content \n", "end\n")
    assert edit.is_error is False
    digest = hashlib.sha256(text.encode()).hexdigest()
    conn = sqlite3.connect(tmp_path / ".memtui" / "history.db")
    rows = conn.execute("SELECT hash, size, data FROM blobs").fetchall()
    assert len(rows) == 2
    stored = dict((row[0], row) for row in rows)[digest]
    assert stored[1] == len(text)
    assert len(stored[2]) < len(text) // 10
    assert zlib.decompress(stored[2]) == text.encode()
    assert store.history.blob(digest) == text.encode()
    assert store.history.blob("0" * 64) is None


def test_folder_delete_keeps_manifest_and_texts(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path, actor="agent:a", settings=Settings())
    store.create("/memories/f/a.md", "A")
    store.create("/memories/f/sub/b.md", "B")
    deleted = store.delete("/memories/f")
    event = store.history.event(deleted.event_id)
    assert event is not None and event.before_hash is not None
    manifest = store.history.manifest(event.before_hash)
    assert manifest is not None
    assert manifest.dirs == ("sub",)
    assert manifest.files == {
        "a.md": hashlib.sha256(b"A").hexdigest(),
        "sub/b.md": hashlib.sha256(b"B").hexdigest(),
    }
    assert store.history.texts(event) == ("a.md\nsub/\nsub/b.md\n", None)


def test_history_is_usable_from_many_threads(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path, actor="agent:a", settings=Settings())
    store.create("/memories/a.md", "0\n")
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            for i in range(10):
                store.with_actor(f"agent:t{n}").insert("/memories/a.md", 0, f"{n}-{i}")
                store.history.events(limit=5)
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    lines = (tmp_path / "a.md").read_text().splitlines()
    assert len(lines) == 41
    assert len(store.history.events(command="insert")) == 40


def test_corrupt_database_raises_and_can_be_set_aside(tmp_path: Path) -> None:
    meta = tmp_path / ".memtui"
    meta.mkdir()
    garbage = b"this is not a database" * 100
    (meta / "history.db").write_bytes(garbage)
    (meta / "history.db-wal").write_bytes(b"wal")
    with pytest.raises(HistoryCorrupt) as caught:
        History(tmp_path)
    assert caught.value.path == meta / "history.db"
    assert str(caught.value) == f"{meta / 'history.db'}: file is not a database"

    moved = History.set_aside(tmp_path)

    assert moved.name.startswith("history.db.corrupt-")
    assert moved.read_bytes() == garbage
    assert Path(str(moved) + "-wal").read_bytes() == b"wal"
    assert not (meta / "history.db").exists()
    assert History(tmp_path).events() == []


def pending(path: str, **fields: object) -> PendingEvent:
    """An external event on `path` with the given extra fields."""
    return PendingEvent(
        time=1.0,
        actor="external",
        session=None,
        command="external",
        path=path,
        result="r",
        is_error=False,
        **fields,  # type: ignore[arg-type]
    )


def test_record_many_stores_all_events_and_rows_in_one_transaction(tmp_path: Path) -> None:
    history = History(tmp_path)
    row = FileRecord("a" * 64, 3, 10, 20)

    def events_then_failure() -> Iterator[PendingEvent]:
        yield pending("/memories/a.md", files={"/memories/a.md": row})
        raise OSError("disk vanished")

    with pytest.raises(OSError, match="disk vanished"):
        history.record_many(events_then_failure())
    assert (history.events(), history.file_records()) == ([], {})

    ids = history.record_many(
        [pending("/memories/a.md", files={"/memories/a.md": row}), pending("/memories/b.md")],
        files={"/memories/c.md": row},
    )
    assert [event.id for event in history.events(newest_first=False)] == ids == [1, 2]
    assert history.file_records() == {"/memories/a.md": row, "/memories/c.md": row}


def test_cleared_paths_drop_rows_at_and_below_only(tmp_path: Path) -> None:
    history = History(tmp_path)
    row = FileRecord("b" * 64, 1, 2, 3)
    paths = [
        "/memories/a",
        "/memories/a/x.md",
        "/memories/a/s/y.md",
        "/memories/ab.md",
        "/memories/a0",
    ]
    history.record_many([], files={path: row for path in paths})
    history.record_many([pending("/memories/a", cleared=("/memories/a",))])
    assert sorted(history.file_records()) == ["/memories/a0", "/memories/ab.md"]
    history.record_many([pending("/memories/ab.md", files={"/memories/ab.md": None})])
    assert sorted(history.file_records()) == ["/memories/a0"]


def test_a_new_history_has_a_complete_file_state_and_an_old_one_does_not(tmp_path: Path) -> None:
    assert History(tmp_path / "new").file_state_built() is True
    old = History(tmp_path / "old")
    old.record_many([pending("/memories/a.md")])
    old.close()
    conn = sqlite3.connect(tmp_path / "old" / ".memtui" / "history.db")
    conn.executescript("DROP TABLE file_state; DROP TABLE meta; PRAGMA user_version = 1;")
    conn.close()
    reopened = History(tmp_path / "old")
    assert reopened.file_state_built() is False
    assert reopened.build_file_state(lambda: {"/memories/a.md": "c" * 64}) is True
    assert reopened.file_records() == {"/memories/a.md": FileRecord("c" * 64, -1, -1, -1)}
    assert reopened.build_file_state(lambda: {}) is False


def test_a_schema_3_history_gains_groups_and_reviews_and_keeps_its_events(tmp_path: Path) -> None:
    store = make_store(tmp_path, "human:ann", [5.0])
    store.create("/memories/a.md", "one\n")
    store.history.close()
    conn = sqlite3.connect(tmp_path / ".memtui" / "history.db")
    conn.executescript(
        "DROP TABLE groups; DROP TABLE reviews; DROP INDEX events_group;"
        " ALTER TABLE events DROP COLUMN group_id; PRAGMA user_version = 3;"
    )
    conn.close()
    history = History(tmp_path)
    [event] = history.events()
    assert (event.command, event.path, event.group_id) == ("create", "/memories/a.md", None)
    group = history.open_group(time=6.0, actor="human:ann", kind="rename", summary="a to b")
    part = history.record(
        time=6.0,
        actor="human:ann",
        session=None,
        command="write",
        path="/memories/b.md",
        result="Saved",
        is_error=False,
        group_id=group,
    )
    assert [found.id for found in history.group_events(group)] == [part]
    assert history.event(part).group_id == group  # type: ignore[union-attr]
    history.close()
    conn = sqlite3.connect(tmp_path / ".memtui" / "history.db")
    assert conn.execute("PRAGMA user_version").fetchone() == (4,)
    assert conn.execute("SELECT kind, summary FROM groups").fetchall() == [("rename", "a to b")]
