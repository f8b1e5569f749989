"""The review screen: the stale queue with reasons; select notes, then archive or delete them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import DataTable, Static

from memtui.core.parsing.paths import from_relpath
from memtui.notes.health_review import (
    CONTRADICTS,
    HealthReasons,
    health_reasons,
    left_out_line,
    shown_reasons,
    with_reasons,
)
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
    from memtui.notes.contradictions import Contradiction, Line
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
        Binding("n", "keep_newer", "Keep newer", id="review.keep_newer"),
        Binding("b", "keep_both", "Keep both", id="review.keep_both"),
        Binding("e", "edit_pair", "Edit", id="review.edit"),
        Binding("escape", "close", "Back", id="review.close"),
    ]

    FOOTER_DROPS: ClassVar[tuple[str, ...]] = (
        "review.edit",
        "review.keep_both",
        "review.keep_newer",
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
        ("review: keep the newer", "keep_newer", "Remove (or mark) the older contradicting line"),
        ("review: keep both", "keep_both", "Keep both lines; the pair is not proposed again"),
        ("review: edit the older line", "edit_pair", "Edit the note at the older line"),
        ("go: back", "close", "Leave the review"),
    ]

    def __init__(self, *, clock: Callable[[], float] | None = None) -> None:
        super().__init__()
        self._clock = clock
        self.candidates: list[StaleCandidate] = []
        self.selected: set[str] = set()
        self._by_path: dict[str, StaleCandidate] = {}
        self._signals: list[StaleCandidate] | None = None
        self.health: HealthReasons | None = None
        """The last computed budget and contradiction reasons (None until the first)."""
        self._shown = PAGE

    def compose(self) -> ComposeResult:
        """Title, queue table, reason details and footer."""
        yield Static(id="review-title")
        yield ReviewTable(self._mark, id="review-table")
        with VerticalScroll(id="review-detail-scroll"):
            yield Static(id="review-detail")
            with Horizontal(id="review-pair"):
                yield Static(id="pair-newer")
                yield Static(id="pair-older")
        yield KeyFooter()

    @property
    def table(self) -> ReviewTable:
        """The queue's table."""
        return self.query_one(ReviewTable)

    def on_mount(self) -> None:
        """Compute the queue in the background and follow index changes."""
        self._queue = self.refresher("review-queue", self._compute, self._show_queue, quiet=QUIET)
        self._health = self.refresher(
            "review-health", self._compute_health, self._show_health, quiet=QUIET
        )
        self.follow_index(lambda _data=None: self._request_both())
        self.query_one("#review-title", Static).update("Review: finding stale notes…")
        self.reload()
        self.table.focus()

    def _request_both(self, *, now: bool = False) -> None:
        """Compute the staleness signals and the health reasons again (each in its thread)."""
        self._queue.request(now=now)
        self._health.request(now=now)

    def reload(self) -> None:
        """Compute the stale queue again in the background."""
        self._request_both(now=True)

    def _compute(self) -> list[StaleCandidate] | None:
        """Every file with a staleness signal (whatever its score), or None while the index
        loads (runs in a thread)."""
        index = self.ctx.index
        if index is None:
            return None
        return review(
            index, self.ctx.history, now=self.now(), min_score=0.0, interaction=self.ctx.interaction
        )

    def _compute_health(self) -> HealthReasons | None:
        """The budget and contradiction reasons, or None while the index loads (runs in a
        thread; slower than the signals, so the queue shows first and gains them after)."""
        index = self.ctx.index
        if index is None:
            return None
        from memtui.notes.budget import listing_of  # imported on first use: start-up

        settings = self.ctx.settings
        return health_reasons(
            index,
            self.ctx.history,
            budget_settings=settings.budget if settings is not None else None,
            listing=listing_of(self.ctx.store),
            now=self.now(),
            interaction=self.ctx.interaction,
        )

    def _show_queue(self, signals: list[StaleCandidate] | None) -> None:
        """Show the queue with newly computed staleness signals."""
        if signals is None:
            self.query_one("#review-title", Static).update("Review: indexing notes…")
            return
        self._signals = signals
        self._merge()

    def _show_health(self, health: HealthReasons | None) -> None:
        """Show the queue with newly computed health reasons."""
        if health is None:
            return
        self.health = health
        if self._signals is not None:
            self._merge()

    def _merge(self) -> None:
        """The queue from the signals and health reasons, keeping the selection and the cursor's
        note. Candidates equal to those shown are kept rather than replaced, so a recompute
        leaves few new objects behind for the garbage collector to scan."""
        shown = {candidate.path: candidate for candidate in self.candidates}
        extra = self.health.reasons if self.health is not None else {}
        candidates = [
            shown[c.path] if shown.get(c.path) == c else c
            for c in with_reasons(self._signals or [], extra)
        ]
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
        self._show_pair(candidate)
        if candidate is None:
            detail.update(Content.styled("Nothing to review: no note looks stale.", styles.ASIDE))
            return
        parts: list[styles.Part] = [
            (f"{candidate.path}  score {candidate.score:.2f}\n", styles.HEADING)
        ]
        shown, left_out = shown_reasons(
            sorted(candidate.reasons, key=lambda r: (-r.weight, r.text))
        )
        for reason in shown:
            parts += [
                (f"  {reason.weight:4.2f}  ", styles.MUTED),
                (f"{reason.kind:<12} ", styles.KIND),
                f"{reason.text}\n",
            ]
        if left_out:
            parts.append((f"        {left_out_line(left_out)}\n", styles.MUTED))
        if self.current_pair() is not None:
            parts.append(
                ("  n keeps the newer · b keeps both · e edits the older line\n", styles.ASIDE)
            )
        detail.update(styles.assemble(*parts))

    def current_pair(self) -> Contradiction | None:
        """The first contradiction of the candidate under the cursor."""
        path = self.current_path()
        candidate = self._by_path.get(path) if path is not None else None
        if candidate is None:
            return None
        return next((r.pair for r in candidate.reasons if r.kind == CONTRADICTS and r.pair), None)

    def _show_pair(self, candidate: StaleCandidate | None) -> None:
        """The candidate's first contradiction side by side, newer first, or nothing."""
        pair = self.current_pair() if candidate is not None else None
        self.query_one("#review-pair").display = pair is not None
        if pair is None:
            return
        self.query_one("#pair-newer", Static).update(self._statement("Newer", pair.newer))
        older = self._statement("Older", pair.older)
        self.query_one("#pair-older", Static).update(older)

    def _statement(self, label: str, line: Line) -> Content:
        """One side of a pair: which, where, when written, and its text."""
        when = self._date(line.time)
        return styles.assemble(
            (f"{label}", styles.HEADING),
            (f"  {line.path}:{line.line}  {when}\n", styles.MUTED),
            line.text,
        )

    @staticmethod
    def _date(when: float) -> str:
        """A statement's time as a day, or "" when unknown."""
        from memtui.notes.operations.resolving import day_of

        return day_of(when) if when else ""

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
    async def action_keep_newer(self) -> None:
        """Keep the newer statement of the pair under the cursor: the older line removed (or
        marked superseded, as `[contradictions] older` says) through the core, undoable."""
        from memtui.notes.operations.resolving import keep_newer

        pair = self.current_pair()
        if pair is None:
            self.notify("No contradiction here.", timeout=2)
            return
        settings = self.ctx.settings
        mark = settings is not None and settings.contradictions.older == "mark"
        workspace, now = self.ctx.workspace, self.now()
        if mark:
            result = await asyncio.to_thread(keep_newer, workspace, pair, "mark", now=now)
        else:
            result = await asyncio.to_thread(keep_newer, workspace, pair, "remove", now=now)
        await self._resolved(result, [pair.older.path])

    @work(exclusive=True, group="review-remove")
    async def action_keep_both(self) -> None:
        """Keep both statements of the pair under the cursor; it is not proposed again."""
        from memtui.notes.operations.resolving import keep_both

        pair = self.current_pair()
        if pair is None:
            self.notify("No contradiction here.", timeout=2)
            return
        result = await asyncio.to_thread(keep_both, self.ctx.workspace, pair)
        await self._resolved(result, [])

    async def _resolved(self, result: object, paths: list[str]) -> None:
        """Say how a choice went, update what it changed and compute the queue again."""
        from memtui.core.result import CommandResult

        assert isinstance(result, CommandResult)
        if result.is_error:
            self.notify(result.content, severity="error", timeout=6)
            return
        if result.event_id is not None:
            self.post_message(ChangeRecorded(result.event_id))
        if paths:
            await self.memtui.apply_changes(frozenset(paths))
        self.notify(result.content.splitlines()[0] if result.content else "Done.", timeout=3)
        self.reload()

    @work(exclusive=True, group="review-remove")
    async def action_edit_pair(self) -> None:
        """Edit the note of the older statement, the cursor on its line."""
        from memtui.tui.screens.editor import edit_here  # imported on first use: start-up

        pair = self.current_pair()
        if pair is None:
            self.notify("No contradiction here.", timeout=2)
            return
        if await edit_here(self.memtui, pair.older.path, (pair.older.line - 1, 0)):
            await self.memtui.apply_changes(frozenset({pair.older.path}))
            self.reload()

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
