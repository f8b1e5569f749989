"""The first line of a recorded result, as one table cell shows it: a name stays whole.

A result names the paths it concerns (`/memories/new\nline.md was deleted outside memtui`), and a
file name may hold a line break; cutting at the first break would show `/memories/new`. The cell
is cut at the first break outside those names, and then shown escaped (`display.visible`).
"""

from __future__ import annotations

from collections.abc import Iterable


def first_line(text: str, names: Iterable[str | None] = ()) -> str:
    """`text` up to its first line break that is not inside one of `names` (an event's paths)."""
    kept: list[tuple[int, int]] = []
    for name in names:
        if not name or "\n" not in name:
            continue
        start = text.find(name)
        while start >= 0:
            kept.append((start, start + len(name)))
            start = text.find(name, start + 1)
    position = text.find("\n")
    while position >= 0:
        inside = [end for start, end in kept if start <= position < end]
        if not inside:
            return text[:position]
        position = text.find("\n", max(inside))
    return text
