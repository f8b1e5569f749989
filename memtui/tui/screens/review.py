"""The review screen: the stale queue with reasons; select notes, then archive or delete them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Footer, Static

from memtui.tui.screens.base import StoreScreen

if TYPE_CHECKING:
    from memtui.notes.stale import StaleCandidate

ARCHIVE_FOLDER = "archive"
PROGRESS_THRESHOLD = 5
SELECTED_MARK = "●"


def reasons_summary(candidate: StaleCandidate, limit: int = 60) -> str:
    """The reasons of a candidate in one short line, heaviest first."""
    texts = [r.text for r in sorted(candidate.reasons, key=lambda r: (-r.weight, r.text))]
    line = "; ".join(texts)
    return line if len(line) <= limit else line[: limit - 1] + "…"


def archive_path(relpath: str) -> str:
    """Where a note is archived: `archive/<same relative path>`."""
    return f"{ARCHIVE_FOLDER}/{relpath}"


class ReviewScreen(StoreScreen):
    """Stale notes with their reasons; `space` selects, `d` deletes, `A` archives (confirmed)."""

    DEFAULT_CSS = """
    ReviewScreen #review-title { height: 1; padding: 0 1; background: $panel; }
    ReviewScreen DataTable { height: 1fr; }
    ReviewScreen #review-detail-scroll { height: 12; border-top: solid $panel-lighten-2; }
    ReviewScreen #review-detail { padding: 0 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "toggle_selected", "Select", id="review.select"),
        Binding("a", "select_all", "Select all", id="review.select_all"),
        Binding("d", "delete_selected", "Delete", id="review.delete"),
        Binding("A", "archive_selected", "Archive", id="review.archive"),
        Binding("o", "open_note", "Open", id="review.open"),
        Binding("escape", "close", "Back", id="review.close"),
    ]

    PALETTE: ClassVar[list[tuple[str, str, str]]] = [
        ("review: select or unselect", "toggle_selected", "Mark the note under the cursor (space)"),
        ("review: select all", "select_all", "Mark every proposed note (a)"),
        ("review: archive selected", "archive_selected", "Move them to archive/, undoable (A)"),
        ("review: delete selected", "delete_selected", "Delete them, undoable (d)"),
        ("review: open note", "open_note", "Open the note in the main screen (o)"),
        ("go: back", "close", "Leave the review (escape)"),
    ]

    def __init__(self, *, clock: Callable[[], float] | None = None) -> None:
        super().__init__()
        self._clock = clock
        self.candidates: list[StaleCandidate] = []
        self.selected: set[str] = set()

    def compose(self) -> ComposeResult:
        """Title, queue table, reason details and footer."""
        yield Static(id="review-title")
        yield DataTable(id="review-table", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="review-detail-scroll"):
            yield Static(id="review-detail")
        yield Footer()

    def on_mount(self) -> None:
        """Build the columns, load the queue and follow index changes."""
        table = self.query_one(DataTable)
        table.add_column(" ", key="sel", width=1)
        table.add_column("Score", key="score", width=5)
        table.add_column("Path", key="path", width=40)
        table.add_column("Reasons", key="reasons", width=62)
        self.follow_index(lambda _data=None: self.reload())
        self.reload()
        table.focus()

    def reload(self) -> None:
        """Recompute the stale queue and refill the table."""
        from memtui.notes.stale import review

        index = self.ctx.index
        title = self.query_one("#review-title", Static)
        if index is None:
            title.update("Review: indexing notes…")
            return
        self.candidates = review(index, self.ctx.history, now=self.now())
        paths = {c.path for c in self.candidates}
        self.selected &= paths
        table = self.query_one(DataTable)
        cursor_path = self.current_path()
        table.clear()
        for candidate in self.candidates:
            table.add_row(
                self._mark(candidate.path),
                f"{candidate.score:.2f}",
                candidate.path,
                reasons_summary(candidate),
                key=candidate.path,
            )
        if cursor_path in paths:
            table.move_cursor(row=table.get_row_index(cursor_path), animate=False)
        self._update_title()
        self._show_detail()

    def _mark(self, path: str) -> Text:
        """The selection mark of a row."""
        return Text(SELECTED_MARK if path in self.selected else " ", style="bold yellow")

    def _update_title(self) -> None:
        """Show the queue size and the selection count."""
        self.query_one("#review-title", Static).update(
            f"Review · {len(self.candidates)} notes proposed · {len(self.selected)} selected"
            " · space select · a all · A archive · d delete"
        )

    def current_path(self) -> str | None:
        """The path of the row under the cursor."""
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        return key.value

    def _show_detail(self) -> None:
        """Every reason of the candidate under the cursor."""
        detail = self.query_one("#review-detail", Static)
        path = self.current_path()
        candidate = next((c for c in self.candidates if c.path == path), None)
        if candidate is None:
            detail.update(Text("Nothing to review: no note looks stale.", style="italic"))
            return
        text = Text()
        text.append(f"{candidate.path}  score {candidate.score:.2f}\n", style="bold")
        for reason in sorted(candidate.reasons, key=lambda r: (-r.weight, r.text)):
            text.append(f"  {reason.weight:4.2f}  ", style="dim")
            text.append(f"{reason.kind:<12} ", style="cyan")
            text.append(f"{reason.text}\n")
        detail.update(text)

    @on(DataTable.RowHighlighted)
    def _on_row(self, _event: DataTable.RowHighlighted) -> None:
        """Follow the cursor with the detail panel."""
        self._show_detail()

    def _refresh_marks(self) -> None:
        """Redraw the selection column."""
        table = self.query_one(DataTable)
        for candidate in self.candidates:
            table.update_cell(candidate.path, "sel", self._mark(candidate.path))
        self._update_title()

    def action_toggle_selected(self) -> None:
        """Select or unselect the note under the cursor and move down."""
        path = self.current_path()
        if path is None:
            return
        self.selected ^= {path}
        self._refresh_marks()
        self.query_one(DataTable).action_cursor_down()

    def action_select_all(self) -> None:
        """Select every note in the queue, or clear the selection when all are selected."""
        paths = {c.path for c in self.candidates}
        self.selected = set() if self.selected == paths else paths
        self._refresh_marks()

    def _targets(self) -> list[str]:
        """The selected paths in queue order, or the one under the cursor when none is selected."""
        if self.selected:
            return [c.path for c in self.candidates if c.path in self.selected]
        path = self.current_path()
        return [path] if path else []

    def action_delete_selected(self) -> None:
        """Delete the selected notes after one confirmation."""
        self._remove(self._targets(), archive=False)

    def action_archive_selected(self) -> None:
        """Move the selected notes to `archive/` after one confirmation."""
        self._remove(self._targets(), archive=True)

    def action_open_note(self) -> None:
        """Open the note under the cursor in the main screen."""
        path = self.current_path()
        if path is not None:
            app: Any = self.app
            app.open_note(path)

    @work(exclusive=True, group="review-remove")
    async def _remove(self, paths: list[str], *, archive: bool) -> None:
        """Confirm once, then archive or delete each note through the core (each undoable)."""
        from memtui.tui.widgets.confirm import ConfirmScreen

        if not paths:
            self.notify("Nothing selected.", timeout=2)
            return
        verb = "Archive" if archive else "Delete"
        noun = "note" if len(paths) == 1 else "notes"
        listing = "\n".join(paths[:8]) + (
            f"\n… and {len(paths) - 8} more" if len(paths) > 8 else ""
        )
        where = f" to {ARCHIVE_FOLDER}/" if archive else ""
        confirmed = await self.app.push_screen_wait(
            ConfirmScreen(
                f"{verb} {len(paths)} {noun}?",
                f"{verb}{where}:\n{listing}\n\nEach one can be undone from the history (h).",
                confirm_label=f"{verb} {len(paths)}",
            )
        )
        if not confirmed:
            return
        if len(paths) > PROGRESS_THRESHOLD:
            self.notify(f"{verb.rstrip('e')}ing {len(paths)} notes…", timeout=2)
        store = self.ctx.store
        done: list[str] = []
        failures: list[str] = []
        for path in paths:
            virtual = "/memories/" + path
            if archive:
                result = store.rename(virtual, "/memories/" + archive_path(path))
            else:
                result = store.delete(virtual)
            if result.is_error:
                failures.append(result.content)
            else:
                done.append(path)
                remember = getattr(self.app, "remember_event", None)
                if remember is not None:
                    remember(result.event_id)
        changed = set(done) | ({archive_path(p) for p in done} if archive else set())
        if self.ctx.index is not None and changed:
            self.ctx.index.update_paths(changed)
        self.selected -= set(done)
        past = "Archived" if archive else "Deleted"
        if done:
            self.notify(f"{past} {len(done)} {noun}; undo any of them from the history (h).")
        for failure in failures:
            self.notify(failure, severity="error", timeout=6)
        self.reload()
