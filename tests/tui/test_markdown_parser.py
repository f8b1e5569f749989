"""The preview's Markdown parser keeps raw HTML/XML as literal text and every text display-safe."""

from __future__ import annotations

from markdown_it.token import Token

from memtui.tui.markdown_parser import preview_parser


def inline_texts(markdown: str) -> list[str]:
    """The text each paragraph, heading or item shows: its inline children, breaks as newlines."""
    shown: list[str] = []
    for token in preview_parser().parse(markdown):
        if token.type == "inline":
            shown.append("".join(child_text(child) for child in token.children or []))
        elif token.type in ("fence", "code_block"):
            shown.append(token.content)
    return shown


def child_text(child: Token) -> str:
    """What one inline token shows."""
    if child.type in ("hardbreak", "softbreak"):
        return "\n"
    return child.content


def test_an_html_block_shows_every_line_as_written() -> None:
    """`<important>` blocks are not dropped: each line, tags included, on its own line."""
    markdown = (
        "# Note\n\n<important>\nAlways run the tests\nNever force-push\n</important>\n\nAfter.\n"
    )
    assert inline_texts(markdown) == [
        "Note",
        "<important>\nAlways run the tests\nNever force-push\n</important>",
        "After.",
    ]


def test_inline_tags_stay_as_text() -> None:
    """Inline HTML is shown as the text it is."""
    assert inline_texts("Use <b>bold</b> and <user_pref>x</user_pref> here.\n") == [
        "Use <b>bold</b> and <user_pref>x</user_pref> here."
    ]


def test_character_references_cannot_produce_bidi_or_control_characters() -> None:
    """`&#x202e;` and `&rlm;` are decoded by the parser, then made visible."""
    assert inline_texts("a &#x202e;b &rlm; c &#27; d\n") == ["a \\u202eb \\u200f c � d"]


def test_escape_sequences_in_text_code_and_fence_info_are_symbols() -> None:
    """ESC and BEL become ␛ and ␇ in paragraphs, inline code and code blocks."""
    markdown = "x \x1b]0;t\x07 `c\x1b[2J`\n\n```py\x1b]0;t\x07\ncode\x1b]52;c;YQ==\x07\n```\n"
    tokens = preview_parser().parse(markdown)
    assert inline_texts(markdown) == ["x ␛]0;t␇ c␛[2J", "code␛]52;c;YQ==␇\n"]
    fence = next(token for token in tokens if token.type == "fence")
    assert fence.info == "py␛]0;t␇"


def test_link_targets_and_image_text_are_display_safe() -> None:
    """Attributes a renderer may show (alt, title, href) hold no control character."""
    tokens = preview_parser().parse('[x](http://a/\x9b "t\x1b") ![alt\x1b](i.png)\n')
    children = next(token for token in tokens if token.type == "inline").children or []
    values = [str(v) for child in children for v in child.attrs.values()]
    assert values and all("\x1b" not in v and "\x9b" not in v for v in values)
