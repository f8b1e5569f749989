"""Editing a note: the in-app editor, $EDITOR on a copy, and never leaving unsaved text behind
without asking."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, ClassVar, Literal

from textual import work
from textual.app import ComposeResult, SuspendNotSupported
from textual.binding import Binding, BindingType
from textual.widgets import Static, TextArea

from memtui.core.applying.sizes import format_size
from memtui.core.display import visible
from memtui.core.hashing import digest
from memtui.notes.operations.external import EditCopy, EditorProblem, editor_command, run_editor
from memtui.notes.shown import read_shown
from memtui.tui.messages import EditedNoteChanged
from memtui.tui.save_flow import save_note
from memtui.tui.screens.base import MemtuiScreen
from memtui.tui.widgets.confirm import ConfirmScreen
from memtui.tui.widgets.key_footer import KeyFooter
from memtui.tui.widgets.safe_text_area import SafeTextArea

if TYPE_CHECKING:
    from pathlib import Path

    from memtui.tui.app import MemtuiApp

EDIT_HERE = "press e to edit in memtui"
TOO_BIG: Literal["too big"] = "too big"
"""What `read_for_edit` answers for a note over what the in-app editor loads."""


class EditorScreen(MemtuiScreen[bool]):
    """Edit a note in a markdown TextArea; ctrl+s saves through the store with the loaded
    revision (merging with changes saved meanwhile); dismisses with whether anything was saved."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="editor.save", priority=True),
        Binding("escape", "close", "Close", id="editor.close", priority=True),
    ]
    PALETTE: ClassVar[list[tuple[str, str, str]]] = [
        ("editor: save", "save", "Save the note"),
        ("editor: close", "close", "Close, asking before discarding changes"),
    ]

    def __init__(
        self,
        relpath: str,
        text: str,
        revision: str | None,
        cursor: tuple[int, int] = (0, 0),
        *,
        loaded: str | None = None,
        copy: EditCopy | None = None,
    ) -> None:
        """Edit `text` of `relpath`, the cursor at (row, column). The note was `loaded` (`text`
        when not given) at `revision`; `copy` is an outside editor's copy of the text, kept
        until the text is saved or discarded on purpose."""
        super().__init__()
        self.relpath = relpath
        self.initial = text
        self.loaded = text if loaded is None else loaded
        self.revision = revision
        self.cursor = cursor
        self.copy = copy
        self.saved_once = False

    @property
    def original(self) -> str:
        """The text as it is on disk at the revision being edited."""
        return self.loaded

    def compose(self) -> ComposeResult:
        """Title line, the editor and the footer."""
        yield Static(f" editing {visible(self.relpath)}", id="editor-title", markup=False)
        yield SafeTextArea.code_editor(
            self.initial, language="markdown", soft_wrap=True, id="editor"
        )
        yield KeyFooter()

    def on_mount(self) -> None:
        """Focus the text with the cursor in place (scrolled to the middle), and follow changes
        to the note on disk."""
        area = self.query_one("#editor", TextArea)
        area.move_cursor(self.cursor, center=True)
        area.focus()
        self.memtui.files_changed_signal.subscribe(self, self._on_files_changed)

    def _on_files_changed(self, paths: frozenset[str]) -> None:
        """The note changed on disk: find out by whom, in a thread, unless it is our own save."""
        if self.relpath in paths:
            self.check_disk()

    @work(thread=True, exclusive=True, group="editor-disk", exit_on_error=False)
    def check_disk(self) -> None:
        """Compare the note on disk with the revision being edited; say who changed it."""
        ctx = self.memtui.ctx
        virtual = ctx.virtual(self.relpath)
        try:
            revision = ctx.store.revision(virtual)
            if revision == self.revision:
                return
            latest = ctx.history.events(path=virtual, limit=1)
        except Exception:
            return
        if latest and latest[0].actor == ctx.actor and not latest[0].is_error:
            return
        who = f"{latest[0].actor} ({latest[0].command})" if latest else "another process"
        self.post_message(EditedNoteChanged(who, revision is None))

    def on_edited_note_changed(self, message: EditedNoteChanged) -> None:
        """Say, as it lands, that the note changed on disk; the text here is untouched."""
        who, gone = message.who, message.gone
        what = "deleted" if gone else "changed"
        next_step = (
            "ctrl+s offers to create it again with your text"
            if gone
            else "ctrl+s merges your changes with theirs"
        )
        self.query_one("#editor-title", Static).update(
            f" editing {visible(self.relpath)}  ·  {what} on disk by {visible(who)}: {next_step}"
        )
        self.notify(
            f"{self.relpath} was just {what} by {who}. Your text here is untouched; {next_step}.",
            severity="warning",
            timeout=8,
        )

    @property
    def text(self) -> str:
        """The text being edited."""
        return self.query_one("#editor", TextArea).text

    @property
    def unsaved(self) -> bool:
        """Whether the text differs from the note as loaded and has not been saved."""
        return self.text != self.loaded

    def drop_copy(self) -> None:
        """Throw away the outside editor's copy (its text was saved or discarded on purpose)."""
        if self.copy is not None:
            self.copy.remove()
            self.copy = None

    @work(exclusive=True, group="editor-save")
    async def action_save(self) -> None:
        """Save; when the note changed meanwhile, show the merge and follow the choice. Text
        typed while the save was under way stays in the editor, unsaved."""
        app = self.memtui
        text = self.text
        report = await save_note(app, self.relpath, text, self.revision, self.loaded)
        if report.outcome == "theirs":
            self.drop_copy()
            app.notify(f"Kept the version on disk of {self.relpath}")
            self.dismiss(True)
        if report.outcome != "saved":
            return
        self.saved_once = True
        if report.text == text:
            self.loaded, self.revision = text, digest(text.encode("utf-8"))
        if self.text == text:
            self.drop_copy()
            app.notify(f"Saved {self.relpath}")
            self.dismiss(True)
            return
        app.notify(
            f"Saved {self.relpath} as it was when you pressed ctrl+s; what you typed since is "
            "not saved yet.",
            timeout=6,
        )

    @work(exclusive=True, group="editor-close")
    async def action_close(self) -> None:
        """Close; asks first when there are unsaved changes."""
        if self.unsaved:
            discard = await self.app.push_screen_wait(
                ConfirmScreen(
                    "Discard changes?",
                    f"Your changes to {self.relpath} are not saved.",
                    confirm_label="Discard",
                )
            )
            if not discard:
                return
        self.drop_copy()
        self.dismiss(self.saved_once)


