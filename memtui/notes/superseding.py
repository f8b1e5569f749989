"""Taking an older, contradicted statement out of a file: the line removed, or marked superseded.

Both work on the file's text as it is now and find the line by its text: at its old number if it
is still there, else at its only place in the file; a line that is gone or now appears twice
raises `LineMoved`, so a change made meanwhile is never overwritten by guesswork. The rest of
the text is kept byte for byte (line ends, a missing final newline).

Marking follows the line's kind. A Basic Memory observation gets a validity range ending on the
day it was superseded, in Basic Memory's own temporal syntax (`- [preference] @valid[,2026-07-27)
Prefers tabs`, or `@valid[2024-01-05,2026-07-27)` when the observation had a start date), so Basic
Memory and memtui both read it as no longer valid and its text, tags and context are untouched.
Any other line gets ` (superseded 2026-07-27)` at its end.
"""

from __future__ import annotations

import re

from memtui.notes.temporal import scan_qualifier

_OBSERVATION = re.compile(r"^(\s*(?:[-*+]|\d{1,3}[.)])\s+\[[^\[\]()]+\]\s+)(.*)$", re.DOTALL)
_RANGE = re.compile(r"^@[A-Za-z_]*\[([^,\[\]()]*),[^,\[\]()]*[\])]$")
_POINT = re.compile(r"^@(?:[A-Za-z_]+:)?(\d{4}-\d{2}-\d{2})$")
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class LineMoved(ValueError):
    """The statement to change is not in the file any more, or is in it more than once."""


def _split(text: str) -> list[str]:
    """The lines of a text, `\\r` kept on each (so joining with `\\n` gives the text back)."""
    return text.split("\n")


def _same(line: str, expected: str) -> bool:
    """Whether a line of the file is the expected statement (a `\\r` end ignored)."""
    return line.removesuffix("\r") == expected.removesuffix("\r")


def find_line(text: str, line: int, expected: str) -> int:
    """The 0-based index of the statement `expected`: at 1-based `line` if it is still there,
    else its only place in the text; raises LineMoved otherwise."""
    lines = _split(text)
    if 1 <= line <= len(lines) and _same(lines[line - 1], expected):
        return line - 1
    places = [i for i, candidate in enumerate(lines) if _same(candidate, expected)]
    if len(places) == 1:
        return places[0]
    where = "is no longer in the file" if not places else "is in the file more than once"
    raise LineMoved(f"the line {expected.strip()!r} {where}")


def remove_line(text: str, line: int, expected: str) -> str:
    """The text without the statement `expected` (found by `find_line`)."""
    lines = _split(text)
    del lines[find_line(text, line, expected)]
    return "\n".join(lines)


def mark_superseded(text: str, line: int, expected: str, day: str) -> str:
    """The text with the statement `expected` marked superseded on `day` (`YYYY-MM-DD`)."""
    if not _DAY.match(day):
        raise ValueError(f"a day is written YYYY-MM-DD, not {day!r}")
    lines = _split(text)
    at = find_line(text, line, expected)
    body, end = (lines[at][:-1], "\r") if lines[at].endswith("\r") else (lines[at], "")
    lines[at] = marked(body, day) + end
    return "\n".join(lines)


def marked(line: str, day: str) -> str:
    """One line marked superseded on `day`: a validity range for an observation, else a note."""
    observation = _OBSERVATION.match(line)
    if observation is not None:
        head, rest = observation.groups()
        content = scan_qualifier(rest).content
        qualifier = rest[: len(rest) - len(content)].strip()
        start = _start(qualifier) if qualifier else ""
        if start is not None:
            return f"{head}@valid[{start},{day}) {content}"
    return f"{line.rstrip()} (superseded {day})"


def _start(qualifier: str) -> str | None:
    """Where an observation's validity began, from its qualifier (`@2024-01-05`,
    `@effective:2024-01-05`, `@valid[2024-01-05,)`); None when the qualifier says otherwise."""
    bounded = _RANGE.match(qualifier)
    if bounded is not None:
        return bounded.group(1).strip()
    point = _POINT.match(qualifier)
    return point.group(1) if point is not None else None
