"""The one display-safe function family: visible, visible_text, visible_cells."""

from __future__ import annotations

from memtui.core.display import visible, visible_cells, visible_text

ATTACK = "a\x1b]0;t\x07b\x9bc\u202ed\x7fe\tf\ng\udcff"


def test_visible_makes_one_safe_line() -> None:
    """Every control, bidi override, DEL and bad byte becomes a visible symbol."""
    assert visible(ATTACK) == "a␛]0;t␇b\\x9bc\\u202ed␡e␉f␊g\\xff"


def test_visible_text_keeps_tabs_and_line_breaks() -> None:
    """Multi-line text keeps its layout characters."""
    assert visible_text(ATTACK) == "a␛]0;t␇b\\x9bc\\u202ed␡e\tf\ng\\xff"


def test_visible_cells_keeps_every_offset() -> None:
    """One character per character, so an editor's columns and spans still hold."""
    shown = visible_cells(ATTACK)
    assert shown == "a␛]0;t␇b�c�d␡e\tf\ng�"
    assert len(shown) == len(ATTACK)


def test_safe_text_is_returned_unchanged() -> None:
    """The common case costs nothing."""
    text = "plain ünïcode 漢字\n\ttab"
    assert visible_text(text) is text and visible_cells(text) is text
