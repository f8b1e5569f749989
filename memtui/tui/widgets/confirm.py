"""A yes/no modal used before anything destructive."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, Static

from memtui.core.display import visible, visible_text
from memtui.tui.modal import MemtuiModal
from memtui.tui.widgets.key_footer import KeyFooter


class ConfirmScreen(MemtuiModal[bool]):
    """Ask the user to confirm an action; dismisses with True or False."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "confirm", "Yes", id="confirm.yes"),
        Binding("n,q", "cancel", "No", id="confirm.no"),
        Binding("escape", "cancel", "Cancel", id="confirm.cancel"),
    ]
    PALETTE: ClassVar[list[tuple[str, str, str]]] = [
        ("confirm: yes", "confirm", "Go ahead (y)"),
        ("confirm: no", "cancel", "Cancel (n, q, escape)"),
    ]

    def __init__(self, title: str, body: str, confirm_label: str = "Confirm") -> None:
        """Store the question's title, body and the label of the confirming button."""
        super().__init__()
        self.title_text = title
        self.body = body
        self.confirm_label = confirm_label

    def compose(self) -> ComposeResult:
        """A title, the body and two buttons."""
        with Vertical():
            yield Label(visible(self.title_text), markup=False, classes="confirm-title")
            yield Static(visible_text(self.body), markup=False, classes="confirm-body")
            with Horizontal():
                yield Button("Cancel", id="cancel")
                yield Button(self.confirm_label, id="confirm", variant="warning")
        yield KeyFooter()

    def on_mount(self) -> None:
        """Focus the safe choice."""
        self.query_one("#cancel", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Dismiss with the pressed button's answer."""
        self.dismiss(event.button.id == "confirm")

    def action_confirm(self) -> None:
        """Confirm from the keyboard."""
        self.dismiss(True)

    def action_cancel(self) -> None:
        """Cancel from the keyboard."""
        self.dismiss(False)
