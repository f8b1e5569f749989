"""The history screen: every recorded event, filterable, with its diff and undo through the core."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Checkbox, DataTable, Footer, Input, Static

from memtui.tui.screens.base import StoreScreen
from memtui.tui.widgets.history_events import (
    DiffView,
    EventTable,
    actor_kind,
    matches_text,
    parse_filter,
    short_path,
)

if TYPE_CHECKING:
    from memtui.core.history import Event

FILTER_HELP = "actor:agent cmd:str_replace path:projects/ since:7d  words…"


class HistoryScreen(StoreScreen):
    """Events newest first, filterable by actor, command, path and time; diff and undo."""

    DEFAULT_CSS = """
    HistoryScreen #history-title { height: 1; padding: 0 1; background: $panel; }
    HistoryScreen #history-filters { height: 3; }
    HistoryScreen #history-filter { width: 1fr; }
    HistoryScreen #history-filters Checkbox { width: auto; border: none; padding: 0 1; }
    HistoryScreen EventTable { height: 1fr; }
    HistoryScreen #history-diff-scroll { height: 1fr; border-top: solid $panel-lighten-2; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("u", "undo", "Undo event", id="history.undo"),
        Binding("slash", "focus_filter", "Filter", id="history.filter"),
        Binding("escape", "close", "Back", id="history.close"),
    ]

    PALETTE: ClassVar[list[tuple[str, str, str]]] = [
        ("history: undo the selected event", "undo", "Restore what the event changed (u)"),
        ("history: filter", "focus_filter", "actor:, cmd:, path:, since: and words (/)"),
        ("go: back", "close", "Leave the history (escape)"),
    ]

    def __init__(
        self, path: str | None = None, *, clock: Callable[[], float] | None = None
    ) -> None:
        super().__init__()
        self.scope = path
        """A virtual path (note or folder) to limit the history to, or None for everything."""
        self._clock = clock
        self.events: list[Event] = []

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
        yield Footer()

    def on_mount(self) -> None:
        """Load the events and follow changes to the store."""
        app: Any = self.app
        signal = getattr(app, "notes_changed_signal", None)
        if signal is not None:
            signal.subscribe(self, lambda _paths: self.reload())
        self.reload()
        self.query_one(EventTable).focus()

    def reload(self) -> None:
        """Query the history with the current filter and toggles and refill the table."""
        query = self.query_one("#history-filter", Input).value
        wanted = parse_filter(query, self.now())
        path = wanted.path or self.scope
        events = self.ctx.history.events(
            path=path, actor=wanted.actor, command=wanted.command, since=wanted.since
        )
        kinds = {
            kind
            for kind in ("agent", "human", "external")
            if self.query_one(f"#show-{kind}", Checkbox).value
        }
        show_reads = self.query_one("#show-reads", Checkbox).value
        errors_only = self.query_one("#errors-only", Checkbox).value
        self.events = [
            event
            for event in events
            if actor_kind(event.actor) in kinds
            and (show_reads or event.command != "view")
            and (event.is_error or not errors_only)
            and matches_text(event, wanted.text)
        ]
        self.query_one(EventTable).show_events(self.events)
        scope = f" of {short_path(path) or '/memories'}" if path else ""
        problems = f" · {'; '.join(wanted.problems)}" if wanted.problems else ""
        self.query_one("#history-title", Static).update(
            f"History{scope} · {len(self.events)} event{'' if len(self.events) == 1 else 's'}, newest first{problems}"
        )
        self._show_selected()

    def selected_event(self) -> Event | None:
        """The event under the table cursor."""
        event_id = self.query_one(EventTable).selected_event_id()
        return next((e for e in self.events if e.id == event_id), None)

    def _show_selected(self) -> None:
        """Show the diff of the selected event."""
        event = self.selected_event()
        before, after = self.ctx.history.texts(event) if event is not None else (None, None)
        self.query_one(DiffView).show(event, before, after)

    @on(DataTable.RowHighlighted)
    def _on_row(self, _event: DataTable.RowHighlighted) -> None:
        """Follow the cursor with the diff view."""
        self._show_selected()

    @on(Input.Changed, "#history-filter")
    def _on_filter(self, _event: Input.Changed) -> None:
        """Refilter as the user types."""
        self.reload()

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
        self._confirm_and_undo(event)

    @work(exclusive=True, group="history-undo")
    async def _confirm_and_undo(self, event: Event) -> None:
        """Ask, revert through the core, and on a conflict offer to force."""
        from memtui.tui.widgets.confirm import ConfirmScreen

        what = f"#{event.id} {event.command} {short_path(event.path) or '/memories'}"
        confirmed = await self.app.push_screen_wait(
            ConfirmScreen(
                "Undo event?",
                f"Undo {what} by {event.actor}: restore what it changed.",
                confirm_label="Undo",
            )
        )
        if not confirmed:
            return
        result = self.ctx.store.revert(event.id)
        if result.is_error and result.content.startswith("Conflict"):
            forced = await self.app.push_screen_wait(
                ConfirmScreen(
                    "Undo conflicts",
                    f"{result.content}\nForce the undo anyway? The current content stays in the "
                    "history and can be restored from there.",
                    confirm_label="Force undo",
                )
            )
            if not forced:
                self.notify("Undo cancelled; nothing changed.", timeout=3)
                return
            result = self.ctx.store.revert(event.id, force=True)
        if result.is_error:
            self.notify(result.content, severity="error", timeout=6)
        else:
            self.notify(f"Undid {what}.", timeout=3)
            remember = getattr(self.app, "remember_event", None)
            if remember is not None:
                remember(result.event_id)
            self._update_index(event)
        self.reload()

    def _update_index(self, event: Event) -> None:
        """Tell the index which notes the undo touched, so other screens see the change."""
        index = self.ctx.index
        if index is None:
            return
        paths = {short_path(p) for p in (event.path, event.new_path) if p}
        changed: set[str] = set()
        for path in paths:
            folder = self.ctx.root / path
            if folder.is_dir():
                changed |= {p.relative_to(self.ctx.root).as_posix() for p in folder.rglob("*.md")}
            changed.add(path)
        changed |= {p for p in index.notes if any(p.startswith(f + "/") for f in paths)}
        index.update_paths(changed)
