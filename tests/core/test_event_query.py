"""The history filter: one EventQuery and one parser of `actor:` `command:` `path:` `since:` and
free words, which History, the inbox, the app and `memtui log`/`changes` share."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest

from memtui.core.config import Settings
from memtui.core.recording.event_query import EventQuery, parse_event_query
from memtui.core.recording.inbox import changes
from memtui.core.store import MemoryStore

NOW = datetime(2026, 6, 10, 12, 0).timestamp()
T0 = 1_800_000_000.0


def test_parse_filter_understands_paths_aliases_and_words() -> None:
    wanted = parse_event_query(
        'path:/memories/projects/ cmd:edit "retry storm" since:12h', 1000.0 * 3600
    )
    assert (wanted.path, wanted.command, wanted.words, wanted.since) == (
        "/memories/projects",
        "str_replace",
        ("retry storm",),
        988.0 * 3600,
    )


@pytest.mark.parametrize(
    ("query", "since", "words"),
    [
        ("since:45s", NOW - 45, []),
        ("since:1.5d", NOW - 1.5 * 86400, []),
        ("since:30m retry", NOW - 1800, ["retry"]),
        ("since:2 weeks retry", NOW - 14 * 86400, ["retry"]),
        ("since:1 month", datetime(2026, 5, 10, 12, 0).timestamp(), []),
        ('since:"1 month" retry', datetime(2026, 5, 10, 12, 0).timestamp(), ["retry"]),
        ("since:3 weeks ago storm", NOW - 21 * 86400, ["storm"]),
        ("since:1y", datetime(2025, 6, 10, 12, 0).timestamp(), []),
        ("since:2026-06-01 storm", datetime(2026, 6, 1).timestamp(), ["storm"]),
        ("since:2026-06-01 09:30 storm", datetime(2026, 6, 1, 9, 30).timestamp(), ["storm"]),
        ("since:today", datetime(2026, 6, 10).timestamp(), []),
        ("since: yesterday", datetime(2026, 6, 9).timestamp(), []),
    ],
)
def test_since_takes_what_log_since_takes(query: str, since: float, words: list[str]) -> None:
    wanted = parse_event_query(query, NOW)
    assert (wanted.since, wanted.words, wanted.problems) == (since, tuple(words), ())


def test_a_since_that_is_not_a_time_is_a_problem_and_filters_nothing() -> None:
    wanted = parse_event_query("since:7 storms", NOW)
    assert wanted.since is None
    assert wanted.problems == (
        "since:7 is not a time: use 7d, 12h, 30m, 2 weeks, 1 month, 1y, today, yesterday"
        " or an ISO date like 2026-11-01T09:30",
    )


def test_keys_aliases_kinds_and_words() -> None:
    wanted = parse_event_query("Actor:agent:claude command:read path:notes/a.md Storm tag:x", NOW)
    assert wanted == EventQuery(
        actor="agent:claude",
        command="view",
        path="/memories/notes/a.md",
        words=("storm", "tag:x"),
    )
    assert parse_event_query("cmd:replace actor:external", NOW) == EventQuery(
        command="str_replace", actor="external"
    )
    assert parse_event_query("", NOW) == EventQuery()


def test_an_unbalanced_quote_splits_on_spaces() -> None:
    assert parse_event_query('"retry storm', NOW).words == ('"retry', "storm")


def test_equal_queries_compare_equal_however_given() -> None:
    assert EventQuery(words=["a"], actor_kinds={"agent"}) == EventQuery(
        words=("a",), actor_kinds=frozenset({"agent"})
    )
    assert EventQuery(problems=("x",)) == EventQuery()


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    """A person's note (1), an agent's edit (2), a read (3), another agent's note (4) and a
    rename (5), one minute apart."""
    now = [T0]

    def clock() -> float:
        now[0] += 60
        return now[0]

    person = MemoryStore(tmp_path, actor="human:bob", settings=Settings(), clock=clock)
    claude = person.with_actor("agent:claude")
    person.create("/memories/a.md", "one\n")
    claude.str_replace("/memories/a.md", "one", "two")
    claude.view("/memories/a.md")
    person.with_actor("agent:cursor").create("/memories/p/b.md", "bee\n")
    claude.rename("/memories/p", "/memories/q")
    return person


def ids(events: list) -> list[int]:  # type: ignore[type-arg]
    """The ids of events."""
    return [event.id for event in events]


def test_history_answers_a_query_and_its_fields_as_keywords_alike(store: MemoryStore) -> None:
    history = store.history
    for text, expected in (
        ("actor:agent", [5, 4, 3, 2]),
        ("actor:agent:cursor", [4]),
        ("cmd:edit", [2]),
        ("path:a.md", [3, 2, 1]),
        ("path:q/b.md", []),
        ("path:q", [5]),
        (f"since:{datetime.fromtimestamp(T0 + 240).isoformat()}", [5, 4]),
        ("two", [3, 2]),
    ):
        query = parse_event_query(text, T0 + 600)
        assert ids(history.events(query)) == expected, text
        assert history.count_events(query) == len(expected)
    query = parse_event_query("path:q/b.md", T0)
    followed = replace(query, follow=True)
    assert ids(history.events(followed)) == [5, 4]
    assert ids(history.events(path="/memories/q/b.md", follow=True)) == [5, 4]
    assert history.count_events(path="/memories/q/b.md", follow=True) == 2
    with pytest.raises(TypeError):
        history.events(followed, actor="agent")


def test_the_inbox_narrows_a_query_to_the_changes_that_wait(store: MemoryStore) -> None:
    history = store.history
    assert ids(changes(history)) == [5, 4, 2]
    assert ids(changes(history, parse_event_query("actor:agent:claude", T0))) == [5, 2]
    assert ids(changes(history, parse_event_query("path:q/b.md", T0))) == [5, 4]
    history.mark_reviewed([2], "human:bob", T0)
    assert ids(changes(history, parse_event_query("a.md", T0))) == []
    assert ids(changes(history, parse_event_query("a.md", T0), include_reviewed=True)) == [2]
