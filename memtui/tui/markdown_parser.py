"""The preview's Markdown parser: raw HTML/XML shown as literal text, every text display-safe.

Agents write XML-style tags into their notes (`<important>...</important>`). A Markdown renderer
drops raw HTML, so those lines would vanish; here an HTML block becomes a paragraph of its
literal lines and inline HTML stays as text. Every text the renderer shows is made display-safe
after parsing, since character references (`&#x202e;`) only become characters then.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from memtui.core.display import visible, visible_text

SHOWN_ATTRIBUTES = ("alt", "title", "href", "src")


def preview_parser() -> MarkdownIt:
    """A GitHub-flavoured Markdown parser whose HTML is literal text and whose text is safe."""
    parser = MarkdownIt("gfm-like")
    parser.core.ruler.push("memtui_literal_safe", literal_and_safe)
    return parser


def literal_and_safe(state: StateCore) -> None:
    """Turn HTML into literal text and make every shown text display-safe (a core rule)."""
    tokens: list[Token] = []
    for token in state.tokens:
        if token.type == "html_block":
            tokens.extend(literal_paragraph(token))
            continue
        if token.type in ("fence", "code_block"):
            token.content = visible_text(token.content)
            token.info = visible(token.info)
        if token.children:
            token.children = [safe_inline(child) for child in token.children]
        tokens.append(token)
    state.tokens = tokens


def literal_paragraph(block: Token) -> list[Token]:
    """An HTML block as a paragraph of its lines, as written, each on its own line."""
    children: list[Token] = []
    for number, line in enumerate(block.content.rstrip("\n").split("\n")):
        if number:
            children.append(Token("hardbreak", "br", 0, level=block.level + 1))
        children.append(Token("text", "", 0, content=visible_text(line), level=block.level + 1))
    inline = Token(
        "inline", "", 0, content=block.content, map=block.map, level=block.level + 1, block=True
    )
    inline.children = children
    return [
        Token("paragraph_open", "p", 1, map=block.map, level=block.level, block=True),
        inline,
        Token("paragraph_close", "p", -1, level=block.level, block=True),
    ]


def safe_inline(child: Token) -> Token:
    """An inline token with its text and shown attributes made safe; inline HTML as text."""
    if child.type == "html_inline":
        child = Token("text", "", 0, content=child.content, level=child.level)
    child.content = visible_text(child.content)
    for name in SHOWN_ATTRIBUTES:
        value = child.attrs.get(name)
        if isinstance(value, str):
            child.attrs[name] = visible(value)
    if child.children:
        child.children = [safe_inline(grandchild) for grandchild in child.children]
    return child
