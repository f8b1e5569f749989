"""The six memory-tool commands over a root directory (spec 4, 6, 6b): parse, then apply.

`parse_command` validates the raw tool input and resolves every path (reading only);
`apply_command` runs a parsed command on descriptors and never raises. The commands themselves
are in `viewing` and `handlers`; history, locks and secret scanning belong to the store.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memtui.core.command_types import (
    COMMANDS,
    CommandOutcome,
    ParsedCommand,
    error,
    failure_message,
    is_mutating,
    shown,
    well_formed,
)
from memtui.core.handlers import FILE_EXISTS, PLANNERS, Plan, run_plan
from memtui.core.paths import PathRefusal, check_path
from memtui.core.site import DEFAULT_MAX_FILE_SIZE, Site, open_site
from memtui.core.viewing import MAX_LINES, view

__all__ = [
    "COMMANDS",
    "FILE_EXISTS",
    "MAX_LINES",
    "CommandOutcome",
    "ParsedCommand",
    "Plan",
    "apply_command",
    "failure_message",
    "is_mutating",
    "parse_command",
    "plan_command",
    "run_on_site",
    "well_formed",
]

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


# Running commands.


def apply_command(
    root: Path, cmd: ParsedCommand, max_size: int = DEFAULT_MAX_FILE_SIZE
) -> CommandOutcome:
    """Run a parsed command on disk; any unexpected OS failure becomes a one-line error.

    The paths are walked again on descriptors (see `open_site`) and every step acts relative
    to the folders opened, so a store that changes meanwhile is never followed out of.
    """
    try:
        site = open_site(root, cmd, max_size)
    except Exception as problem:
        return error(failure_message(cmd, problem))
    if isinstance(site, CommandOutcome):
        return site
    with site:
        return run_on_site(cmd, site)


def run_on_site(cmd: ParsedCommand, site: Site) -> CommandOutcome:
    """Run a command whose paths `site` has located: view, or plan and carry out a change."""
    plan = plan_command(cmd, site)
    if isinstance(plan, CommandOutcome):
        return plan
    return run_plan(cmd, plan)


def plan_command(cmd: ParsedCommand, site: Site) -> Plan | CommandOutcome:
    """A change's plan, or the command's outcome when it changes nothing (view, a refusal)."""
    try:
        if cmd.command == "view":
            return view(cmd, site)
        planner = PLANNERS.get(cmd.command)
        if planner is None:
            known = ", ".join(COMMANDS)
            return error(f"Unknown command: {shown(cmd.command)}. Expected one of: {known}")
        return planner(cmd, site)
    except Exception as problem:
        return error(failure_message(cmd, problem))
