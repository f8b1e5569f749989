"""Temporal qualifiers (`@effective:2026-06-10`, `@occurred:"June 10, 2026"`) as Basic Memory reads
them: which leading `@...` token of an observation is a qualifier (and so is taken off its text),
and which is a mistake Basic Memory reports.

This follows Basic Memory 0.24.1's `markdown/temporal_qualifier.py` and the point reader of its
`temporal.py` rule for rule: ISO points are read literally (a year, a month, a day, a moment),
anything else with `dateparser` as Basic Memory calls it (date order YMD, its default), and a
reading is kept only if it names the same span whatever "now" is (so `yesterday` and a bare
`June` are not dates).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from functools import lru_cache
from typing import Any, Literal

TIME_KINDS = frozenset({"effective", "valid", "occurred", "due", "mentioned"})
DATE_ORDER: Literal["YMD"] = "YMD"
"""Basic Memory's default `date_order`: which part of a slashed date (`10/07/2026`) leads."""
QUOTED_EXAMPLE = "June 10, 2026"
PROBE_BASES = (datetime(2001, 3, 4, 5, 6, 7), datetime(2097, 11, 21, 22, 33, 44))
"""Two stand-ins for "now" that differ in every component: a reading that moves is refused."""
MIN_NUMERIC_POINT = 4
"""An unquoted numeric point narrower than a year (`1`, `3.5`) is a list marker, not a date."""
FREE_FORM_BUDGET = 512
"""Characters of free-form points dateparser reads in one note, at most (each point counted once
and as at least FREE_FORM_LEAST): a call costs milliseconds to tens of them (a string it cannot
read is tried in every language), so a note's later free-form qualifiers stay text."""
FREE_FORM_LEAST = 16

_KIND = r"[A-Za-z][A-Za-z0-9_]*"
_RANGE_QUALIFIER = re.compile(rf"^@({_KIND})?([\[(][^\[\]()]*,[^\[\]()]*[\])])(?=\s|$)")
_RANGE_LITERAL = re.compile(r"^([\[(])([^,\[\]()]*),([^,\[\]()]*)([\])])$")
_QUOTED_POINT = re.compile(rf'^@(?:({_KIND}):)?"')
_KIND_POINT = re.compile(rf"^@({_KIND}):(\S+)")
_BARE_POINT = re.compile(r"^@(\d\S*)")
_DATE_BOUND = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_INSTANT_BOUND = re.compile(
    r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?(?:[Zz]|[+-]\d{2}:\d{2})?$"
)
_CANONICAL_INSTANT = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$")
_TIMESTAMP_SHAPE = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]")
_ISO_CALENDAR_HEAD = re.compile(r"^(\d{4})-(\d+)(?:-(\d+))?")
_ISO_CALENDAR_OPENING = re.compile(r"^\d{4}-")
_HUMAN_TIME_LETTER = re.compile(r"[^\W\dTtZz_]")
_ISO_TIME_TRAILING = re.compile(
    r"^[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:[Zz]|[+-]\d{2}:?\d{2})?$"
)
_OVERFLOWING_OFFSET_MINUTES = re.compile(r"[+-]\d{2}:?[6-9]\d$")
_UNREADABLE_DIGIT_RUN = re.compile(r"\d{32,}")
_YEAR_FIRST_NUMERIC_DATE = re.compile(r"^(\d{4})(\D)(\d{1,2})\2(\d{1,2})$")
_YEAR_LAST_NUMERIC_DATE = re.compile(r"^(\d{1,2})(\D)(\d{1,2})\2(\d{4})$")

Span = tuple[str, str, str | None]
"""What a point names: ("date" | "instant", canonical lower bound, upper bound or None)."""


class Unreadable(ValueError):
    """A value Basic Memory's reader would refuse with an error of its own."""


@dataclass(frozen=True, slots=True)
class Qualifier:
    """The result of scanning an observation's content for a leading qualifier.

    `content` is the text with a read qualifier taken off (unchanged otherwise); `problem` is
    Basic Memory's own diagnostic for a qualifier it refuses (an unknown kind, an unclosed
    quote, a truncated date), or memtui's note on a quoted qualifier that names no fixed date
    (`@occurred:"yesterday"`: quoting shows a date was meant), else None.
    """

    content: str
    problem: str | None = None


