"""Crash safety: SIGKILL a writer mid-write; files stay whole and the history agrees after
reopen."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reliability.crash import (
    CrashFigures,
    history_disagreements,
    print_figures,
    run_crash_rounds,
)


def assert_crash_safe(figures: CrashFigures) -> None:
    """Every invariant of the crash-safety issue, with the offending paths in the message."""
    assert figures.rounds_hit > 0, "no kill hit a write"
    assert figures.temp_files_left + figures.external_events > 0
    assert len(figures.steps_before_kill) == figures.kills
    assert sum(figures.steps_before_kill) >= figures.kills, figures.steps_before_kill
    assert figures.torn_files == []
    assert figures.temp_files_visible == []
    assert figures.disagreements == []
    assert figures.second_pass_events == 0


def test_disagreements_are_found_after_renames_and_folder_events(tmp_path: Path) -> None:
    from memtui.core.store import MemoryStore

    store = MemoryStore(tmp_path / "store", actor="agent:t")
    assert not store.create("/memories/a/one.md", "one\n").is_error
    assert not store.rename("/memories/a/one.md", "/memories/b/moved.md").is_error
    assert not store.create("/memories/c/two.md", "two\n").is_error
    deleted = store.delete("/memories/c")
    assert not store.revert(deleted.event_id or 0).is_error
    assert history_disagreements(store, 0) == []
    (store.root / "b" / "moved.md").write_text("changed\n")
    (store.root / "c" / "two.md").write_text("changed\n")
    event = store.history.last_change(["/memories/c"])
    assert event is not None and event.command == "revert"
    assert history_disagreements(store, 0) == [
        "round 0: /memories/b/moved.md differs from event 2 (rename)",
        f"round 0: /memories/c/two.md differs from the folder manifest of event {event.id} "
        "(revert)",
    ]


def test_a_dozen_kills_leave_whole_files_and_an_agreeing_history(tmp_path: Path) -> None:
    figures = run_crash_rounds(tmp_path / "store", 12, seed=3, min_hits=1)
    assert figures.kills >= 12
    assert_crash_safe(figures)


@pytest.mark.slow
def test_two_hundred_kills_leave_whole_files_and_an_agreeing_history(tmp_path: Path) -> None:
    figures = run_crash_rounds(tmp_path / "store", 200, seed=11)
    print_figures(figures)
    assert figures.kills == 200
    assert_crash_safe(figures)
