"""Display-safe text: the one function that makes untrusted strings harmless on a terminal.

Note text, file names, titles, actor names and history records come from agents and other
processes. Printed raw, an `ESC ] 0;...BEL` retitles the terminal and `ESC ] 52;c;...` writes the
clipboard. Every widget and every CLI line shows such strings through `visible` (one line) or
`visible_text` (multi-line text whose line breaks and tabs are kept); a view that must keep each
character in its column (an editor) uses `visible_cells`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
"""Control characters, line separators, bidirectional overrides and lone surrogates (bad name
bytes)."""
_UNSAFE_IN_TEXT = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
"""As `_UNSAFE`, but tab and newline are kept (a CR is shown: it moves the cursor back)."""
_DEL_SYMBOL = "\u2421"
_ONE_CELL_SYMBOL = "\ufffd"
"""The one-character stand-in `visible_cells` shows for a C1 control, a bidi mark or a bad byte."""
_CONTROL_PICTURES = 0x2400
"""U+2400 + code is the visible symbol of a C0 control character (ESC 0x1b -> U+241B ␛)."""


def _symbol(char: str) -> str:
    """The visible stand-in of one unsafe character: ␛ for ESC, \\x9b for CSI, \\xff for a
    bad byte."""
    code = ord(char)
    if code < 0x20:
        return chr(_CONTROL_PICTURES + code)
    if code == 0x7F:
        return _DEL_SYMBOL
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def has_unsafe(text: str) -> bool:
    """True if `text` holds anything `visible` would replace (controls, bidi, bad bytes)."""
    return _UNSAFE.search(text) is not None


def visible(text: str) -> str:
    """One line safe to show on a terminal: every control character and bad byte made visible."""
    if _UNSAFE.search(text) is None:
        return text
    return text.translate(_tables()[0])


def visible_text(text: str) -> str:
    """Multi-line text safe to show: as `visible`, but newlines and tabs are kept as they are."""
    if _UNSAFE_IN_TEXT.search(text) is None:
        return text
    return text.translate(_tables()[1])


def visible_spans(
    text: str, spans: tuple[tuple[int, int], ...] | list[tuple[int, int]]
) -> tuple[str, list[tuple[int, int]]]:
    """`visible(text)` with character spans moved to the same characters in the result."""
    if _UNSAFE.search(text) is None:
        return text, list(spans)
    starts: list[int] = []
    parts: list[str] = []
    length = 0
    for char in text:
        starts.append(length)
        shown = _symbol(char) if _UNSAFE.match(char) else char
        parts.append(shown)
        length += len(shown)
    starts.append(length)
    return "".join(parts), [(starts[start], starts[end]) for start, end in spans]


def _one_symbol(char: str) -> str:
    """The one-character stand-in of an unsafe character: ␛ for ESC, ␡ for DEL, else �."""
    symbol = _symbol(char)
    return symbol if len(symbol) == 1 else _ONE_CELL_SYMBOL


def visible_cells(text: str) -> str:
    """As `visible_text`, but each unsafe character becomes exactly one character (C1 controls,
    bidi marks and bad bytes all as U+FFFD), so offsets into `text` still hold (an editor's
    cursor, highlight spans)."""
    if _UNSAFE_IN_TEXT.search(text) is None:
        return text
    return text.translate(_tables()[2])


def _table(pattern: re.Pattern[str], symbol: Callable[[str], str]) -> dict[int, str]:
    """A `str.translate` table from every character `pattern` matches to its symbol (translating
    a MiB of control characters costs one string, not one object per character)."""
    unsafe = (chr(code) for first, last in _UNSAFE_RANGES for code in range(first, last + 1))
    return {ord(char): symbol(char) for char in unsafe if pattern.fullmatch(char)}


_UNSAFE_RANGES = (
    (0x00, 0x1F),
    (0x7F, 0x9F),
    (0x200E, 0x200F),
    (0x2028, 0x202E),
    (0x2066, 0x2069),
    (0xD800, 0xDFFF),
)
"""Every character `_UNSAFE` can match (the tables keep those it does)."""


@functools.cache
def _tables() -> tuple[dict[int, str], dict[int, str], dict[int, str]]:
    """The translate tables of `visible`, `visible_text` and `visible_cells`, built on first
    use (about 6,400 characters: a cost no start-up should pay before a string needs it)."""
    return (
        _table(_UNSAFE, _symbol),
        _table(_UNSAFE_IN_TEXT, _symbol),
        _table(_UNSAFE_IN_TEXT, _one_symbol),
    )
