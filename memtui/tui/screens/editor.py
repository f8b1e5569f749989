"""Editing a note: the in-app editor, $EDITOR on a temp copy, and conflict resolution."""

from __future__ import annotations

import asyncio
import difflib
import os
import shlex
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Label, Static, TextArea

from memtui.core.display import visible, visible_text
from memtui.tui import text_styles as styles
from memtui.tui.widgets.confirm import ConfirmScreen
from memtui.tui.widgets.safe_text_area import SafeTextArea

if TYPE_CHECKING:
    from memtui.tui.app import MemtuiApp

Choice = Literal["mine", "theirs", "edit"]
SaveOutcome = Literal["saved", "theirs", "edit", "failed"]


def unified_diff(theirs: str, mine: str, relpath: str) -> Content:
    """A coloured unified diff from their version to mine."""
    lines = difflib.unified_diff(
        theirs.splitlines(), mine.splitlines(), f"theirs/{relpath}", f"mine/{relpath}", lineterm=""
    )
    return styles.assemble(*((line + "\n", styles.diff_line(line)) for line in lines))


class ConflictScreen(ModalScreen[Choice]):
    """The note changed since it was loaded: show theirs, mine and the diff; let the user choose."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "choose('edit')", "Keep editing", id="conflict.edit"),
        Binding("ctrl+k", "choose('mine')", "Keep mine", id="conflict.mine"),
        Binding("ctrl+t", "choose('theirs')", "Take theirs", id="conflict.theirs"),
    ]
    PALETTE: ClassVar[list[tuple[str, str, str]]] = [
        ("conflict: keep mine", "choose('mine')", "Save my version over theirs"),
        ("conflict: take theirs", "choose('theirs')", "Keep the version on disk"),
        ("conflict: keep editing", "choose('edit')", "Back to the editor, nothing saved"),
    ]

    def __init__(self, relpath: str, theirs: str | None, mine: str) -> None:
        """`theirs` is None when the note was deleted meanwhile."""
        super().__init__()
        self.relpath = relpath
        self.theirs = theirs
        self.mine = mine

    def compose(self) -> ComposeResult:
        """Both versions side by side, the diff, and the three choices."""
        with Vertical(classes="dialog conflict-dialog"):
            yield Label(
                f"{visible(self.relpath)} changed while you were editing it",
                markup=False,
                classes="dialog-title",
            )
            with Horizontal(id="conflict-versions"):
                with VerticalScroll(classes="conflict-side"):
                    yield Label("Theirs (on disk now)", classes="conflict-label")
                    yield Static(
                        visible_text(self.theirs) if self.theirs is not None else "(deleted)",
                        markup=False,
                        id="conflict-theirs",
                    )
                with VerticalScroll(classes="conflict-side"):
                    yield Label("Mine", classes="conflict-label")
                    yield Static(visible_text(self.mine), markup=False, id="conflict-mine")
            with VerticalScroll(id="conflict-diff-scroll"):
                yield Static(
                    unified_diff(self.theirs or "", self.mine, self.relpath), id="conflict-diff"
                )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Keep editing", id="edit")
                yield Button("Take theirs", id="theirs")
                yield Button("Keep mine", id="mine", variant="warning")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Dismiss with the chosen button."""
        self.dismiss(event.button.id)  # type: ignore[arg-type]

    def action_choose(self, choice: Choice) -> None:
        """Choose from the keyboard."""
        self.dismiss(choice)


async def save_checked(
    app: MemtuiApp, relpath: str, text: str, revision: str | None
) -> SaveOutcome:
    """Write `text` if the note is still at `revision`; on a conflict let the user decide."""
    store = app.ctx.store
    virtual = app.ctx.virtual(relpath)
    result = store.write(virtual, text, revision)
    if not result.is_error:
        app.remember_event(result.event_id)
        return "saved"
    if not result.content.startswith("Conflict"):
        app.notify(result.content, severity="error")
        return "failed"
    try:
        theirs: str | None = store.read(virtual)[0]
    except Exception:
        theirs = None
    choice = await app.push_screen_wait(ConflictScreen(relpath, theirs, text))
    if choice == "mine":
        retry = store.write(virtual, text, store.revision(virtual))
        if retry.is_error:
            app.notify(retry.content, severity="error")
            return "failed"
        app.remember_event(retry.event_id)
        return "saved"
    return choice