def unsaved_editors(app: MemtuiApp) -> list[EditorScreen]:
    """The editors on the screen stack holding unsaved changes."""
    return [
        screen for screen in app.screen_stack if isinstance(screen, EditorScreen) and screen.unsaved
    ]


async def confirm_quit_with_unsaved_edits(app: MemtuiApp) -> bool:
    """Whether to quit: asks first when an editor on the screen stack holds unsaved changes
    (quitting then discards them, and their outside editors' copies, on purpose)."""
    unsaved = unsaved_editors(app)
    if not unsaved:
        return True
    quit_anyway: bool = await app.push_screen_wait(
        ConfirmScreen(
            "Quit without saving?",
            f"Your changes to {', '.join(screen.relpath for screen in unsaved)} are not saved.",
            confirm_label="Quit",
        )
    )
    if quit_anyway:
        for screen in unsaved:
            screen.drop_copy()
    return quit_anyway


async def read_for_edit(
    app: MemtuiApp, relpath: str, *, in_app: bool = True
) -> tuple[str, str] | Literal["too big"] | None:
    """A note's text and revision, read in a thread; None (and a notification) when it cannot
    be read or is too big: `TOO_BIG` when it is over what the in-app editor loads (a MiB or
    20,000 lines; `in_app`), over the maximum file size for the outside editor."""
    store = app.ctx.store
    virtual = app.ctx.virtual(relpath)

    def read() -> tuple[str, str] | int:
        """Check the size on the file's head, then read it whole (or give the size)."""
        head = read_shown(store, virtual)
        if head.cut if in_app else head.size > store.max_size:
            return head.size
        return store.read(virtual)

    try:
        loaded = await asyncio.to_thread(read)
    except Exception as error:
        app.notify(f"Cannot edit {relpath}: {error}", severity="error")
        return None
    if not isinstance(loaded, int):
        return loaded
    if in_app:
        return TOO_BIG
    app.notify(
        f"Cannot edit {relpath}: it is {format_size(loaded)}, over the maximum file size of "
        f"{format_size(store.max_size)} (max_file_size in the config)",
        severity="warning",
    )
    return None


