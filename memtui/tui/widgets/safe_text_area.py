"""A TextArea that draws control characters as visible symbols, keeping the text as it is."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import TextArea

from memtui.core.display import visible_cells


class SafeTextArea(TextArea):
    """The editor's text area: the document holds the note's exact text (saving writes it back
    unchanged), but each control character, bidi mark or bad byte is drawn as one visible
    symbol (ESC as ␛, a C1 control or bidi override as �), so a note cannot drive the terminal."""

    def get_line(self, line_index: int) -> Text:
        """The line as drawn: display-safe, one symbol per character so columns still hold."""
        line = visible_cells(self.document.get_line(line_index))
        return Text(line, end="", no_wrap=True)
