"""Small modals: new note, rename, key help, unreadable history."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar, TypeVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Button, Checkbox, Input, Label, Static
from textual.widgets.input import Selection
from textual.worker import get_current_worker

from memtui.core.display import visible, visible_cells
from memtui.notes.operations.naming import new_note_path
from memtui.tui import text_styles as styles
from memtui.tui.messages import MoveBreaksCounted
from memtui.tui.modal import KEY_MAP, MemtuiModal
from memtui.tui.timers import Stoppable, timers_of
from memtui.tui.widgets.confirm import ConfirmScreen
from memtui.tui.widgets.key_footer import KeyFooter
from memtui.tui.wording import count

if TYPE_CHECKING:
    from pathlib import Path

    from memtui.core.recording.database import HistoryCorrupt

COUNT_PAUSE = 0.08
"""Seconds of pause in typing a new path before the rename dialog counts the links it breaks."""
Answer = TypeVar("Answer")


class FormDialog(MemtuiModal[Answer | None]):
    """A small form: Enter, ctrl+s or the `SUBMIT_ID` button submits; Cancel and escape close
    with None."""

    SUBMIT_ID: ClassVar[str]

    def submit(self) -> None:
        """Dismiss with the form's answer, or stay open and say what is missing."""
        raise NotImplementedError

    def action_submit(self) -> None:
        """Submit from the keyboard (ctrl+s), wherever the focus is."""
        self.submit()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in a field submits."""
        self.submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Submit or cancel."""
        if event.button.id == self.SUBMIT_ID:
            self.submit()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        """Close without changing anything."""
        self.dismiss(None)


