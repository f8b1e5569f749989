"""The review queue's table: one row per proposed file (mark, score, path, reasons), its path and
reasons columns fitted to the width, long paths shortened in the middle."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from textual.content import Content

from memtui.core.display import visible
from memtui.tui import text_styles as styles
from memtui.tui.widgets.fitted_table import Column, FittedTable, spare_width
from memtui.tui.wording import shorten_end, shorten_middle

if TYPE_CHECKING:
    from memtui.notes.stale import StaleCandidate

SCORE_WIDTH = 5
MIN_TEXT_WIDTH = 20
COLUMNS: tuple[Column, ...] = (
    (" ", "sel", 1),
    ("Score", "score", SCORE_WIDTH),
    ("Path", "path", MIN_TEXT_WIDTH),
    ("Reasons", "reasons", MIN_TEXT_WIDTH),
)


def reasons_summary(candidate: StaleCandidate, limit: int = 60) -> str:
    """The reasons of a candidate in one short line, heaviest first."""
    texts = [r.text for r in sorted(candidate.reasons, key=lambda r: (-r.weight, r.text))]
    return shorten_end("; ".join(texts), limit)


def column_widths(width: int, longest_path: int, padding: int = 1) -> dict[str, int]:
    """Each column's width in a table `width` cells wide: the path column as wide as the longest
    path up to half of what the mark and score leave, the reasons the rest."""
    room = max(2 * MIN_TEXT_WIDTH, spare_width(COLUMNS, width, padding) + 2 * MIN_TEXT_WIDTH)
    path = max(MIN_TEXT_WIDTH, min(longest_path, room // 2))
    return {"sel": 1, "score": SCORE_WIDTH, "path": path, "reasons": room - path}


class ReviewTable(FittedTable):
    """Proposed files, highest score first; `show` touches only the rows that changed."""

    COLUMNS = COLUMNS

    def __init__(self, mark: Callable[[str], Content], *, id: str | None = None) -> None:
        """An empty table whose selection column shows `mark(path)`."""
        super().__init__(id=id)
        self.mark = mark
        self.longest_path = 0
        self.candidates: Sequence[StaleCandidate] = ()
        self._cells: dict[str, tuple[str, str, str]] = {}

    def widths_for(self, width: int) -> dict[str, int]:
        """The columns' widths for a table `width` cells wide (see `column_widths`)."""
        return column_widths(width, self.longest_path, self.cell_padding)

    def refill(self) -> None:
        """Add every row again (the columns were laid out anew)."""
        self._cells.clear()
        self.show(self.candidates)

    def fit(self, candidates: Sequence[StaleCandidate]) -> None:
        """Lay the columns out again when the longest path of `candidates` asks for it."""
        self.longest_path = max((len(visible(c.path)) for c in candidates), default=0)
        self.candidates = candidates
        self.on_resize()

    def show(self, candidates: Sequence[StaleCandidate]) -> None:
        """Make the rows match `candidates` (all rows again when the order changed), keeping the
        cursor on its file."""
        selected = self.selected_key()
        self.candidates = candidates
        order = [c.path for c in candidates]
        shown = self.shown_keys()
        if shown != order[: len(shown)]:
            self.clear()
            self._cells.clear()
        widths = self.widths or self.widths_for(self.size.width)
        for candidate in candidates:
            cells = (
                f"{candidate.score:.2f}",
                shorten_middle(visible(candidate.path), widths["path"]),
                reasons_summary(candidate, widths["reasons"]),
            )
            old = self._cells.get(candidate.path)
            if old is None:
                self.add_row(
                    self.mark(candidate.path),
                    *(styles.plain(cell) for cell in cells),
                    key=candidate.path,
                )
            elif old != cells:
                for column, cell, was in zip(("score", "path", "reasons"), cells, old, strict=True):
                    if cell != was:
                        self.update_cell(candidate.path, column, styles.plain(cell))
            self._cells[candidate.path] = cells
        self.keep_cursor_on(selected, shown)

    def refresh_marks(self) -> None:
        """Redraw the selection column."""
        for key in self.rows:
            self.update_cell(key, "sel", self.mark(str(key.value)))
