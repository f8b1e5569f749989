"""Crash safety: SIGKILL a writer mid-write; files stay whole and the history agrees after reopen."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reliability.crash import CrashFigures, print_figures, run_crash_rounds


def assert_crash_safe(figures: CrashFigures) -> None:
    """Every invariant of the crash-safety issue, with the offending paths in the message."""
    assert figures.torn_files == []
    assert figures.temp_files_visible == []
    assert figures.disagreements == []
    assert figures.second_pass_events == 0


def test_a_dozen_kills_leave_whole_files_and_an_agreeing_history(tmp_path: Path) -> None:
    figures = run_crash_rounds(tmp_path / "store", 12, seed=3)
    assert figures.kills == 12
    assert_crash_safe(figures)


@pytest.mark.slow
def test_two_hundred_kills_leave_whole_files_and_an_agreeing_history(tmp_path: Path) -> None:
    figures = run_crash_rounds(tmp_path / "store", 200, seed=11)
    print_figures(figures)
    assert figures.kills == 200
    assert_crash_safe(figures)
