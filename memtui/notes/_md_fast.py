"""Line-based fast path giving markdown-it's inline blocks for common notes, or None to fall back.

It handles ATX headings, paragraphs (with lazy continuation), bullet and ordered lists with
nesting, top-level fenced and indented code, and thematic breaks. Anything else it might read
differently from markdown-it (tabs, block quotes, HTML, setext underlines, link reference
definitions, fences or code inside list items, unusual list markers) makes it return None, and
the caller uses the reference parser for that note.

`fast_extract` goes on to the observations and relations itself, with Basic Memory's rules
inlined for plain blocks and the reference functions used for anything unusual (code spans,
`#bm:links_to`, `#a#b` tags), so it gives exactly `extract(reference_blocks(body))`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memtui.notes._md_reference import (
    _BLOCK_PARSER,
    Extraction,
    InlineBlock,
    _explicit_relation,
    _inline_relations,
    block_relations,
    markdown_link_target,
    parse_observation,
)
from memtui.notes.model import Observation, Relation

BlockTuple = tuple[str, int, str, bool, bool]
"""An inline block as the scanner records it: content, 0-based line, kind, in_list, BM's flag."""

_MARKER = r"[-*+]|\d{1,9}[.)]"
"""A bullet or ordered list marker, as CommonMark reads one."""
_LIST_MARKER = re.compile(rf"({_MARKER})( *)")
_HEADING = re.compile(r"#{1,6}(?: |$)")
_THEMATIC_BREAK = re.compile(r"(?:\*[ ]*){3,}$|(?:-[ ]*){3,}$|(?:_[ ]*){3,}$")
_FENCE_OPEN = re.compile(r"(`{3,}|~{3,})(.*)$")
_QUOTE_OR_HTML_FIRST = re.compile(r" *[<>]")
_QUOTE_OR_HTML_LATER = re.compile(r"\n *[<>]")
_UNDERLINE_AFTER_LINE = re.compile(r"\n *(?:=+|-+) *(?=\n|\Z)")
_LEADING_MARKERS = re.compile(rf"(?: *(?:{_MARKER}) +)*")


_BLOCK_STARTERS = frozenset("#*-_`~+0123456789 ")
_ITEM_TEXT_STARTERS = _BLOCK_STARTERS | {""}


class Unsupported(Exception):
    """The note has a construct the fast path does not reproduce exactly."""


@dataclass(slots=True)
class _Item:
    """An open list item: where its marker sits and where its content starts."""

    marker_indent: int
    content_indent: int
    parent_indent: int


_TOP_LEVEL_ITEM = _Item(0, 2, 0)
"""The item a `- ` marker at column 0 opens (items are never changed once open)."""


@dataclass(slots=True)
class _Paragraph:
    """An open paragraph: its lines (container indentation removed) and context."""

    start: int
    block_indent: int
    lines: list[str]
    in_list: bool
    bm_in_list_item: bool


