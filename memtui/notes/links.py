"""Wikilinks after a move: which notes link into the moved notes, and their text rewritten."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memtui.notes.frontmatter_norm import body_start

if TYPE_CHECKING:
    from memtui.notes.index import NoteIndex

_WIKILINK = re.compile(r"(?<!\\)\[\[([^\[\]\n]+)\]\]")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)")
_SUFFIX = re.compile(r"\\?\||#")
"""Where a link's target ends: `[[T|alias]]`, `[[T\\|alias]]` (in a table) or `[[T#heading]]`."""

Plan = dict[str, dict[str, str]]
"""Source note -> {link target text as written -> the note it names}."""


@dataclass(frozen=True)
class Wikilink:
    """One `[[...]]` in a text: the span of what is between the brackets, and that text."""

    start: int
    end: int
    inner: str

    def names(self) -> list[str]:
        """The names the link may mean: the whole inner text, then the part before `|` or `#`."""
        whole = self.inner.strip()
        base = _SUFFIX.split(self.inner, maxsplit=1)[0].strip()
        return [whole] if base in ("", whole) else [whole, base]


def _masked(line: str) -> str:
    """The line with inline code spans blanked out, so positions still match."""
    return _CODE_SPAN.sub(lambda match: " " * len(match.group(0)), line)


def wikilinks(text: str) -> Iterator[Wikilink]:
    """Every wikilink in the body, skipping frontmatter, fenced code, code spans and `\\[[`."""
    offset = body_start(text)
    fence: str | None = None
    for line in text[offset:].splitlines(keepends=True):
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
        elif opening:
            fence = opening.group(1)
        elif "[[" in line:
            for match in _WIKILINK.finditer(_masked(line)):
                start = offset + match.start(1)
                yield Wikilink(
                    start, start + len(match.group(1)), line[match.start(1) : match.end(1)]
                )
        offset += len(line)


def rewrite_links(text: str, renames: Mapping[str, str]) -> tuple[str, int]:
    """`text` with each wikilink naming a key of `renames` pointed at its value; and how many.

    The whole target is matched first, then the part before `|alias` or `#heading`, which is kept.
    """
    pieces: list[str] = []
    done = 0
    count = 0
    for link in wikilinks(text):
        for key in link.names():
            if key in renames:
                begin = link.start + link.inner.index(key)
                pieces += [text[done:begin], renames[key]]
                done = begin + len(key)
                count += 1
                break
    pieces.append(text[done:])
    return "".join(pieces), count


def moved_path(relpath: str, old: str, new: str) -> str:
    """Where `relpath` is after `old` (a note or a folder) moved to `new`."""
    if relpath == old:
        return new
    if relpath.startswith(old + "/"):
        return new + relpath[len(old) :]
    return relpath


def notes_at(index: NoteIndex, relpath: str) -> set[str]:
    """The note at `relpath`, or every note in the folder at `relpath`."""
    return index.notes_under(relpath)


def _candidate_sources(index: NoteIndex, moved: set[str]) -> set[str]:
    """Notes with a link into `moved`: backlinks, plus `[[T|alias]]` / `[[T#h]]` forms of them."""
    sources = {source for relpath in moved for source, _relation in index.backlinks(relpath)}
    for target, users in index.unresolved_sources():
        base = _SUFFIX.split(target, maxsplit=1)[0].strip()
        if base and base != target.strip():
            sources.update(user for user in users if index.resolve(base, user) in moved)
    return sources


def links_into(index: NoteIndex, relpath: str) -> Plan:
    """For the note or folder at `relpath`: every note linking into it and the links it uses."""
    moved = notes_at(index, relpath)
    plan: Plan = {}
    for source in sorted(_candidate_sources(index, moved)):
        text = index.texts.get(source)
        if text is None:
            continue
        targets: dict[str, str] = {}
        for link in wikilinks(text):
            for key in link.names():
                found = index.resolve(key, source)
                if found in moved:
                    targets.setdefault(key, found)
                    break
        if targets:
            plan[source] = targets
    return plan


def link_name(index: NoteIndex, relpath: str, like: str) -> str:
    """How a link should name `relpath` now: a path for a path-like link, else its title."""
    stem = relpath.removesuffix(".md")
    title, permalink = index.title(relpath), index.permalink(relpath)
    named = [stem] if permalink is None else [stem, permalink]
    titled = [] if title is None else [title]
    for name in (named + titled) if "/" in like else (titled + named):
        if name and index.resolve(name) == relpath:
            return name
    return stem


def retargets(index: NoteIndex, plan: Plan, old: str, new: str) -> Plan:
    """After `old` moved to `new` (index updated): per source's new path, link text -> new text.

    Links that still reach their note (by title, or a permalink kept in the frontmatter) are left.
    """
    result: Plan = {}
    for source, targets in plan.items():
        source_now = moved_path(source, old, new)
        renames: dict[str, str] = {}
        for key, target in targets.items():
            target_now = moved_path(target, old, new)
            if index.resolve(key, source_now) == target_now:
                continue
            name = link_name(index, target_now, key)
            if name != key:
                renames[key] = name
        if renames:
            result[source_now] = renames
    return result


class MovePrediction:
    """The links into a note or folder that moves would break, for one rename dialog: what the
    frontmatter of each moved note sets is read once, and each move is then resolved by the
    index's own rules (`retargets` over `NoteIndex.moved`), so the count is what a rewrite does."""

    def __init__(self, index: NoteIndex, plan: Plan, old: str) -> None:
        """Predict moves of `old` for the links `plan` (from `links_into`)."""
        self.index = index
        self.plan = plan
        self.old = old
        self._moved: list[str] | None = None
        self._fixed: dict[str, tuple[str | None, str | None]] = {}

    def fixed(self, relpath: str) -> tuple[str | None, str | None]:
        """The title and permalink the note's frontmatter sets (None: from its path); the index
        answers when they differ from what the path gives, else the frontmatter is read."""
        from memtui.notes.parser import fixed_names, names_at

        known = self._fixed.get(relpath)
        if known is None:
            title, permalink = self.index.title(relpath), self.index.permalink(relpath)
            from_path = names_at(relpath, (None, None))
            if title != from_path[0] and permalink != from_path[1]:
                known = (title, permalink)
            else:
                known = fixed_names(self.index.texts.get(relpath, ""))
            self._fixed[relpath] = known
        return known

    def broken(self, new: str) -> Plan:
        """The links of the plan that would stop reaching their note if `old` moved to `new`, by
        source (computed before moving; `retargets` rewrites exactly these once moved)."""
        from memtui.notes.parser import names_at

        if self._moved is None:
            self._moved = sorted(notes_at(self.index, self.old))
        moves: dict[str, tuple[str, str, str]] = {}
        for relpath in self._moved:
            now = moved_path(relpath, self.old, new)
            moves[relpath] = (now, *names_at(now, self.fixed(relpath)))
        with self.index.moved(moves) as moved:
            rewrites = retargets(moved, self.plan, self.old, new)
        result: Plan = {}
        for source, targets in self.plan.items():
            renamed = rewrites.get(moved_path(source, self.old, new), {})
            broken = {key: target for key, target in targets.items() if key in renamed}
            if broken:
                result[source] = broken
        return result


def broken_by_move(index: NoteIndex, plan: Plan, old: str, new: str) -> Plan:
    """The links of `plan` that would stop reaching their note if `old` moved to `new`, by
    source (computed before moving; `retargets` rewrites exactly these once moved)."""
    return MovePrediction(index, plan, old).broken(new)
