"""The base of memtui's dialogs: F1 or `?` shows the dialog's keys, and its footer lists them."""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual.binding import Binding, BindingType
from textual.screen import ModalScreen

Answer = TypeVar("Answer")

KEY_MAP = """\
The same keys on every screen:
  F1 or ?     these keys (? types itself in a text field)
  ctrl+p      the command palette: every action, and any note by title
  q           back to the previous screen (quits on the main screen)
  escape      back, or cancel a dialog
  ctrl+q      quit from anywhere (asks about unsaved text)
  j / k       down / up in every list, table, tree and text view
  /           search (main screen) or filter (history, changes inbox)
  o           open the note on the main screen;  e / E  edit it here / in $EDITOR
  u           undo: your last change (main, review), the selected event (history),
              the note's changes (changes inbox)
In the changes inbox and the review queue a letter acts on the row under the cursor (or the
rows selected with space), and the same letter in capitals on every row shown, asking first:
  a / A       approve / approve all shown (inbox);  archive / archive all shown (review)
  d           delete (review);  space selects and moves down;  * selects all or none
Dialogs list their keys at the bottom: ctrl+s (or Enter in a field) accepts, escape cancels,
y / n answer a question."""
"""The key map shown under every screen's keys in the help (F1)."""


class MemtuiModal(ModalScreen[Answer]):
    """A dialog whose keys F1 or `?` lists, like every screen's (its Footer shows them too)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1,question_mark", "app.help", "Keys", key_display="F1", id="dialog.help")
    ]
