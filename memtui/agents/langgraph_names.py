"""LangGraph namespace labels and item keys as file names, mapped reversibly (`~XX` escapes).

A name keeps every printable character except `/`, `\\`, `%` and `~`; those, characters that
are not printable (controls, bidi overrides, line separators, lone surrogates) and a leading
`.` become `~` plus two upper-case hex digits per UTF-8 byte. The empty key is `~` alone.
Only the canonical spelling of a name decodes, so each file name stands for one key at most.
"""

from __future__ import annotations

import os
import re

from langgraph.store.base import InvalidNamespaceError

from memtui.core.parsing.paths import virtual_of

ESCAPE = "~"
ITEM_SUFFIX = ".json"
MAX_NAME_BYTES = 255
"""The longest file name most file systems (ext4, APFS, NTFS) accept, in bytes."""
_UNSAFE = frozenset("/\\%~")
_ESCAPED_BYTE = re.compile(r"~([0-9A-F]{2})")


class KeyNameError(ValueError):
    """An item key cannot be a file name: its escaped form is longer than 255 bytes."""


def _escape_char(char: str) -> str:
    """`~XX` for each UTF-8 byte of `char` (lone surrogates included)."""
    return "".join(f"{ESCAPE}{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))


def encode_name(text: str) -> str:
    """The file name (without suffix) that stands for a label or key."""
    if not text:
        return ESCAPE
    out = []
    for position, char in enumerate(text):
        unsafe = char in _UNSAFE or not char.isprintable() or (position == 0 and char == ".")
        out.append(_escape_char(char) if unsafe else char)
    return "".join(out)


def decode_name(name: str) -> str | None:
    """The label or key a file name stands for, or None if it is no canonical encoding."""
    if name == ESCAPE:
        return ""
    data = bytearray()
    position = 0
    try:
        for match in _ESCAPED_BYTE.finditer(name):
            data += name[position : match.start()].encode("utf-8", "surrogateescape")
            data.append(int(match.group(1), 16))
            position = match.end()
        data += name[position:].encode("utf-8", "surrogateescape")
        text = data.decode("utf-8", "surrogatepass")
    except UnicodeError:
        return None
    return text if encode_name(text) == name else None


def _fits(name: str) -> bool:
    """Whether `name` is short enough to be a file name."""
    return len(os.fsencode(name)) <= MAX_NAME_BYTES


def check_label(label: object, namespace: tuple[object, ...]) -> str:
    """A namespace label LangGraph accepts and a file system can hold; else
    InvalidNamespaceError."""
    if not isinstance(label, str):
        raise InvalidNamespaceError(
            f"Invalid namespace label {label!r} found in {namespace}: labels must be strings, "
            f"not {type(label).__name__}"
        )
    if not label:
        raise InvalidNamespaceError(f"Namespace labels cannot be empty strings: {namespace}")
    if "." in label or "\x00" in label:
        raise InvalidNamespaceError(
            f"Invalid namespace label {label!r} found in {namespace}: labels cannot contain "
            "periods or NUL characters"
        )
    if not _fits(encode_name(label)):
        raise InvalidNamespaceError(
            f"Namespace label {label[:40]!r}... is too long: as a folder name it would be over "
            f"{MAX_NAME_BYTES} bytes"
        )
    return label


def namespace_virtual(namespace: tuple[str, ...]) -> str:
    """The `/memories/...` folder of a namespace (labels checked)."""
    labels = [encode_name(check_label(label, namespace)) for label in namespace]
    return virtual_of(labels)


def item_virtual(namespace: tuple[str, ...], key: str) -> str:
    """The `/memories/.../<key>.json` file of an item; KeyNameError for a key too long."""
    name = encode_name(key) + ITEM_SUFFIX
    if not _fits(name):
        raise KeyNameError(
            f"Key {key[:40]!r}... is too long: as a file name it would be over "
            f"{MAX_NAME_BYTES} bytes"
        )
    return f"{namespace_virtual(namespace)}/{name}"


def label_of_folder(name: str) -> str | None:
    """The namespace label a folder name stands for, or None if it stands for none."""
    label = decode_name(name)
    if not label or "." in label or "\x00" in label:
        return None
    return label


def key_of_file(name: str) -> str | None:
    """The item key a file name (`<key>.json`) stands for, or None if it is not an item file."""
    if not name.endswith(ITEM_SUFFIX):
        return None
    return decode_name(name[: -len(ITEM_SUFFIX)])
