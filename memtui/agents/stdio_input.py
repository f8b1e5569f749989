"""Standard input for the MCP stdio server that reads a lone UTF-16 surrogate as U+FFFD.

The MCP SDK parses each stdin line with pydantic's JSON parser, which refuses a lone surrogate
escape such as `\\ud800`; the request is then dropped unanswered and the client waits for ever.
Invalid UTF-8 bytes already become U+FFFD on that stdin, so lone surrogates do the same here.
"""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO

import pydantic_core

from memtui.core.parsing.command_types import well_formed

SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _folded(value: Any) -> Any:
    """`value` with every lone surrogate in its strings (keys too) replaced by U+FFFD."""
    if isinstance(value, str):
        return well_formed(value)
    if isinstance(value, list):
        return [_folded(item) for item in value]
    if isinstance(value, dict):
        return {_folded(key): _folded(item) for key, item in value.items()}
    return value


def fold_line(line: bytes) -> bytes:
    """One JSON line, rewritten with U+FFFD for lone surrogates only if the SDK would refuse it."""
    if not SURROGATE_ESCAPE.search(line):
        return line
    try:
        pydantic_core.from_json(line)
        return line
    except ValueError:
        pass
    try:
        message = json.loads(line)
    except ValueError:
        return line
    ending = b"\n" if line.endswith(b"\n") else b""
    return json.dumps(_folded(message), ensure_ascii=False).encode("utf-8") + ending


class FoldingReader(io.RawIOBase):
    """A binary stream of `source`'s lines, each passed through `fold_line`."""

    def __init__(self, source: BinaryIO) -> None:
        """Read lines from `source`, none of them taken yet."""
        super().__init__()
        self._source = source
        self._pending = b""

    def readable(self) -> bool:
        """Always readable."""
        return True

    def readinto(self, buffer: Any) -> int:
        """Copy what is left of the current line into `buffer`, reading a new line when none is."""
        if not self._pending:
            self._pending = fold_line(self._source.readline())
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size


@contextmanager
def surrogate_tolerant_stdin() -> Iterator[None]:
    """Replace `sys.stdin` with a FoldingReader over it for the duration of the block."""
    original = sys.stdin
    reader = io.BufferedReader(FoldingReader(original.buffer))
    sys.stdin = io.TextIOWrapper(reader, encoding="utf-8", errors="replace")
    try:
        yield
    finally:
        sys.stdin = original