class NewNoteScreen(FormDialog[tuple[str, str]]):
    """Ask for the folder and title of a new note."""

    SUBMIT_ID = "create"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "submit", "Create", id="new.submit"),
        Binding("escape", "cancel", "Cancel", id="new.cancel"),
    ]
    PALETTE: ClassVar[list[tuple[str, str, str]]] = [
        ("new note: create", "submit", "Create the note from the template"),
        ("new note: cancel", "cancel", "Close without creating anything"),
    ]

    def __init__(self, folder: str) -> None:
        """Prefill the folder."""
        super().__init__()
        self.folder = folder

    def compose(self) -> ComposeResult:
        """Folder and title inputs and buttons."""
        with Vertical(classes="dialog"):
            yield Label("New note", classes="dialog-title")
            yield Label("Folder")
            yield Input(visible_cells(self.folder), placeholder="(store root)", id="new-folder")
            yield Label("Title")
            yield Input(placeholder="What is this note about?", id="new-title")
            yield Static(self.file_note(""), id="new-file", classes="dialog-note", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Create", id="create", variant="primary")
        yield KeyFooter()

    def on_mount(self) -> None:
        """Start in the title."""
        self.query_one("#new-title", Input).focus()

    def file_note(self, title: str) -> str:
        """The file the note will be, named from the title as Basic Memory names it."""
        if not title.strip():
            return "The file is named from the title, e.g. deploy-checklist.md."
        folder = self.query_one("#new-folder", Input).value if self.is_mounted else self.folder
        return f"File: {visible(new_note_path(folder, title))}"

    def on_input_changed(self, event: Input.Changed) -> None:
        """Show the file name the title and folder give."""
        title = self.query_one("#new-title", Input).value
        self.query_one("#new-file", Static).update(self.file_note(title))

    def submit(self) -> None:
        """Dismiss with (folder, title) when a title is given."""
        title = self.query_one("#new-title", Input).value.strip()
        if not title:
            self.notify("A note needs a title.", severity="warning")
            return
        self.dismiss((self.query_one("#new-folder", Input).value, title))


def stem_span(path: str) -> tuple[int, int]:
    """Where the last part of `path` starts and where its stem ends (before the last `.ext`;
    a name like `.env` or `README` is all stem)."""
    start = path.rfind("/") + 1
    name = path[start:]
    dot = name.rfind(".")
    return start, start + (dot if dot > 0 else len(name))


class RenameScreen(FormDialog[tuple[str, bool]]):
    """Ask for a new path; offer to rewrite the links to the note that the move would break."""

    SUBMIT_ID = "rename"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "submit", "Rename", id="rename.submit"),
        Binding("escape", "cancel", "Cancel", id="rename.cancel"),
    ]
    PALETTE: ClassVar[list[tuple[str, str, str]]] = [
        ("rename: rename or move", "submit", "Move it to the path typed"),
        ("rename: cancel", "cancel", "Close without moving anything"),
    ]

    def __init__(
        self, relpath: str, linking_notes: int, breaks: Callable[[str], int] | None = None
    ) -> None:
        """Prefill the current path; `linking_notes` notes link here and `breaks(new)` counts
        those whose links a move to `new` would break (called in a thread)."""
        super().__init__()
        self.relpath = relpath
        self.linking_notes = linking_notes
        self.breaks = breaks
        self.counted = relpath
        """The path the link option describes now."""
        self._count_timer: Stoppable | None = None

    def compose(self) -> ComposeResult:
        """The path input, the link option with what it covers, and buttons."""
        with Vertical(classes="dialog"):
            yield Label(
                f"Rename or move {visible(self.relpath)}", markup=False, classes="dialog-title"
            )
            yield Input(visible_cells(self.relpath), select_on_focus=False, id="rename-path")
            yield Checkbox(
                "Rewrite the links the move would break",
                value=self.linking_notes > 0,
                disabled=self.linking_notes == 0,
                id="rename-links",
            )
            yield Static(self.links_note(), id="rename-links-note", classes="dialog-note")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Rename", id="rename", variant="primary")
        yield KeyFooter()

    def on_mount(self) -> None:
        """Start with the file name's stem selected and the cursor at its end, so typing
        renames and the folder stays unless edited on purpose."""
        field = self.query_one("#rename-path", Input)
        field.focus()
        start, end = stem_span(field.value)
        field.selection = Selection(start, end)

    def links_note(self) -> str:
        """Which notes link here and which of their links keep working."""
        if self.linking_notes == 0:
            return "No note links here."
        verb = "links" if self.linking_notes == 1 else "link"
        return (
            f"{count(self.linking_notes, 'note')} {verb} here. Links by title, or by a permalink "
            "set in the frontmatter, keep working after a move and are left as they are."
        )

    def on_input_changed(self, event: Input.Changed) -> None:
        """Count the notes whose links the typed path would break, once typing pauses."""
        if self.breaks is None or self.linking_notes == 0:
            return
        if self._count_timer is not None:
            self._count_timer.stop()
        self.workers.cancel_group(self, "rename-count")
        new = event.value.strip().strip("/")
        if not new or new == self.relpath:
            self.counted = new
            self._offer_rewrite(
                self.query_one("#rename-links", Checkbox), "Rewrite the links the move would break"
            )
            return
        self._count_timer = timers_of(self).later(self, COUNT_PAUSE, lambda: self.count_breaks(new))

    @work(thread=True, exclusive=True, group="rename-count", exit_on_error=False)
    def count_breaks(self, new: str) -> None:
        """Count in a thread the notes whose links a move to `new` would break, and post it."""
        if self.breaks is None:
            return
        broken = self.breaks(new)
        if not get_current_worker().is_cancelled:
            self.post_message(MoveBreaksCounted(new, broken))

    def on_move_breaks_counted(self, message: MoveBreaksCounted) -> None:
        """Describe the link rewrite for the typed path, unless the path changed since."""
        new = message.new
        if new != self.query_one("#rename-path", Input).value.strip().strip("/"):
            return
        self.counted = new
        links = self.query_one("#rename-links", Checkbox)
        broken = message.broken
        if broken:
            self._offer_rewrite(
                links, f"Rewrite links in {count(broken, 'note')} the move would break"
            )
        else:
            links.label = "No links need rewriting for this move"
            links.value = False
            links.disabled = True

    @staticmethod
    def _offer_rewrite(links: Checkbox, label: str) -> None:
        """Offer the rewrite under `label`, ticked again if it was not offered before."""
        links.label = label
        if links.disabled:
            links.disabled = False
            links.value = True

    def submit(self) -> None:
        """Dismiss with (new path, rewrite links) when the path changed."""
        new = self.query_one("#rename-path", Input).value.strip().strip("/")
        if not new or new == self.relpath:
            self.dismiss(None)
            return
        self.dismiss((new, self.query_one("#rename-links", Checkbox).value))


