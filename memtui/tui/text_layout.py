"""Text laid out in rows for a width, with syntax styles: built in a thread, drawn a row at a time.

The plain, raw and code views of the preview show up to a MiB of text. Laying it out (safe
characters, tabs, syntax, wrapping) is done here, off the UI thread, so the widget that draws it
(`TextView`) only slices the rows on screen, and no file can hold up a key.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from rich.cells import get_character_cell_size

from memtui.core.display import visible_text
from memtui.tui.text_styles import syntax_style

if TYPE_CHECKING:
    from pygments.lexer import Lexer

    from memtui.notes.bulk import InteractionSignal, Pacer

TAB_SIZE = 8
HIGHLIGHT_MAX_BYTES = 256 * 1024
"""Files bigger than this are shown without syntax colours (lexing a MiB takes up to a second)."""
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
SAFE_PIECE = 64 * 1024
"""Characters made display-safe in one call before a background layout may rest."""
PLAIN_LEXERS = frozenset({"text", "output"})
"""Pygments lexers that add nothing to plain text."""

Span = tuple[int, int, str]
"""(start, end, style) of a part of one line."""


@dataclass(frozen=True)
class ShownText:
    """A text as shown: display-safe lines with tabs expanded, and each line's style spans."""

    source: str
    """The text as read (what the view stands for, before it was made safe to show)."""
    lines: list[str]
    spans: dict[int, tuple[Span, ...]] = field(default_factory=dict)
    """Line index -> its style spans (lines without styles are left out)."""


@dataclass(frozen=True)
class Rows:
    """The rows of a `ShownText` wrapped to `width` cells: (line, start, end) each."""

    width: int
    rows: list[tuple[int, int, int]]
    first_row: list[int]
    """Line index -> the index of its first row."""

    def line_of(self, row: int) -> int:
        """The line a row belongs to."""
        if not self.rows:
            return 0
        return self.rows[max(0, min(row, len(self.rows) - 1))][0]


def is_markdown(relpath: str) -> bool:
    """Whether a file is rendered as Markdown (by its extension)."""
    return PurePosixPath(relpath).suffix.lower() in MARKDOWN_SUFFIXES


@cache
def _lexer_for_suffix(name: str) -> Lexer | None:
    """The Pygments lexer for a file name's kind, or None for plain text (cached by suffix)."""
    from pygments.lexers import get_lexer_for_filename  # imported on first use: start-up
    from pygments.util import ClassNotFound  # imported on first use: start-up

    try:
        lexer = get_lexer_for_filename(name)
    except ClassNotFound:
        return None
    return None if set(lexer.aliases) & PLAIN_LEXERS else lexer


def lexer_for(relpath: str) -> Lexer | None:
    """The syntax lexer for a file (`.json`, `.xml`, `.yaml`, `.toml`, code), or None for plain
    text, Markdown and unknown kinds."""
    suffix = PurePosixPath(relpath).suffix.lower()
    if not suffix or suffix in MARKDOWN_SUFFIXES:
        return None
    return _lexer_for_suffix(f"file{suffix}")


def shown_text(
    text: str, lexer: Lexer | None = None, *, interaction: InteractionSignal | None = None
) -> ShownText:
    """`text` as display-safe lines (control characters as symbols, CRLF ends dropped, tabs
    expanded), styled by `lexer` when it is given and the text is not too big for it; in a
    thread it rests now and then, more while `interaction` says the app is in use."""
    from memtui.notes.bulk import Pacer  # imported on first use: start-up

    pace = Pacer(interaction)
    lines = _safe_in_pieces(text.replace("\r\n", "\n"), pace).split("\n")
    if "\t" in text:
        lines = [line.expandtabs(TAB_SIZE) if "\t" in line else line for line in lines]
    if lexer is None or len(text) > HIGHLIGHT_MAX_BYTES:
        return ShownText(text, lines)
    return ShownText(text, lines, syntax_spans(lines, lexer, pace))


