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
    conflicts = sum(writer.errors["conflict"] for writer in writers)
    kept = sum(len(writer.expected) for writer in writers)
    print(
        f"\nconcurrent writers (2 MCP servers, 2 memtui tool loops, 1 human) for 60 s: "
        f"{sum(calls.values())} calls ({', '.join(f'{a} {n}' for a, n in calls.items())}), "
        f"{kept} edits checked, 0 lost, {conflicts} expected conflicts, "
        f"one history event per call"
    )
