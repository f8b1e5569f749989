"""A memory-tool input parsed: its fields validated and coerced, its paths resolved (spec 4, 6,
6b; rules M1-M4), touching nothing on disk.

`parse_command` checks in the spec's order and answers the first problem as the tool would;
applying the parsed command is `applying.dispatch`'s.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memtui.core.parsing.command_types import COMMANDS, CommandOutcome, ParsedCommand, error, shown
from memtui.core.parsing.paths import PathRefusal, check_path

# Field kinds: "str" required string, "opt_str" string defaulting to "", "int" required integer,
# "range" optional list of integers (kept as sent when it is not one).
_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "view": (("path", "str"), ("view_range", "range")),
    "create": (("path", "str"), ("file_text", "str")),
    "str_replace": (("path", "str"), ("old_str", "str"), ("new_str", "opt_str")),
    "insert": (("path", "str"), ("insert_line", "int"), ("insert_text", "str")),
    "delete": (("path", "str"),),
    "rename": (("old_path", "str"), ("new_path", "str")),
}
_PATH_FIELDS: dict[str, tuple[str, ...]] = {
    "rename": ("old_path", "new_path"),
}
_KIND_NAMES = {
    "str": "a string",
    "opt_str": "a string",
    "int": "an integer",
    "range": "a list of two integers",
}
# Unicode White_Space, the set pydantic strips around numeric strings.
_WHITE_SPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
_INT_TEXT = re.compile(r"[+-]?[0-9](?:_?[0-9])*(?:\.0+)?")
_INT64_LIMIT = 2**63


# Input validation (rule M4) with pydantic-style lax coercion.


class _Invalid(Exception):
    """A field failed validation; carries the kind of value it needed."""


def _coerce_str(value: object) -> str:
    """Accept a str (or UTF-8 bytes, as pydantic's lax mode does)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes | bytearray):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _Invalid from exc
    raise _Invalid


def _coerce_int(value: object) -> int:
    """Accept ints, bools, integral floats and integer strings like pydantic's lax mode."""
    if isinstance(value, bool | int):
        return int(value)
    if isinstance(value, float):
        if value.is_integer() and -_INT64_LIMIT < value < _INT64_LIMIT:
            return int(value)
        raise _Invalid
    if isinstance(value, bytes | bytearray):
        try:
            value = bytes(value).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _Invalid from exc
    if isinstance(value, str):
        text = value.strip(_WHITE_SPACE)
        if _INT_TEXT.fullmatch(text):
            return int(text.split(".", 1)[0])
    raise _Invalid


def _coerce_range(value: object) -> list[int] | None:
    """Accept None or a list (tuple, set) of integer-coercible items."""
    if value is None:
        return None
    if isinstance(value, list | tuple | set | frozenset):
        return [_coerce_int(item) for item in value]
    raise _Invalid


def _validate_fields(command: str, tool_input: Mapping[Any, Any]) -> dict[str, Any] | str:
    """Coerce the command's fields in order; return them, or the first problem's message."""
    args: dict[str, Any] = {}
    for name, kind in _FIELDS[command]:
        value = tool_input.get(name)
        if value is None:
            if kind == "str" or kind == "int":
                return f"Invalid input for {command}: `{name}` is required"
            args[name] = "" if kind == "opt_str" else None
            continue
        try:
            if kind in ("str", "opt_str"):
                args[name] = _coerce_str(value)
            elif kind == "int":
                args[name] = _coerce_int(value)
            else:
                args[name] = _coerce_range(value)
        except _Invalid:
            if kind == "range":
                # Kept as sent: a directory ignores it and `_select_lines` judges it for a file.
                args[name] = value
                continue
            return f"Invalid input for {command}: `{name}` must be {_KIND_NAMES[kind]}"
    return args


def parse_command(
    root: Path, tool_input: object, *, any_name: bool = False
) -> ParsedCommand | CommandOutcome:
    """Validate raw tool input and its paths in the spec's order, touching nothing on disk
    (`any_name`: a person's paths, which may name bytes that are not UTF-8; see `check_path`)."""
    command = tool_input.get("command") if isinstance(tool_input, Mapping) else None
    if (
        not isinstance(tool_input, Mapping)
        or not isinstance(command, str)
        or command not in _FIELDS
    ):
        return error(f"Unknown command: {shown(command)}. Expected one of: {', '.join(COMMANDS)}")
    validated = _validate_fields(command, tool_input)
    if isinstance(validated, str):
        return error(validated)
    raw_paths = tuple(validated[name] for name in _PATH_FIELDS.get(command, ("path",)))
    parts: list[tuple[str, ...]] = []
    virtual: list[str] = []
    for raw in raw_paths:
        checked = check_path(root, raw, any_name=any_name)
        if isinstance(checked, PathRefusal):
            return error(checked.message, *checked.flags)
        parts.append(checked.parts)
        virtual.append(checked.virtual)
    return ParsedCommand(command, validated, raw_paths, tuple(parts), tuple(virtual))
