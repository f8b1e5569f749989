"""Review marks: which changes wait, approve, and how an undo or a person's save clears them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memtui.core.config import Settings
from memtui.core.recording.event_query import EventQuery
from memtui.core.recording.history import History
from memtui.core.recording.inbox import (
    changes,
    group_by_note,
    inbox,
    line_changes,
    row_texts,
)
from memtui.core.recording.reviews import NotReviewable, Review
from memtui.core.store import MemoryStore

T0 = 1_800_000_000.0


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def stores(root: Path, clock: Clock) -> tuple[MemoryStore, MemoryStore]:
    """An agent's and a person's store on one history."""
    agent = MemoryStore(root, actor="agent:claude", settings=Settings(), clock=clock)
    return agent, agent.with_actor("human:dana")


def waiting_ids(history: History) -> list[int]:
    """Ids of the changes waiting for review, oldest first."""
    return sorted(event.id for event in changes(history))


def review_rows(root: Path) -> list[tuple[int, str, float]]:
    """The reviews table as stored on disk, read with a connection of its own."""
    conn = sqlite3.connect(root / ".memtui" / "history.db")
    try:
        return conn.execute(
            "SELECT event_id, reviewer, time FROM reviews ORDER BY event_id"
        ).fetchall()
    finally:
        conn.close()


def test_agent_and_outside_changes_wait_but_reads_refusals_and_peoples_changes_do_not(
    tmp_path: Path, clock: Clock
) -> None:
    agent, person = stores(tmp_path, clock)
    assert agent.create("/memories/a.md", "one\n").event_id == 1
    assert agent.view("/memories/a.md").event_id == 2
    assert agent.str_replace("/memories/a.md", "missing", "x").is_error
    assert not person.create("/memories/mine.md", "mine\n").is_error
    (tmp_path / "outside.md").write_text("edited by hand\n")
    (external,) = person.record_external(["outside.md"])

    assert waiting_ids(agent.history) == [1, external]
    assert agent.history.pending_review_count() == 2


def test_approve_marks_in_one_go_and_refuses_unknown_ids_or_non_changes(
    tmp_path: Path, clock: Clock
) -> None:
    agent, _person = stores(tmp_path, clock)
    agent.create("/memories/a.md", "one\n")
    agent.str_replace("/memories/a.md", "one", "two")
    agent.view("/memories/a.md")
    history = agent.history

    with pytest.raises(NotReviewable) as unknown:
        history.mark_reviewed([1, 99], "human:dana", T0)
    assert (unknown.value.unknown, unknown.value.not_changes) == ([99], [])
    with pytest.raises(NotReviewable) as read:
        history.mark_reviewed([2, 3], "human:dana", T0)
    assert [event.id for event in read.value.not_changes] == [3]
    assert review_rows(tmp_path) == []

    assert history.mark_reviewed([1], "human:dana", T0 + 5) == ([1], {})
    assert history.mark_reviewed([1, 2], "human:eve", T0 + 9) == (
        [2],
        {1: Review("human:dana", T0 + 5)},
    )
    assert review_rows(tmp_path) == [(1, "human:dana", T0 + 5), (2, "human:eve", T0 + 9)]
    assert waiting_ids(history) == []


def test_marks_survive_a_restart_and_are_seen_by_another_connection(
    tmp_path: Path, clock: Clock
) -> None:
    agent, _person = stores(tmp_path, clock)
    agent.create("/memories/a.md", "one\n")
    agent.create("/memories/b.md", "two\n")
    agent.history.mark_reviewed([2], "human:dana", T0)
    agent.close()

    reopened = History(tmp_path)
    assert waiting_ids(reopened) == [1]
    assert reopened.reviews([1, 2]) == {2: Review("human:dana", T0)}


def test_a_persons_undo_marks_the_undone_change_in_the_same_transaction(
    tmp_path: Path, clock: Clock
) -> None:
    agent, person = stores(tmp_path, clock)
    agent.create("/memories/a.md", "one\n")
    agent.str_replace("/memories/a.md", "one", "two")

    undo = person.revert(2)

    assert not undo.is_error and undo.event_id == 3
    revert_event = person.history.event(3)
    assert revert_event is not None
    assert review_rows(tmp_path) == [(2, "human:dana", revert_event.time)]
    assert (tmp_path / "a.md").read_bytes() == b"one\n"
    assert waiting_ids(person.history) == [1]


def test_a_refused_undo_marks_nothing(tmp_path: Path, clock: Clock) -> None:
    agent, person = stores(tmp_path, clock)
    agent.create("/memories/a.md", "one\n")
    agent.str_replace("/memories/a.md", "one", "two")
    agent.str_replace("/memories/a.md", "two", "three")

    refused = person.revert(2)

    assert refused.is_error and refused.content.startswith("Conflict:")
    assert review_rows(tmp_path) == []
    assert not person.revert(2, force=True).is_error
    assert [row[0] for row in review_rows(tmp_path)] == [2]


def test_a_persons_save_marks_every_waiting_change_of_the_note_across_renames(
    tmp_path: Path, clock: Clock
) -> None:
    agent, person = stores(tmp_path, clock)
    agent.create("/memories/a.md", "one\n")  # 1
    agent.create("/memories/other.md", "other\n")  # 2
    agent.rename("/memories/a.md", "/memories/dir/b.md")  # 3
    agent.str_replace("/memories/dir/b.md", "one", "two")  # 4
    agent.rename("/memories/dir", "/memories/moved")  # 5

    saved = person.write("/memories/moved/b.md", "mine\n", person.revision("/memories/moved/b.md"))

    assert not saved.is_error and saved.event_id == 6
    assert [(row[0], row[1]) for row in review_rows(tmp_path)] == [
        (1, "human:dana"),
        (3, "human:dana"),
        (4, "human:dana"),
        (5, "human:dana"),
    ]
    assert waiting_ids(person.history) == [2]


def test_an_agents_save_and_a_refused_save_mark_nothing(tmp_path: Path, clock: Clock) -> None:
    agent, person = stores(tmp_path, clock)
    agent.create("/memories/a.md", "one\n")
    assert not agent.write("/memories/a.md", "agent\n", agent.revision("/memories/a.md")).is_error
    stale = person.write("/memories/a.md", "mine\n", "0" * 64)
    assert stale.is_error and stale.content.startswith("Conflict:")
    assert review_rows(tmp_path) == []
    assert waiting_ids(person.history) == [1, 2]


def test_inbox_groups_a_notes_changes_under_its_current_path(tmp_path: Path, clock: Clock) -> None:
    agent, person = stores(tmp_path, clock)
    agent.create("/memories/p/a.md", "one\n")  # 1
    agent.create("/memories/b.md", "bee\n")  # 2
    agent.str_replace("/memories/p/a.md", "one", "one\nmore")  # 3
    person.create("/memories/p/mine.md", "mine\n")  # 4
    agent.rename("/memories/p", "/memories/q")  # 5
    agent.str_replace("/memories/q/a.md", "more", "most")  # 6
    agent.delete("/memories/b.md")  # 7

    rows = inbox(agent.history)

    assert [(row.path, row.ids, row.gone) for row in rows] == [
        ("/memories/b.md", (2, 7), True),
        ("/memories/q/a.md", (1, 3, 6), False),
        ("/memories/q", (5,), False),
    ]
    moved = rows[1]
    assert row_texts(agent.history, moved) == (None, "one\nmost\n")
    assert line_changes(*row_texts(agent.history, moved)) == (2, 0)
    assert row_texts(agent.history, rows[0]) == (None, None)
    assert group_by_note(agent.history, []) == []


def test_changes_filter_by_actor_time_and_path_under_earlier_names(
    tmp_path: Path, clock: Clock
) -> None:
    agent, _person = stores(tmp_path, clock)
    other = agent.with_actor("agent:cursor")
    agent.create("/memories/a.md", "one\n")  # 1 at T0+1
    other.create("/memories/b.md", "two\n")  # 2 at T0+2
    agent.rename("/memories/a.md", "/memories/c.md")  # 3 at T0+3
    history = agent.history

    def ids(query: EventQuery, include_reviewed: bool = False) -> list[int]:
        return [event.id for event in changes(history, query, include_reviewed=include_reviewed)]

    assert ids(EventQuery(actor="agent:cursor")) == [2]
    assert ids(EventQuery(since=T0 + 2)) == [3, 2]
    assert ids(EventQuery(path="/memories/c.md")) == [3, 1]
    history.mark_reviewed([1], "human:dana", T0)
    assert ids(EventQuery(path="/memories/c.md")) == [3]
    assert ids(EventQuery(path="/memories/c.md"), include_reviewed=True) == [3, 1]
