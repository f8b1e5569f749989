"""Styles of text built in Python, named by role; colours are theme variables, resolved when drawn."""

from __future__ import annotations

from textual.content import Content

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
}
"""Tree badge name -> (glyph, style) drawn after a note's label."""

Part = str | Content | tuple[str, str]

_CONTROL_CODES = "\a\b\v\f\r"
"""The characters `Content` drops from its text after placing the styles."""
_DROP = str.maketrans("", "", _CONTROL_CODES)
_BLANK = str.maketrans(_CONTROL_CODES, " " * len(_CONTROL_CODES))


def actor_style(actor: str) -> str:
    """The style of an actor string such as `agent:claude` (by its kind)."""
    return ACTORS.get(actor.split(":", 1)[0], "")


def diff_line(line: str) -> str:
    """The style of one line of a unified diff."""
    if line.startswith(("+++", "---")):
        return DIFF_FILE
    if line.startswith("@@"):
        return DIFF_HUNK
    if line.startswith("+"):
        return DIFF_ADDED
    if line.startswith("-"):
        return DIFF_REMOVED
    return ""


def blank_controls(text: str) -> str:
    """`text` with the control codes `Content` drops turned into spaces, so offsets still hold."""
    return text.translate(_BLANK)


def assemble(*parts: Part) -> Content:
    """`Content.assemble`, dropping control codes first so each style stays on its text."""
    return Content.assemble(*(_clean(part) for part in parts))


def _clean(part: Part) -> Part:
    """A part without the control codes `Content` would drop."""
    if isinstance(part, str):
        return part.translate(_DROP)
    if isinstance(part, tuple):
        return (part[0].translate(_DROP), part[1])
    return part
