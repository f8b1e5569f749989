"""What a sync makes of a note both machines changed: memtui's three-way rules for memories.

The changes are found with merge3 (the engine of a person's merge in `notes.merge`); where merge3
sees two changes touching the same region, the region is looked at more closely:
- lines only added on both sides, at the same place, are all kept, in a stable order (the
  blocks sorted by their text, so every machine orders them alike); lines both sides added
  alike are kept once;
- changes to different lines of the region (one side deletes or rewrites lines the other keeps,
  the other adds lines elsewhere in it) combine;
- the same lines changed two ways (deleted or rewritten by both, or text added at a place whose
  neighbouring line the other side rewrote) are a clash: the result keeps this machine's text
  there, and the clash (base, mine, theirs) is returned for a person to resolve.
The result never holds conflict markers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from memtui.notes.merge import Conflict, MergeResult, Piece


@dataclass
class _Edits:
    """One side's change of a region: the base lines it deleted and what it added in each gap
    (gap g is before base line g; the last gap is after the last line)."""

    deleted: set[int] = field(default_factory=set)
    added: dict[int, list[str]] = field(default_factory=dict)


_MARKERS = re.compile(rb"^<{7}(?: [^\n]*)?\n.*?^={7}\n.*?^>{7}(?: [^\n]*)?$", re.M | re.S)


def has_markers(data: bytes | None) -> bool:
    """Whether `data` holds a git conflict (`<<<<<<<`, `=======`, `>>>>>>>` lines in order)."""
    return data is not None and _MARKERS.search(data) is not None


def text_of(data: bytes | None) -> str | None:
    """Bytes as UTF-8 text; None when absent or not UTF-8 (such a file is merged as a whole)."""
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def sync_merge(base: str | None, ours: str, theirs: str) -> MergeResult:
    """Combine `ours` and `theirs`, both changed from `base` (None: both made the file anew).

    Clashes keep `ours` in the text (`result.text(mine)`); see the module's rules.
    """
    endings = [text.endswith("\n") or not text for text in (base or "", ours, theirs)]
    lines = [_lines(text) for text in (base or "", ours, theirs)]
    from merge3 import Merge3

    merger = Merge3(lines[0], lines[1], lines[2])
    pieces: list[Piece] = []
    for region in merger.merge_regions():
        if region[0] != "conflict":
            kind, start, end = region[0], region[1], region[2]
            source = {"unchanged": merger.base, "a": merger.a, "same": merger.a, "b": merger.b}
            _add_text(pieces, "".join(source[kind][start:end]))
            continue
        _kind, base_start, base_end, mine_start, mine_end, theirs_start, theirs_end = region
        region_base = merger.base[base_start:base_end]
        mine = merger.a[mine_start:mine_end]
        their = merger.b[theirs_start:theirs_end]
        combined = combine(region_base, mine, their)
        if combined is None:
            pieces.append(Conflict(tuple(region_base), tuple(mine), tuple(their), mine_start + 1))
        else:
            _add_text(pieces, "".join(combined))
    return _final_newline(MergeResult(tuple(pieces)), endings)


def _lines(text: str) -> list[str]:
    """The lines of `text`, each ending in a line break (one is added to an unended last line,
    so adding a line after it is an addition, not a change of that line)."""
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n"
    return lines


def _add_text(pieces: list[Piece], text: str) -> None:
    """Append merged text, joined to a text run before it."""
    if not text:
        return
    if pieces and isinstance(pieces[-1], str):
        pieces[-1] += text
    else:
        pieces.append(text)


def _final_newline(result: MergeResult, endings: list[bool]) -> MergeResult:
    """Take off the line break `_lines` added when the merged file should end without one
    (theirs changed that from the base, or else ours has none)."""
    base, ours, theirs = endings
    ends = theirs if ours == base else ours
    if ends or not result.pieces:
        return result
    pieces = list(result.pieces)
    last = pieces[-1]
    if isinstance(last, str):
        pieces[-1] = last[:-1] if last.endswith("\n") else last
    else:
        pieces[-1] = Conflict(last.base, _unended(last.mine), _unended(last.theirs), last.line)
    return MergeResult(tuple(pieces))


def _unended(lines: tuple[str, ...]) -> tuple[str, ...]:
    """The lines with the line break of the last taken off."""
    if not lines or not lines[-1].endswith("\n"):
        return lines
    return (*lines[:-1], lines[-1][:-1])


def combine(base: Sequence[str], mine: Sequence[str], theirs: Sequence[str]) -> list[str] | None:
    """The lines of a region both sides changed, combined by the module's rules; None when the
    same lines were changed two ways (a clash)."""
    ours, other = _edits(base, mine), _edits(base, theirs)
    if ours.deleted & other.deleted:
        return None
    deleted = ours.deleted | other.deleted
    combined: list[str] = []
    for gap in range(len(base) + 1):
        added_here = ours.added.get(gap, [])
        added_there = other.added.get(gap, [])
        if added_here and added_there:
            if {gap - 1, gap} & deleted:
                return None
            combined += union(added_here, added_there)
        else:
            combined += added_here or added_there
        if gap < len(base) and gap not in deleted:
            combined.append(base[gap])
    return combined


def _edits(base: Sequence[str], side: Sequence[str]) -> _Edits:
    """How `side` changed `base`: deleted lines, and lines added in each gap (a rewrite is its
    lines deleted and the new ones added in the gap before them)."""
    from difflib import SequenceMatcher

    edits = _Edits()
    matcher = SequenceMatcher(None, base, side, autojunk=False)
    for tag, base_start, base_end, side_start, side_end in matcher.get_opcodes():
        if tag == "equal":
            continue
        edits.deleted.update(range(base_start, base_end))
        if side_end > side_start:
            edits.added.setdefault(base_start, []).extend(side[side_start:side_end])
    return edits


def union(first: Sequence[str], second: Sequence[str]) -> list[str]:
    """Lines both sides added at one place: the lines they share once, the rest of each side
    kept, where both put different lines between shared ones the blocks sorted by their text.

    The order depends only on the two texts, never on which machine merges.
    """
    from difflib import SequenceMatcher

    one, two = sorted((list(first), list(second)), key="".join)
    matcher = SequenceMatcher(None, one, two, autojunk=False)
    kept: list[str] = []
    at_one = at_two = 0
    for block in matcher.get_matching_blocks():
        kept += _both(one[at_one : block.a], two[at_two : block.b])
        kept += one[block.a : block.a + block.size]
        at_one, at_two = block.a + block.size, block.b + block.size
    return kept


def _both(first: list[str], second: list[str]) -> list[str]:
    """Two blocks added at one place: either alone, or both with the smaller text first."""
    if not first or not second:
        return first or second
    low, high = sorted((first, second), key="".join)
    return low + high