@dataclass
class DateBudget:
    """What is left of one note's FREE_FORM_BUDGET."""

    left: int = FREE_FORM_BUDGET
    read: set[str] = field(default_factory=set)
    """The free-form points admitted (read again at no cost)."""
    refused: int = 0
    """Qualifiers left as text because the budget was spent."""

    def admit(self, point: str) -> bool:
        """Whether dateparser may read `point` (charged on first sight)."""
        if point in self.read:
            return True
        cost = max(len(point), FREE_FORM_LEAST)
        if cost > self.left:
            return False
        self.left -= cost
        self.read.add(point)
        return True


class _OverBudget(Exception):
    """The note's budget for free-form points is spent."""


_BUDGET: ContextVar[DateBudget | None] = ContextVar("memtui_date_budget", default=None)


@contextmanager
def date_budget(chars: int | None = None) -> Iterator[DateBudget]:
    """Bound the free-form points read meanwhile (one note's parse) to `chars` characters
    (None: FREE_FORM_BUDGET)."""
    budget = DateBudget(FREE_FORM_BUDGET if chars is None else chars)
    token = _BUDGET.set(budget)
    try:
        yield budget
    finally:
        _BUDGET.reset(token)


def scan_qualifier(content: str) -> Qualifier:
    """Take a leading temporal qualifier off `content`, as Basic Memory's parser does; within a
    `date_budget`, one past it stays text (the first such one says so)."""
    if not content.startswith("@"):
        return Qualifier(content)
    try:
        return _scan_qualifier(content)
    except _OverBudget:
        budget = _BUDGET.get()
        assert budget is not None
        budget.refused += 1
        if budget.refused > 1:
            return Qualifier(content)
        return Qualifier(
            content,
            f"this note's free-form dates reach {FREE_FORM_BUDGET} characters; this qualifier "
            "and the later free-form ones stay in the observation text, not read as dates",
        )


def _scan_qualifier(content: str) -> Qualifier:
    """scan_qualifier's reading (_OverBudget when a free-form point is past the budget)."""
    read = _range_qualifier(content) or _point_qualifier(content)
    if read is None or isinstance(read, str):
        return Qualifier(content, read)
    token_end, kind = read
    if kind is not None and kind not in TIME_KINDS:
        known = ", ".join(sorted(TIME_KINDS))
        return Qualifier(
            content, f"unknown temporal kind {kind!r} in {content[:token_end]!r} ({known})"
        )
    remainder = content[token_end:].strip()
    return Qualifier(remainder or content)


def _range_qualifier(content: str) -> tuple[int, str | None] | None:
    """(end, kind) of a range qualifier (`@effective[2026-06-10,2026-07-27)`), or None."""
    match = _RANGE_QUALIFIER.match(content)
    if match is None or not reads_as_range(match.group(2)):
        return None
    return match.end(), match.group(1)


def _point_qualifier(content: str) -> tuple[int, str | None] | str | None:
    """(end, kind) of a point qualifier that reads as time, a problem to report, or None."""
    quoted = _QUOTED_POINT.match(content)
    if quoted is not None:
        scanned = _quoted_value(content, quoted.end())
        if scanned is None:
            opening = quoted.group(0)
            return (
                f"unterminated quote in temporal qualifier {opening!r}; "
                f'close it, as {opening}{QUOTED_EXAMPLE}"'
            )
        point, end = scanned
        kind = quoted.group(1)
    else:
        named = _KIND_POINT.match(content)
        bare = None if named is not None else _BARE_POINT.match(content)
        if named is not None:
            point, end, kind = named.group(2), named.end(), named.group(1)
        elif bare is not None:
            point, end, kind = bare.group(1), bare.end(), None
        else:
            return None
    span = read_point(point)
    reason = None if quoted is not None else _truncation_reason(point)
    if reason is not None:
        return _truncation_problem(content, point, end, kind, reason)
    if span is None:
        if quoted is not None and (kind is None or kind in TIME_KINDS):
            return (
                f"the quoted date qualifier {content[:end]} names no fixed date, so it stays "
                "in the observation text (Basic Memory does not read it either)"
            )
        return None
    return end, kind