@dataclass(slots=True)
class _Scanner:
    """Walks the lines once, keeping the open list items, paragraph and fence."""

    lines: list[str]
    blocks: list[BlockTuple] = field(default_factory=list)
    items: list[_Item] = field(default_factory=list)
    paragraph: _Paragraph | None = None
    fence: tuple[str, int] | None = None
    bm_in_list_item: bool = False

    def block_indent(self) -> int:
        """Content column of the innermost open list item (0 outside lists)."""
        return self.items[-1].content_indent if self.items else 0

    def close_paragraph(self) -> None:
        """Emit the open paragraph, if any."""
        para = self.paragraph
        if para is None:
            return
        self.paragraph = None
        lines = para.lines
        content = (lines[0] if len(lines) == 1 else "\n".join(lines)).strip()
        self.blocks.append((content, para.start, "paragraph", para.in_list, para.bm_in_list_item))

    def close_items_above(self, indent: int) -> None:
        """Close list items the line at `indent` does not belong to."""
        while self.items and indent < self.items[-1].content_indent:
            self.items.pop()
            self.bm_in_list_item = False

    def run(self) -> list[BlockTuple]:
        """Scan every line and return the inline blocks.

        Unindented plain text lines and `- text` items are handled inline (they are most
        lines of a note); everything else goes through `line`.
        """
        blocks = self.blocks
        items = self.items
        for number, line in enumerate(self.lines):
            if self.fence is not None:
                self.fence_line(line)
                continue
            if not line:
                para = self.paragraph
                if para is not None:
                    self.paragraph = None
                    lines = para.lines
                    content = (lines[0] if len(lines) == 1 else "\n".join(lines)).strip()
                    blocks.append(
                        (content, para.start, "paragraph", para.in_list, para.bm_in_list_item)
                    )
                continue
            first = line[0]
            if first not in _BLOCK_STARTERS:
                para = self.paragraph
                if para is not None:
                    para.lines.append(line)
                    continue
                if not items:
                    self.paragraph = _Paragraph(number, 0, [line], False, self.bm_in_list_item)
                    continue
            elif first == "-" and line[1:2] == " " and line[2:3] not in _ITEM_TEXT_STARTERS:
                para = self.paragraph
                if para is not None:
                    lines = para.lines
                    content = (lines[0] if len(lines) == 1 else "\n".join(lines)).strip()
                    blocks.append(
                        (content, para.start, "paragraph", para.in_list, para.bm_in_list_item)
                    )
                if items:
                    items.clear()
                items.append(_TOP_LEVEL_ITEM)
                self.bm_in_list_item = True
                self.paragraph = _Paragraph(number, 2, [line[2:]], True, True)
                continue
            self.line(number, line)
        self.close_paragraph()
        return blocks

    def line(self, number: int, line: str) -> None:
        """Handle one line."""
        if self.fence is not None:
            self.fence_line(line)
            return
        stripped = line.lstrip(" ")
        if not stripped:
            self.close_paragraph()
            return
        indent = len(line) - len(stripped)
        if self.paragraph is not None and self.continues_paragraph(indent, stripped, line):
            return
        self.close_paragraph()
        self.close_items_above(indent)
        self.start_block(number, indent, stripped)

    def fence_line(self, line: str) -> None:
        """Inside a fenced code block: look for the closing fence."""
        assert self.fence is not None
        char, length = self.fence
        stripped = line.lstrip(" ")
        if len(line) - len(stripped) > 3:
            return
        run = len(stripped) - len(stripped.lstrip(char))
        if run >= length and not stripped[run:].strip(" "):
            self.fence = None

    def interrupts(self, indent: int, stripped: str) -> bool:
        """Whether a line ends the open paragraph (markdown-it's terminator rules)."""
        para = self.paragraph
        assert para is not None
        if _HEADING.match(stripped) or _THEMATIC_BREAK.match(stripped):
            return True
        if stripped.startswith(("```", "~~~")):
            return True
        marker = _LIST_MARKER.match(stripped)
        if marker is None or (marker.end() < len(stripped) and not marker.group(2)):
            return False
        if indent >= para.block_indent:
            if not marker.group(1)[0].isdigit():
                return True
            if marker.group(1)[:-1] == "1":
                return True
            raise Unsupported("an ordered item not numbered 1 after a paragraph")
        if self.items and indent - self.items[-1].parent_indent >= 4:
            raise Unsupported("a deeply indented list marker inside a list item")
        return True

    def continues_paragraph(self, indent: int, stripped: str, line: str) -> bool:
        """Add the line to the open paragraph when it continues it (lazily or not)."""
        para = self.paragraph
        assert para is not None
        if indent - para.block_indent <= 3 and self.interrupts(indent, stripped):
            return False
        para.lines.append(line[min(indent, para.block_indent) :])
        return True

    def start_block(self, number: int, indent: int, stripped: str) -> None:
        """Start whatever block the line opens in its container."""
        relative = indent - self.block_indent()
        if relative >= 4:
            if self.items:
                raise Unsupported("indented code inside a list item")
            return
        fence = _FENCE_OPEN.match(stripped)
        if fence is not None:
            if self.items:
                raise Unsupported("a fence inside a list item")
            if fence.group(1)[0] == "`" and "`" in fence.group(2):
                raise Unsupported("a backtick fence whose info string has a backtick")
            self.fence = (fence.group(1)[0], len(fence.group(1)))
            return
        if _THEMATIC_BREAK.match(stripped):
            return
        marker = _LIST_MARKER.match(stripped)
        if marker is not None and (marker.end() == len(stripped) or marker.group(2)):
            self.start_item(number, indent, stripped, marker)
            return
        if _HEADING.match(stripped):
            self.heading(number, stripped)
            return
        self.paragraph = _Paragraph(
            number, self.block_indent(), [stripped], bool(self.items), self.bm_in_list_item
        )

    def start_item(self, number: int, indent: int, stripped: str, marker: re.Match[str]) -> None:
        """Open a list item and the paragraph its first line starts."""
        spaces = len(marker.group(2))
        rest = stripped[marker.end() :]
        if not rest:
            raise Unsupported("an empty list item")
        if spaces > 4:
            raise Unsupported("a list item starting with indented code")
        nested = _LIST_MARKER.match(rest)
        if (
            (nested is not None and (nested.end() == len(rest) or nested.group(2)))
            or _HEADING.match(rest)
            or _THEMATIC_BREAK.match(rest)
            or rest.startswith(("```", "~~~"))
        ):
            raise Unsupported("a list item starting with another block")
        content_indent = indent + len(marker.group(1)) + spaces
        self.items.append(_Item(indent, content_indent, self.block_indent()))
        self.bm_in_list_item = True
        self.paragraph = _Paragraph(number, content_indent, [rest], True, True)

    def heading(self, number: int, stripped: str) -> None:
        """Emit an ATX heading's text, without its closing `#` run."""
        level = len(stripped) - len(stripped.lstrip("#"))
        end = len(stripped.rstrip(" "))
        start = level
        cut = end
        while cut > start and stripped[cut - 1] == "#":
            cut -= 1
        if cut > start and stripped[cut - 1] == " ":
            end = cut
        self.blocks.append(
            (stripped[start:end].strip(), number, "heading", bool(self.items), self.bm_in_list_item)
        )


