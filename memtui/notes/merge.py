"""Three-way merge of a person's edit with the changes saved meanwhile, and line diffs.

The merge is `merge3` (Breezy's merge engine): changes that touch different lines of the text
both were made from combine on their own; changes to the same lines (or touching lines) are
left as conflicts, each resolved by choosing a side or writing the lines anew.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Side = Literal["mine", "theirs", "both"]
"""A conflict's resolution by choice: my lines, their lines, or mine followed by theirs."""


@dataclass(frozen=True)
class Conflict:
    """One overlapping change: the lines both started from and what each side made of them."""

    base: tuple[str, ...]
    mine: tuple[str, ...]
    theirs: tuple[str, ...]
    line: int
    """The 1-based line of my text where it starts."""

    def side(self, choice: Side) -> str:
        """The text this conflict becomes when `choice` is taken."""
        if choice == "mine":
            return "".join(self.mine)
        if choice == "theirs":
            return "".join(self.theirs)
        mine = "".join(self.mine)
        if mine and not mine.endswith("\n") and self.theirs:
            mine += "\n"
        return mine + "".join(self.theirs)


Piece = str | Conflict
"""A run of merged text, or a conflict."""


@dataclass(frozen=True)
class MergeResult:
    """A merge: merged text with the conflicts left in place, in order."""

    pieces: tuple[Piece, ...]

    @property
    def conflicts(self) -> list[Conflict]:
        """The conflicts, in order."""
        return [piece for piece in self.pieces if isinstance(piece, Conflict)]

    @property
    def clean(self) -> bool:
        """Whether every change combined on its own."""
        return not self.conflicts

    def text(self, resolutions: Sequence[str] = ()) -> str:
        """The merged text, the n-th conflict replaced by the n-th resolution (raises ValueError
        when there are fewer resolutions than conflicts)."""
        if len(resolutions) < len(self.conflicts):
            raise ValueError(
                f"{len(self.conflicts)} conflicts need resolving, {len(resolutions)} resolved"
            )
        answers = iter(resolutions)
        return "".join(
            next(answers) if isinstance(piece, Conflict) else piece for piece in self.pieces
        )


def merge_texts(base: str, mine: str, theirs: str) -> MergeResult:
    """Combine the changes `mine` and `theirs` each made to `base`."""
    from merge3 import Merge3

    merger = Merge3(
        base.splitlines(keepends=True),
        mine.splitlines(keepends=True),
        theirs.splitlines(keepends=True),
    )
    pieces: list[Piece] = []
    for region in merger.merge_regions():
        if region[0] == "conflict":
            _kind, base_start, base_end, mine_start, mine_end, theirs_start, theirs_end = region
            pieces.append(
                Conflict(
                    tuple(merger.base[base_start:base_end]),
                    tuple(merger.a[mine_start:mine_end]),
                    tuple(merger.b[theirs_start:theirs_end]),
                    mine_start + 1,
                )
            )
            continue
        kind, start, end = region[0], region[1], region[2]
        lines = {"unchanged": merger.base, "a": merger.a, "same": merger.a, "b": merger.b}[kind]
        text = "".join(lines[start:end])
        if pieces and isinstance(pieces[-1], str):
            pieces[-1] += text
        elif text:
            pieces.append(text)
    return MergeResult(tuple(pieces))


def diff_line_kind(line: str) -> str:
    """What one line of a unified diff is: "file" (`---`/`+++`), "hunk", "added", "removed",
    "note" (`\\ No newline`), or "" for context."""
    if line.startswith(("+++", "---")):
        return "file"
    if line.startswith("@@"):
        return "hunk"
    if line.startswith("+"):
        return "added"
    if line.startswith("-"):
        return "removed"
    return "note" if line.startswith("\\") else ""


def diff_lines(before: str, after: str, before_name: str, after_name: str) -> list[str]:
    """A unified diff of two texts, one string per line without its line break (a line that
    had no final line break is followed by git's `\\ No newline at end of file`)."""
    import difflib

    lines: list[str] = []
    for line in difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        before_name,
        after_name,
    ):
        if line.endswith("\n"):
            lines.append(line[:-1])
        else:
            lines += [line, "\\ No newline at end of file"]
    return lines
