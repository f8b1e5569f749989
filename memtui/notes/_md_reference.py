"""Reference extraction: markdown-it's CommonMark blocks plus Basic Memory's observation/relation
rules."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from markdown_it import MarkdownIt
from markdown_it.rules_inline.backticks import backtick

from memtui.notes.model import Observation, Relation
from memtui.notes.temporal import scan_qualifier

_CLOCK = r"\d{1,3}:\d{2}(?::\d{2})?(?:[.,]\d{1,3})?"
_CLOCK_CATEGORY = re.compile(rf"^{_CLOCK}(?:\s+-\s+{_CLOCK})?$")
_LINKS_TO_DIRECTIVE = re.compile(r"\s+#bm:links_to\s*$")
_CATEGORY_LINE = re.compile(r"^\[([^\[\]()]+)\]\s+(.+)")
_EMPTY_CATEGORY_LINE = re.compile(r"^\[\]\s+(.+)")
_WHOLE_MD_LINK = re.compile(r"^\[.*?\]\(.*?\)$")
_WHOLE_WIKILINK = re.compile(r"^\[\[.*?\]\]$")
_TASK_PREFIXES = ("[ ]", "[x]", "[-]")
_HASH_WORD = re.compile(r"(?:^|\s)#")
_TAG_WORD = re.compile(r"(?:^|(?<=\s))#(\S*)")
_PATH_PREFIXES = ("/", "./", "../")


@dataclass(slots=True)
class InlineBlock:
    """One inline token (paragraph, heading, or list-item paragraph) and where it sits."""

    content: str
    line: int
    """0-based line of the block in the body."""
    kind: str
    """"heading" or "paragraph"."""
    in_list: bool
    """Really inside a list item (any depth)."""
    bm_in_list_item: bool
    """Basic Memory's flag: set by an item's start, cleared by any item's end (nested ones too)."""
    in_blockquote: bool
    hrefs: list[str] = field(default_factory=list)
    """The href of every link among the token's direct children, in order."""


@dataclass(slots=True)
class Extraction:
    """What a body yields: observations, relations and parse warnings."""

    observations: list[Observation] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


_BLOCK_PARSER = MarkdownIt("commonmark")


def reference_blocks(body: str) -> list[InlineBlock]:
    """The inline blocks of a body, as markdown-it's CommonMark parser sees them."""
    blocks: list[InlineBlock] = []
    list_depth = 0
    quote_depth = 0
    bm_in_item = False
    heading = False
    for token in _BLOCK_PARSER.parse(body):
        kind = token.type
        if kind == "list_item_open":
            list_depth += 1
            bm_in_item = True
        elif kind == "list_item_close":
            list_depth -= 1
            bm_in_item = False
        elif kind == "blockquote_open":
            quote_depth += 1
        elif kind == "blockquote_close":
            quote_depth -= 1
        elif kind == "heading_open":
            heading = True
        elif kind == "heading_close":
            heading = False
        elif kind == "inline":
            hrefs = [
                str(child.attrGet("href") or "")
                for child in token.children or []
                if child.type == "link_open"
            ]
            line = token.map[0] if token.map else 0
            blocks.append(
                InlineBlock(
                    token.content,
                    line,
                    "heading" if heading else "paragraph",
                    list_depth > 0,
                    bm_in_item,
                    quote_depth > 0,
                    hrefs,
                )
            )
    return blocks


def markdown_link_target(href: str) -> str | None:
    """The `links_to` target of a Markdown link href, or None for URLs, anchors and folders."""
    try:
        parsed = urlsplit(href)
    except ValueError:
        return None
    if parsed.scheme or parsed.netloc or not parsed.path:
        return None
    path = unquote(parsed.path)
    if "\\" in path or "\x00" in path or path.endswith("/"):
        return None
    return path if path.startswith(_PATH_PREFIXES) else f"./{path}"


def _strip_directive(content: str) -> str:
    """Content without a terminal ` #bm:links_to`."""
    if "#bm:links_to" not in content:
        return content
    match = _LINKS_TO_DIRECTIVE.search(content)
    return content if match is None else content[: match.start()].rstrip()


