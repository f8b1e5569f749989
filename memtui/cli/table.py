"""Event tables for `memtui log` and `memtui changes`: fitted to the terminal, never padded.

On a terminal (or with COLUMNS) the table fits the width: fixed columns stay whole, the actor
is cut first down to a minimum, then the text columns: the path keeps all it needs while the
later ones (result, reviewer) keep a little, and is cut in the middle (its file name stays);
the later ones are cut at their end. Piped without COLUMNS nothing is cut. Every cell is plain
text made display-safe by the caller.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from memtui.cli.terminal import console
from memtui.tui.wording import shorten_middle

MIN_TEXT_ROOM = 20
"""The text columns together get at least this many columns (or what they need, if less); the
actor is cut first."""
MIN_ACTOR = 8
MIN_LATER_TEXT = 16
"""Each text column after the path keeps this many columns (or what it needs, if less) before
the path is cut."""
UNLIMITED = 100_000
"""The width a table is laid out in when nothing limits it (piped without COLUMNS)."""
WIDE = 120
"""From this width on, times show the date and seconds in full."""
_TRAILING_BLANKS = re.compile(r" +((?:\x1b\[[0-9;]*m)*)$")


def output_width() -> int | None:
    """The width to fit: COLUMNS if set, else the terminal's; None when piped without COLUMNS."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return None


def time_format(width: int | None) -> str:
    """The strftime format of the time column for a table `width` wide."""
    return "%Y-%m-%d %H:%M:%S" if width is None or width >= WIDE else "%m-%d %H:%M"


@dataclass(frozen=True)
class Layout:
    """A table's columns: headers, which one is the actor, which hold free text (cut last; the
    first is a path, cut after the others and in the middle)."""

    headers: tuple[str, ...]
    actor: int
    texts: tuple[int, ...]


def fit_widths(layout: Layout, widths: list[int], room: int) -> None:
    """Cut the text columns (and the actor if need be) so the widths sum to `room`."""
    actor = layout.actor
    fixed = sum(w for i, w in enumerate(widths) if i != actor and i not in layout.texts)
    free = room - fixed - widths[actor]
    need = min(MIN_TEXT_ROOM, sum(widths[i] for i in layout.texts))
    if free < need:
        widths[actor] = max(MIN_ACTOR, widths[actor] - (need - free))
        free = max(room - fixed - widths[actor], need)
    first, *rest = layout.texts
    others = sum(widths[i] for i in rest)
    if widths[first] + others <= free:
        return
    kept = sum(min(widths[i], MIN_LATER_TEXT) for i in rest)
    widths[first] = min(widths[first], max(free * 3 // 5, free - kept))
    left = free - widths[first]
    for index in rest:
        widths[index] = max(min(widths[index], left), 1)
        left -= widths[index]


def print_table(
    layout: Layout, rows: Sequence[tuple[str, ...]], styles: Sequence[str], width: int | None
) -> None:
    """Print `rows` (one style each, "" for none) under `layout` fitted to `width`, with no line
    padded with blanks."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    headers = layout.headers
    widths = [max([len(h)] + [len(row[i]) for row in rows]) for i, h in enumerate(headers)]
    if width is not None:
        fit_widths(layout, widths, width - 3 * (len(headers) - 1))
        path = layout.texts[0]
        rows = [
            (*row[:path], shorten_middle(row[path], widths[path]), *row[path + 1 :]) for row in rows
        ]
    table = Table(header_style="bold", box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    for header, column_width in zip(headers, widths, strict=True):
        table.add_column(header, no_wrap=True, overflow="ellipsis", width=column_width)
    for row, style in zip(rows, styles, strict=True):
        table.add_row(*map(Text, row), style=style)
    out = console(width=width or UNLIMITED, highlight=False)
    with out.capture() as captured:
        out.print(table)
    lines = (_TRAILING_BLANKS.sub(r"\1", line) for line in captured.get().splitlines())
    sys.stdout.write("".join(line + "\n" for line in lines if line.strip(" ")))
