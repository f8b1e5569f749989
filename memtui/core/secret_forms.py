"""The text the secret scanner reads: invisible characters dropped, JSON escapes decoded, base64
runs decoded; each with a map from its offsets back to the original text's.

A key written `\\u0041KIA...` (as JSON may spell it), split by a zero-width space, or encoded in
base64 is the same key to anyone who reads it, so the scanner reads it the way they would.
"""

from __future__ import annotations

import base64
import binascii
import re
import string
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass

IGNORABLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
"""Unicode's default-ignorable code points (DerivedCoreProperties, Unicode 15.1) as a regex class
body: characters no font draws (zero-width spaces and joiners, soft hyphens, bidi marks, variation
selectors, tag characters), so none of them belongs inside a credential."""
_IGNORED = re.compile(f"[{IGNORABLE}]")
_HIDDEN = re.compile(
    rf"(?P<gone>[{IGNORABLE}]+)"
    r"|\\u(?P<high>[dD][89abAB][0-9a-fA-F]{2})\\u(?P<low>[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|\\u(?P<hex>[0-9a-fA-F]{4})"
    r"|\\(?P<slash>/)"
)
"""What hides a character: ignorable characters, a JSON `\\uXXXX` escape (a surrogate pair as
one character), JSON's escaped slash `\\/`."""

BASE64_MIN = 14
"""The shortest base64 run decoded (unpadded, 10 bytes): as short as the shortest text a pattern
flags (`pwd=` and a six-character value)."""
_ALPHABET = string.ascii_letters + string.digits + "+/-_"
"""Base64's characters, standard and URL-safe."""
_FLAT = bytes(ord("a") if chr(byte) in _ALPHABET else ord(" ") for byte in range(256))
_SEED = b"a" * BASE64_MIN
_BASE64_WRAPPED = re.compile(
    rf"^[ \t]*[A-Za-z0-9+/]{{{BASE64_MIN},}}+[ \t]*"
    r"(?:\r?\n[ \t]*[A-Za-z0-9+/]++={0,2}[ \t]*$)+",
    re.MULTILINE,
)
"""Two or more lines of nothing but base64, as `base64` and MIME wrap it (at 76 columns)."""
_BASE64_PIECE = re.compile(rf"[A-Za-z0-9]{{{BASE64_MIN},}}+={{0,2}}")
"""Letters and digits of a run between its other characters."""


@dataclass(frozen=True)
class Unhidden:
    """A text with its hidden characters revealed, and where each of its characters came from."""

    text: str
    edits: tuple[tuple[int, int, int, int], ...] = ()
    """(start, length) in `text` and (start, length) in the original of each change, in order."""

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The original text's span of the characters `text[start:end]` (end > start)."""
        return self._origin(start)[0], self._origin(end - 1)[1]

    def _origin(self, position: int) -> tuple[int, int]:
        """The original span of the character at `position` of `text`."""
        at = bisect_right(self.edits, (position, float("inf"))) - 1
        if at < 0:
            return position, position + 1
        start, length, source, source_length = self.edits[at]
        if position < start + length:
            return source, source + source_length
        shifted = position + (source + source_length) - (start + length)
        return shifted, shifted + 1


def unhidden(text: str) -> Unhidden:
    """`text` with ignorable characters dropped and JSON escapes decoded, mapped back."""
    if not _has_hidden(text):
        return Unhidden(text)
    parts: list[str] = []
    edits: list[tuple[int, int, int, int]] = []
    position = length = 0
    for match in _HIDDEN.finditer(text):
        kept = text[position : match.start()]
        parts.append(kept)
        length += len(kept)
        shown = _revealed(match)
        parts.append(shown)
        edits.append((length, len(shown), match.start(), match.end() - match.start()))
        length += len(shown)
        position = match.end()
    parts.append(text[position:])
    return Unhidden("".join(parts), tuple(edits))


