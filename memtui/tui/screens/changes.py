"""The changes inbox: what agents and outside processes changed that nobody reviewed yet.

One row per note, newest change first; the selected note's changes (who, when) and their
combined diff below. Approve marks them reviewed, revert undoes them through the core (newest
first, asking to force a conflict), edit opens the note, and a save marks them reviewed too.
Every read and mark runs in a thread; marks live in the history, shared by every process.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import DataTable, Input, Static

from memtui.core.parsing.paths import VIRTUAL_ROOT, to_relpath
from memtui.core.recording.event_query import EventQuery, parse_event_query
from memtui.core.recording.inbox import InboxRow, first_changed_line, inbox, row_texts
from memtui.notes.operations.deciding import Held, waiting
from memtui.tui import text_styles as styles
from memtui.tui.messages import ChangeRecorded, OpenNote
from memtui.tui.rest_gate import RestGate
from memtui.tui.screens.base import StoreScreen
from memtui.tui.screens.editor import edit_here, edit_in_external_editor
from memtui.tui.undo_flow import revert_with_force
from memtui.tui.widgets.change_rows import ChangeTable, describe_row
from memtui.tui.widgets.confirm import ConfirmScreen
from memtui.tui.widgets.held_rows import HeldTable, describe_held
from memtui.tui.widgets.history_events import short_path
from memtui.tui.widgets.key_footer import KeyFooter
from memtui.tui.wording import count

if TYPE_CHECKING:
    from memtui.tui.commands import PaletteEntry

FILTER_HELP = "actor:agent path:projects/ since:3d cmd:create  words…"
QUIET = 0.15
"""Seconds without a keystroke or change before the inbox is queried again."""
CURSOR_REST = 0.12
"""Seconds the cursor must rest on a row after quick moves before its detail is read."""
EMPTY = "Nothing waits for review: every change by an agent or from outside has been reviewed."


@dataclass(frozen=True)
class InboxPage:
    """The rows a query found, with what the filter row could not understand."""

    rows: list[InboxRow]
    problems: tuple[str, ...] = field(default=())
    filtered: bool = False
    held: list[Held] = field(default_factory=list)
    """The changes the access policy holds for approval, oldest first."""


class ChangesScreen(StoreScreen):
    """Agent and outside changes waiting for review, by note: approve, revert, edit."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "approve", "Approve", id="changes.approve"),
        Binding("A", "approve_all", "Approve all shown", id="changes.approve_all"),
        Binding("x", "reject", "Reject held", show=False, id="changes.reject"),
        Binding("u", "revert", "Revert", id="changes.revert"),
        Binding("e", "edit", "Edit", id="changes.edit"),
        Binding("E", "external_edit", "$EDITOR", show=False, id="changes.external_edit"),
        Binding("o", "open", "Open note", id="changes.open"),
        Binding("slash", "focus_filter", "Filter", id="changes.filter"),
        Binding("escape", "close", "Back", id="changes.close"),
    ]
    FOOTER_DROPS: ClassVar[tuple[str, ...]] = ("changes.open", "changes.filter", "changes.edit")
    """The footer keys a narrow terminal hides first."""
    PALETTE: ClassVar[list[PaletteEntry]] = [
        ("changes: approve the note's changes", "approve", "Mark them reviewed"),
        ("changes: approve all shown", "approve_all", "Mark every listed change reviewed"),
        ("changes: reject the held change", "reject", "Apply nothing of it; recorded"),
        ("changes: revert the note's changes", "revert", "Undo them, newest first"),
        ("changes: edit the note", "edit", "Edit it; saving marks its changes reviewed"),
        ("changes: edit the note in $EDITOR", "external_edit", "Edit a copy in your editor"),
        ("changes: open the note", "open", "Show it on the main screen"),
        ("changes: filter", "focus_filter", "actor:, cmd:, path:, since: and words"),
        ("go: back", "close", "Leave the inbox"),
    ]

    def __init__(self) -> None:
        """The inbox; it fills in from a background query."""
        super().__init__()
        self.page = InboxPage([])
        self._detail_of: InboxRow | None = None
        self._detail_gate = RestGate(self, CURSOR_REST)
        self.loaded = False
        self._filter_text = ""
        """The filter row's text, kept on the UI thread for the query in the background."""

    def compose(self) -> ComposeResult:
        """Title, filter, one row per note, the selected note's changes, footer."""
        yield Static(id="changes-title")
        yield Input(placeholder=FILTER_HELP, id="changes-filter")
        held = HeldTable(id="held-table")
        held.display = False
        yield held
        yield ChangeTable(id="changes-table")
        with VerticalScroll(id="changes-detail-scroll"):
            yield Static(id="changes-detail")
        yield KeyFooter()

    def on_mount(self) -> None:
        """Query in the background and follow every change to the store and to the marks."""
        self._loader = self.refresher("changes-query", self._fetch, self._show_page, quiet=QUIET)
        self._describer = self.refresher("changes-detail", self._describe, self._show_detail)
        self.memtui.notes_changed_signal.subscribe(self, lambda _paths: self._loader.request())
        self.memtui.review_count_signal.subscribe(self, lambda _count: self._loader.request())
        self.query_one("#changes-title", Static).update("Changes to review · loading…")
        self._loader.request(now=True)
        self.table.focus()

    @property
    def table(self) -> ChangeTable:
        """The table of notes."""
        return self.query_one(ChangeTable)

    def _fetch(self) -> InboxPage:
        """The waiting changes the filter asks for, grouped by note (run in a thread)."""
        query = parse_event_query(self._filter_text, self.now())
        filtered = query != EventQuery()
        held = waiting(self.ctx.store, query.path)
        return InboxPage(inbox(self.ctx.history, query), query.problems, filtered, held)

    def _show_page(self, page: InboxPage) -> None:
        """Show the rows and the title; the detail follows the cursor."""
        self.page = page
        self.loaded = True
        self.held_table.show_rows(page.held)
        self.table.show_rows(page.rows)
        if page.held and not page.rows:
            self.held_table.focus()
        changes = sum(len(row.events) for row in page.rows)
        if page.rows:
            shown = f"{count(changes, 'change')} in {count(len(page.rows), 'note')}, newest first"
        elif page.filtered:
            shown = "no waiting change matches the filter"
        else:
            shown = "nothing waits for review"
        problems = f" · {'; '.join(page.problems)}" if page.problems else ""
        held = f" · {count(len(page.held), 'change')} held for approval" if page.held else ""
        self.query_one("#changes-title", Static).update(
            styles.plain(f"Changes to review · {shown}{held}{problems}")
        )
        self._show_selected()

    @property
    def held_table(self) -> HeldTable:
        """The table of held changes."""
        return self.query_one(HeldTable)

    def _held_focused(self) -> Held | None:
        """The held change under the cursor while the held table has the focus."""
        return self.held_table.selected_held() if self.held_table.has_focus else None

    def _show_selected(self, *, moved: bool = False) -> None:
        """Describe the selected row (in the background; after quick moves, once it rests)."""
        shown = self._held_focused()
        if shown is not None:
            self._detail_of = None
            self.query_one("#changes-detail", Static).update(describe_held(shown))
            return
        row = self.table.selected_row()
        if row == self._detail_of and row is not None:
            return
        self._detail_of = row
        self._detail_gate.cancel()
        if row is None:
            message = EMPTY if not self.page.filtered else "No waiting change matches the filter."
            self.query_one("#changes-detail", Static).update(Content.styled(message, styles.ASIDE))
        elif moved:
            self._detail_gate.moved(lambda: self._describer.request(now=True))
        else:
            self._describer.request(now=True)

    def _describe(self) -> tuple[InboxRow | None, Content | None]:
        """The selected row and its detail, read from the history (in a thread)."""
        row = self._detail_of
        return row, None if row is None else describe_row(self.ctx.history, row)

    def _show_detail(self, described: tuple[InboxRow | None, Content | None]) -> None:
        """Show a detail read in the background if its row is still the selected one."""
        row, content = described
        if row is not None and content is not None and row == self._detail_of:
            self.query_one("#changes-detail", Static).update(content)

    @on(DataTable.RowHighlighted)
    def _on_row(self, _event: DataTable.RowHighlighted) -> None:
        """Follow the cursor with the detail."""
        self._show_selected(moved=True)

    def on_descendant_focus(self) -> None:
        """Moving between the held table and the changes table shows the focused one's row."""
        self._detail_of = None
        self._show_selected()

    @on(DataTable.RowSelected)
    def _on_row_chosen(self, _event: DataTable.RowSelected) -> None:
        """Enter opens the note on the main screen."""
        self.action_open()

    @on(Input.Changed, "#changes-filter")
    def _on_filter(self, event: Input.Changed) -> None:
        """Refilter once the user pauses typing."""
        self._filter_text = event.value
        self._loader.request()

    @on(Input.Submitted, "#changes-filter")
    def _on_filter_done(self, _event: Input.Submitted) -> None:
        """Enter in the filter moves to the table."""
        self.table.focus()

    def action_focus_filter(self) -> None:
        """Put the cursor in the filter row."""
        self.query_one("#changes-filter", Input).focus()

    def _selected(self) -> InboxRow | None:
        """The selected row, or a notice that there is none."""
        row = self.table.selected_row()
        if row is None:
            self.notify("Nothing selected: the inbox is empty.", timeout=3)
        return row

    def action_approve(self) -> None:
        """Apply the selected held change, or mark the selected note's changes reviewed."""
        shown = self._held_focused()
        if shown is not None:
            self._decide(shown, approving=True)
            return
        row = self._selected()
        if row is not None:
            self._approve([row])

    def action_reject(self) -> None:
        """Reject the selected held change: nothing of it is applied."""
        shown = self._held_focused()
        if shown is None:
            self.notify("x rejects a held change: select one in the held list (tab).", timeout=4)
            return
        self._decide(shown, approving=False)

    @work(exclusive=True, group="changes-action")
    async def _decide(self, shown: Held, *, approving: bool) -> None:
        """Approve or reject a held change as the app's person; the inbox follows."""
        from memtui.tui.held_flow import approve_held, reject_held

        if approving:
            result = await approve_held(self.memtui, shown)
        else:
            result = await reject_held(self.memtui, shown)
        if result is not None:
            if result.is_error:
                self.notify(result.content, severity="error", timeout=6)
            else:
                self.notify(result.content, timeout=3)
            if not result.is_error and approving:
                self.post_message(ChangeRecorded(result.event_id))
                paths = {to_relpath(p) for p in shown.proposal.paths}
                await self.memtui.apply_changes(frozenset(paths))
        self._changed()

    def action_approve_all(self) -> None:
        """Mark every change shown reviewed, after confirmation when there are several notes."""
        if self._selected() is not None:
            self._approve(list(self.page.rows), confirm=len(self.page.rows) > 1)

    @work(exclusive=True, group="changes-action")
    async def _approve(self, rows: list[InboxRow], *, confirm: bool = False) -> None:
        """Mark the rows' changes reviewed as the app's person (in a thread)."""
        ids = [event_id for row in rows for event_id in row.ids]
        what = count(len(ids), "change")
        if confirm and not await self.app.push_screen_wait(
            ConfirmScreen(
                "Approve all shown?",
                f"Mark {what} in {count(len(rows), 'note')} reviewed as {self.ctx.actor}.",
                confirm_label="Approve",
            )
        ):
            return
        history = self.ctx.history
        try:
            await asyncio.to_thread(history.mark_reviewed, ids, self.ctx.actor, self.now())
        except Exception as error:
            self.notify(f"Could not approve: {error}", severity="error", timeout=6)
            return
        where = short_path(rows[0].path) if len(rows) == 1 else count(len(rows), "note")
        self.notify(f"Approved {what} ({where}).", timeout=3)
        self._changed()

    def action_revert(self) -> None:
        """Undo the selected note's changes, newest first, after confirmation."""
        row = self._selected()
        if row is not None:
            self._revert(row)

    @work(exclusive=True, group="changes-action")
    async def _revert(self, row: InboxRow) -> None:
        """Ask, then revert each change through the core, newest first (a conflict asks to
        force); every undone change is marked reviewed by the core with its undo."""
        name = short_path(row.path) or VIRTUAL_ROOT
        first = row.events[0]
        confirmed = await self.app.push_screen_wait(
            ConfirmScreen(
                f"Revert {name}?",
                f"Undo {count(len(row.events), 'change')} by {', '.join(row.actors)}, newest "
                f"first, so the note is as it was before #{first.id}. Each undo is recorded "
                "and can itself be undone.",
                confirm_label="Revert",
            )
        )
        if not confirmed:
            return
        undone = 0
        for event in reversed(row.events):
            result = await revert_with_force(self.app, self.ctx.workspace, event.id)
            if result is None or result.is_error:
                if result is not None:
                    self.notify(result.content, severity="error", timeout=6)
                break
            undone += 1
            self.post_message(ChangeRecorded(result.event_id))
        if undone:
            self.notify(f"Reverted {count(undone, 'change')} to {name}.", timeout=3)
        await self._update_index(row)
        self._changed()

    async def _update_index(self, row: InboxRow) -> None:
        """Tell the index which notes the undo touched, so every screen shows them."""
        paths = {to_relpath(p) for event in row.events for p in (event.path, event.new_path) if p}
        await self.memtui.apply_changes(frozenset(paths))

    def _changed(self) -> None:
        """Marks or notes changed here: query again and recount the status line."""
        self._loader.request(now=True)
        self.memtui.count_reviews()

    def _note_to_edit(self) -> str | None:
        """The relative path of the selected note, if it still exists."""
        row = self._selected()
        if row is None:
            return None
        if row.gone:
            self.notify("The note was deleted; revert (u) brings it back.", timeout=4)
            return None
        if row.folder:
            self.notify("This is a folder: approve (a) or revert (u) its change.", timeout=4)
            return None
        return to_relpath(row.path)

    @work(exclusive=True, group="changes-action")
    async def action_edit(self) -> None:
        """Edit the note in the app, the cursor on the first line its changes touched; saving
        marks its waiting changes reviewed."""
        row = self.table.selected_row()
        relpath = self._note_to_edit()
        if relpath is None or row is None:
            return
        try:
            line = first_changed_line(*await asyncio.to_thread(row_texts, self.ctx.history, row))
        except Exception:
            line = 0
        if await edit_here(self.memtui, relpath, (line, 0)):
            await self._saved(relpath)

    @work(exclusive=True, group="changes-action")
    async def action_external_edit(self) -> None:
        """Edit a copy of the note in $EDITOR; saving marks its waiting changes reviewed."""
        relpath = self._note_to_edit()
        if relpath is not None and await edit_in_external_editor(self.memtui, relpath):
            await self._saved(relpath)

    async def _saved(self, relpath: str) -> None:
        """After a save: update the index, query again and recount."""
        await self.memtui.apply_changes(frozenset({relpath}))
        self._changed()

    def action_open(self) -> None:
        """Show the selected note (or folder) on the main screen."""
        row = self._selected()
        if row is None:
            return
        if row.gone:
            self.notify("The note was deleted; revert (u) brings it back.", timeout=4)
            return
        self.post_message(OpenNote(to_relpath(row.path)))
