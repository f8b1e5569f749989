"""The store as of one history event, read-only: its files then and the selected file's text,
clearly marked; `R` restores the selected file through the core (undoable)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from memtui.core.display import visible
from memtui.tui import text_styles as styles
from memtui.tui.messages import ChangeRecorded
from memtui.tui.screens.base import StoreScreen
from memtui.tui.widgets.confirm import ConfirmScreen
from memtui.tui.widgets.key_footer import KeyFooter
from memtui.tui.wording import count

if TYPE_CHECKING:
    from memtui.core.recording.events import Event
    from memtui.notes.as_of import StoreAsOf

PREVIEW_BYTES = 200_000
"""The most of a file the preview shows."""


class AsOfScreen(StoreScreen):
    """The files of the store just after `event`, and the selected one's text; read-only."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("R", "restore", "Restore this file", id="as_of.restore"),
        Binding("escape", "close", "Back", id="as_of.close"),
    ]
    PALETTE: ClassVar[list[tuple[str, str, str]]] = [
        ("as of: restore this file", "restore", "Write the file back as it was then, undoable"),
        ("go: back", "close", "Leave the store as it was"),
    ]

    def __init__(self, event: Event) -> None:
        """The store as of `event`; its files are read on mount."""
        super().__init__()
        self.event = event
        self.as_of: StoreAsOf | None = None

    def compose(self) -> ComposeResult:
        """The read-only banner, the files then, the preview and the footer."""
        yield Static(id="as-of-title", markup=False)
        with Horizontal(id="as-of-panes"):
            yield OptionList(id="as-of-files")
            with VerticalScroll(id="as-of-preview-scroll"):
                yield Static(id="as-of-preview")
        yield KeyFooter()

    def on_mount(self) -> None:
        """Replay the history up to the event in a thread."""
        self._banner("reading the history…")
        self.query_one(OptionList).focus()
        self._load()

    def _banner(self, state: str) -> None:
        """The title: read-only, which event, when, and `state`."""
        from memtui.notes.as_of import shown_time

        self.query_one("#as-of-title", Static).update(
            f"READ-ONLY · the store as of event #{self.event.id} "
            f"({shown_time(self.event.time)}) · {state}"
        )

    @work(exclusive=True, group="as-of")
    async def _load(self) -> None:
        """The files as of the event, listed."""
        from memtui.notes.as_of import store_after

        as_of = await asyncio.to_thread(store_after, self.ctx.history, self.event)
        self.as_of = as_of
        files = self.query_one(OptionList)
        files.clear_options()
        files.add_options([Option(visible(path), id=path) for path in as_of.paths()])
        self._banner(f"{count(len(as_of.files), 'file')} · R restores the selected file")
        if as_of.files:
            files.highlighted = 0

    def selected_path(self) -> str | None:
        """The relpath of the highlighted file."""
        files = self.query_one(OptionList)
        if files.highlighted is None:
            return None
        return files.get_option_at_index(files.highlighted).id

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, _event: OptionList.OptionHighlighted) -> None:
        """Show the highlighted file's text then."""
        self._preview()

    @work(exclusive=True, group="as-of-preview")
    async def _preview(self) -> None:
        """Read the highlighted file's bytes then from the history (in a thread) and show them."""
        from memtui.notes.as_of import NotThen

        path, as_of = self.selected_path(), self.as_of
        if path is None or as_of is None:
            return
        preview = self.query_one("#as-of-preview", Static)
        try:
            data = await asyncio.to_thread(as_of.content, self.ctx.history, path)
        except NotThen as problem:
            preview.update(styles.assemble((str(problem), styles.ASIDE)))
            return
        text = data[:PREVIEW_BYTES].decode("utf-8", errors="replace")
        preview.update(styles.assemble((f"{path} (then)\n", styles.HEADING), text))

    @work(exclusive=True, group="as-of-restore")
    async def action_restore(self) -> None:
        """Confirm, then write the selected file back as it was then, through the core."""
        from memtui.notes.operations.restoring import restore_file

        path, as_of = self.selected_path(), self.as_of
        if path is None or as_of is None:
            return
        confirmed = await self.app.push_screen_wait(
            ConfirmScreen(
                "Restore this file?",
                f"Write {path} back as it was after event #{self.event.id}.\n\nu undoes it.",
                confirm_label="Restore",
            )
        )
        if not confirmed:
            return
        result = await asyncio.to_thread(restore_file, self.ctx.workspace, as_of, path)
        if result.is_error:
            self.notify(result.content, severity="error", timeout=6)
            return
        if result.event_id is not None:
            self.post_message(ChangeRecorded(result.event_id))
        await self.memtui.apply_changes(frozenset({path}))
        self.notify(result.content, timeout=3)