def _needs_reference(body: str) -> bool:
    """Whether any line holds a construct the fast path leaves to markdown-it."""
    if ("<" in body or ">" in body) and (
        _QUOTE_OR_HTML_FIRST.match(body) or _QUOTE_OR_HTML_LATER.search(body)
    ):
        return True
    for underline in _UNDERLINE_AFTER_LINE.finditer(body):
        previous_start = body.rfind("\n", 0, underline.start()) + 1
        if body[previous_start : underline.start()].strip(" "):
            return True
    if "]:" not in body:
        return False
    for line in body.split("\n"):
        if "]:" in line:
            markers = _LEADING_MARKERS.match(line)
            content = line[markers.end() if markers else 0 :].lstrip(" ")
            if content.startswith("["):
                return True
    return False


def _scan(body: str) -> list[BlockTuple] | None:
    """The blocks of `body` as tuples, or None when the reference parser must decide."""
    if "\t" in body:
        return None
    if "\r" in body:
        body = body.replace("\r\n", "\n").replace("\r", "\n")
    if _needs_reference(body):
        return None
    try:
        return _Scanner(body.split("\n")).run()
    except Unsupported:
        return None


def _hrefs(content: str) -> list[str]:
    """The href of every link among the content's inline tokens (none without a `](`)."""
    if "](" not in content:
        return []
    tokens = _BLOCK_PARSER.parseInline(content, {})
    return [
        str(child.attrGet("href") or "")
        for child in tokens[0].children or []
        if child.type == "link_open"
    ]


def fast_blocks(body: str) -> list[InlineBlock] | None:
    """The inline blocks of `body`, or None when the reference parser must decide."""
    blocks = _scan(body)
    if blocks is None:
        return None
    return [
        InlineBlock(content, line, kind, in_list, bm_flag, False, _hrefs(content))
        for content, line, kind, in_list, bm_flag in blocks
    ]


def _wikilink_relations(content: str, bm_flag: bool, line: int) -> list[Relation]:
    """`block_relations` for a block, skipping the masking when it has no code or directive."""
    if "`" in content or "#bm:links_to" in content:
        return block_relations(InlineBlock(content, 0, "paragraph", False, bm_flag, False), line)
    if bm_flag:
        explicit = _explicit_relation(content, content, line)
        if explicit is not None:
            return [explicit]
    return _inline_relations(content, content, line)


def fast_extract(body: str, line_offset: int) -> Extraction | None:
    """What `extract(reference_blocks(body), line_offset)` gives, or None to use that instead."""
    blocks = _scan(body)
    if blocks is None:
        return None
    observations: list[Observation] = []
    relations: list[Relation] = []
    warnings: list[str] = []
    for content, block_line, kind, in_list, bm_flag in blocks:
        line = line_offset + block_line + 1
        if "](" in content:
            for href in _hrefs(content):
                target = markdown_link_target(href) if href else None
                if target is not None:
                    relations.append(Relation("links_to", target, None, line))
        if "#" in content or "[" in content:
            observation = parse_observation(content, kind, in_list, line, warnings)
            if observation is not None:
                observations.append(observation)
            if "[[" in content:
                relations.extend(_wikilink_relations(content, bm_flag, line))
    return Extraction(observations, relations, warnings)
