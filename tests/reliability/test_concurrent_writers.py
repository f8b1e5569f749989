"""Two MCP servers, two `memtui tool` loops and a human writing the same files at once."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from memtui.core.store import MemoryStore
from tests.reliability.soak import Writer, lost_updates, run_soak

EXPECTED_ERRORS = {"conflict", "not verbatim"}


def check_soak(root: Path, writers: list[Writer]) -> dict[str, int]:
    """No lost update, only expected errors, exactly one history event per call."""
    for writer in writers:
        assert writer.calls > 0, writer.actor
        assert lost_updates(root, writer) == []
        assert set(writer.errors) <= EXPECTED_ERRORS, (writer.actor, writer.errors)
    history = MemoryStore(root, actor="human:checker").history
    per_actor = Counter(event.actor for event in history.events())
    for writer in writers:
        assert per_actor[writer.actor] == writer.calls, writer.actor
    assert per_actor["external"] == 0
    return {writer.actor: writer.calls for writer in writers}


def test_five_writers_for_a_few_seconds_lose_nothing(tmp_path: Path) -> None:
    writers = run_soak(tmp_path, 4.0)
    check_soak(tmp_path, writers)


@pytest.mark.slow
def test_five_writers_for_sixty_seconds_lose_nothing(tmp_path: Path) -> None:
    writers = run_soak(tmp_path, 60.0)
    calls = check_soak(tmp_path, writers)
    kept = sum(len(writer.expected) for writer in writers)
    print(
        f"\nconcurrent writers (2 MCP servers, 2 memtui tool loops, 1 human) for 60 s: "
        f"{sum(calls.values())} calls ({', '.join(f'{a} {n}' for a, n in calls.items())}), "
        f"{kept} edits checked, 0 lost, errors by kind: {error_counts(writers)}, "
        f"one history event per call"
    )


def error_counts(writers: list[Writer]) -> str:
    """Every error kind with its count over all writers, the expected kinds even at 0."""
    counts: Counter[str] = Counter(dict.fromkeys(sorted(EXPECTED_ERRORS), 0))
    for writer in writers:
        counts.update(writer.errors)
    return ", ".join(f"{kind} {count}" for kind, count in counts.items())


def test_error_counts_name_every_kind_even_when_none_happened() -> None:
    human, agent = Writer("human:h"), Writer("agent:a")
    human.errors["conflict"] += 3
    assert error_counts([human, agent]) == "conflict 3, not verbatim 0"
    agent.errors["Cannot edit /memories/x.md: disk full"] += 1
    assert error_counts([human, agent]) == (
        "conflict 3, not verbatim 0, Cannot edit /memories/x.md: disk full 1"
    )