class EditorScreen(Screen[bool]):
    """Edit a note in a markdown TextArea; ctrl+s saves through the store with the loaded revision."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="editor.save", priority=True),
        Binding("escape", "close", "Close", id="editor.close", priority=True),
    ]
    PALETTE: ClassVar[list[tuple[str, str, str]]] = [
        ("editor: save", "save", "Save the note"),
        ("editor: close", "close", "Close, asking before discarding changes"),
    ]

    def __init__(
        self, relpath: str, text: str, revision: str | None, cursor: tuple[int, int] = (0, 0)
    ) -> None:
        """Edit `text`, loaded from `relpath` at `revision`, the cursor at (row, column)."""
        super().__init__()
        self.relpath = relpath
        self.original = text
        self.revision = revision
        self.cursor = cursor

    def compose(self) -> ComposeResult:
        """Title line, the editor and the footer."""
        yield Static(f" editing {visible(self.relpath)}", id="editor-title", markup=False)
        yield SafeTextArea.code_editor(
            self.original, language="markdown", soft_wrap=True, id="editor"
        )
        yield Footer()

    def on_mount(self) -> None:
        """Focus the text with the cursor in place."""
        area = self.query_one("#editor", TextArea)
        area.move_cursor(self.cursor)
        area.focus()

    @property
    def text(self) -> str:
        """The text being edited."""
        return self.query_one("#editor", TextArea).text

    @property
    def unsaved(self) -> bool:
        """Whether the text differs from what was loaded and has not been saved."""
        return self.text != self.original

    @work(exclusive=True, group="editor-save")
    async def action_save(self) -> None:
        """Save; on a conflict show both versions and follow the user's choice."""
        app: MemtuiApp = self.app  # type: ignore[assignment]
        text = self.text
        outcome = await save_checked(app, self.relpath, text, self.revision)
        if outcome == "saved":
            app.notify(f"Saved {self.relpath}")
            self.dismiss(True)
        elif outcome == "theirs":
            app.notify(f"Kept the version on disk of {self.relpath}")
            self.dismiss(True)

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
        self.dismiss(False)


async def confirm_quit_with_unsaved_edits(app: MemtuiApp) -> bool:
    """Whether to quit: asks first when an editor on the screen stack holds unsaved changes."""
    unsaved = [
        screen.relpath
        for screen in app.screen_stack
        if isinstance(screen, EditorScreen) and screen.unsaved
    ]
    if not unsaved:
        return True
    return bool(
        await app.push_screen_wait(
            ConfirmScreen(
                "Quit without saving?",
                f"Your changes to {', '.join(unsaved)} are not saved.",
                confirm_label="Quit",
            )
        )
    )


def editor_command() -> list[str]:
    """The user's editor command ($VISUAL, $EDITOR, else vi)."""
    return shlex.split(os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi")


async def read_for_edit(app: MemtuiApp, relpath: str) -> tuple[str, str] | None:
    """A note's text and revision, read in a thread; None (and a notification) when it cannot
    be read or is over what the app shows (a MiB or 20,000 lines), which no editor here loads."""
    from memtui.notes.shown import read_head

    store = app.ctx.store
    virtual = app.ctx.virtual(relpath)

    def read() -> tuple[str, str] | None:
        """Check the size on the file's head, then read it whole."""
        if read_head(store, virtual).cut:
            return None
        return store.read(virtual)

    try:
        loaded = await asyncio.to_thread(read)
    except Exception as error:
        app.notify(f"Cannot edit {relpath}: {error}", severity="error")
        return None
    if loaded is None:
        app.notify(
            f"Cannot edit {relpath}: it is over 1 MiB or 20,000 lines, more than memtui loads",
            severity="warning",
        )
    return loaded


async def edit_in_external_editor(app: MemtuiApp, relpath: str) -> bool:
    """Edit a temp copy in $EDITOR (app suspended), then save it through the store; True if saved."""
    loaded = await read_for_edit(app, relpath)
    if loaded is None:
        return False
    text, revision = loaded
    with tempfile.TemporaryDirectory(prefix="memtui-edit-") as folder:
        copy = Path(folder) / Path(relpath).name
        copy.write_text(text, encoding="utf-8")
        try:
            with app.suspend():
                code = subprocess.call([*editor_command(), str(copy)])
        except Exception as error:
            app.notify(f"Cannot run the editor: {error}", severity="error")
            return False
        edited = copy.read_text(encoding="utf-8")
    if code != 0:
        app.notify(f"The editor exited with status {code}; nothing saved.", severity="warning")
        return False
    if edited == text:
        app.notify("No changes.")
        return False
    outcome = await save_checked(app, relpath, edited, revision)
    if outcome != "edit":
        return outcome in ("saved", "theirs")
    return bool(await app.push_screen_wait(EditorScreen(relpath, edited, revision)))