def _observation_text(content: str) -> tuple[str, re.Match[str] | None] | None:
    """The stripped text and category match when a block is an observation, else None."""
    if "#" not in content and "[" not in content:
        return None
    text = content.strip()
    if "#bm:links_to" in text:
        text = _strip_directive(text)
    if not text:
        return None
    match = None
    if text[0] == "[":
        if text.startswith(_TASK_PREFIXES) or _whole_link(text):
            return None
        match = _CATEGORY_LINE.match(text)
        if match is not None and _not_a_category(match.group(1).strip()):
            match = None
    if match is None and ("#" not in text or not _HASH_WORD.search(text)):
        return None
    return text, match


def _not_a_category(category: str) -> bool:
    """Whether a `[category]` bracket holds a clock value or a task-box shape instead."""
    return (category[:1].isdecimal() and _CLOCK_CATEGORY.match(category) is not None) or (
        len(category) == 1 and (category in "xX" or not category.isalnum())
    )


def _whole_link(text: str) -> bool:
    """Whether the text is one Markdown link or one wikilink and nothing else."""
    last = text[-1]
    return (last == ")" and "](" in text and _WHOLE_MD_LINK.match(text) is not None) or (
        last == "]" and text.startswith("[[") and _WHOLE_WIKILINK.match(text) is not None
    )


def _tags_of(content: str) -> list[str]:
    """Every `#word` of the content, `#a#b` giving `a` and `b`."""
    if "#" not in content:
        return []
    words = _TAG_WORD.findall(content)
    if content.count("#") == len(words):
        return words
    tags: list[str] = []
    for word in words:
        if "#" in word:
            tags.extend(piece for piece in word.split("#") if piece)
        else:
            tags.append(word)
    return tags


def parse_observation(
    content: str, kind: str, in_list: bool, line: int, warnings: list[str]
) -> Observation | None:
    """The observation a block (its content, kind and whether it is in a list) holds, by Basic
    Memory's rules, or None; warns about lossy shapes."""
    found = _observation_text(content)
    if found is None:
        return None
    text, match = found
    category: str | None = None
    if match is not None:
        category = match.group(1).strip()
        content = match.group(2).strip()
    else:
        empty = _EMPTY_CATEGORY_LINE.match(text) if text.startswith("[]") else None
        content = empty.group(1).strip() if empty else text
    problem = None
    if content[:1] == "@":
        qualifier = scan_qualifier(content)
        content, problem = qualifier.content, qualifier.problem
    context: str | None = None
    if content.endswith(")"):
        start = content.rfind("(")
        if start != -1:
            context = content[start + 1 : -1].strip()
            content = content[:start].strip()
    if not content:
        return None
    tags = _tags_of(content)
    if match is not None and "\n" in text[match.start(2) :]:
        warnings.append(
            f"line {line}: observation [{category}] keeps only its first line; "
            "the wrapped lines after it (and their tags) are dropped"
        )
    if category is None and not in_list:
        warnings.append(
            f"line {line}: this {kind} became an observation without a category "
            "only because it contains a #word"
        )
    if "" in tags:
        warnings.append(f"line {line}: an observation has an empty tag (a lone '#')")
    if problem is not None:
        warnings.append(f"line {line}: {problem}")
    return Observation(category, content, tags or None, context, line)


_CODE_SPANS_KEY = "memtui_code_spans"


def _recording_backtick(state: Any, silent: bool) -> bool:
    """markdown-it's backtick rule, also recording where each code span lies."""
    start = state.pos
    count = len(state.tokens)
    matched = backtick(state, silent)
    if (
        matched
        and not silent
        and len(state.tokens) > count
        and state.tokens[-1].type == "code_inline"
    ):
        state.env[_CODE_SPANS_KEY].append((start, state.pos))
    return matched


_CODE_SPAN_PARSER = MarkdownIt()
_CODE_SPAN_PARSER.inline.ruler.at("backticks", _recording_backtick)


def code_spans(content: str) -> list[tuple[int, int]]:
    """Source ranges of the content that markdown-it reads as inline code."""
    if "`" not in content:
        return []
    spans: list[tuple[int, int]] = []
    _CODE_SPAN_PARSER.inline.parse(content, _CODE_SPAN_PARSER, {_CODE_SPANS_KEY: spans}, [])
    return spans