def _quoted_value(content: str, start: int) -> tuple[str, int] | None:
    """The value up to the closing quote (a backslash escapes the next character) and the index
    after that quote, or None when the quote never closes."""
    value: list[str] = []
    escaped = False
    for index in range(start, len(content)):
        char = content[index]
        if escaped:
            value.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            return "".join(value), index + 1
        else:
            value.append(char)
    return None


def _truncation_reason(point: str) -> str | None:
    """Why an unquoted point is too coarse to be a whole date, or None."""
    if point[0].isdigit():
        return None if len(point) >= MIN_NUMERIC_POINT else "is narrower than a year"
    if names_only_a_calendar_period(point):
        return "names only a month or a year"
    return None


def _truncation_problem(
    content: str, point: str, end: int, kind: str | None, reason: str
) -> str | None:
    """The problem for a refused point whose line goes on with a digit (a date cut short)."""
    if kind is not None and kind not in TIME_KINDS:
        return None
    rest = content[end:].lstrip()
    if not rest or not rest[0].isdigit():
        return None
    prefix = content[: end - len(point)]
    return (
        f"temporal point {content[:end]!r} {reason}; "
        f'quote the whole date to file it, as {prefix}"{QUOTED_EXAMPLE}"'
    )


# Range literals.


def reads_as_range(literal: str) -> bool:
    """Whether Basic Memory reads a range literal (`[2026-06-10,2026-07-27)`) without error."""
    match = _RANGE_LITERAL.match(literal.strip())
    if match is None:
        return False
    written = [text.strip() for text in (match.group(2), match.group(3)) if text.strip()]
    axes = {_axis(text) for text in written}
    if len(axes) != 1:
        return False
    try:
        canonical = [_canonical_bound(text, _axis(text)) for text in written]
    except Unreadable:
        return False
    return len(canonical) < 2 or canonical[0] <= canonical[1]


def _axis(bound: str) -> str:
    """`instant` for a bound shaped like a timestamp, else `date`."""
    return "instant" if _TIMESTAMP_SHAPE.match(bound) else "date"


def _canonical_bound(bound: str, axis: str) -> str:
    """A range bound in Basic Memory's canonical form; Unreadable if it is not one."""
    if axis == "date":
        if not _DATE_BOUND.match(bound):
            raise Unreadable(bound)
        try:
            return date.fromisoformat(bound).isoformat()
        except ValueError as error:
            raise Unreadable(bound) from error
    if not _INSTANT_BOUND.match(bound):
        raise Unreadable(bound)
    moment = _iso_instant(bound)
    value = None if moment is None else _instant_value(moment)
    if value is None:
        raise Unreadable(bound)
    return value


# Points.


def read_point(text: str) -> Span | None:
    """The span an authored point names, the same whatever "now" is, or None."""
    point = text.strip()
    reading = _read_point(point, PROBE_BASES[0])
    if reading is None or _read_point(point, PROBE_BASES[1]) != reading:
        return None
    return reading


def names_only_a_calendar_period(text: str) -> bool:
    """Whether the text reads as a month or a year (under any "now"), not as a specific day."""
    point = text.strip()
    readings = [_read_point(point, base) for base in PROBE_BASES]
    return all(reading is not None and reading[2] is not None for reading in readings)


def _read_point(point: str, now: datetime) -> Span | None:
    """One reading of a stripped point, with `now` standing for the present."""
    if _UNREADABLE_DIGIT_RUN.search(point):
        return None
    head = _ISO_CALENDAR_HEAD.match(point)
    if head is None:
        if _ISO_CALENDAR_OPENING.match(point):
            return None
        return _read_flexible(point, now)
    year, month, day = head.groups()
    named = _calendar_date(year, month, day)
    if named is None:
        return None
    trailing = point[head.end() :]
    if day is None:
        return None if trailing else _month_span(named.year, named.month)
    if trailing and _is_machine_time(trailing) and not _ISO_TIME_TRAILING.match(trailing):
        return None
    return _read_iso_day(named, trailing, point, now)


def _calendar_date(year: str, month: str, day: str | None) -> date | None:
    """The date ISO-shaped components name (a month on its first day), or None."""
    if len(month) > 2 or (day is not None and len(day) > 2):
        return None
    try:
        return date(int(year), int(month), 1 if day is None else int(day))
    except ValueError:
        return None


def _is_machine_time(trailing: str) -> bool:
    """Whether text after a date is written in digits and punctuation rather than words."""
    return _HUMAN_TIME_LETTER.search(trailing) is None


