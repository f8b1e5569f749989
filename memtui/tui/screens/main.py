"""The main screen: the note tree, the preview and the links-and-history side panel."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import Static, Tree
from textual.worker import get_current_worker

from memtui.core.display import visible
from memtui.tui.background import Computed
from memtui.tui.messages import NoteHistoryRead, PreviewPrepared, SettingSaved, TitlesRead
from memtui.tui.outlink import OutLink
from memtui.tui.policy_marks import frontmatter_read_only, policy_line
from memtui.tui.rest_gate import RestGate
from memtui.tui.screens.base import MemtuiScreen
from memtui.tui.widgets.key_footer import KeyFooter
from memtui.tui.widgets.note_tree import BADGE_HELP, NoteTree, TreeEntry
from memtui.tui.widgets.preview import LinkFollowed, Preview
from memtui.tui.widgets.side_panel import SideItemChosen, SidePanel
from memtui.tui.wording import count

if TYPE_CHECKING:
    from memtui.core.recording.events import Event
    from memtui.tui.commands import PaletteEntry

SIDE_PANEL_MIN_WIDTH = 100
"""Terminals narrower than this hide the side panel by default (`l` shows it)."""
PREVIEW_DELAY = 0.05
"""Seconds between cursor moves below which the preview waits for the cursor to rest."""
HISTORY_ROWS = 8


class MainScreen(MemtuiScreen[None]):
    """Browse the store: tree, preview, links and history; every note action starts here."""

    HELP = "Tree badges:\n" + BADGE_HELP
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [  # type: ignore[misc]
        (0, "-narrow"),
        (SIDE_PANEL_MIN_WIDTH, "-wide"),
    ]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "search", "Search", id="main.search"),
        Binding("e", "edit", "Edit", id="main.edit"),
        Binding("E", "external_edit", "$EDITOR", show=False, id="main.external_edit"),
        Binding("n", "new_note", "New", id="main.new"),
        Binding("m", "rename", "Move", id="main.rename"),
        Binding("d", "delete", "Delete", id="main.delete"),
        Binding("u", "undo", "Undo", id="main.undo"),
        Binding("v", "toggle_raw", "Raw", id="main.raw"),
        Binding("l", "toggle_side", "Links", show=False, id="main.side"),
        Binding("t", "toggle_labels", "Titles", show=False, id="main.labels"),
        Binding("g", "graph", "Graph", id="main.graph"),
        Binding("h", "history", "History", id="main.history"),
        Binding("H", "note_history", "Note history", show=False, id="main.note_history"),
        Binding("r", "review", "Review", id="main.review"),
        Binding("b", "budget", "Budget", show=False, id="main.budget"),
        Binding("c", "changes", "Changes", id="main.changes"),
        Binding("ctrl+r", "reload", "Reload", show=False, id="main.reload"),
        Binding("p", "protect", "Protect", show=False, id="main.protect"),
    ]
    FOOTER_DROPS: ClassVar[tuple[str, ...]] = (
        "app.help",
        "main.raw",
        "main.undo",
        "main.delete",
        "main.rename",
        "main.new",
        "main.graph",
        "main.edit",
    )
    """The footer keys a narrow terminal hides first (F1 is in the status line): search,
    history, review, changes and quit stay."""
    PALETTE: ClassVar[list[PaletteEntry]] = [
        ("go: search", "search", "Search every note"),
        ("note: edit", "edit", "Edit the note in memtui"),
        ("note: edit in $EDITOR", "external_edit", "Edit a copy in your editor"),
        ("note: new", "new_note", "Create a note from the template"),
        ("note: rename or move", "rename", "Rename, optionally rewriting links to it"),
        ("note: delete", "delete", "Delete the note or folder, undoable"),
        ("note: undo last change", "undo", "Undo the last change made in this app (named first)"),
        ("view: toggle raw", "toggle_raw", "Show exactly what the agent's view returns"),
        ("view: toggle links panel", "toggle_side", "Show or hide links, backlinks and history"),
        ("view: tree shows titles or names", "toggle_labels", "File names or titles, saved"),
        ("go: graph", "graph", "The note's neighbourhood"),
        ("go: history", "history", "Every event in the store"),
        ("go: note history", "note_history", "Events of this note"),
        ("go: review", "review", "Stale notes to review"),
        ("go: budget", "budget", "What the agent loads every session, and what it read"),
        ("go: changes to review", "changes", "What agents and outside edits changed, to approve"),
        ("view: reload tree", "reload", "Re-list the folders"),
        ("note: protect from agents", "protect", "A policy rule: review, read-only or hidden"),
    ]

    def __init__(self) -> None:
        """Create the screen; content arrives on mount."""
        super().__init__()
        self._preview_gate = RestGate(self, PREVIEW_DELAY)
        self.raw = False
        self.first_frame_shown = False
        self._history_rows: dict[str, list[Event]] = {}
        self._line_wanted: tuple[str, int | None] | None = None
        """The note `show_path` moved the cursor to and the line its highlight shows it at."""
        self.loaded_total = ""
        """The always-loaded total as the status line says it ("" when nothing loads)."""
        self._view_wanted: tuple[str, bool] | None = None
        """The file (and whether raw) whose view is being prepared, so an older one is dropped."""

    def compose(self) -> ComposeResult:
        """The tree and a status line; the preview, side panel and footer join them once the
        first frame is on screen (they would hold the tree's first frame up by 40%)."""
        yield Static("", id="read-only", markup=False)
        with Horizontal(id="main-panes"):
            labels = getattr(self.ctx.settings, "tree_labels", "names")
            yield NoteTree(self.ctx.root, labels=labels, id="tree")
        yield Static("", id="status", markup=False)

    def on_mount(self) -> None:
        """Subscribe to the app's signals and show the status."""
        app = self.memtui
        app.notes_changed_signal.subscribe(self, self.on_notes_changed_signal)
        app.files_changed_signal.subscribe(self, self.on_files_changed_signal)
        app.index_ready_signal.subscribe(self, lambda _none: self.on_index_ready_signal())
        app.searcher_ready_signal.subscribe(self, lambda _none: self.update_status())
        app.progress_signal.subscribe(self, lambda _progress: self.update_status())
        app.badges_signal.subscribe(self, lambda _none: self.note_tree.set_badges(app.badges))
        app.review_count_signal.subscribe(self, lambda _count: self.update_status())
        app.read_only_signal.subscribe(self, self.show_read_only)
        if app.read_only is not None:
            self.show_read_only(app.read_only)
        app.index_ready_signal.subscribe(self, lambda _none: self.count_loaded())
        app.notes_changed_signal.subscribe(self, lambda _paths: self.count_loaded())
        app.sync_signal.subscribe(self, lambda _line: self.update_status())
        self.note_tree.focus()
        self.update_status()
        self.call_after_refresh(self._after_first_frame)

    async def _after_first_frame(self) -> None:
        """Add the preview, side panel and footer (showing the screen's keys), then load the
        first preview."""
        panes = self.query_one("#main-panes").mount(Preview(id="preview"), SidePanel(id="side"))
        footer = self.mount(KeyFooter())
        await panes
        await footer
        self.refresh_bindings()
        self.first_frame_shown = True
        self.schedule_preview(keep_mode=True)

    @property
    def note_tree(self) -> NoteTree:
        """The note tree."""
        return self.query_one(NoteTree)

    @property
    def preview(self) -> Preview:
        """The preview."""
        return self.query_one(Preview)

    @property
    def side(self) -> SidePanel:
        """The side panel."""
        return self.query_one(SidePanel)

    def show_read_only(self, reason: str) -> None:
        """The banner of a store that cannot be written: notes show, changes are refused."""
        banner = self.query_one("#read-only", Static)
        banner.update(
            f" Read-only: this memory folder cannot be written ({visible(reason)}). Notes show; "
            "changes are refused, and a refused save keeps your text."
        )
        banner.add_class("shown")

    def update_status(self) -> None:
        """The status line: the store and its notes, or indexing progress."""
        index = self.ctx.index
        progress = self.memtui.index_progress
        if index is not None:
            notes, others = len(index.notes), len(index.texts) - len(index.notes)
            state = count(notes, "note") + (f", {count(others, 'other file')}" if others else "")
            if self.ctx.searcher is None:
                state += "  ·  building the search index…"
        elif progress is not None:
            state = f"indexing {progress[0]:,} / {progress[1]:,} notes…"
        else:
            state = "indexing…"
        waiting = self.memtui.review_count
        if waiting:
            state += f"  ·  {count(waiting, 'change')} to review (c)"
        held = self.memtui.held_count
        if held:
            state += f"  ·  {count(held, 'change')} held for approval (c)"
        if self.loaded_total:
            state += f"  ·  {self.loaded_total}"
        if self.memtui.syncing.line:
            state += f"  ·  {self.memtui.syncing.line}"
        self.query_one("#status", Static).update(
            f" {visible(str(self.ctx.root))}  ·  {state}  ·  F1 keys"
        )

    @work(thread=True, exclusive=True, group="loaded-total")
    def count_loaded(self) -> None:
        """Compute the tokens loaded at every session's start, for the status line."""
        from memtui.tui.screens.budget import compute_budget, status_total

        budget = compute_budget(self)
        if budget is None or get_current_worker().is_cancelled:
            return
        self.post_message(Computed(self._show_loaded, status_total(budget)))

    def on_computed(self, message: Computed) -> None:
        """Apply a background result on the UI thread."""
        message.apply(message.result)

    def _show_loaded(self, total: str) -> None:
        """Show the always-loaded total in the status line."""
        if total != self.loaded_total:
            self.loaded_total = total
            self.update_status()

    def now(self) -> float:
        """The app's clock (notes' ages, the reads of the last 30 days)."""
        return float(self.memtui.clock())

    def on_index_ready_signal(self) -> None:
        """Index ready: refresh the status and the current note's links."""
        self.update_status()
        self.note_tree.set_badges(self.memtui.badges)
        self.schedule_preview(keep_mode=True)

    def on_files_changed_signal(self, paths: frozenset[str]) -> None:
        """Re-read the shown note at once when its file changed, before the index catches up."""
        shown = self.preview.relpath
        if shown in paths and self.note_tree.cursor_relpath == shown:
            self.call_later(self.reload_shown)

    def on_notes_changed_signal(self, paths: frozenset[str]) -> None:
        """Re-list changed folders and reload the shown note."""
        self._history_rows.clear()
        self.note_tree.forget_titles(paths)
        self.note_tree.refresh_paths(paths)
        self.update_status()
        shown = self.preview.relpath
        if shown is not None and shown in paths and self.note_tree.cursor_relpath == shown:
            self.call_later(self.reload_shown)
        elif shown is None or self.note_tree.cursor_relpath != shown:
            self.schedule_preview()
        else:
            self.refresh_side(shown)

    @on(Tree.NodeHighlighted, "#tree")
    def _node_highlighted(self, event: Tree.NodeHighlighted[TreeEntry]) -> None:
        """Preview the note under the cursor once it rests there (at the line `show_path` asked
        for); a highlight the cursor has already left is skipped, a later one follows it."""
        data = event.node.data
        relpath = None if data is None else data.relpath
        if relpath != self.note_tree.cursor_relpath:
            return
        wanted, self._line_wanted = self._line_wanted, None
        line = wanted[1] if wanted is not None and wanted[0] == relpath else None
        self.raw = False
        self.schedule_preview(line, requested_at=self._preview_gate.timers.sent_at(event))

    @on(Tree.NodeSelected, "#tree")
    def _node_selected(self, event: Tree.NodeSelected[TreeEntry]) -> None:
        """Enter on a note focuses the preview."""
        if event.node.data is not None and not event.node.data.is_dir:
            self.preview.focus()

    def schedule_preview(
        self, line: int | None = None, *, keep_mode: bool = False, requested_at: float | None = None
    ) -> None:
        """Load the preview now after a rest, else once the cursor rests (a held key renders
        only where it stops).

        `requested_at` is when the cursor moved (the highlight message's monotonic time), so a
        burst of moves counts as one even when a busy machine handles them slowly.
        """
        self._preview_gate.cancel()
        if not keep_mode:
            self.raw = False
        if not self.first_frame_shown:
            return
        self._preview_gate.moved(lambda: self.call_later(self.load_preview, line), at=requested_at)

    def show_path(self, relpath: str, line: int | None = None) -> None:
        """Put the tree cursor on `relpath` and show it, scrolled to `line` (one load: by the
        highlight when the cursor moves, directly when it stays)."""
        tree = self.note_tree
        before = tree.cursor_relpath
        tree.select_path(relpath)
        self.raw = False
        tree.focus()
        if tree.cursor_relpath != before:
            self._line_wanted = (relpath, line)
        else:
            self._line_wanted = None
            self.call_after_refresh(self.load_preview, line)

    async def load_preview(self, line: int | None = None, *, keep_position: bool = False) -> None:
        """Show the file under the cursor: read, parsed and laid out in a thread, so a huge file
        never holds up a key (read without recording an agent read)."""
        entry = self.note_tree.cursor_entry
        if entry is None:
            self.preview.show_message("This store is empty: press n to create a note.")
            self.side.show_nothing()
            return
        if entry.is_dir:
            rule = policy_line(self.memtui.policy, entry.relpath)
            self.preview.show_message(
                f"{entry.relpath}/  ·  folder  ·  d deletes it, n adds a note"
                + (f"  ·  {rule}" if rule else "")
            )
            self.side.show_nothing()
            return
        if self.raw:
            if not (self.preview.mode == "raw" and self.preview.relpath == entry.relpath):
                self.show_raw(entry.relpath)
            return
        self.prepare_view(entry.relpath, line, keep_position=keep_position)

    def prepare_view(
        self,
        relpath: str,
        line: int | None = None,
        *,
        raw: bool = False,
        record: bool = False,
        keep_position: bool = False,
    ) -> None:
        """Start reading and laying out `relpath`'s view (the raw one when `raw`) in a thread."""
        self._view_wanted = (relpath, raw)
        self._prepare_in_thread(
            relpath, self.preview.text_width(), line, raw, record, keep_position
        )

    @work(thread=True, exclusive=True, group="preview", exit_on_error=False)
    def _prepare_in_thread(
        self, relpath: str, width: int, line: int | None, raw: bool, record: bool, keep: bool
    ) -> None:
        """Read and lay out a view in a thread and post it; a run overtaken posts nothing."""
        from memtui.tui.preview_source import prepare_raw, prepare_view  # first use: start-up

        view = None
        error = None
        interaction = self.ctx.interaction
        try:
            if raw:
                view = prepare_raw(
                    self.ctx.store, relpath, width, record=record, interaction=interaction
                )
            else:
                view = prepare_view(self.ctx.store, relpath, width, interaction=interaction)
        except Exception as failure:
            error = f"Cannot read {relpath}: {failure}"
        if not get_current_worker().is_cancelled:
            self.post_message(PreviewPrepared(relpath, raw, view, error, line, keep))

    async def on_preview_prepared(self, message: PreviewPrepared) -> None:
        """Show a prepared view if it is still the one wanted (the cursor may have moved on)."""
        view = message.view
        wanted = (self.note_tree.cursor_relpath, self.raw)
        if self._view_wanted != (message.relpath, message.raw) or wanted != self._view_wanted:
            return
        if view is None:
            self.preview.show_message(message.error or f"Cannot read {message.relpath}")
            self.side.show_nothing()
            return
        index = self.ctx.index
        title = view.note.title if view.note is not None else None
        if title is None and index is not None:
            title = index.title(message.relpath)
        read_only = view.note is not None and frontmatter_read_only(view.note.frontmatter)
        view = replace(view, policy=policy_line(self.memtui.policy, message.relpath, read_only))
        await self.preview.show_view(
            view,
            outgoing=self.outgoing(message.relpath, view.note),
            title=title,
            line=message.line,
            keep_position=message.keep_position,
        )
        if view.recorded_event is not None:
            self._history_rows.pop(message.relpath, None)
        self.refresh_side(message.relpath, view.note)

    def outgoing(self, relpath: str, note: object) -> list[OutLink]:
        """The note's relations with their resolved paths (None when unresolved or not indexed)."""
        index = self.ctx.index
        return [
            OutLink(
                relation.relation_type,
                relation.target,
                None if index is None else index.resolve(relation.target, relpath),
            )
            for relation in getattr(note, "relations", [])
        ]

    def refresh_side(self, relpath: str, note: object | None = None) -> None:
        """Fill the side panel for `relpath` (from `note`, else from the index without building
        the note, which for a huge one would hold up the UI)."""
        index = self.ctx.index
        if note is not None:
            outgoing = self.outgoing(relpath, note)
        elif index is not None:
            outgoing = [
                OutLink(relation.relation_type, relation.target, resolved)
                for relation, resolved in index.outgoing(relpath)
            ]
        else:
            outgoing = []
        backlinks = []
        if index is not None:
            for source, relation in index.backlinks(relpath):
                title = index.title(source) or source
                backlinks.append((title, source, relation.relation_type))
        events = self._history_rows.get(relpath)
        self.side.show_note(
            outgoing=outgoing,
            backlinks=backlinks,
            events=events,
            now=self.memtui.clock(),
            index_ready=index is not None,
        )
        if self.memtui.history_ready and events is None:
            self.load_side_history(relpath, outgoing, backlinks)

    @work(thread=True, exclusive=True, group="side-history", exit_on_error=False)
    def load_side_history(
        self,
        relpath: str,
        outgoing: list[OutLink],
        backlinks: list[tuple[str, str, str]],
    ) -> None:
        """Query the note's recent history in a thread and post it to the screen."""
        try:
            events = self.ctx.history.events(
                path=self.ctx.virtual(relpath), follow=True, limit=HISTORY_ROWS
            )
        except Exception:
            events = []
        self.post_message(NoteHistoryRead(relpath, outgoing, backlinks, events))

    def on_note_history_read(self, message: NoteHistoryRead) -> None:
        """Fill the side panel's history once it is read, unless another note is shown now."""
        self._history_rows[message.relpath] = message.events
        if self.note_tree.cursor_relpath != message.relpath:
            return
        self.side.show_note(
            outgoing=message.outgoing,
            backlinks=message.backlinks,
            events=message.events,
            now=self.memtui.clock(),
            index_ready=self.ctx.index is not None,
        )

    def show_raw(self, relpath: str) -> None:
        """Show the agent's `view` of the note (recorded as one human `view` event)."""
        self.prepare_view(relpath, raw=True, record=True)

    async def reload_shown(self) -> None:
        """Show the changed note again where the reader was; the raw view is re-rendered
        without recording a `view`."""
        if not self.raw:
            await self.load_preview(keep_position=True)
            return
        relpath = self.preview.relpath
        if relpath is None or self.preview.mode != "raw":
            return
        self.prepare_view(relpath, raw=True, keep_position=True)

    def on_link_followed(self, message: LinkFollowed) -> None:
        """Follow a link from the preview."""
        self.follow(message.target, message.source)

    def follow(self, target: str, source: str | None) -> None:
        """Open a link's target note, or say it is unresolved."""
        index = self.ctx.index
        if index is None:
            self.notify("Still indexing: links resolve in a moment.")
            return
        resolved = index.resolve(target, source)
        if resolved is None:
            self.notify(f"Unresolved link: [[{target}]]", severity="warning")
        else:
            self.show_path(resolved)

    def on_side_item_chosen(self, message: SideItemChosen) -> None:
        """Open a linked note, or the note's history."""
        if message.kind == "note":
            self.show_path(message.value)
        elif message.kind == "history":
            self.action_note_history()

    def selected_note(self) -> str | None:
        """The relative path of the note under the cursor (None for a folder or nothing)."""
        entry = self.note_tree.cursor_entry
        if entry is None or entry.is_dir:
            self.notify("Select a note first.", severity="warning")
            return None
        return entry.relpath

    def selected_folder(self) -> str:
        """The folder under the cursor, or the folder of the note under it."""
        entry = self.note_tree.cursor_entry
        if entry is None:
            return ""
        return entry.relpath if entry.is_dir else entry.relpath.rpartition("/")[0]

    async def changed(self, paths: set[str], show: str | None = None) -> None:
        """After a change made here: update the index and widgets now, then show `show`."""
        await self.memtui.apply_changes(frozenset(paths))
        if show is not None:
            self.note_tree.refresh_paths(frozenset(paths))
            self.show_path(show)

    def action_search(self) -> None:
        """Open the search screen."""
        from memtui.tui.screens.search import SearchScreen  # imported on first use: start-up

        self.app.push_screen(SearchScreen())

    def action_toggle_raw(self) -> None:
        """Switch between the rendered note and the agent's raw view."""
        relpath = self.selected_note()
        if relpath is None:
            return
        self.raw = not self.raw
        if self.raw:
            self._preview_gate.cancel()
            self.show_raw(relpath)
        else:
            self.schedule_preview()

    def action_toggle_side(self) -> None:
        """Show or hide the links-and-history panel at any terminal width from now on (until
        `l` is pressed, it hides on a narrow terminal)."""
        hidden = self.has_class("-side-hidden") or self.has_class("-narrow")
        shown = self.has_class("-side-shown") or not hidden
        self.set_class(shown, "-side-hidden")
        self.set_class(not shown, "-side-shown")

    def action_toggle_labels(self) -> None:
        """Show titles or file names in the tree, and save the choice in the config."""
        labels = "names" if self.note_tree.labels == "titles" else "titles"
        self.note_tree.set_labels(labels)
        self.save_labels(labels)

    @work(thread=True, exclusive=True, group="save-labels", exit_on_error=False)
    def save_labels(self, labels: str) -> None:
        """Save the tree's labels in the config file, in a thread."""
        from memtui.core.config import ConfigError  # imported on first use: start-up
        from memtui.core.config_edit import save_setting  # imported on first use: start-up

        summary = f"Tree shows {labels}"
        try:
            path = save_setting("tree_labels", labels)
        except ConfigError as error:
            self.post_message(SettingSaved(summary, str(error)))
        else:
            self.post_message(SettingSaved(f"{summary} (saved in {path})", None))

    def on_setting_saved(self, message: SettingSaved) -> None:
        """Say where a setting was saved, or why it was not."""
        if message.error is None:
            self.notify(message.summary, timeout=4)
        else:
            self.notify(f"{message.summary}; not saved: {message.error}", severity="warning")

    def on_note_tree_titles_wanted(self, event: NoteTree.TitlesWanted) -> None:
        """Read the titles the tree asks for, in a thread."""
        self.read_titles(event.relpaths)

    @work(thread=True, group="titles", exit_on_error=False)
    def read_titles(self, relpaths: frozenset[str]) -> None:
        """Read files' titles from their first bytes, in a thread."""
        from memtui.notes.titles import read_titles  # imported on first use: start-up

        self.post_message(TitlesRead(read_titles(self.ctx.store, sorted(relpaths))))

    def on_titles_read(self, message: TitlesRead) -> None:
        """Hand the titles to the tree."""
        self.note_tree.set_titles(message.titles)

    def action_reload(self) -> None:
        """Re-list every open folder."""
        self.note_tree.reload()
        self.schedule_preview()

    @work(exclusive=True, group="main-action")
    async def action_edit(self) -> None:
        """Edit the note in the in-app editor."""
        relpath = self.selected_note()
        if relpath is not None:
            await self.edit_note(relpath)

    async def edit_note(self, relpath: str, cursor: tuple[int, int] = (0, 0)) -> None:
        """Open `relpath` in the in-app editor, the cursor at (row, column) (one too big for it
        in $EDITOR, if wanted); show it once saved."""
        from memtui.tui.screens.editor import edit_here  # imported on first use: start-up

        if await edit_here(self.memtui, relpath, cursor):
            await self.changed({relpath}, show=relpath)
        elif self.note_tree.cursor_relpath == relpath:
            self._history_rows.pop(relpath, None)
            self.refresh_side(relpath)

    @work(exclusive=True, group="main-action")
    async def action_external_edit(self) -> None:
        """Edit a copy of the note in $EDITOR and save it through the store."""
        from memtui.tui.screens.editor import edit_in_external_editor  # first use: start-up

        relpath = self.selected_note()
        if relpath is not None and await edit_in_external_editor(self.memtui, relpath):
            await self.changed({relpath}, show=relpath)

    @work(exclusive=True, group="main-action")
    async def action_new_note(self) -> None:
        """Create a note from the template in a folder the user names, then edit it."""
        from memtui.tui import note_actions  # imported on first use: start-up

        await note_actions.new_note(self)

    @work(exclusive=True, group="main-action")
    async def action_rename(self) -> None:
        """Rename or move the note or folder, optionally rewriting links to it (one operation)."""
        from memtui.tui import note_actions  # imported on first use: start-up

        await note_actions.rename(self)

    @work(exclusive=True, group="main-action")
    async def action_delete(self) -> None:
        """Delete the note or folder under the cursor after confirmation naming the links it
        breaks (undo with u)."""
        from memtui.tui import note_actions  # imported on first use: start-up

        await note_actions.delete_entry(self)

    @work(exclusive=True, group="main-action")
    async def action_undo(self) -> None:
        """Undo the last change made in this app, after naming it."""
        from memtui.tui import note_actions  # imported on first use: start-up

        await note_actions.undo_last(self)

    def _current_relpath(self) -> str:
        """The path under the cursor, or the whole store."""
        return self.note_tree.cursor_relpath or ""

    def action_graph(self) -> None:
        """Open the graph around the note, or of the folder's notes."""
        from memtui.tui.screens.graph import GraphScreen  # imported on first use: start-up

        entry = self.note_tree.cursor_entry
        if entry is None:
            self.notify("The store is empty: there is nothing to draw yet.", severity="warning")
        elif entry.is_dir:
            self.app.push_screen(GraphScreen(entry.relpath + "/"))
        else:
            self.app.push_screen(GraphScreen(entry.relpath))

    def action_history(self) -> None:
        """Open the history of the whole store."""
        self._open_history(None)

    def action_note_history(self) -> None:
        """Open the history of the note or folder under the cursor."""
        relpath = self._current_relpath()
        self._open_history(self.ctx.virtual(relpath) if relpath else None)

    def _open_history(self, path: str | None) -> None:
        """Open the history screen limited to `path`."""
        from memtui.tui.screens.history import HistoryScreen  # imported on first use: start-up

        self.app.push_screen(HistoryScreen(path))

    @work(exclusive=True, group="protect")
    async def action_protect(self) -> None:
        """Add a rule to the store's access policy for the selected note or folder."""
        from memtui.core.config_edit import add_policy_rule  # imported on first use: start-up
        from memtui.tui.screens.protect import ProtectScreen

        entry = self.note_tree.cursor_entry
        relpath = entry.relpath if entry is not None else ""
        is_dir = entry is None or entry.is_dir
        current = policy_line(self.memtui.policy, relpath)
        rule = await self.app.push_screen_wait(ProtectScreen(relpath, is_dir, current))
        if rule is None:
            return
        actors = [rule.actor] if rule.actor else None
        try:
            added = await asyncio.to_thread(
                add_policy_rule, self.ctx.root, [rule.glob], rule.access, actors
            )
        except Exception as error:
            self.notify(str(error), severity="error", timeout=8)
            return
        who = "every agent" if added.actors == ("agent:*",) else ", ".join(added.actors)
        self.notify(
            f"Added rule {added.number}: {', '.join(added.paths)} for {who}: {added.access}",
            timeout=4,
        )
        self.memtui.compute_badges()

    def action_changes(self) -> None:
        """Open the inbox of changes waiting for review."""
        from memtui.tui.screens.changes import ChangesScreen  # imported on first use: start-up

        self.app.push_screen(ChangesScreen())

    def action_budget(self) -> None:
        """Open the budget: what the agent loads of the store, and what it read."""
        from memtui.tui.screens.budget import BudgetScreen  # imported on first use: start-up

        self.app.push_screen(BudgetScreen())

    def action_review(self) -> None:
        """Open the stale-note review queue."""
        from memtui.tui.screens.review import ReviewScreen  # imported on first use: start-up

        self.app.push_screen(ReviewScreen())