def _mask(content: str, spans: list[tuple[int, int]], chars: str | None) -> str:
    """The content with code-span characters blanked (only `chars`, or all when None)."""
    if not spans:
        return content
    masked = list(content)
    for start, end in spans:
        for position in range(start, end):
            if chars is None or masked[position] in chars:
                masked[position] = " "
    return "".join(masked)


def _relation_type(content: str) -> str | None:
    """The explicit relation type before the first `[[`: one word, or a quoted phrase."""
    before = content.partition("[[")[0].strip()
    if not before:
        return None
    quote = before[0]
    if quote in "'\"" and before.endswith(quote):
        return before[1:-1].strip() or None
    if any(char.isspace() for char in before):
        return None
    return before


def _project_reference(target: str) -> str:
    """`project::note` written as the path `project/note`."""
    if "::" not in target:
        return target
    project, rest = target.split("::", 1)
    return f"{project}/{rest.lstrip('/')}"


def _single_group(text: str) -> bool:
    """Whether the text is exactly one balanced parenthesised group."""
    if not text.startswith("("):
        return False
    depth = 0
    for position, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return position == len(text) - 1
    return False


def _explicit_relation(masked: str, source: str, line: int) -> Relation | None:
    """`type [[Target]] (context)` on a list item, or None when the line is prose."""
    rel_type = _relation_type(masked)
    if rel_type is None:
        return None
    start = masked.find("[[")
    end = masked.find("]]", start + 2)
    if start == -1 or end == -1:
        return None
    target = _project_reference(source[start + 2 : end].strip())
    if not target:
        return None
    after = masked[end + 2 :].strip()
    context: str | None = None
    if after:
        if not _single_group(after):
            return None
        context = source[end + 2 :].strip()[1:-1].strip() or None
    return Relation(rel_type, target, context, line)


def _escaped(content: str, position: int) -> bool:
    """Whether the character at `position` follows an odd run of backslashes."""
    count = 0
    position -= 1
    while position >= 0 and content[position] == "\\":
        count += 1
        position -= 1
    return count % 2 == 1


def _inline_relations(masked: str, source: str, line: int) -> list[Relation]:
    """Every outermost `[[...]]` as a `links_to` relation."""
    relations: list[Relation] = []
    start = 0
    length = len(masked)
    while True:
        start = masked.find("[[", start)
        if start == -1:
            break
        if _escaped(masked, start):
            start += 2
            continue
        depth = 1
        position = start + 2
        end = -1
        while position < length:
            pair = masked[position : position + 2]
            if pair == "[[" and not _escaped(masked, position):
                depth += 1
                position += 2
            elif pair == "]]" and not _escaped(masked, position):
                depth -= 1
                if depth == 0:
                    end = position
                    break
                position += 2
            else:
                position += 1
        if end == -1:
            break
        target = _project_reference(source[start + 2 : end].strip())
        if target:
            relations.append(Relation("links_to", target, None, line))
        start = end + 2
    return relations


def block_relations(block: InlineBlock, line: int) -> list[Relation]:
    """The wikilink relations of a block: one explicit relation, or every implicit link."""
    source = block.content
    if "[[" not in source:
        return []
    spans = code_spans(source)
    masked = _mask(source, spans, "[]")
    directive_view = _mask(masked, spans, None)
    match = _LINKS_TO_DIRECTIVE.search(directive_view)
    has_directive = match is not None
    without_directive = masked if match is None else masked[: match.start()].rstrip()
    if block.bm_in_list_item and not has_directive:
        explicit = _explicit_relation(masked, source, line)
        if explicit is not None:
            return [explicit]
    return _inline_relations(without_directive, source, line)


def extract(blocks: list[InlineBlock], line_offset: int) -> Extraction:
    """Observations, relations and warnings of the blocks, lines counted from `line_offset`."""
    result = Extraction()
    for block in blocks:
        line = line_offset + block.line + 1
        for href in block.hrefs:
            target = markdown_link_target(href) if href else None
            if target is not None:
                result.relations.append(Relation("links_to", target, None, line))
        if not block.in_blockquote:
            observation = parse_observation(
                block.content, block.kind, block.in_list, line, result.warnings
            )
            if observation is not None:
                result.observations.append(observation)
        result.relations.extend(block_relations(block, line))
    return result
