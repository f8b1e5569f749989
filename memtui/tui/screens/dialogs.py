"""Small modals (new note, rename, key help, unreadable history) and the note operations they start."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, TypeVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.timer import Timer
from textual.widgets import Button, Checkbox, Input, Label, Static
from textual.worker import get_current_worker

from memtui.core.display import visible, visible_cells
from memtui.tui import text_styles as styles
from memtui.tui.messages import MoveBreaksCounted
from memtui.tui.widgets.confirm import ConfirmScreen
from memtui.tui.wording import count

if TYPE_CHECKING:
    from pathlib import Path

    from memtui.core.history import HistoryCorrupt
    from memtui.core.result import CommandResult
    from memtui.core.store import MemoryStore
    from memtui.notes.links import Plan
    from memtui.tui.context import AppContext

COUNT_PAUSE = 0.08
"""Seconds of pause in typing a new path before the rename dialog counts the links it breaks."""
UNSAFE_NAME = re.compile(r"[\\/:*?\"<>|\x00-\x1f]+")
Answer = TypeVar("Answer")


def note_filename(title: str) -> str:
    """A file name for a note title: the title itself, minus characters paths cannot hold."""
    name = UNSAFE_NAME.sub("-", title).strip(" .-")
    return (name or "untitled") + ".md"


def note_template(title: str, relpath: str) -> str:
    """A new note: frontmatter (title, type, tags, permalink), Observations and Relations (with
    the relation syntax in a comment, so the note links nowhere until the user says so)."""
    try:
        from memtui.notes.permalink import generate_permalink

        permalink = generate_permalink(relpath)
    except ImportError:
        permalink = relpath.removesuffix(".md").lower().replace(" ", "-")
    return (
        "---\n"
        f"title: {title}\n"
        "type: note\n"
        "tags: []\n"
        f"permalink: {permalink}\n"
        "---\n\n"
        f"# {title}\n\n"
        "## Observations\n\n"
        "- [fact] \n\n"
        "## Relations\n\n"
        "<!-- - relates_to [[Another note]] -->\n"
    )


def template_cursor() -> tuple[int, int]:
    """Where typing starts in a new note: the end of the first observation placeholder."""
    lines = note_template("title", "title.md").splitlines()
    row = next(n for n, line in enumerate(lines) if line.startswith("- [fact]"))
    return row, len(lines[row])


def create_note(store: MemoryStore, folder: str, title: str) -> tuple[CommandResult, str]:
    """Create a note from the template through the store; returns the result and its path."""
    folder = folder.strip().strip("/")
    relpath = f"{folder}/{note_filename(title)}" if folder else note_filename(title)
    text = note_template(title.strip(), relpath)
    return store.write("/memories/" + relpath, text, None), relpath


@dataclass
class RenameOutcome:
    """What a rename did: events recorded, notes whose links were rewritten, any error."""

    event_ids: list[int] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)
    error: str | None = None
    summary: str = ""


def rename_with_links(ctx: AppContext, old: str, new: str, inbound: Plan) -> RenameOutcome:
    """Rename through the store, then rewrite the `inbound` links that no longer resolve."""
    outcome = RenameOutcome()
    new = new.strip().strip("/")
    result = ctx.store.rename(ctx.virtual(old), ctx.virtual(new))
    if result.is_error:
        outcome.error = result.content
        return outcome
    if result.event_id is not None:
        outcome.event_ids.append(result.event_id)
    outcome.summary = f"Moved {old} to {new}"
    index = ctx.index
    if not inbound or index is None:
        return outcome
    from memtui.notes.links import retargets
    from memtui.tui.indexing import update_notes

    update_notes(ctx, [old, new])
    failures = 0
    for source, renames in retargets(index, inbound, old, new).items():
        event_id = _rewrite_links(ctx, source, renames)
        if event_id is None:
            failures += 1
        else:
            outcome.event_ids.append(event_id)
            outcome.rewritten.append(source)
    outcome.summary += f"; rewrote links in {count(len(outcome.rewritten), 'note')}"
    if failures:
        outcome.summary += f", {count(failures, 'note')} could not be rewritten"
    return outcome


def _rewrite_links(ctx: AppContext, source: str, renames: dict[str, str]) -> int | None:
    """Point the links of `source` at their new names with one `write`; its event id, or None."""
    from memtui.notes.links import rewrite_links

    virtual = ctx.virtual(source)
    try:
        text, revision = ctx.store.read(virtual)
    except Exception:
        return None
    rewritten, rewrites = rewrite_links(text, renames)
    if rewrites == 0:
        return None
    result = ctx.store.write(virtual, rewritten, revision)
    return None if result.is_error else result.event_id


class FormDialog(ModalScreen[Answer | None]):
    """A small form: Enter or the `SUBMIT_ID` button submits; Cancel and escape close with None."""

    SUBMIT_ID: ClassVar[str]

    def submit(self) -> None:
        """Dismiss with the form's answer, or stay open and say what is missing."""
        raise NotImplementedError

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
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="new.cancel")]

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
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Create", id="create", variant="primary")

    def on_mount(self) -> None:
        """Start in the title."""
        self.query_one("#new-title", Input).focus()

    def submit(self) -> None:
        """Dismiss with (folder, title) when a title is given."""
        title = self.query_one("#new-title", Input).value.strip()
        if not title:
            self.notify("A note needs a title.", severity="warning")
            return
        self.dismiss((self.query_one("#new-folder", Input).value, title))


class RenameScreen(FormDialog[tuple[str, bool]]):
    """Ask for a new path; offer to rewrite the links to the note that the move would break."""

    SUBMIT_ID = "rename"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="rename.cancel")
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
        self._count_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        """The path input, the link option with what it covers, and buttons."""
        with Vertical(classes="dialog"):
            yield Label(
                f"Rename or move {visible(self.relpath)}", markup=False, classes="dialog-title"
            )
            yield Input(visible_cells(self.relpath), id="rename-path")
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
        self._count_timer = self.set_timer(COUNT_PAUSE, lambda: self.count_breaks(new))

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


class HelpScreen(ModalScreen[None]):
    """F1: the keys of the focused widget and its screen, and the screen's own help."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,q", "close", "Close", id="help.close")
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

    def keys_text(self) -> Content:
        """Key, description and binding id of every active binding, then the screen's help."""
        parts: list[styles.Part] = []
        seen: set[str] = set()
        for _key, active in self.described.active_bindings.items():
            binding = active.binding
            if binding.action in seen or binding.action.startswith("_"):
                continue
            seen.add(binding.action)
            display = self.app.get_key_display(binding)
            parts += [(f"{display:>10}  ", styles.HEADING), binding.description or binding.action]
            if binding.id:
                parts.append((f"  ({binding.id})", styles.MUTED))
            parts.append("\n")
        help_text = getattr(self.described, "HELP", "")
        if help_text:
            parts.append("\n" + help_text.strip() + "\n")
        parts.append("\nctrl+p opens the command palette: every action, and any note by title.")
        return styles.assemble(*parts)

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)


def unreadable_history(root: Path) -> HistoryCorrupt | None:
    """Why the history of the store at `root` cannot be opened, or None if it opens."""
    from memtui.core.history import History, HistoryCorrupt

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
