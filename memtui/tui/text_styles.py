"""Styles of text built in Python, named by role; colours are theme variables, resolved
when drawn."""

from __future__ import annotations

from functools import cache

from textual.content import Content

from memtui.core.display import visible, visible_text

HEADING = "bold"
SECTION = "bold underline"
MUTED = "dim"
"""Textual draws dim text as a blend of the theme's foreground and background."""
ASIDE = "italic"
ERROR = "$text-error"
ERROR_STRONG = "bold $text-error"
TAG = "bold $text-accent"
CATEGORY = "bold $text-success"
MATCH = "bold reverse $text-accent"
LINK = "underline"
UNRESOLVED = "italic $text-warning"
SELECTED = "bold $text-warning"
KIND = "$text-secondary"
DIFF_FILE = "bold"
DIFF_HUNK = "$text-secondary"
DIFF_ADDED = "$text-success"
DIFF_REMOVED = "$text-error"

ACTORS: dict[str, str] = {
    "agent": "bold $text-primary",
    "human": "bold $text-success",
    "external": "bold $text-warning",
}
"""Actor kind -> style, the same wherever an actor is shown."""

BADGES: dict[str, tuple[str, str]] = {
    "stale": ("◌", MUTED),
    "agent": ("●", ACTORS["agent"]),
    "secret": ("⚑", ERROR_STRONG),
    "warning": ("!", "bold $text-warning"),
    "review": ("◐", "$text-accent"),
    "read": ("▣", "$text-accent"),
    "none": ("⊘", "bold $text-accent"),
}
"""Tree badge name -> (glyph, style) drawn after a note's label."""

Part = str | Content | tuple[str, str]

SYNTAX: dict[str, str] = {
    "Comment": f"{MUTED} {ASIDE}",
    "Keyword": "bold $text-accent",
    "Name.Tag": "$text-accent",
    "Name.Attribute": "$text-secondary",
    "Name.Builtin": "$text-primary",
    "Name.Function": "$text-primary",
    "Name.Class": "bold $text-primary",
    "Name.Entity": "$text-warning",
    "Literal.String": "$text-success",
    "Literal.Number": "$text-warning",
    "Literal": "$text-warning",
    "Operator.Word": "bold $text-accent",
    "Generic.Heading": HEADING,
    "Generic.Subheading": HEADING,
    "Generic.Inserted": DIFF_ADDED,
    "Generic.Deleted": DIFF_REMOVED,
    "Generic.Emph": ASIDE,
    "Generic.Strong": HEADING,
}
"""Syntax token kind (Pygments' names, the most specific that is listed wins) -> style."""


def actor_style(actor: str) -> str:
    """The style of an actor string such as `agent:claude` (by its kind)."""
    return ACTORS.get(actor.split(":", 1)[0], "")


@cache
def syntax_style(token_type: tuple[str, ...]) -> str:
    """The style of a syntax token type (`Token.Name.Tag` is `("Name", "Tag")`), or ""."""
    for depth in range(len(token_type), 0, -1):
        style = SYNTAX.get(".".join(token_type[:depth]))
        if style is not None:
            return style
    return ""


def diff_line(line: str) -> str:
    """The style of one line of a unified diff."""
    from memtui.notes.merge import diff_line_kind

    return _DIFF_STYLES[diff_line_kind(line)]


_DIFF_STYLES = {
    "file": DIFF_FILE,
    "hunk": DIFF_HUNK,
    "added": DIFF_ADDED,
    "removed": DIFF_REMOVED,
    "note": "",
    "": "",
}


def plain(text: str) -> Content:
    """Untrusted text (a path, a title, an actor) as one display-safe line of Content."""
    return Content(visible(text))


def plain_text(text: str, style: str = "") -> Content:
    """Untrusted multi-line text as display-safe Content (line breaks and tabs kept)."""
    return Content.styled(visible_text(text), style) if style else Content(visible_text(text))


def assemble(*parts: Part) -> Content:
    """`Content.assemble` of parts whose strings are made display-safe first (control characters
    shown as symbols, line breaks and tabs kept), so untrusted text can be passed as it is."""
    return Content.assemble(*(_safe(part) for part in parts))


def _safe(part: Part) -> Part:
    """A part with its text made display-safe (Content is taken as already safe)."""
    if isinstance(part, str):
        return visible_text(part)
    if isinstance(part, tuple):
        return (visible_text(part[0]), part[1])
    return part
