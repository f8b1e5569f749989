"""Timeframes as Basic Memory's tools take them: `7d`, `24h`, `2 weeks`, `1 month`, `1y`, `today`.

Also seconds (`45s`) and decimals (`1.5d`, `0.5h`). `today` and `yesterday` start at local
midnight; months and years are whole calendar months and years (`1 month` on 31 March starts on
28 or 29 February); an `ago` after the span is allowed.
"""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta

_SPAN = re.compile(r"(\d+(?:\.\d+)?) ?([a-z]+)(?: ago)?")
_UNIT_NAMES = {
    "second": ("s", "sec", "secs", "second", "seconds"),
    "minute": ("m", "min", "mins", "minute", "minutes"),
    "hour": ("h", "hr", "hrs", "hour", "hours"),
    "day": ("d", "day", "days"),
    "week": ("w", "wk", "wks", "week", "weeks"),
    "month": ("mo", "mon", "mons", "month", "months"),
    "year": ("y", "yr", "yrs", "year", "years"),
}
_UNITS = {name: unit for unit, names in _UNIT_NAMES.items() for name in names}
_SECONDS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 7 * 86400}
_YEAR_ONE = datetime(1, 1, 1, tzinfo=UTC).timestamp()
EXAMPLES = "30m, 24h, 7d, 2 weeks, 1 month, 1y, today or yesterday"
"""The forms named in error messages."""
WHEN_EXAMPLES = (
    "7d, 12h, 30m, 2 weeks, 1 month, 1y, today, yesterday or an ISO date like 2026-11-01T09:30"
)
"""The forms `parse_when` takes, as error messages name them."""


def _months_back(moment: datetime, months: int) -> datetime:
    """The same local time `months` calendar months earlier (the 31st becomes a shorter month's
    end)."""
    total = moment.year * 12 + moment.month - 1 - months
    year, month = divmod(total, 12)
    if year < 1:
        raise ValueError("reaches back before the year 1")
    import calendar

    day = min(moment.day, calendar.monthrange(year, month + 1)[1])
    return moment.replace(year=year, month=month + 1, day=day)


def parse_timeframe(timeframe: str, now: float | None = None) -> float:
    """The unix time a timeframe starts; `ValueError` with a one-line message for anything else."""
    now = time.time() if now is None else now
    spec = " ".join(timeframe.lower().split())
    if spec in ("today", "yesterday"):
        midnight = datetime.fromtimestamp(now).replace(hour=0, minute=0, second=0, microsecond=0)
        return (midnight - timedelta(days=1 if spec == "yesterday" else 0)).timestamp()
    match = _SPAN.fullmatch(spec)
    unit = _UNITS.get(match.group(2)) if match is not None else None
    if match is None or unit is None:
        raise ValueError(f"unknown timeframe {timeframe!r}: use e.g. {EXAMPLES}")
    number = match.group(1)
    if unit in _SECONDS:
        start = now - float(number) * _SECONDS[unit]
        if not start >= _YEAR_ONE:
            raise ValueError(f"timeframe {timeframe!r} reaches back before the year 1")
        return start
    if "." in number:
        raise ValueError(
            f"timeframe {timeframe!r}: months and years are whole numbers (use e.g. 6w or 45d)"
        )
    try:
        months = int(number) * (12 if unit == "year" else 1)
        return _months_back(datetime.fromtimestamp(now), months).timestamp()
    except (ValueError, OverflowError):
        raise ValueError(f"timeframe {timeframe!r} reaches back before the year 1") from None


def parse_when(value: str, now: float | None = None) -> float:
    """The unix time a timeframe starts (`7d` ago) or of an ISO date or date and time.

    The one reading of "since when" for `memtui log --since`, `memtui changes --since` and the
    history and inbox filters' `since:`. Raises ValueError with a one-line message.
    """
    try:
        return parse_timeframe(value, now)
    except ValueError:
        pass
    try:
        return datetime.fromisoformat(value.strip()).timestamp()
    except (ValueError, OverflowError, OSError):
        raise ValueError(f"{value!r} is not a time: use {WHEN_EXAMPLES}") from None
