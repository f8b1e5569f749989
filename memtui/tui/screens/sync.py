"""What a sync left for a person: clashes (the same lines changed here and on another machine;
this machine's text kept) and files held back (a likely secret). Enter on a clash resolves it in
the merge dialog a save uses (yours, theirs, both or written anew, per overlapping change); `s`
syncs now. Every read and resolution runs in a thread."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Footer, Static

from memtui.core.display import visible
from memtui.tui.messages import ChangeRecorded
from memtui.tui.screens.base import StoreScreen
from memtui.tui.screens.merge import ConflictScreen, Resolution

if TYPE_CHECKING:
    from textual.widgets import Label

    from memtui.core.result import CommandResult
    from memtui.notes.sync.state import Clash
    from memtui.tui.commands import PaletteEntry

EMPTY = "Nothing waits for you: no clash, no file held back."


@dataclass(frozen=True)
class Waiting:
    """The clashes and held-back files of the store."""

    clashes: list[Clash] = field(default_factory=list)
    held: dict[str, str] = field(default_factory=dict)


class ClashDialog(ConflictScreen):
    """A dialog about a clash: leaving it decides nothing (the clash keeps waiting)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "choose('edit')", "Decide later", id="clash.later"),
    ]
    PALETTE: ClassVar[list[tuple[str, str, str]]] = [
        ("conflict: save merged", "save", "Save the merge once every change is resolved"),
        ("conflict: keep mine", "choose('mine')", "Keep this machine's version as it is"),
        ("conflict: take theirs", "choose('theirs')", "Take the other machine's version"),
        ("conflict: decide later", "choose('edit')", "Back to the list, the clash still waiting"),
    ]
    LATER: ClassVar[str] = "Decide later"


class ClashScreen(ClashDialog):
    """The merge dialog for a clash: this machine's lines against the other machine's."""

    def __init__(self, clash: Clash) -> None:
        """Show the overlapping changes of `clash`."""
        from memtui.notes.operations.saving import Changed  # imported on first use: start-up
        from memtui.notes.sync.resolving import clash_texts  # imported on first use: start-up

        texts = clash_texts(clash)
        changed = Changed(
            clash.virtual,
            texts.base or "",
            texts.ours or "",
            texts.theirs,
            None,
            texts.merge,
            [],
        )
        super().__init__(clash.path, changed)
        self.clash = clash

    def title_label(self) -> Label:
        """`<note> changed here and on <machine>`."""
        from textual.widgets import Label

        return Label(
            visible(f"{self.clash.path} changed here and on {self.clash.machine}"),
            markup=False,
            classes="dialog-title",
        )

    def theirs_label(self) -> str:
        """`Theirs (work-laptop, agent:claude)`."""
        return visible(f"Theirs ({self.clash.machine}, {self.clash.actor})")

    def summary(self) -> str:
        """Who changed it there, and what is left to decide."""
        overlapping = len(self.conflicts)
        return visible(
            f"{self.clash.actor} on {self.clash.machine} changed {overlapping} "
            f"{'place' if overlapping == 1 else 'places'} this machine changed too; the note "
            "keeps this machine's text until you choose. For each: yours (m), theirs (t), both "
            "(b) or write it (e)."
        )


class ClashChoiceScreen(ClashDialog):
    """A clash with no lines to compare (a deletion, a file that is not text): keep this
    machine's version, or take theirs."""

    def __init__(self, clash: Clash, what: str) -> None:
        """Ask about `clash`, described by `what`."""
        from memtui.notes.operations.saving import Changed  # imported on first use: start-up

        super().__init__(clash.path, Changed(clash.virtual, "", "", "", None, None, []))
        self.clash = clash
        self.what = what

    def title_label(self) -> Label:
        """The note's path."""
        from textual.widgets import Label

        return Label(visible(self.clash.path), markup=False, classes="dialog-title")

    def summary(self) -> str:
        """What happened, and the two choices."""
        return visible(f"{self.what}. Keep mine, or take theirs.")