def _read_iso_day(day: date, trailing: str, point: str, now: datetime) -> Span | None:
    """A day from its date onward, or a moment on it (ISO time, or a worded one dateparser
    reads as a time on that very day)."""
    if not trailing:
        return ("date", day.isoformat(), None)
    if _is_machine_time(trailing):
        moment = _iso_instant(point)
    else:
        data = _date_data(point, now)
        moment = data.date_obj
        if moment is None or data.period != "time" or moment.date() != day:
            return None
    value = None if moment is None else _instant_value(moment)
    return None if value is None else ("instant", value, None)


def _read_flexible(point: str, now: datetime) -> Span | None:
    """A point in no machine syntax, read by dateparser: a moment, a year, a month or a day."""
    data = _date_data(point, now)
    moment = data.date_obj
    if moment is None:
        return None
    ordered = _ordered_numeric_date(point)
    if ordered is not False and moment.date() != ordered:
        return None
    if data.period == "time":
        value = _instant_value(moment)
        return None if value is None else ("instant", value, None)
    if data.period == "year":
        return _span(date(moment.year, 1, 1), _next_month(moment.year, 12))
    if data.period == "month":
        return _month_span(moment.year, moment.month)
    return ("date", moment.date().isoformat(), None)


def _ordered_numeric_date(point: str) -> date | Literal[False] | None:
    """The date an all-numeric `2026/03/04` or `04/03/2026` names under DATE_ORDER; False when
    the point is not that shape, None when it names no date."""
    year_first = _YEAR_FIRST_NUMERIC_DATE.match(point)
    ordered = year_first or _YEAR_LAST_NUMERIC_DATE.match(point)
    if ordered is None:
        return False
    runs = [int(ordered.group(1)), int(ordered.group(3)), int(ordered.group(4))]
    year = runs.pop(0) if year_first else runs.pop()
    first, second = runs
    month, day = (first, second) if year_first else (second, first)
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _month_span(year: int, month: int) -> Span:
    """The month as a half-open span of days."""
    return _span(date(year, month, 1), _next_month(year, month))


def _next_month(year: int, month: int) -> date | None:
    """The first day of the following month, or None after December 9999."""
    if month < 12:
        return date(year, month + 1, 1)
    return None if year == date.max.year else date(year + 1, 1, 1)


def _span(lower: date, upper: date | None) -> Span:
    """A span of days from `lower` up to (not including) `upper`."""
    return ("date", lower.isoformat(), None if upper is None else upper.isoformat())


def _iso_instant(text: str) -> datetime | None:
    """A moment from ISO machine syntax, or None (an offset with 60+ minutes is none)."""
    if _OVERFLOWING_OFFSET_MINUTES.search(text):
        return None
    try:
        return datetime.fromisoformat(text.upper())
    except ValueError:
        return None


def _instant_value(moment: datetime) -> str | None:
    """The canonical UTC spelling of a moment (naive means UTC), or None off the calendar."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        utc = moment.astimezone(UTC)
    except OverflowError:
        return None
    value = utc.strftime("%Y-%m-%dT%H:%M:%S.%f") + "Z"
    return value if _CANONICAL_INSTANT.match(value) else None


def _date_data(point: str, now: datetime) -> Any:
    """dateparser's reading of `point` with `now` as the present, as Basic Memory asks for it;
    _OverBudget past the note's budget (charged whether or not the reading is cached, so a
    note reads the same in any process)."""
    budget = _BUDGET.get()
    if budget is not None and not budget.admit(point):
        raise _OverBudget
    return _read_by_dateparser(point, now)


@lru_cache(maxsize=4096)
def _read_by_dateparser(point: str, now: datetime) -> Any:
    """dateparser's reading, remembered for the points read most recently.

    dateparser is imported on first use: it costs about 60 ms to import and 1 s to load its
    language data, which only a note holding a free-form qualifier should pay for.
    """
    return _parser(now).get_date_data(point)


@lru_cache(maxsize=4)
def _parser(now: datetime) -> Any:
    """One dateparser reader per stand-in for "now"."""
    from dateparser.date import DateDataParser

    return DateDataParser(
        settings={"DATE_ORDER": DATE_ORDER, "RETURN_TIME_AS_PERIOD": True, "RELATIVE_BASE": now}
    )
