"""Links after a move: which notes link into the moved notes (wikilinks, and Markdown links
by path), and their text rewritten."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote

from memtui.notes._md_reference import markdown_link_target
from memtui.notes.frontmatter_norm import body_start
from memtui.notes.index_write import target_key

if TYPE_CHECKING:
    from memtui.notes.index import NoteIndex

_WIKILINK = re.compile(r"(?<!\\)\[\[([^\[\]\n]+)\]\]")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)")
_SUFFIX = re.compile(r"\\?\||#")
"""Where a link's target ends: `[[T|alias]]`, `[[T\\|alias]]` (in a table) or `[[T#heading]]`."""

_MARKDOWN_LINK = re.compile(
    r"(?<!!)\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]\("
    r"(<[^<>\n]*>|[^\s()<>]+(?:\([^\s()]*\)[^\s()<>]*)*)"
    r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?\s*\)"
)
"""An inline Markdown link `[text](destination "title")`, not an image; group 1 is the
destination, bare or in `<...>`."""
_NEEDS_QUOTING = re.compile(r"[\s()<>%]")
HREF = "]("
"""Marks a plan key as a Markdown link's destination as written (`](Burr%20Grinder.md`), which
a wikilink's text (no `]`) can never be."""

Plan = dict[str, dict[str, str]]
"""Source note -> {link target text as written -> the note it names}; a Markdown link's key is
its destination after `HREF`."""


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


def _body_lines(text: str) -> Iterator[tuple[int, str, str]]:
    """(offset, line, line with code spans blanked) of each body line outside frontmatter and
    fenced code."""
    offset = body_start(text)
    fence: str | None = None
    for line in text[offset:].splitlines(keepends=True):
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
        elif opening:
            fence = opening.group(1)
        elif "[" in line:
            yield offset, line, _masked(line)
        offset += len(line)


def wikilinks(text: str) -> Iterator[Wikilink]:
    """Every wikilink in the body, skipping frontmatter, fenced code, code spans and `\\[[`."""
    for offset, line, masked in _body_lines(text):
        if "[[" in line:
            for match in _WIKILINK.finditer(masked):
                start = offset + match.start(1)
                yield Wikilink(
                    start, start + len(match.group(1)), line[match.start(1) : match.end(1)]
                )


@dataclass(frozen=True)
class MarkdownLink:
    """One Markdown link: the span of its destination as written, that text, and the path it
    names relative to the root (None for a URL, an anchor or a folder)."""

    start: int
    end: int
    destination: str
    path: str | None


def markdown_links(text: str, source: str) -> Iterator[MarkdownLink]:
    """Every inline Markdown link in the body of the note at `source`, where `links_to`
    relations come from (not images, code or frontmatter)."""
    for offset, line, masked in _body_lines(text):
        if "](" in line:
            for match in _MARKDOWN_LINK.finditer(masked):
                written = line[match.start(1) : match.end(1)]
                target = markdown_link_target(written.removeprefix("<").removesuffix(">"))
                path = None if target is None else target_key(target, source)
                yield MarkdownLink(offset + match.start(1), offset + match.end(1), written, path)


def href_to(written: str, source: str, target: str) -> str:
    """A Markdown link destination from the note at `source` to `target`, written as `written`
    was: root-based or relative (with `./` if it had one), in `<...>`, URL-encoded or not (encoded
    when the path needs it), its `#fragment` or `?query` kept."""
    angled = written.startswith("<") and written.endswith(">")
    bare = written[1:-1] if angled else written
    cut = min((i for i in (bare.find("#"), bare.find("?")) if i >= 0), default=len(bare))
    path, suffix = bare[:cut], bare[cut:]
    if path.startswith("/"):
        new = "/" + target
    else:
        new = posixpath.relpath(target, posixpath.dirname(source) or ".")
        if path.startswith("./") and not new.startswith("../"):
            new = "./" + new
    if unquote(path) != path or (not angled and _NEEDS_QUOTING.search(new)):
        new = quote(new, safe="/")
    return f"<{new}{suffix}>" if angled else new + suffix


def rewrite_links(text: str, renames: Mapping[str, str]) -> tuple[str, int]:
    """`text` with each wikilink naming a key of `renames` pointed at its value, and each
    Markdown link whose `HREF` key is there given its new destination; and how many.

    The whole target is matched first, then the part before `|alias` or `#heading`, which is kept.
    """
    spans: list[tuple[int, int, str]] = []
    for link in wikilinks(text):
        for key in link.names():
            if key in renames:
                begin = link.start + link.inner.index(key)
                spans.append((begin, begin + len(key), renames[key]))
                break
    if any(key.startswith(HREF) for key in renames):
        for found in markdown_links(text, ""):
            new = renames.get(HREF + found.destination)
            if new is not None:
                spans.append((found.start, found.end, new.removeprefix(HREF)))
    pieces: list[str] = []
    done = 0
    for begin, end, new in sorted(spans):
        pieces += [text[done:begin], new]
        done = end
    pieces.append(text[done:])
    return "".join(pieces), len(spans)


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
    """For the note or folder at `relpath`: every note linking into it and the links it uses,
    and the Markdown links by relative path of the notes in it."""
    moved = notes_at(index, relpath)
    plan: Plan = {}
    for source in sorted(_candidate_sources(index, moved) | moved):
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
        for markdown in markdown_links(text, source):
            path = markdown.path
            if path is None or (path not in moved and source not in moved):
                continue
            if path in moved or index.entry(path) is not None:
                targets.setdefault(HREF + markdown.destination, path)
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
            if key.startswith(HREF):
                href = _retarget_href(key.removeprefix(HREF), source_now, target_now)
                if href is not None:
                    renames[key] = HREF + href
                continue
            if index.resolve(key, source_now) == target_now:
                continue
            name = link_name(index, target_now, key)
            if name != key:
                renames[key] = name
        if renames:
            result[source_now] = renames
    return result


def _retarget_href(written: str, source: str, target: str) -> str | None:
    """The destination a Markdown link written `written` needs in the note at `source` to reach
    `target`, or None when it still does."""
    found = next(iter(markdown_links(f"[]({written})", source)), None)
    if found is not None and found.path == target:
        return None
    return href_to(written, source, target)


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