async def edit_here(app: MemtuiApp, relpath: str, cursor: tuple[int, int] = (0, 0)) -> bool:
    """Edit `relpath` in the in-app editor, the cursor at (row, column); a note too big for it
    is offered to $EDITOR instead. True if anything was saved."""
    loaded = await read_for_edit(app, relpath)
    if loaded == TOO_BIG:
        return await offer_external_editor(app, relpath)
    if loaded is None or isinstance(loaded, str):
        return False
    text, revision = loaded
    saved: bool = await app.push_screen_wait(EditorScreen(relpath, text, revision, cursor))
    return saved


async def offer_external_editor(app: MemtuiApp, relpath: str) -> bool:
    """A note over what the in-app editor loads: offer $EDITOR (saved the same way); True if
    anything was saved."""
    try:
        command = editor_command()
    except EditorProblem as problem:
        app.notify(
            f"Cannot edit {relpath} here: it is over 1 MiB or 20,000 lines, more than memtui's "
            f"editor loads, and your editor cannot run ({problem}).",
            severity="warning",
            timeout=10,
        )
        return False
    use = await app.push_screen_wait(
        ConfirmScreen(
            f"{relpath} is too big to edit here",
            f"It is over 1 MiB or 20,000 lines, more than memtui's editor loads. Edit it in "
            f"your editor ({command[0]}) instead? It is saved through memtui the same way, "
            "merged with any change made meanwhile.",
            confirm_label="Edit in $EDITOR",
        )
    )
    if not use:
        return False
    return await edit_in_external_editor(app, relpath)


def run_suspended(app: MemtuiApp, command: list[str], path: Path) -> tuple[int | None, str | None]:
    """Run the editor on `path` with the app suspended; its exit status, or why it did not run.
    The app comes back whatever happens in the editor (a failed start included)."""
    status: int | None = None
    failure: str | None = None
    try:
        with app.suspend():
            try:
                status = run_editor(command, path)
            except EditorProblem as problem:
                failure = str(problem)
            except KeyboardInterrupt:
                failure = "the editor was interrupted"
    except SuspendNotSupported:
        failure = "this terminal cannot hand the screen to another program"
    return status, failure


async def edit_in_external_editor(app: MemtuiApp, relpath: str) -> bool:
    """Edit a copy in $EDITOR (app suspended), then save it through the store, merging with
    changes made meanwhile; True if anything was saved. A missing or failing editor is said in
    one line and the app carries on; an edited copy is kept until saved or discarded."""
    loaded = await read_for_edit(app, relpath, in_app=False)
    if loaded is None or isinstance(loaded, str):
        return False
    text, revision = loaded
    try:
        command = editor_command()
        copy = EditCopy.create(relpath, text)
    except (EditorProblem, OSError) as problem:
        app.notify(f"Cannot edit in your editor: {problem} ({EDIT_HERE}).", severity="error")
        return False
    status, failure = run_suspended(app, command, copy.path)
    if failure is not None:
        copy.remove()
        app.notify(f"Cannot edit in your editor: {failure} ({EDIT_HERE}).", severity="error")
        return False
    return await _save_copy(app, relpath, text, revision, copy, status)


async def _save_copy(
    app: MemtuiApp, relpath: str, text: str, revision: str, copy: EditCopy, status: int | None
) -> bool:
    """Save what the outside editor left in `copy`; keep the copy while its text is unsaved."""
    try:
        edited = copy.read()
    except (OSError, UnicodeDecodeError) as problem:
        app.notify(f"Cannot read the edited copy {copy.path}: {problem}", severity="error")
        return False
    if status != 0:
        kept = f"; your edited copy is kept at {copy.path}" if edited != text else ""
        if not kept:
            copy.remove()
        app.notify(
            f"The editor exited with status {status}; nothing saved{kept}.", severity="warning"
        )
        return False
    if edited == text:
        copy.remove()
        app.notify("No changes.")
        return False
    report = await save_note(app, relpath, edited, revision, text)
    if report.outcome == "saved":
        copy.remove()
        app.notify(f"Saved {relpath}")
        return True
    if report.outcome == "theirs":
        copy.remove()
        app.notify(f"Kept the version on disk of {relpath}")
        return True
    if report.outcome == "failed":
        app.notify(f"Your edited copy is kept at {copy.path}.", timeout=10)
        return False
    saved: bool = await app.push_screen_wait(
        EditorScreen(relpath, edited, revision, loaded=text, copy=copy)
    )
    return saved