class SyncScreen(StoreScreen):
    """Clashes and held-back files, to resolve; `s` syncs now."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "resolve", "Resolve", id="sync.resolve"),
        Binding("s", "sync_now", "Sync now", id="sync.now"),
        Binding("escape", "close", "Back", id="sync.close"),
    ]
    PALETTE: ClassVar[list[PaletteEntry]] = [
        ("sync: resolve the clash", "resolve", "Yours, theirs, both or write it"),
        ("sync: sync now", "sync_now", "Commit, fetch, merge and push now"),
        ("go: back", "close", "Leave the sync screen"),
    ]

    def __init__(self) -> None:
        """The list fills in from a background read."""
        super().__init__()
        self.waiting = Waiting()

    def compose(self) -> ComposeResult:
        """Title, the waiting items, footer."""
        yield Static(id="sync-title", markup=False)
        yield DataTable(id="sync-table", cursor_type="row")
        yield Static(id="sync-detail", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        """Read in the background, again after every sync and change."""
        table = self.query_one(DataTable)
        table.add_columns("clash", "note", "what")
        self._loader = self.refresher("sync-waiting", self._fetch, self._show)
        self.memtui.sync_signal.subscribe(self, lambda _line: self._loader.request())
        self.memtui.notes_changed_signal.subscribe(self, lambda _paths: self._loader.request())
        self._title()
        self._loader.request(now=True)
        table.focus()

    def _title(self) -> None:
        """The title: the status line's sync part."""
        line = self.memtui.syncing.line or "sync"
        self.query_one("#sync-title", Static).update(visible(line))

    def _fetch(self) -> Waiting:
        """The clashes and held files (run in a thread)."""
        from memtui.notes.sync.state import SyncState  # imported on first use: start-up

        state = SyncState.existing(self.ctx.store.history)
        if state is None:
            return Waiting()
        return Waiting(state.clashes(), state.held())

    def _show(self, waiting: Waiting) -> None:
        """Fill the table."""
        from memtui.notes.sync.resolving import describe  # imported on first use: start-up

        self.waiting = waiting
        self._title()
        table = self.query_one(DataTable)
        table.clear()
        for clash in waiting.clashes:
            table.add_row(str(clash.id), visible(clash.virtual), visible(describe(clash)))
        for path, reason in waiting.held.items():
            table.add_row("held", visible("/memories/" + path), visible(reason))
        self._detail()

    def _detail(self) -> None:
        """The row under the cursor in full (the table cuts long lines), or that nothing waits."""
        from memtui.notes.sync.resolving import describe  # imported on first use: start-up

        row = self.query_one(DataTable).cursor_row
        clashes, held = self.waiting.clashes, list(self.waiting.held.items())
        if 0 <= row < len(clashes):
            clash = clashes[row]
            text = f"{clash.virtual}: {describe(clash)}. Enter: yours, theirs, both or write it."
        elif 0 <= row - len(clashes) < len(held):
            path, reason = held[row - len(clashes)]
            text = f"/memories/{path} {reason}."
        else:
            text = "" if clashes or held else EMPTY
        self.query_one("#sync-detail", Static).update(visible(text))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """Say the row under the cursor in full."""
        event.stop()
        self._detail()

    def selected(self) -> Clash | None:
        """The clash under the cursor, if the cursor is on one."""
        row = self.query_one(DataTable).cursor_row
        clashes = self.waiting.clashes
        return clashes[row] if 0 <= row < len(clashes) else None

    def action_sync_now(self) -> None:
        """Sync now."""
        self.memtui.syncing.sync_now()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a row resolves its clash."""
        event.stop()
        self.action_resolve()

    def action_resolve(self) -> None:
        """Resolve the clash under the cursor."""
        clash = self.selected()
        if clash is not None:
            self.resolve(clash)

    @work(exclusive=True, group="sync-resolve")
    async def resolve(self, clash: Clash) -> None:
        """Ask how to resolve `clash`, then resolve it in a thread."""
        from memtui.notes.sync.resolving import describe  # imported on first use: start-up
        from memtui.notes.sync.state import CLASH_TEXT  # imported on first use: start-up

        text_clash = clash.kind == CLASH_TEXT
        dialog = ClashScreen(clash) if text_clash else ClashChoiceScreen(clash, describe(clash))
        answer: Resolution = await self.app.push_screen_wait(dialog)
        choice = {"mine": "yours", "theirs": "theirs", "save": "edit"}.get(answer.action)
        if choice is None or (choice == "edit" and answer.text is None):
            return
        result = await asyncio.to_thread(self._resolve, clash.id, choice, answer.text)
        severity = "error" if result.is_error else "information"
        self.notify(visible(result.content), severity=severity)  # type: ignore[arg-type]
        if not result.is_error:
            self.post_message(ChangeRecorded(result.event_id))
            await self.memtui.apply_changes(frozenset({clash.path}))
        self._loader.request(now=True)
        self.memtui.syncing.read_status()

    def _resolve(self, clash_id: int, choice: str, text: str | None) -> CommandResult:
        """Resolve a clash as the app's person (run in a thread)."""
        from memtui.notes.sync.resolving import resolve_clash  # imported on first use: start-up
        from memtui.notes.sync.state import SyncState  # imported on first use: start-up

        state = SyncState(self.ctx.store.history)
        return resolve_clash(self.ctx.store, state, clash_id, choice, text)  # type: ignore[arg-type]
