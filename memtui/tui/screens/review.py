"""The review screen: the stale queue with reasons; select notes, then archive or delete them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import DataTable, Static

from memtui.core.parsing.paths import from_relpath
from memtui.notes.operations.moving import archive_path
from memtui.notes.stale import ARCHIVE_FOLDER, review
from memtui.tui import text_styles as styles
from memtui.tui.messages import ChangeRecorded, OpenNote
from memtui.tui.screens.base import StoreScreen
from memtui.tui.widgets.confirm import ConfirmScreen
from memtui.tui.widgets.key_footer import KeyFooter
from memtui.tui.widgets.review_table import ReviewTable
from memtui.tui.wording import count

if TYPE_CHECKING:
    from memtui.notes.stale import StaleCandidate

PROGRESS_THRESHOLD = 5
SELECTED_MARK = "●"
PAGE = 200
"""Rows shown at first; reaching the last row shows this many more."""
QUIET = 0.5
"""Seconds without a change before the queue is computed again."""


class ReviewScreen(StoreScreen):
    """Stale notes with their reasons; `space` selects and moves down, `a` archives the selected
    notes (or the one under the cursor), `A` every note shown, `d` deletes (all confirmed), `u`
    undoes the last of them."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "toggle_selected", "Select ↓", id="review.select"),
        Binding("asterisk", "select_all", "All", id="review.select_all"),
        Binding("a", "archive_selected", "Archive", id="review.archive"),
        Binding("A", "archive_all", "Archive all shown", id="review.archive_all"),
        Binding("d", "delete_selected", "Delete", id="review.delete"),
        Binding("u", "undo", "Undo", id="review.undo"),
        Binding("o", "open_note", "Open", id="review.open"),
        Binding("escape", "close", "Back", id="review.close"),
    ]

    FOOTER_DROPS: ClassVar[tuple[str, ...]] = (
        "review.open",
        "review.select_all",
        "review.undo",
        "review.archive_all",
    )
    """The footer keys a narrow terminal hides first."""
    PALETTE: ClassVar[list[tuple[str, str, str]]] = [
        ("review: select or unselect", "toggle_selected", "Mark the note, move to the next"),
        ("review: select all or none", "select_all", "Mark every proposed note, or none"),
        ("review: archive", "archive_selected", "Move the selected notes to archive/"),
        ("review: archive all shown", "archive_all", "Move every note shown to archive/"),
        ("review: delete", "delete_selected", "Delete the selected notes, undoable"),
        ("review: undo your last change", "undo", "Undo the last archive or delete (named)"),
        ("review: open note", "open_note", "Open the note in the main screen"),
        ("go: back", "close", "Leave the review"),
    ]

    def __init__(self, *, clock: Callable[[], float] | None = None) -> None:
        super().__init__()
        self._clock = clock
        self.candidates: list[StaleCandidate] = []
        self.selected: set[str] = set()
        self._by_path: dict[str, StaleCandidate] = {}
        self._shown = PAGE

    def compose(self) -> ComposeResult:
        """Title, queue table, reason details and footer."""
        yield Static(id="review-title")
        yield ReviewTable(self._mark, id="review-table")
        with VerticalScroll(id="review-detail-scroll"):
            yield Static(id="review-detail")
        yield KeyFooter()

    @property
    def table(self) -> ReviewTable:
        """The queue's table."""
        return self.query_one(ReviewTable)

    def on_mount(self) -> None:
        """Compute the queue in the background and follow index changes."""
        self._queue = self.refresher("review-queue", self._compute, self._show_queue, quiet=QUIET)
        self.follow_index(lambda _data=None: self._queue.request())
        self.query_one("#review-title", Static).update("Review: finding stale notes…")
        self.reload()
        self.table.focus()

    def reload(self) -> None:
        """Compute the stale queue again in the background."""
        self._queue.request(now=True)

    def _compute(self) -> list[StaleCandidate] | None:
        """The stale queue, or None while the index loads (runs in a thread).

        Candidates equal to those shown are kept rather than replaced, so a recompute leaves few
        new objects behind for the garbage collector to scan.
        """
        index = self.ctx.index
        if index is None:
            return None
        shown = {candidate.path: candidate for candidate in self.candidates}
        return [
            shown[c.path] if shown.get(c.path) == c else c
            for c in review(
                index, self.ctx.history, now=self.now(), interaction=self.ctx.interaction
            )
        ]

    def _show_queue(self, candidates: list[StaleCandidate] | None) -> None:
        """Show a computed queue, keeping the selection and the cursor's note."""
        if candidates is None:
            self.query_one("#review-title", Static).update("Review: indexing notes…")
            return
        self.candidates = candidates
        self._by_path = {c.path: c for c in candidates}
        self.selected &= self._by_path.keys()
        self.table.fit(candidates[: self._shown])
        self._fill_table()

    def _fill_table(self) -> None:
        """Show the first candidates of the queue, the title and the cursor's reasons."""
        self.table.show(self.candidates[: self._shown])
        self._update_title()
        self._show_detail()

    def show_more(self) -> None:
        """Show the next page of the queue."""
        if len(self.candidates) > self._shown:
            self._shown += PAGE
            self._fill_table()

    def _mark(self, path: str) -> Content:
        """The selection mark of a row."""
        return Content.styled(SELECTED_MARK if path in self.selected else " ", styles.SELECTED)

    def _update_title(self) -> None:
        """Show the queue size, how much of it is shown and the selection count."""
        rows = self.table.row_count
        shown = f" (first {rows} shown)" if rows < len(self.candidates) else ""
        self.query_one("#review-title", Static).update(
            f"Review · {count(len(self.candidates), 'note')} proposed{shown}"
            f" · {len(self.selected)} selected · space selects and moves down"
        )

    def current_path(self) -> str | None:
        """The path of the row under the cursor."""
        return self.table.selected_key()

    def _show_detail(self) -> None:
        """Every reason of the candidate under the cursor."""
        detail = self.query_one("#review-detail", Static)
        path = self.current_path()
        candidate = self._by_path.get(path) if path is not None else None
        if candidate is None:
            detail.update(Content.styled("Nothing to review: no note looks stale.", styles.ASIDE))
            return
        parts: list[styles.Part] = [
            (f"{candidate.path}  score {candidate.score:.2f}\n", styles.HEADING)
        ]
        for reason in sorted(candidate.reasons, key=lambda r: (-r.weight, r.text)):
            parts += [
                (f"  {reason.weight:4.2f}  ", styles.MUTED),
                (f"{reason.kind:<12} ", styles.KIND),
                f"{reason.text}\n",
            ]
        detail.update(styles.assemble(*parts))

    @on(DataTable.RowHighlighted)
    def _on_row(self, event: DataTable.RowHighlighted) -> None:
        """Follow the cursor with the detail panel; on the last row, show more of the queue."""
        self._show_detail()
        if event.cursor_row >= event.data_table.row_count - 1:
            self.show_more()

    def _refresh_marks(self) -> None:
        """Redraw the selection column and the title."""
        self.table.refresh_marks()
        self._update_title()

    def action_toggle_selected(self) -> None:
        """Select or unselect the note under the cursor and move down."""
        path = self.current_path()
        if path is None:
            return
        self.selected ^= {path}
        self._refresh_marks()
        self.table.action_cursor_down()

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

    def action_archive_all(self) -> None:
        """Move every note shown to `archive/` after one confirmation listing them."""
        self._remove(self.table.shown_keys(), archive=True)

    @work(exclusive=True, group="review-remove")
    async def action_undo(self) -> None:
        """Undo the last change made in this app (an archive or delete here), named first."""
        from memtui.tui import note_actions  # imported on first use: start-up

        await note_actions.undo_last(self)

    async def changed(self, paths: set[str], show: str | None = None) -> None:
        """After an undo: update the index for `paths` and compute the queue again."""
        await self.memtui.apply_changes(frozenset(paths))
        self.reload()

    def action_open_note(self) -> None:
        """Open the note under the cursor in the main screen."""
        path = self.current_path()
        if path is not None:
            self.post_message(OpenNote(path))

    @work(exclusive=True, group="review-remove")
    async def _remove(self, paths: list[str], *, archive: bool) -> None:
        """Confirm once, then archive or delete each note through the core (each undoable)."""
        if not paths:
            self.notify("Nothing selected.", timeout=2)
            return
        verb = "Archive" if archive else "Delete"
        listing = "\n".join(paths[:8]) + (
            f"\n… and {len(paths) - 8} more" if len(paths) > 8 else ""
        )
        where = f" to {ARCHIVE_FOLDER}/" if archive else ""
        undo = "u undoes it." if len(paths) == 1 else "u undoes all of them at once."
        confirmed = await self.app.push_screen_wait(
            ConfirmScreen(
                f"{verb} {count(len(paths), 'note')}?",
                f"{verb}{where}:\n{listing}\n\n{undo}",
                confirm_label=f"{verb} {len(paths)}",
            )
        )
        if not confirmed:
            return
        if len(paths) > PROGRESS_THRESHOLD:
            self.notify(f"{verb.rstrip('e')}ing {count(len(paths), 'note')}…", timeout=2)
        store = self.ctx.store
        if len(paths) > 1:
            summary = f"{verb.lower()} {count(len(paths), 'note')} from the review queue"
            try:
                store = await asyncio.to_thread(store.operation, verb.lower(), summary)
            except Exception as error:
                self.notify(f"Nothing changed: {error}", severity="error", timeout=6)
                return
        done: list[str] = []
        failures: list[str] = []
        for path in paths:
            virtual = from_relpath(path)
            if archive:
                target = from_relpath(archive_path(path))
                result = await asyncio.to_thread(store.rename, virtual, target)
            else:
                result = await asyncio.to_thread(store.delete, virtual)
            if result.is_error:
                failures.append(result.content)
            else:
                done.append(path)
                self.post_message(ChangeRecorded(result.event_id))
        changed = set(done) | ({archive_path(p) for p in done} if archive else set())
        if changed:
            await self.memtui.apply_changes(frozenset(changed))
        self.selected -= set(done)
        past = "Archived" if archive else "Deleted"
        if done:
            self.notify(f"{past} {count(len(done), 'note')} (u to undo).")
        for failure in failures:
            self.notify(failure, severity="error", timeout=6)
        self.reload()
