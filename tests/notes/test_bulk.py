"""Pacer: background loops rest, longer and more often while the app that started them is in use
(the app's `Interaction` says so)."""

from __future__ import annotations

import threading

import pytest

from memtui.notes import bulk
from memtui.notes.bulk import Pacer
from memtui.tui import interaction as app_interaction
from memtui.tui.interaction import INTERACTIVE_WINDOW, Interaction


class FakeTime:
    """A clock that only moves when work is done or a rest is taken."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.rests: list[tuple[float, float]] = []

    def perf_counter(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.rests.append((self.now, seconds))
        self.now += seconds


def rests_of_a_loop(
    clock: FakeTime, steps: int, step: float, interaction: Interaction | None = None
) -> list[float]:
    """Run a paced loop of `steps` steps of `step` seconds each in a thread; its rests."""

    def loop() -> None:
        pace = Pacer(interaction)
        for _ in range(steps):
            clock.now += step
            pace()

    worker = threading.Thread(target=loop)
    worker.start()
    worker.join()
    return [seconds for _, seconds in clock.rests]


def test_a_background_loop_rests_briefly_when_nobody_uses_the_ui(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = FakeTime()
    monkeypatch.setattr(bulk, "time", clock)
    monkeypatch.setattr(app_interaction, "time", clock)
    interaction = Interaction()
    interaction.last = clock.now - INTERACTIVE_WINDOW - 1
    rests = rests_of_a_loop(clock, steps=100, step=0.001, interaction=interaction)
    assert set(rests) == {bulk.PACE_REST}
    assert 15 <= len(rests) <= 20
    assert sum(rests) / (0.1 + sum(rests)) < 0.3


def test_a_background_loop_yields_most_of_the_time_while_the_ui_is_in_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = FakeTime()
    monkeypatch.setattr(bulk, "time", clock)
    monkeypatch.setattr(app_interaction, "time", clock)
    interaction = Interaction()
    assert not interaction.recent()
    interaction.note()
    assert interaction.recent()
    rests = rests_of_a_loop(clock, steps=40, step=0.001, interaction=interaction)
    assert clock.now < 1000.0 + INTERACTIVE_WINDOW
    assert set(rests) == {bulk.PACE_REST_INTERACTIVE}
    assert sum(rests) / (0.04 + sum(rests)) > 0.6
    assert not interaction.recent(1000.0 + INTERACTIVE_WINDOW + 0.01)


def test_a_loop_yields_only_to_the_app_that_started_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """No process-wide flag: one app's keys never slow another's loops or a library user's."""
    clock = FakeTime()
    monkeypatch.setattr(bulk, "time", clock)
    monkeypatch.setattr(app_interaction, "time", clock)
    busy, other = Interaction(), Interaction()
    busy.note()
    assert not other.recent()
    assert set(rests_of_a_loop(clock, steps=40, step=0.001, interaction=other)) == {bulk.PACE_REST}
    clock.rests.clear()
    assert set(rests_of_a_loop(clock, steps=40, step=0.001)) == {bulk.PACE_REST}
    assert not hasattr(bulk, "note_interaction")


def test_the_main_thread_never_rests(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeTime()
    monkeypatch.setattr(bulk, "time", clock)
    monkeypatch.setattr(app_interaction, "time", clock)
    pace = Pacer()
    for _ in range(100):
        clock.now += 0.001
        pace()
    assert clock.rests == []
