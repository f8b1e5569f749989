"""An option list whose cursor starts on the first option, so Down and Enter act on what is seen."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import OptionList
from textual.widgets.option_list import Option


class CursorList(OptionList):
    """An OptionList that highlights its first enabled option when it gets focus with nothing
    highlighted; j and k move like Down and Up."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False, id="list.down"),
        Binding("k", "cursor_up", "Up", show=False, id="list.up"),
    ]

    def start_on_first(self) -> None:
        """Highlight the first enabled option if none is highlighted."""
        if self.highlighted is None:
            for position, option in enumerate(self.options):
                if not option.disabled:
                    self.highlighted = position
                    return

    def on_focus(self) -> None:
        """Start on the first option."""
        self.start_on_first()

    def replace_options(self, options: Iterable[Option | str]) -> None:
        """Replace every option; the first is highlighted when the list has focus."""
        self.clear_options()
        self.add_options(options)
        if self.has_focus:
            self.start_on_first()
