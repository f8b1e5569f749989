"""Printing to a terminal or a pipe: visible control characters, valid JSON, quiet closed pipes.

`json.dumps(..., ensure_ascii=False)` keeps DEL, C1 controls and lone surrogates raw; a file name
byte that is not UTF-8 (0xff) is such a surrogate (U+DCFF, Python's surrogateescape), which would
make the output invalid UTF-8. `json_safe` writes them as `\\uXXXX` escapes instead: the values
are unchanged, and `os.fsencode` of a parsed path gives the name's original bytes back.
"""

from __future__ import annotations

import re
from typing import Any

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""Control characters, line separators, bidirectional overrides and lone surrogates (bad name bytes)."""
_JSON_UNSAFE = re.compile(
    "[\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
"""What `json.dumps(..., ensure_ascii=False)` leaves raw but a terminal, a UTF-8 reader or a line
splitter must not get (U+0085, U+2028 and U+2029 end a line for `str.splitlines`)."""
_DEL_SYMBOL = "\u2421"
_CONTROL_PICTURES = 0x2400
"""U+2400 + code is the visible symbol of a C0 control character (ESC 0x1b -> U+241B ␛)."""


def _symbol(char: str) -> str:
    """The visible stand-in of one unsafe character: ␛ for ESC, \\x9b for CSI, \\xff for a bad byte."""
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


def visible(text: str) -> str:
    """Text safe to print on a terminal: control characters and undecodable bytes made visible."""
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(lambda match: _symbol(match.group()), text)


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


def json_safe(line: str) -> str:
    """JSON text with DEL, C1 controls, line separators, bidi overrides and lone surrogates as
    `\\uXXXX` escapes."""
    if _JSON_UNSAFE.search(line) is None:
        return line
    return _JSON_UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", line)


def console(**options: Any) -> Any:
    """A Rich `Console` that raises `BrokenPipeError` when the reader has gone (Rich exits with 1)."""
    from rich.console import Console

    class _PipeConsole(Console):
        """Leaves a closed pipe to `memtui.cli.main`, which ends with the SIGPIPE status."""

        def on_broken_pipe(self) -> None:
            """Stop printing and let the caller end the command."""
            self.quiet = True
            raise BrokenPipeError

    return _PipeConsole(**options)
