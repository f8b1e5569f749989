"""No note stalls the index: dateparser reads a bounded part of one note's free-form dates, the
rest stay text with one warning, and a note reads the same whatever was read before it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from memtui.notes import temporal
from memtui.notes.parser import parse_note
from memtui.notes.temporal import FREE_FORM_BUDGET, FREE_FORM_LEAST

MONTHS = (
    *("January", "February", "March", "April", "May", "June"),
    *("July", "August", "September", "October", "November", "December"),
)
MOST_CALLS = 2 * FREE_FORM_BUDGET // FREE_FORM_LEAST
"""Two readings (one per stand-in for "now") of each admitted point, at most."""


def free_form_dates(count: int) -> list[str]:
    """`count` distinct dates in words: `June 10, 2026`."""
    return [f"{MONTHS[i % 12]} {1 + (i // 12) % 28}, {2000 + i // 336}" for i in range(count)]


def admitted(dates: list[str]) -> int:
    """How many of `dates`, in order, fit in one note's budget."""
    left = FREE_FORM_BUDGET
    for count, date in enumerate(dates):
        left -= max(len(date), FREE_FORM_LEAST)
        if left < 0:
            return count
    return len(dates)


def dated_note(dates: list[str]) -> str:
    """A note whose observation lines each open with one of `dates` as a qualifier."""
    lines = [f'- [event] @occurred:"{date}" event {i}' for i, date in enumerate(dates)]
    return "# Dates\n\n" + "\n".join(lines) + "\n"


class CountingParser:
    """A dateparser reader that notes each string it is asked to read."""

    def __init__(self, real: Any, calls: list[str]) -> None:
        """Count the calls of `real` in `calls`."""
        self.real, self.calls = real, calls

    def get_date_data(self, point: str) -> Any:
        """The real reading; the test fails at once past 4 times the bound (on a build without
        one, 2,000 readings would take a minute)."""
        self.calls.append(point)
        if len(self.calls) > 4 * MOST_CALLS:
            pytest.fail("dateparser read more than a bounded part of a note")
        return self.real.get_date_data(point)


@pytest.fixture
def dateparser_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The strings dateparser reads from now on (none remembered from earlier tests)."""
    temporal._read_by_dateparser.cache_clear()
    calls: list[str] = []
    real = temporal._parser
    monkeypatch.setattr(temporal, "_parser", lambda now: CountingParser(real(now), calls))
    yield calls
    temporal._read_by_dateparser.cache_clear()


def test_a_note_of_1000_free_form_dates_reads_a_bounded_part(dateparser_calls: list[str]) -> None:
    dates = free_form_dates(1000)
    note = parse_note(dated_note(dates), "dates.md")
    assert len(dateparser_calls) <= MOST_CALLS
    read = admitted(dates)
    assert 20 < read <= FREE_FORM_BUDGET // FREE_FORM_LEAST
    assert [obs.content for obs in note.observations[: read + 1]] == [
        *(f"event {i}" for i in range(read)),
        f'@occurred:"{dates[read]}" event {read}',
    ]
    assert note.observations[-1].content == f'@occurred:"{dates[-1]}" event 999'
    assert note.warnings == [
        f"line {3 + read}: this note's free-form dates reach {FREE_FORM_BUDGET} characters; this "
        "qualifier and the later free-form ones stay in the observation text, not read as dates"
    ]


def test_a_note_reads_the_same_after_its_dates_were_read_elsewhere(
    dateparser_calls: list[str],
) -> None:
    dates = free_form_dates(100)
    cold = parse_note(dated_note(dates), "dates.md")
    for start in range(0, 100, 20):
        parse_note(dated_note(dates[start : start + 20]), f"part{start}.md")
    assert parse_note(dated_note(dates), "dates.md") == cold


def test_each_note_has_its_own_budget(dateparser_calls: list[str]) -> None:
    dates = free_form_dates(60)
    for part in (dates[:30], dates[30:]):
        note = parse_note(dated_note(part), "part.md")
        assert [obs.content for obs in note.observations] == [f"event {i}" for i in range(30)]
        assert note.warnings == []


def test_a_repeated_date_costs_once(dateparser_calls: list[str]) -> None:
    note = parse_note(dated_note(["June 10, 2026"] * 1000), "same.md")
    assert all(obs.content.startswith("event ") for obs in note.observations)
    assert note.warnings == []
    assert dateparser_calls == ["June 10, 2026", "June 10, 2026"]
