"""Text in the history database as the bytes it stands for, so names that are not UTF-8 round-trip.

A file name is bytes. Python reads one that is not UTF-8 with a lone surrogate for each bad byte
(`os.fsdecode`, surrogateescape), and `sqlite3` refuses to bind such a string. The history keeps
the name's own bytes in its TEXT columns instead: `param` turns a string into those bytes, bound
as `TEXT` (`CAST(? AS TEXT)`, which SQLite stores byte for byte without checking them), and
`read_text`, every history connection's text factory, turns them back into the same string.

Why this form rather than a BLOB column or an escape: valid UTF-8 is stored exactly as before (an
existing history needs no migration and reads the same); SQLite compares TEXT bytewise, so a name
and a folder prefix of it (`path > 'a/' AND path < 'a0'`) keep matching whatever bytes they hold;
and the stored value is the name itself, so no escape sequence can ever collide with a real name
(a file name can hold any byte but NUL and `/`, so every escape character is also a possible name).
"""

from __future__ import annotations

import functools

from memtui.core.parsing.command_types import NO_BYTE

TEXT = "CAST(? AS TEXT)"
"""The SQL placeholder of a value given by `param`: stored and compared as TEXT."""


def storable(text: str) -> str:
    """`text` with every lone surrogate that stands for no byte folded to U+FFFD (an agent's
    JSON text can hold them); one that stands for a name's byte is kept."""
    return NO_BYTE.sub("\ufffd", text)


def param(value: str | None) -> str | bytes | None:
    """A string as `TEXT` binds it: itself if it is UTF-8, else its bytes (surrogateescape)."""
    if value is None or value.isascii():
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-8", "surrogateescape")
    return value


def params(values: list[str]) -> list[str | bytes | None]:
    """`param` of each value."""
    return [param(value) for value in values]


def marks(count: int) -> str:
    """`count` `TEXT` placeholders, comma-separated, for an `IN (...)` list."""
    return ", ".join(TEXT for _ in range(count))


read_text = functools.partial(bytes.decode, encoding="utf-8", errors="surrogateescape")
"""A TEXT value as Python reads it: UTF-8, a byte that is not UTF-8 as a lone surrogate (a
partial of `bytes.decode`, so the text factory of every history connection runs no Python per
value)."""


def folded(value: bytes | str | None) -> str | None:
    """Lowercase text for matching a word in SQL, a byte that is not UTF-8 spelled `\\xff`
    (the same in a stored value, read as bytes, and in the word asked for)."""
    if value is None:
        return None
    data = value if isinstance(value, bytes) else value.encode("utf-8", "surrogateescape")
    return data.decode("utf-8", "backslashreplace").lower()