class HelpScreen(MemtuiModal[None]):
    """F1 or ?: the keys of the focused widget and its screen, the screen's own help, and the
    key map every screen shares."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,question_mark,q", "close", "Close", key_display="esc", id="help.close")
    ]

    def __init__(self, screen: Screen[object]) -> None:
        """Describe `screen` as it is now."""
        super().__init__()
        self.described = screen

    def compose(self) -> ComposeResult:
        """A scrollable list of keys."""
        with Vertical(classes="dialog help-dialog"):
            yield Label("Keys", classes="dialog-title")
            with VerticalScroll():
                yield Static(self.keys_text(), id="help-keys")
        yield KeyFooter()

    def keys_text(self) -> Content:
        """Key, description and binding id of every active binding (memtui's own first, then
        the focused field's), then the screen's help and the key map every screen shares."""
        parts: list[styles.Part] = []
        seen: set[tuple[int, str]] = set()
        active = list(self.described.active_bindings.values())
        ordered = [a for a in active if a.binding.id] + [a for a in active if not a.binding.id]
        for entry in ordered:
            binding = entry.binding
            where = (id(entry.node), binding.action)
            if where in seen or binding.action.startswith("_"):
                continue
            seen.add(where)
            display = self.app.get_key_display(binding)
            parts += [(f"{display:>10}  ", styles.HEADING), binding.description or binding.action]
            if binding.id:
                parts.append((f"  ({binding.id})", styles.MUTED))
            parts.append("\n")
        help_text = getattr(self.described, "HELP", "")
        if help_text:
            parts.append("\n" + help_text.strip() + "\n")
        parts.append("\n" + KEY_MAP + "\n")
        return styles.assemble(*parts)

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)


def unreadable_history(root: Path) -> HistoryCorrupt | None:
    """Why the history of the store at `root` cannot be opened, or None if it opens."""
    from memtui.core.recording.database import HistoryCorrupt
    from memtui.core.recording.history import History

    try:
        History(root).close()
    except HistoryCorrupt as error:
        return error
    return None


class CorruptHistoryScreen(ConfirmScreen):
    """Explains why the history cannot be read and offers a fresh one; Cancel quits untouched."""

    def __init__(self, error: HistoryCorrupt) -> None:
        """Describe `error`; dismisses with True to start a fresh history."""
        body = (
            f"The history at {error.path} cannot be read: {error.reason}.\n\n"
            "Start a fresh history? The old file is kept beside it as "
            f"{error.path.name}.corrupt-<time>; your notes are not touched. "
            "Cancel quits and leaves everything as it is."
        )
        super().__init__("The history cannot be read", body, "Start a fresh history")
        self.error = error

    @staticmethod
    def declined_message(error: HistoryCorrupt) -> str:
        """The message printed when the user quits instead of starting a fresh history."""
        return (
            f"memtui: the history at {error.path} cannot be read ({error.reason}); "
            "nothing was changed."
        )

    @staticmethod
    def set_aside_failed_message(error: HistoryCorrupt, failure: OSError) -> str:
        """The message printed when the unreadable history could not be moved aside."""
        return (
            f"memtui: the history at {error.path} cannot be read ({error.reason}) and could not "
            f"be moved aside ({failure.strerror or failure}); it was left as it is."
        )
