"""The path a watchfiles error names when it cannot decode one: a file name that is not UTF-8.

watchfiles reports such a change as `WatchfilesRustInternalError('Unable to decode path "..." to
string')` instead of an event, the path written in Rust's Debug format: valid text as it is
(quotes, backslashes and controls escaped, `\\u{200b}` for invisible characters), each byte that
is not UTF-8 as `\\xFF`. `undecodable_path` reads it back as Python names it (`os.fsdecode`).
"""

from __future__ import annotations

import os
import re

_MESSAGE = re.compile(r'Unable to decode path "(?P<path>.*)" to string', re.DOTALL)
_ESCAPE = re.compile(r"\\(?:x(?P<byte>[0-9A-Fa-f]{2})|u\{(?P<code>[0-9A-Fa-f]{1,6})\}|(?P<char>.))")
_CHARS = {"0": "\x00", "t": "\t", "r": "\r", "n": "\n", "\\": "\\", '"': '"', "'": "'"}


def undecodable_path(message: str) -> str | None:
    """The absolute path a watchfiles decode error names (bytes that are not UTF-8 as lone
    surrogates), or None if `message` is not such an error or cannot be read."""
    match = _MESSAGE.fullmatch(message)
    if match is None:
        return None
    text = match.group("path")
    data = bytearray()
    position = 0
    try:
        for escape in _ESCAPE.finditer(text):
            data += text[position : escape.start()].encode("utf-8")
            data += _unescaped(escape)
            position = escape.end()
    except ValueError:
        return None
    data += text[position:].encode("utf-8")
    return None if b"\x00" in data else os.fsdecode(bytes(data))


def _unescaped(escape: re.Match[str]) -> bytes:
    """The bytes one escape stands for; ValueError if it stands for none."""
    if escape.group("byte") is not None:
        return bytes([int(escape.group("byte"), 16)])
    if escape.group("code") is not None:
        return chr(int(escape.group("code"), 16)).encode("utf-8")
    char = _CHARS.get(escape.group("char"))
    if char is None:
        raise ValueError(escape.group())
    return char.encode("utf-8")
