"""Contradiction candidates: two statements about the same subject that cannot both hold now.

A subject is one file (its statements among themselves), a title shared by several notes, or a
note another note links to (the linking note's statements that name it, compared with the
note's own). Inside a subject only the pairs `contradiction_blocks.candidates` finds are judged
(`contradiction_rules.judge`), so the work grows with the store, not its square. The
newer statement of a pair is the later written one: its line's time when known (the history),
else its file's change time, else the later line of the same file.

A pair a person decided to keep both of is remembered by `pair_key` (a hash of the two
normalised texts, order-free), so the same two statements are not proposed again, wherever
they are and whichever is newer.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from itertools import combinations

from memtui.notes.bulk import Pacer
from memtui.notes.contradiction_blocks import candidates, without
from memtui.notes.contradiction_rules import judge
from memtui.notes.statements import statement_lines

MAX_TITLE_GROUP = 8
"""A title shared by more files than this (`README`, `Notes`) names no one entity."""
_SPACE = re.compile(r"\s+")
Place = tuple[str, int]
"""(relpath, line) of a statement."""
_LIST_MARKER = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")


@dataclass(frozen=True, slots=True)
class Line:
    """One statement: where it is, its text, and when it was written (0 when unknown)."""

    path: str
    line: int
    text: str
    time: float = 0.0
    section: int = 0
    """The line of the heading the statement is under (0: none)."""


@dataclass(frozen=True, slots=True)
class Contradiction:
    """A candidate pair, older and newer, with the rule that found it and what differs."""

    older: Line
    newer: Line
    reason: str
    detail: str
    key: str
    """`pair_key` of the two texts: what a "keep both" decision is remembered by."""
    subject: str = ""
    """The entity's title when the pair was found through a link to it, else ""."""


@dataclass
class MemoryFile:
    """A file as the finder sees it: its path, title, change time, text and linked notes."""

    path: str
    title: str
    text: str
    mtime: float = 0.0
    links: Collection[str] = ()
    """Relpaths of the notes this file links to (resolved relations)."""
    line_times: dict[int, float] = field(default_factory=dict)
    """Line number -> when it was written, where the history tells."""


def normalised(text: str) -> str:
    """A statement's text for its identity: NFC, case-folded, spaces collapsed, no list marker."""
    text = unicodedata.normalize("NFC", text).casefold()
    return _SPACE.sub(" ", _LIST_MARKER.sub("", text, count=1)).strip()


def pair_key(a: str, b: str) -> str:
    """The identity of a pair of statements: a hash of both normalised texts, in either order."""
    first, second = sorted((normalised(a), normalised(b)))
    data = f"{first}\x00{second}".encode("utf-8", errors="surrogatepass")
    return hashlib.sha256(data).hexdigest()[:32]


def title_key(title: str) -> str:
    """A title as it names an entity: case-folded words, punctuation and spacing ignored."""
    return " ".join(re.findall(r"[^\W_]+", unicodedata.normalize("NFC", title).casefold()))


def ordered(a: Line, b: Line) -> tuple[Line, Line]:
    """(older, newer): by when each was written; in one file at one time, by line."""
    same_file = a.path == b.path
    first = (a.time, a.line if same_file else 0, a.path)
    second = (b.time, b.line if same_file else 0, b.path)
    return (a, b) if first <= second else (b, a)


def judged(a: Line, b: Line, subject: str = "", kept: Collection[str] = ()) -> Contradiction | None:
    """The contradiction between two statements, if there is one and it was not kept."""
    older, newer = ordered(a, b)
    same_section = older.path != newer.path or older.section == newer.section
    if subject:
        verdict = judge(
            without(older.text, subject), without(newer.text, subject), same_section=same_section
        )
    else:
        verdict = judge(older.text, newer.text, same_section=same_section)
    if verdict is None:
        return None
    key = pair_key(older.text, newer.text)
    if key in kept:
        return None
    return Contradiction(older, newer, verdict.reason, verdict.detail, key, subject)


class _Finder:
    """Collects the contradictions of a set of files, each pair judged once."""

    def __init__(self, kept: Collection[str], pace: Pacer) -> None:
        """An empty finder that skips the pairs in `kept`."""
        self.kept = kept
        self.pace = pace
        self.found: dict[tuple[Place, Place], Contradiction] = {}

    def compare(self, left: list[Line], right: list[Line] | None, subject: str = "") -> None:
        """Judge the candidate pairs within `left`, or between `left` and `right`."""
        texts_left = [line.text for line in left]
        texts_right = None if right is None else [line.text for line in right]
        other = left if right is None else right
        for count, (i, j) in enumerate(candidates(texts_left, texts_right, subject)):
            if count % 256 == 0:
                self.pace()
            a, b = left[i], other[j]
            place = ((a.path, a.line), (b.path, b.line))
            place = place if place[0] <= place[1] else (place[1], place[0])
            if place in self.found or a.text == b.text:
                continue
            found = judged(a, b, subject, self.kept)
            if found is not None:
                self.found[place] = found


def _lines(file: MemoryFile) -> list[Line]:
    """The statements of a file as Lines, each with its time."""
    return [
        Line(file.path, number, text, file.line_times.get(number, file.mtime), section)
        for number, text, section in statement_lines(file.path, file.text)
    ]


def find_contradictions(
    files: Iterable[MemoryFile], *, kept: Collection[str] = (), pace: Pacer | None = None
) -> list[Contradiction]:
    """Every candidate pair in `files`, newest first; pairs whose `pair_key` is in `kept`
    are left out."""
    finder = _Finder(kept, pace or Pacer())
    by_path: dict[str, MemoryFile] = {}
    lines: dict[str, list[Line]] = {}
    by_title: dict[str, list[str]] = defaultdict(list)
    for file in files:
        by_path[file.path] = file
        lines[file.path] = _lines(file)
        finder.compare(lines[file.path], None)
        if file.title.strip():
            by_title[title_key(file.title)].append(file.path)
    for paths in by_title.values():
        if len(paths) > MAX_TITLE_GROUP:
            continue
        for a, b in combinations(paths, 2):
            finder.compare(lines[a], lines[b])
    for file in by_path.values():
        for target in file.links:
            entity = by_path.get(target)
            if entity is None or target == file.path or not entity.title.strip():
                continue
            named = [line for line in lines[file.path] if _names(line.text, entity.title)]
            if named and title_key(entity.title) != title_key(file.title):
                finder.compare(lines[target], named, entity.title)
    return newest_first(finder.found.values())


def newest_first(pairs: Iterable[Contradiction]) -> list[Contradiction]:
    """Pairs ordered by their newer line: the latest written first, then by place."""
    return sorted(pairs, key=lambda c: (-c.newer.time, c.newer.path, c.newer.line))


def _names(text: str, title: str) -> bool:
    """Whether a statement names an entity by its title."""
    return re.search(rf"(?i)\b{re.escape(title)}\b", text) is not None
