"""Printing to a terminal or a pipe: visible control characters, valid JSON, quiet closed pipes.

`json.dumps(..., ensure_ascii=False)` keeps DEL, C1 controls and lone surrogates raw; a file name
byte that is not UTF-8 (0xff) is such a surrogate (U+DCFF, Python's surrogateescape), which would
make the output invalid UTF-8. `json_safe` writes them as `\\uXXXX` escapes instead: the values
are unchanged, and `os.fsencode` of a parsed path gives the name's original bytes back.
"""

from __future__ import annotations

import re
from typing import Any

from memtui.core.display import visible, visible_spans, visible_text

_JSON_UNSAFE = re.compile(
    "[\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
"""What `json.dumps(..., ensure_ascii=False)` leaves raw but a terminal, a UTF-8 reader or a line
splitter must not get (U+0085, U+2028 and U+2029 end a line for `str.splitlines`)."""

__all__ = ["console", "json_safe", "visible", "visible_spans", "visible_text"]


def json_safe(line: str) -> str:
    """JSON text with DEL, C1 controls, line separators, bidi overrides and lone surrogates as
    `\\uXXXX` escapes."""
    if _JSON_UNSAFE.search(line) is None:
        return line
    return _JSON_UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", line)


def console(**options: Any) -> Any:
    """A Rich `Console` that raises `BrokenPipeError` when the reader has gone (Rich exits
    with 1)."""
    from rich.console import Console

    class _PipeConsole(Console):
        """Leaves a closed pipe to `memtui.cli.main`, which ends with the SIGPIPE status."""

        def on_broken_pipe(self) -> None:
            """Stop printing and let the caller end the command."""
            self.quiet = True
            raise BrokenPipeError

    return _PipeConsole(**options)
