"""The `source` block of a `schema/document-extraction` note, validated as Basic Memory
0.24.1 does."""

from __future__ import annotations

import re
import uuid
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

DOCUMENT_EXTRACTION_SCHEMA = "schema/document-extraction"
"""The frontmatter `schema` value that makes a note carry a `derived_from` relation."""

_FIELDS = frozenset(
    {
        "kind",
        "media_type",
        "entity_external_id",
        "file_path",
        "checksum",
        "size_bytes",
        "storage_version_id",
        "storage_etag",
    }
)
_REQUIRED = ("media_type", "entity_external_id", "file_path", "checksum", "size_bytes")
_MEDIA_TYPE = re.compile(r"[a-z0-9][a-z0-9!#$&^_.+\-]*/[a-z0-9][a-z0-9!#$&^_.+\-]*")
_CHECKSUM = re.compile(r"sha256:[0-9a-f]{64}")
_HEX = "[0-9a-fA-F]"
_SIMPLE_UUID = re.compile(f"{_HEX}{{32}}")
_HYPHENATED_UUID = re.compile(f"{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}")
_UNICODE_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
"""Characters with the Unicode White_Space property (what pydantic strips; `str.strip`
takes more)."""
_WINDOWS_INVALID_CHARS = frozenset('<>:"|?*')
_WINDOWS_RESERVED_NAMES = frozenset(
    {"CON", "PRN", "AUX", "NUL"}
    | {f"COM{n}" for n in range(1, 10)}
    | {f"LPT{n}" for n in range(1, 10)}
)


class InvalidSource(ValueError):
    """The `source` block is not one Basic Memory accepts."""


def _uuid_text(value: str) -> str:
    """The canonical form of a UUID written the ways pydantic accepts (simple, hyphenated, braced,
    URN)."""
    if len(value) == 38 and value[0] == "{" and value[-1] == "}":
        value = value[1:-1]
    elif len(value) == 45 and value.startswith("urn:uuid:"):
        value = value[9:]
    elif len(value) == 32 and _SIMPLE_UUID.fullmatch(value):
        return str(uuid.UUID(hex=value))
    if len(value) != 36 or not _HYPHENATED_UUID.fullmatch(value):
        raise InvalidSource("entity_external_id is not a valid UUID")
    return value.lower()


def _uuid(value: Any) -> str:
    """`entity_external_id` as the canonical UUID text pydantic's `UUID` field gives."""
    if isinstance(value, bytes):
        if len(value) == 16:
            return _uuid_text(value.hex())
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidSource("entity_external_id is not a valid UUID") from None
    if not isinstance(value, str):
        raise InvalidSource("entity_external_id is not a string")
    return _uuid_text(value)


def _check_path(value: Any) -> None:
    """`file_path`: a canonical POSIX path inside the project, valid on Windows too."""
    if not isinstance(value, str) or not value:
        raise InvalidSource("file_path is not a non-empty string")
    if "\\" in value or "\x00" in value or value != value.strip():
        raise InvalidSource("file_path is not a canonical project-relative path")
    path = PurePosixPath(value)
    windows_path = PureWindowsPath(value)
    if (
        not path.parts
        or path.is_absolute()
        or windows_path.drive
        or windows_path.is_absolute()
        or ".." in path.parts
        or path.as_posix() != value
        or value.endswith("/")
    ):
        raise InvalidSource("file_path is not a canonical project-relative path")
    for component in path.parts:
        if (
            _WINDOWS_INVALID_CHARS.intersection(component)
            or component[-1] in {".", " "}
            or component.split(".", 1)[0].upper() in _WINDOWS_RESERVED_NAMES
        ):
            raise InvalidSource(f"file_path component {component!r} is not valid on Windows")


def _check_fields(source: dict[Any, Any]) -> None:
    """Raise `InvalidSource` unless every field of the block has the type and form required."""
    extra = [key for key in source if key not in _FIELDS or not isinstance(key, str)]
    if extra:
        raise InvalidSource(f"unexpected field {extra[0]!r}")
    missing = [name for name in _REQUIRED if name not in source]
    if missing:
        raise InvalidSource(f"{missing[0]} is missing")
    if "kind" in source and not (isinstance(source["kind"], str) and source["kind"] == "file"):
        raise InvalidSource("kind is not 'file'")
    media_type = source["media_type"]
    if not isinstance(media_type, str) or not _MEDIA_TYPE.fullmatch(media_type):
        raise InvalidSource("media_type is not a media type such as application/pdf")
    checksum = source["checksum"]
    if not isinstance(checksum, str) or not _CHECKSUM.fullmatch(checksum):
        raise InvalidSource("checksum is not sha256: and 64 lowercase hex digits")
    size = source["size_bytes"]
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise InvalidSource("size_bytes is not a whole number of at least 0")
    for name in ("storage_version_id", "storage_etag"):
        value = source.get(name)
        if value is not None and not (isinstance(value, str) and value.strip(_UNICODE_WHITESPACE)):
            raise InvalidSource(f"{name} is not a non-empty string")
    _check_path(source["file_path"])


def source_entity_id(source: Any) -> str:
    """The canonical `entity_external_id` of a valid `source` block; `InvalidSource` otherwise."""
    if not isinstance(source, dict):
        raise InvalidSource("source is missing" if source is None else "source is not a mapping")
    _check_fields(source)
    return _uuid(source["entity_external_id"])
