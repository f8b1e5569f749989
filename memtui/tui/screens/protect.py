"""The protect dialog: a rule for the store's access policy on the selected note or folder."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, Static

from memtui.core.display import visible, visible_cells
from memtui.tui.screens.dialogs import FormDialog

LEVELS = (
    ("write", "write: agents change it freely"),
    ("review", "review: agents' changes wait for your approval"),
    ("read", "read: agents may only read it"),
    ("none", "none: hidden from agents"),
)


@dataclass(frozen=True)
class ProtectRule:
    """What the dialog asks for: the paths glob, the access level, the agents (None: all)."""

    glob: str
    access: str
    actor: str | None


def default_glob(relpath: str, is_dir: bool) -> str:
    """The glob a new rule starts with: the folder and everything in it, or the one file (its
    name's `[`, `*` and `?` matched as themselves)."""
    literal = "".join(f"[{char}]" if char in "[*?" else char for char in relpath)
    return f"{literal}/**" if is_dir and literal else ("**" if is_dir else literal)


class ProtectScreen(FormDialog[ProtectRule]):
    """Ask for the access agents get to a note or folder; the rule goes last, so it wins."""

    SUBMIT_ID = "protect"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="protect.cancel")
    ]

    def __init__(self, relpath: str, is_dir: bool, current: str = "") -> None:
        """Prefill the glob for `relpath`; `current` says which rule applies now."""
        super().__init__()
        self.glob = default_glob(relpath, is_dir)
        self.current = current

    def compose(self) -> ComposeResult:
        """The glob, the levels, the agents and buttons."""
        with Vertical(classes="dialog"):
            yield Label("Protect from agents", classes="dialog-title")
            yield Label("Paths (relative to the store; ** spans folders)")
            yield Input(visible_cells(self.glob), id="protect-glob")
            with RadioSet(id="protect-access"):
                for level, label in LEVELS:
                    yield RadioButton(label, value=level == "review", name=level)
            yield Label("Agents (a glob like agent:claude; empty: every agent)")
            yield Input(placeholder="every agent", id="protect-actor")
            note = self.current or "No rule covers it now: agents may change it."
            yield Static(visible(note), classes="dialog-note", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Add rule", id="protect", variant="primary")

    def on_mount(self) -> None:
        """Start on the levels."""
        self.query_one("#protect-access", RadioSet).focus()

    def submit(self) -> None:
        """Dismiss with the rule when a glob is given."""
        typed = self.query_one("#protect-glob", Input).value.strip()
        glob = self.glob if typed == visible_cells(self.glob) else typed
        if not glob:
            self.notify("A rule needs the paths it covers.", severity="warning")
            return
        pressed = self.query_one("#protect-access", RadioSet).pressed_button
        access = pressed.name if pressed is not None and pressed.name else "review"
        actor = self.query_one("#protect-actor", Input).value.strip() or None
        self.dismiss(ProtectRule(glob, access, actor))
