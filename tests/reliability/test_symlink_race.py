"""No path leaves the store while another process swaps a store folder for a link out of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reliability.race import RaceFigures, run_race


def assert_nothing_leaked(figures: RaceFigures) -> None:
    """Every check of the race: real racing happened, nothing outside was touched, no crash."""
    assert figures.swaps > 1000, figures.summary()
    assert set(figures.commands) >= {"create", "delete dir", "rename dir", "recovery"}
    assert figures.exceptions == [], figures.exceptions[:5]
    assert figures.outside_created == [], figures.summary()
    assert figures.outside_deleted == [], figures.summary()
    assert figures.outside_changed == [], figures.summary()
    assert figures.canary_in_outputs == 0, figures.summary()
    assert figures.canary_in_history == 0, figures.summary()


def test_every_command_kind_stays_inside_while_a_folder_is_swapped(tmp_path: Path) -> None:
    figures = run_race(tmp_path, seconds=4)
    print(figures.summary())
    assert_nothing_leaked(figures)


@pytest.mark.slow
def test_a_minute_of_swapping_leaks_nothing(tmp_path: Path) -> None:
    figures = run_race(tmp_path, seconds=60)
    print(figures.summary())
    assert_nothing_leaked(figures)
