"""A read-only text view whose rows are laid out in a thread and drawn only where they show."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events, work
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import get_current_worker

from memtui.tui.text_layout import Rows, ShownText, lay_out
from memtui.tui.typed_app import memtui_app


@dataclass(frozen=True)
class Position:
    """Where a reader is in a text, by line, so it survives a new layout or new text."""

    cursor_line: int
    top_line: int
    rows_into_top_line: int


class TextView(ScrollView, can_focus=True):
    """Display-safe, wrapped, optionally syntax-coloured text with a line cursor.

    `show` takes text already laid out (`text_layout.lay_out`, run off the UI thread), so showing
    a MiB costs the UI thread nothing but the rows on screen; a new width is laid out in a thread
    too, the old rows staying on screen meanwhile.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {"text-view--cursor-line"}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", "Up", show=False, id="text.up"),
        Binding("down,j", "move(1)", "Down", show=False, id="text.down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="text.page_up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="text.page_down"),
        Binding("home", "edge(-1)", "Top", show=False, id="text.home"),
        Binding("end", "edge(1)", "Bottom", show=False, id="text.end"),
    ]

    @dataclass
    class LaidOut(Message):
        """Rows of `shown` laid out for a new width in a thread."""

        shown: ShownText
        rows: Rows

    def __init__(self, *, id: str | None = None) -> None:
        """An empty view."""
        super().__init__(id=id)
        self.shown: ShownText | None = None
        self.rows: Rows | None = None
        self.cursor_row = 0
        self.marked_line: int | None = None
        """A line shown highlighted even while the view has no focus (a search hit's line)."""

    @property
    def text(self) -> str:
        """The text shown, as it was read."""
        return self.shown.source if self.shown is not None else ""

    @property
    def cursor_line(self) -> int:
        """The 0-based line under the cursor."""
        return self.rows.line_of(self.cursor_row) if self.rows is not None else 0

    @property
    def wrap_width(self) -> int:
        """The width rows are laid out for: the view's width inside its scrollbar gutter."""
        return max(1, self.scrollable_content_region.width)

    def position(self) -> Position:
        """Where the reader is now."""
        rows = self.rows
        if rows is None or not rows.rows:
            return Position(0, 0, 0)
        top_row = min(int(self.scroll_y), len(rows.rows) - 1)
        top_line = rows.line_of(top_row)
        return Position(self.cursor_line, top_line, top_row - rows.first_row[top_line])

    def show(
        self,
        shown: ShownText,
        rows: Rows,
        *,
        line: int | None = None,
        keep: Position | None = None,
    ) -> None:
        """Show `shown` laid out as `rows`: the cursor on 0-based `line` (centred), at `keep`,
        or at the top."""
        self.shown, self.rows = shown, rows
        self.marked_line = line
        self.virtual_size = Size(rows.width, len(rows.rows))
        if keep is not None:
            self._restore(keep)
        elif line is not None:
            self.cursor_row = self._first_row(line)
            self._scroll_cursor(center=True)
            self.call_after_refresh(self._scroll_cursor, center=True)
        else:
            self.cursor_row = 0
            self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh()
        if rows.width != self.wrap_width and self.size.width:
            self.relayout()

    def go_to_line(self, line: int) -> None:
        """Put the cursor on 0-based `line`, centred and marked."""
        if self.rows is None:
            return
        self.marked_line = line
        self.cursor_row = self._first_row(line)
        self._scroll_cursor(center=True)
        self.call_after_refresh(self._scroll_cursor, center=True)
        self.refresh()

    def _first_row(self, line: int) -> int:
        """The first row of 0-based `line` (the last line's when past the end)."""
        assert self.rows is not None
        if not self.rows.first_row:
            return 0
        return self.rows.first_row[max(0, min(line, len(self.rows.first_row) - 1))]

    def _restore(self, keep: Position) -> None:
        """Put the cursor and the top of the view back on the lines of `keep`."""
        self.cursor_row = self._first_row(keep.cursor_line)
        top = self._first_row(keep.top_line) + keep.rows_into_top_line
        self.scroll_to(0, top, animate=False, immediate=True)
        self.call_after_refresh(self.scroll_to, 0, top, animate=False, immediate=True)

    def _scroll_cursor(self, *, center: bool = False) -> None:
        """Scroll so the cursor row shows (in the middle when `center`)."""
        height = max(1, self.scrollable_content_region.height)
        top = int(self.scroll_y)
        row = self.cursor_row
        if center:
            top = row - height // 2
        elif row < top:
            top = row
        elif row >= top + height:
            top = row - height + 1
        self.scroll_to(0, max(0, top), animate=False, immediate=True)

    def on_resize(self, event: events.Resize) -> None:
        """Lay the text out again when the width changed."""
        if self.rows is not None and self.rows.width != self.wrap_width:
            self.relayout()

    @work(thread=True, exclusive=True, group="text-view-layout", exit_on_error=False)
    def relayout(self) -> None:
        """Lay the shown text out for the current width in a thread."""
        shown, width = self.shown, self.wrap_width
        if shown is None:
            return
        rows = lay_out(shown, width, interaction=memtui_app(self).ctx.interaction)
        if not get_current_worker().is_cancelled:
            self.post_message(self.LaidOut(shown, rows))

    def on_text_view_laid_out(self, message: LaidOut) -> None:
        """Install new rows if they are for the text still shown, keeping the reader's place."""
        message.stop()
        if message.shown is not self.shown:
            return
        keep = self.position()
        self.rows = message.rows
        self.virtual_size = Size(message.rows.width, len(message.rows.rows))
        self._restore(keep)
        self.refresh()

    def render_line(self, y: int) -> Strip:
        """One row: its slice of a line, styled by syntax, the cursor line highlighted."""
        width = self.size.width
        base = self.rich_style
        rows, shown = self.rows, self.shown
        row = int(self.scroll_y) + y
        if rows is None or shown is None or row >= len(rows.rows):
            return Strip.blank(width, base)
        line, start, end = rows.rows[row]
        if (line == self.cursor_line and self.has_focus) or line == self.marked_line:
            base += self.get_component_rich_style("text-view--cursor-line")
        segments = self._segments(shown, line, start, end, base)
        return Strip(segments).extend_cell_length(width, base).crop(0, width)

    def _segments(
        self, shown: ShownText, line: int, start: int, end: int, base: Style
    ) -> list[Segment]:
        """The segments of characters `start:end` of `line`, each span in its style."""
        text = shown.lines[line]
        parse = self.app.stylesheet.parse_style
        segments: list[Segment] = []
        position = start
        for span_start, span_end, style in shown.spans.get(line, ()):
            if span_end <= position or span_start >= end:
                continue
            first = max(span_start, position)
            if first > position:
                segments.append(Segment(text[position:first], base))
            last = min(span_end, end)
            segments.append(Segment(text[first:last], base + parse(style).rich_style))
            position = last
        if position < end:
            segments.append(Segment(text[position:end], base))
        return segments

    def on_focus(self) -> None:
        """Show the cursor line."""
        self.refresh()

    def on_blur(self) -> None:
        """Hide the cursor line."""
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        """Put the cursor on the clicked row."""
        if self.rows is not None and self.rows.rows:
            self.cursor_row = min(int(self.scroll_y) + event.y, len(self.rows.rows) - 1)
            self.refresh()

    def action_move(self, rows: int) -> None:
        """Move the cursor by `rows` rows."""
        self._move_to(self.cursor_row + rows)

    def action_page(self, pages: int) -> None:
        """Move the cursor by `pages` screens."""
        self._move_to(self.cursor_row + pages * max(1, self.scrollable_content_region.height - 1))

    def action_edge(self, direction: int) -> None:
        """Move the cursor to the first row (-1) or the last (1)."""
        self._move_to(0 if direction < 0 else 1 << 62)

    def _move_to(self, row: int) -> None:
        """Put the cursor on `row` (clamped) and keep it in view."""
        if self.rows is None or not self.rows.rows:
            return
        self.cursor_row = max(0, min(row, len(self.rows.rows) - 1))
        self.marked_line = None
        self._scroll_cursor()
        self.refresh()
