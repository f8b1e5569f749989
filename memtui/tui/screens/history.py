"""The history screen: every recorded event, filterable, with its diff and undo through the core."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import Checkbox, DataTable, Input, Static

from memtui.core.parsing.paths import VIRTUAL_ROOT
from memtui.core.recording.event_query import EventQuery, parse_event_query
from memtui.core.recording.events import BASELINE
from memtui.notes.operations.undoing import undo_target
from memtui.tui import text_styles as styles
from memtui.tui.messages import ChangeRecorded
from memtui.tui.rest_gate import RestGate
from memtui.tui.screens.base import StoreScreen
from memtui.tui.undo_flow import undo_with_force
from memtui.tui.widgets.confirm import ConfirmScreen
from memtui.tui.widgets.history_events import (
    DiffView,
    EventTable,
    describe_event,
    describe_operation,
    short_path,
)
from memtui.tui.widgets.key_footer import KeyFooter
from memtui.tui.wording import count

if TYPE_CHECKING:
    from memtui.core.recording.entries import Entry
    from memtui.core.recording.events import Event, Group
    from memtui.core.recording.history import History

FILTER_HELP = "actor:agent cmd:str_replace path:projects/ since:7d  words…"
PAGE = 200
"""Events fetched at a time: the newest page first, one more each time the end is reached."""
QUIET = 0.15
"""Seconds without a keystroke or change before the history is queried again."""
CURSOR_REST = 0.12
"""Seconds the cursor must rest on a row, when it moved there in quick steps, before that row's
change is read and drawn: keys held down move the cursor without drawing every diff on the way."""
KINDS = ("agent", "human", "external")
BASELINE_UNDO = (
    "The baseline lists what was here when memtui first opened this folder; there is nothing "
    "to undo."
)


@dataclass
class EventPage:
    """A query's result: all its events (`replace`), or the ones newer and older than those
    shown."""

    query: EventQuery
    replace: bool
    newer: list[Event]
    older: list[Event]
    total: int
    """How many events match the query in all."""
    groups: dict[int, Group] = field(default_factory=dict)
    """The operations the events are parts of, by id."""


class HistoryScreen(StoreScreen):
    """Events newest first, filterable by actor, command, path and time; diff and undo."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("u", "undo", "Undo event", id="history.undo"),
        Binding("slash", "focus_filter", "Filter", id="history.filter"),
        Binding("escape", "close", "Back", id="history.close"),
    ]

    PALETTE: ClassVar[list[tuple[str, str, str]]] = [
        ("history: undo the selected event", "undo", "Restore what the event changed"),
        ("history: filter", "focus_filter", "actor:, cmd:, path:, since: and words"),
        ("go: back", "close", "Leave the history"),
    ]

    def __init__(
        self, path: str | None = None, *, clock: Callable[[], float] | None = None
    ) -> None:
        super().__init__()
        self.scope = path
        """A virtual path (note or folder) to limit the history to, or None for everything."""
        self._clock = clock
        self.events: list[Event] = []
        self.total = 0
        self._diff_of: Event | None = None
        self._entry_of: Entry | None = None
        """The table row of `_diff_of` (an event or an operation), taken on the UI thread."""
        self._diff_gate = RestGate(self, CURSOR_REST)
        self._wanted = EventQuery(path=path, follow=True)
        self._more_wanted = False
        self._reload_wanted = False
        self._fetched: EventQuery | None = None
        self._newest: int | None = None
        self._oldest: int | None = None
        self._fetched_total = 0

    def compose(self) -> ComposeResult:
        """Title, filter row with toggles, event table, diff view and footer."""
        yield Static(id="history-title")
        with Horizontal(id="history-filters"):
            yield Input(placeholder=FILTER_HELP, id="history-filter")
            yield Checkbox("Agents", True, id="show-agent")
            yield Checkbox("Humans", True, id="show-human")
            yield Checkbox("External", True, id="show-external")
            yield Checkbox("Reads", True, id="show-reads")
            yield Checkbox("Errors only", False, id="errors-only")
        yield EventTable(id="history-table")
        with VerticalScroll(id="history-diff-scroll"):
            yield DiffView(id="history-diff")
        yield KeyFooter()

    def on_mount(self) -> None:
        """Query the events in the background and follow changes to the store."""
        self._loader = self.refresher("history-query", self._fetch, self._show_page, quiet=QUIET)
        self._differ = self.refresher("history-diff", self._describe, self._show_diff)
        self.memtui.notes_changed_signal.subscribe(self, lambda _paths: self._loader.request())
        self.query_one("#history-title", Static).update("History · loading…")
        self.reload()
        self.query_one(EventTable).focus()

    def reload(self, *, now: bool = True) -> None:
        """Query the history again with the current filter and toggles."""
        wanted = parse_event_query(self.query_one("#history-filter", Input).value, self.now())
        self._wanted = replace(
            wanted,
            path=wanted.path or self.scope,
            follow=True,
            actor_kinds=frozenset(
                kind for kind in KINDS if self.query_one(f"#show-{kind}", Checkbox).value
            ),
            skip_reads=not self.query_one("#show-reads", Checkbox).value,
            errors_only=self.query_one("#errors-only", Checkbox).value,
        )
        self._loader.request(now=now)

    def _fetch(self) -> EventPage:
        """Fetch what the screen lacks: a fresh first page, or newer events and the next page."""
        history = self.ctx.history
        query = self._wanted
        more, self._more_wanted = self._more_wanted, False
        reload, self._reload_wanted = self._reload_wanted, False
        newer: list[Event] = []
        if not reload and query == self._fetched and self._newest is not None:
            newer = history.events(query, after_id=self._newest, limit=PAGE)
            reload = len(newer) == PAGE
        if reload or query != self._fetched or self._newest is None:
            events = history.events(query, limit=PAGE)
            self._fetched, self._fetched_total = query, history.count_events(query)
            self._newest = events[0].id if events else None
            self._oldest = events[-1].id if events else None
            return EventPage(query, True, events, [], self._fetched_total, _groups(history, events))
        older: list[Event] = []
        if more and self._oldest is not None:
            older = history.events(query, before_id=self._oldest, limit=PAGE)
        self._fetched_total += len(newer)
        if newer:
            self._newest = newer[0].id
        if older:
            self._oldest = older[-1].id
        groups = _groups(history, [*newer, *older])
        return EventPage(query, False, newer, older, self._fetched_total, groups)

    def _show_page(self, page: EventPage) -> None:
        """Show a fetched page: replace the rows, or add the newer and older events."""
        table = self.query_one(EventTable)
        if page.replace:
            self.events = page.newer
            table.show_events(self.events, page.groups)
        elif page.newer or page.older:
            self.events = [*page.newer, *self.events, *page.older]
            table.add_events(page.newer, page.older, page.groups)
        self.total = page.total
        path = page.query.path
        scope = f" of {short_path(path) or VIRTUAL_ROOT}" if path else ""
        shown = len(self.events)
        more = f" · newest {shown} shown, more below" if shown < self.total else ""
        problems = f" · {'; '.join(page.query.problems)}" if page.query.problems else ""
        self.query_one("#history-title", Static).update(
            styles.plain(
                f"History{scope} · {count(self.total, 'event')}, newest first{more}{problems}"
            )
        )
        self._show_selected()

    def load_more(self) -> None:
        """Fetch the next page of older events, if there is one."""
        if len(self.events) < self.total and not self._more_wanted:
            self._more_wanted = True
            self._loader.request(now=True)

    def selected_event(self) -> Event | None:
        """The event under the table cursor."""
        event_id = self.query_one(EventTable).selected_event_id()
        return next((e for e in self.events if e.id == event_id), None)

    def _show_selected(self, *, moved: bool = False) -> None:
        """Show the diff of the selected event (unless it is shown already); its texts are read
        in the background. After a quick cursor `moved`, that waits until the cursor rests."""
        event = self.selected_event()
        if event == self._diff_of and event is not None:
            return
        self._diff_of = event
        self._entry_of = None if event is None else self.query_one(EventTable).entry(event.id)
        self._diff_gate.cancel()
        if event is None:
            self.query_one(DiffView).show(None, None, None)
        elif moved:
            self._diff_gate.moved(lambda: self._differ.request(now=True))
        else:
            self._differ.request(now=True)

    @property
    def diff_pending(self) -> bool:
        """Whether the selected event's change waits for the cursor to rest."""
        return self._diff_gate.pending

    def _describe(self) -> tuple[Event | None, Content | None]:
        """The selected event with its described change, read from the history (in a thread);
        an operation's every part."""
        event = self._diff_of
        if event is None:
            return None, None
        history = self.ctx.history
        entry = self._entry_of
        if entry is not None and entry.is_operation and entry.group is not None:
            parts = [(part, *history.texts(part)) for part in entry.events]
            return event, describe_operation(entry.group, parts)
        before, after = history.texts(event)
        return event, describe_event(event, before, after)

    def _show_diff(self, described: tuple[Event | None, Content | None]) -> None:
        """Show a change described in the background if its event is still the selected one."""
        event, content = described
        if event is not None and content is not None and event == self._diff_of:
            self.query_one(DiffView).update(content)

    @on(DataTable.RowHighlighted)
    def _on_row(self, event: DataTable.RowHighlighted) -> None:
        """Follow the cursor with the diff view; on the last row, fetch the next page."""
        self._show_selected(moved=True)
        if event.cursor_row >= event.data_table.row_count - 1:
            self.load_more()

    @on(EventTable.ReachedEnd)
    def _on_end(self, _event: EventTable.ReachedEnd) -> None:
        """Scrolled to the end of the table: fetch the next page."""
        self.load_more()

    @on(Input.Changed, "#history-filter")
    def _on_filter(self, _event: Input.Changed) -> None:
        """Refilter once the user pauses typing."""
        self.reload(now=False)

    @on(Input.Submitted, "#history-filter")
    def _on_filter_done(self, _event: Input.Submitted) -> None:
        """Enter in the filter moves to the table."""
        self.query_one(EventTable).focus()

    @on(Checkbox.Changed)
    def _on_toggle(self, _event: Checkbox.Changed) -> None:
        """Refilter when a toggle changes."""
        self.reload()

    def action_focus_filter(self) -> None:
        """Put the cursor in the filter row."""
        self.query_one("#history-filter", Input).focus()

    def action_undo(self) -> None:
        """Undo the selected event after confirmation."""
        event = self.selected_event()
        if event is None:
            return
        if event.command == "view" or event.is_error:
            self.notify("This event changed nothing, so there is nothing to undo.", timeout=3)
            return
        if event.command == BASELINE:
            self.notify(BASELINE_UNDO, timeout=4)
            return
        self._confirm_and_undo(event)

    @work(exclusive=True, group="history-undo")
    async def _confirm_and_undo(self, event: Event) -> None:
        """Ask (naming the whole operation when the event is a part of one), undo through the
        core, and on a conflict offer to force."""
        workspace = self.ctx.workspace
        target = await asyncio.to_thread(undo_target, workspace, event.id)
        if target is None:
            return
        what = f"#{event.id} {target.describe()}"
        confirmed = await self.app.push_screen_wait(
            ConfirmScreen(
                "Undo operation?" if target.whole_operation else "Undo event?",
                f"Undo {what}: restore what {'they' if target.whole_operation else 'it'} changed.",
                confirm_label="Undo",
            )
        )
        if not confirmed:
            return
        result = await undo_with_force(self.app, workspace, target)
        if result is None:
            return
        if result.is_error:
            self.notify(result.content, severity="error", timeout=6)
        else:
            self.notify(f"Undid {what}.", timeout=3)
            self.post_message(ChangeRecorded(result.event_id))
            await self.memtui.apply_changes(frozenset(target.paths()))
        self._reload_wanted = True
        self.reload()


def _groups(history: History, events: list[Event]) -> dict[int, Group]:
    """The operations `events` are parts of, by id."""
    ids = {event.group_id for event in events if event.group_id is not None}
    return history.groups(ids) if ids else {}