def _safe_in_pieces(text: str, pace: Pacer) -> str:
    """`visible_text(text)`, a piece at a time with rests between (in a thread), so a MiB of
    control characters never holds the interpreter for long in one call."""
    if len(text) <= SAFE_PIECE:
        return visible_text(text)
    pieces = []
    for start in range(0, len(text), SAFE_PIECE):
        pieces.append(visible_text(text[start : start + SAFE_PIECE]))
        pace()
    return "".join(pieces)


def syntax_spans(
    lines: list[str], lexer: Lexer, pace: Pacer | None = None
) -> dict[int, tuple[Span, ...]]:
    """The style spans of each line, from `lexer`'s tokens over the joined lines."""
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    from memtui.notes.bulk import Pacer  # imported on first use: start-up

    pace = pace or Pacer()
    spans: dict[int, list[Span]] = {}
    for index, token_type, value in lexer.get_tokens_unprocessed("\n".join(lines)):
        style = syntax_style(token_type)
        if style and value:
            _add_token(spans, starts, lines, (index, index + len(value), style))
        pace()
    return {line: tuple(found) for line, found in spans.items()}


def _add_token(
    spans: dict[int, list[Span]], starts: list[int], lines: list[str], token: Span
) -> None:
    """Add one token's span to each line it covers (a token may hold newlines)."""
    start, end, style = token
    line = bisect.bisect_right(starts, start) - 1
    while line < len(lines) and starts[line] < end:
        line_start = starts[line]
        first = max(start, line_start) - line_start
        last = min(end, line_start + len(lines[line])) - line_start
        if last > first:
            spans.setdefault(line, []).append((first, last, style))
        line += 1


def lay_out(shown: ShownText, width: int, *, interaction: InteractionSignal | None = None) -> Rows:
    """The rows of `shown` wrapped at `width` cells (words kept whole where they fit); in a
    thread it rests now and then so the UI thread answers keys meanwhile (more while
    `interaction` says the app is in use)."""
    from memtui.notes.bulk import Pacer  # imported on first use: start-up

    rows: list[tuple[int, int, int]] = []
    first_row: list[int] = []
    pace = Pacer(interaction)
    for number, line in enumerate(shown.lines):
        first_row.append(len(rows))
        if len(line) <= width and line.isascii():
            rows.append((number, 0, len(line)))
        else:
            rows.extend((number, start, end) for start, end in wrap_line(line, width, pace))
        pace()
    return Rows(width, rows, first_row)


def wrap_line(
    line: str, width: int, pace: Callable[[], None] = lambda: None
) -> list[tuple[int, int]]:
    """(start, end) of each row of one line wrapped at `width` cells; an empty line is one row.
    `pace` is called now and then on a long line (a background loop's rest)."""
    if width <= 0 or (len(line) <= width and line.isascii()):
        return [(0, len(line))]
    widths = {char: get_character_cell_size(char) for char in set(line)}
    if all(cells == 1 for cells in widths.values()):
        return _wrap_single_cells(line, width, pace)
    return _wrap_cells(line, width, widths, pace)


def _wrap_single_cells(line: str, width: int, pace: Callable[[], None]) -> list[tuple[int, int]]:
    """Wrap a line whose every character takes one cell: break after the last space that fits,
    else at the width."""
    rows: list[tuple[int, int]] = []
    start = 0
    while len(line) - start > width:
        space = line.rfind(" ", start + 1, start + width + 1)
        end = space + 1 if space > start else start + width
        rows.append((start, end))
        start = end
        pace()
    rows.append((start, len(line)))
    return rows


def _wrap_cells(
    line: str, width: int, widths: dict[str, int], pace: Callable[[], None]
) -> list[tuple[int, int]]:
    """Wrap a line holding wide or zero-width characters, counting each character's cells."""
    rows: list[tuple[int, int]] = []
    start = 0
    used = 0
    space = -1
    for position, char in enumerate(line):
        cells = widths[char]
        if used + cells > width and position > start:
            end = space + 1 if space >= start else position
            rows.append((start, end))
            used = sum(widths[c] for c in line[end:position])
            start = end
            space = -1
            pace()
        used += cells
        if char == " ":
            space = position
    rows.append((start, len(line)))
    return rows
