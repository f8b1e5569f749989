"""Small wording helpers shared by the screens (one implementation, in the core)."""

from __future__ import annotations

from rich.cells import cell_len, get_character_cell_size

from memtui.core.plurals import count

__all__ = ["count", "shorten_end", "shorten_middle", "shorten_words"]


def _cut_cells(text: str, cells: int, *, from_end: bool = False) -> str:
    """The longest start (or end) of `text` that fits in `cells` terminal cells."""
    taken: list[str] = []
    used = 0
    for char in reversed(text) if from_end else text:
        size = get_character_cell_size(char)
        if used + size > cells:
            break
        taken.append(char)
        used += size
    return "".join(reversed(taken)) if from_end else "".join(taken)


def shorten_middle(text: str, width: int) -> str:
    """`text` in at most `width` cells: whole when it fits, else its start and its end around
    `…`, keeping a path's whole file name when there is room, so no two paths look the same."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    budget = width - 1
    name = "/" + text.rsplit("/", 1)[-1] if "/" in text else text
    tail = max(budget * 2 // 3, min(cell_len(name), budget - min(8, budget // 3)))
    end = _cut_cells(text, tail, from_end=True)
    return _cut_cells(text, budget - cell_len(end)) + "…" + end


def shorten_end(text: str, width: int) -> str:
    """`text` in at most `width` cells: whole when it fits, else its start and `…`."""
    if cell_len(text) <= width:
        return text
    return _cut_cells(text, width - 1) + "…" if width > 0 else ""


def shorten_words(text: str, width: int) -> str:
    """`text` in at most `width` cells, cut between words (`create, str_replace …`) so no word
    shows in part; a first word wider than `width` is cut with `…`."""
    if cell_len(text) <= width:
        return text
    words = text.split(" ")
    kept = ""
    for word in words:
        longer = f"{kept} {word}" if kept else word
        if cell_len(longer) + 2 > width:
            break
        kept = longer
    return f"{kept} …" if kept else shorten_end(text, width)