def _has_hidden(text: str) -> bool:
    """Whether `_HIDDEN` would change anything in `text` (the common case: no)."""
    if "\\u" in text or "\\/" in text:
        return True
    return not text.isascii() and _IGNORED.search(text) is not None


def _revealed(match: re.Match[str]) -> str:
    """The character a `_HIDDEN` match stands for ("" for an ignorable one)."""
    if match.group("gone") is not None:
        return ""
    if match.group("slash") is not None:
        return "/"
    if match.group("high") is not None:
        high, low = int(match.group("high"), 16), int(match.group("low"), 16)
        char = chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    else:
        char = chr(int(match.group("hex"), 16))
    return "" if _IGNORED.match(char) else char


def base64_texts(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, decoded) for each base64 run of `text` that decodes to UTF-8 text.

    A run that does not, but holds `/`, `+`, `-` or `_` (a path, a URL, a name), is tried piece
    by piece too: the letters and digits between those characters. Lines of nothing but base64
    are also decoded joined, so a secret across a wrapped line is read whole.
    """
    wrapped_to = 0
    for start, end in base64_runs(text):
        block = None if start < wrapped_to else _wrapped_block(text, start, end)
        if block is not None:
            wrapped_to = block.end()
            decoded = _decoded("".join(block.group().split()))
            if decoded is not None:
                yield block.start(), block.end(), decoded
        decoded = _decoded(text[start:end])
        if decoded is not None:
            yield start, end, decoded
            continue
        for piece in _BASE64_PIECE.finditer(text, start, end):
            if piece.span() == (start, end):
                break
            decoded = _decoded(piece.group())
            if decoded is not None:
                yield piece.start(), piece.end(), decoded


def base64_runs(text: str) -> list[tuple[int, int]]:
    """(start, end) of each run of `BASE64_MIN` or more base64 characters, with its padding.

    Found on a copy of the text where each base64 character is `a` and any other a space, by
    `bytes.find` (a regular expression trying every position costs several times more).
    """
    flat = text.encode("ascii", "replace").translate(_FLAT)
    found: list[tuple[int, int]] = []
    start = flat.find(_SEED)
    while start >= 0:
        end = flat.find(b" ", start)
        end = len(flat) if end < 0 else end
        padded = end
        while padded < len(text) and padded - end < 2 and text[padded] == "=":
            padded += 1
        found.append((start, padded))
        start = flat.find(_SEED, end)
    return found


def _wrapped_block(text: str, start: int, end: int) -> re.Match[str] | None:
    """The wrapped lines of base64 that begin with the run `text[start:end]`, if it fills its
    line and the next line is base64 too."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    if line_end < 0 or text[line_start:start].strip(" \t") or text[end:line_end].strip(" \t\r"):
        return None
    return _BASE64_WRAPPED.match(text, line_start)


def _decoded(run: str) -> str | None:
    """The UTF-8 text a base64 run encodes (padding optional), or None when it encodes none."""
    body = run.rstrip("=")
    body = body[: len(body) - 1] if len(body) % 4 == 1 else body
    body += "=" * (-len(body) % 4)
    try:
        data = base64.b64decode(body.translate(_URL_SAFE), validate=True)
        return data.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None


_URL_SAFE = str.maketrans("-_", "+/")


_BYTE_ESCAPES = re.compile(r"(?:[~%][0-9A-Fa-f]{2})+")
"""Runs of `~XX` (LangGraph keys as file names) or `%XX` (URL encoding) byte escapes."""


def unescaped_name(path: str) -> str | None:
    """`path` with its runs of `~XX` / `%XX` byte escapes decoded as UTF-8, or None without any:
    a key spelled with an escaped zero-width space is still the key to whoever decodes the name."""
    if not _BYTE_ESCAPES.search(path):
        return None

    def decoded(match: re.Match[str]) -> str:
        run = match.group(0)
        raw = bytes(int(run[at + 1 : at + 3], 16) for at in range(0, len(run), 3))
        return raw.decode("utf-8", "replace")

    return _BYTE_ESCAPES.sub(decoded, path)
