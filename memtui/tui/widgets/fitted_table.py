"""A row-cursor table whose columns are laid out again for its width, keeping rows and cursor."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import DataTable

Column = tuple[str, str, int]
"""(label, key, smallest width) of a column."""
SCROLLBAR = 2
"""Cells a table keeps for its vertical scrollbar."""


def spare_width(columns: tuple[Column, ...], width: int, padding: int) -> int:
    """The cells a table `width` wide has beyond its columns' smallest widths and padding."""
    smallest = sum(least for _label, _key, least in columns)
    return width - smallest - 2 * padding * len(columns) - SCROLLBAR


class FittedTable(DataTable[Text | Content | str]):
    """A table with a row cursor and zebra stripes whose `COLUMNS` get `widths_for(width)`;
    a resize lays them out again, adds the rows back (`refill`) and keeps the cursor's row;
    j and k move like Down and Up."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False, id="table.down"),
        Binding("k", "cursor_up", "Up", show=False, id="table.up"),
    ]
    COLUMNS: ClassVar[tuple[Column, ...]] = ()

    def widths_for(self, width: int) -> dict[str, int]:
        """Each column's width in a table `width` cells wide (by default the smallest ones)."""
        return {key: smallest for _label, key, smallest in self.COLUMNS}

    def refill(self) -> None:
        """Add every row again after the columns were laid out anew."""

    def on_mount(self) -> None:
        """Set up the row cursor and the columns."""
        self.cursor_type = "row"
        self.zebra_stripes = True
        self.widths = self.widths_for(self.size.width)
        self._add_columns()

    def _add_columns(self) -> None:
        """Add the columns at their current widths."""
        for label, key, _smallest in self.COLUMNS:
            self.add_column(label, key=key, width=self.widths[key])

    def on_resize(self) -> None:
        """Lay the columns out again for the new width, keeping the rows and the cursor."""
        widths = self.widths_for(self.size.width)
        if widths == self.widths:
            return
        self.widths = widths
        selected = self.selected_key()
        self.clear(columns=True)
        self._add_columns()
        self.refill()
        self.keep_cursor_on(selected)

    def selected_key(self) -> str | None:
        """The key of the row under the cursor."""
        if self.row_count == 0:
            return None
        try:
            key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        except Exception:
            return None
        return None if key.value is None else str(key.value)

    def shown_keys(self) -> list[str]:
        """The keys of the rows shown, top to bottom."""
        return [str(row.key.value) for row in self.ordered_rows]

    def keep_cursor_on(self, key: str | None, before: Sequence[str] = ()) -> None:
        """Put the cursor back on the row `key` if it is still shown; when it is gone (approved,
        archived, undone), on the row that followed it in `before` (the keys shown until now),
        else on the last row, so the cursor goes on down the list rather than back to the top."""
        if key is None:
            return
        if key not in self.rows:
            following = before[before.index(key) + 1 :] if key in before else ()
            key = next((k for k in following if k in self.rows), None)
            if key is None:
                if self.row_count:
                    self.move_cursor(row=self.row_count - 1, animate=False)
                return
        self.move_cursor(row=self.get_row_index(key), animate=False)
