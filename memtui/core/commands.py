"""The six memory-tool commands as pure functions over a root directory (spec 4, 6, 6b).

`parse_command` validates the raw tool input and every path without touching the disk;
`apply_command` runs a parsed command and never raises. History, locks and secret scanning
belong to the store, not here.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memtui.core.atomic import atomic_write, create_exclusive, fsync_dir, make_dirs
from memtui.core.paths import (
    PathRefusal,
    check_path,
    is_reserved,
    is_within,
    real_root,
)
from memtui.core.sizes import format_size

COMMANDS = ("view", "create", "str_replace", "insert", "delete", "rename")
MUTATING_COMMANDS = frozenset({"create", "str_replace", "insert", "delete", "rename"})
MAX_LINES = 999_999
LINE_NUMBER_WIDTH = len(str(MAX_LINES))
SKIPPED_DIRECTORY = "node_modules"

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
_VERBS = {
    "view": "view",
    "create": "create",
    "str_replace": "edit",
    "insert": "edit",
    "delete": "delete",
    "rename": "rename",
}
# Unicode White_Space, the set pydantic strips around numeric strings.
_WHITE_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
_INT_TEXT = re.compile(r"[+-]?[0-9](?:_?[0-9])*(?:\.0+)?")
_INT64_LIMIT = 2**63
_SURROGATE = re.compile("[\ud800-\udfff]")
FILE_EXISTS = "Error: File {path} already exists"
"""create's refusal when something is already at the path (checked, or lost a race)."""


@dataclass(frozen=True)
class CommandOutcome:
    """A command's tool_result text, its error flag and any security flags it raised."""

    content: str
    is_error: bool
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class ParsedCommand:
    """A validated command: coerced arguments plus each path as sent, resolved and normalised."""

    command: str
    args: dict[str, Any] = field(hash=False)
    raw_paths: tuple[str, ...]
    targets: tuple[Path, ...]
    virtual: tuple[str, ...]


def is_mutating(command: str) -> bool:
    """True for the commands that can change the disk (everything but view)."""
    return command in MUTATING_COMMANDS


def well_formed(text: str) -> str:
    """Fold lone UTF-16 surrogates to U+FFFD, as the SDK's tool runner does before sending."""
    return _SURROGATE.sub("\ufffd", text)


def shown(value: object) -> str:
    """`str(value)`, or a short description of a value nested too deeply to print."""
    try:
        return str(value)
    except RecursionError:
        return f"<a {type(value).__name__} nested too deeply to show>"


def _error(message: str, *flags: str) -> CommandOutcome:
    """An error outcome with its text made safe to encode."""
    return CommandOutcome(well_formed(message), True, tuple(flags))


def _success(message: str) -> CommandOutcome:
    """A success outcome with its text made safe to encode."""
    return CommandOutcome(well_formed(message), False)


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


def parse_command(root: Path, tool_input: object) -> ParsedCommand | CommandOutcome:
    """Validate raw tool input and its paths in the spec's order, touching nothing on disk."""
    command = tool_input.get("command") if isinstance(tool_input, Mapping) else None
    if (
        not isinstance(tool_input, Mapping)
        or not isinstance(command, str)
        or command not in _FIELDS
    ):
        return _error(f"Unknown command: {shown(command)}. Expected one of: {', '.join(COMMANDS)}")
    validated = _validate_fields(command, tool_input)
    if isinstance(validated, str):
        return _error(validated)
    raw_paths = tuple(validated[name] for name in _PATH_FIELDS.get(command, ("path",)))
    targets: list[Path] = []
    virtual: list[str] = []
    for raw in raw_paths:
        checked = check_path(root, raw)
        if isinstance(checked, PathRefusal):
            return _error(checked.message, *checked.flags)
        targets.append(checked.real)
        virtual.append(checked.virtual)
    return ParsedCommand(command, validated, raw_paths, tuple(targets), tuple(virtual))


# Running commands.


def apply_command(root: Path, cmd: ParsedCommand) -> CommandOutcome:
    """Run a parsed command on disk; any unexpected OS failure becomes a one-line error."""
    handler = _HANDLERS.get(cmd.command)
    if handler is None:
        return _error(f"Unknown command: {cmd.command}. Expected one of: {', '.join(COMMANDS)}")
    outcome = _guarded(root, cmd, handler)
    assert outcome is not None
    return outcome


def precheck(root: Path, cmd: ParsedCommand) -> CommandOutcome | None:
    """The refusal a command will get that needs no file content (missing path, root, ...), or None.

    `apply_command` makes the same checks; this lets a caller skip costly work (such as keeping
    the before-state) for a command that will be refused anyway.
    """
    check = _PRECHECKS.get(cmd.command)
    return None if check is None else _guarded(root, cmd, check)


def failure_message(cmd: ParsedCommand, error: Exception) -> str:
    """`Cannot <verb> <path>: <reason>` for a failure outside the command's own checks."""
    if isinstance(error, OSError):
        reason = error.strerror or str(error) or type(error).__name__
    else:
        reason = f"unexpected {type(error).__name__}"
    return well_formed(f"Cannot {_VERBS[cmd.command]} {cmd.raw_paths[0]}: {reason}")


def _guarded(
    root: Path,
    cmd: ParsedCommand,
    step: Callable[[ParsedCommand, Path], CommandOutcome | None],
) -> CommandOutcome | None:
    """Run one step on the resolved root (created if missing); any exception becomes an error."""
    root_real = real_root(root)
    try:
        if not root_real.is_dir():
            make_dirs(root_real)
        return step(cmd, root_real)
    except Exception as exc:
        return _error(failure_message(cmd, exc))


def _not_found_message(path: str) -> str:
    """The view/str_replace 'missing path' text."""
    return f"The path {path} does not exist. Please provide a valid path."


def _read_text(target: Path, path: str) -> str | CommandOutcome:
    """Read a regular file as strict UTF-8 without following a final symlink."""
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return _error(
            f"The file {path} no longer exists (may have been deleted or renamed concurrently)."
        )
    except OSError as exc:
        if exc.errno == 40:  # ELOOP: the final component is a symlink
            return _error(f"path {path!r} is a symlink")
        raise
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return _error(f"path {path!r} is not a regular file")
        data = handle.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return _error(f"The file {path} is not valid UTF-8 text")


def _encode_text(text: str, path: str) -> bytes | CommandOutcome:
    """UTF-8 bytes of text the agent sent, or the M4 error for lone surrogates."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _error(f"The text for {path} is not valid Unicode")


def _numbered(number: int, line: str) -> str:
    """One line as the tool shows it: the number right-aligned to width 6, a tab, the text."""
    return f"{str(number).rjust(LINE_NUMBER_WIDTH)}\t{line}"


def _view(cmd: ParsedCommand, root: Path) -> CommandOutcome:
    """List a directory two levels deep, or show a file with line numbers."""
    path, target = cmd.raw_paths[0], cmd.targets[0]
    try:
        leaf = os.lstat(target)
    except (FileNotFoundError, NotADirectoryError):
        return _error(_not_found_message(path))
    if stat.S_ISDIR(leaf.st_mode):
        return _success(_listing(target, path, leaf.st_size, root))
    if stat.S_ISREG(leaf.st_mode):
        return _view_file(target, path, cmd.args.get("view_range"))
    return _error(f"Unsupported file type for {path}")


def _listing(target: Path, path: str, own_size: int, root: Path) -> str:
    """The directory listing: header, the directory's own line, then entries pre-order."""
    entries: list[tuple[str, str]] = []
    _collect_entries(target, "", 1, root, entries)
    header = (
        f"Here're the files and directories up to 2 levels deep in {path}, "
        "excluding hidden items and node_modules:"
    )
    lines = [f"{format_size(own_size)}\t{path}"]
    lines.extend(f"{size}\t{path}/{relative}" for size, relative in entries)
    return f"{header}\n" + "\n".join(lines)


def _collect_entries(
    directory: Path, relative: str, depth: int, root: Path, entries: list[tuple[str, str]]
) -> None:
    """Append (size, relative path) for visible children, recursing one level further."""
    if depth > 2:
        return
    try:
        children = sorted(directory.iterdir(), key=lambda child: child.name)
    except OSError:
        return
    for child in children:
        name = child.name
        if name.startswith(".") or name == SKIPPED_DIRECTORY:
            continue
        child_relative = f"{relative}/{name}" if relative else name
        try:
            resolved = Path(os.path.realpath(child))
            if not is_within(resolved, root) or is_reserved(resolved, root):
                continue
            child_stat = child.stat()
        except (OSError, ValueError):
            continue
        if stat.S_ISDIR(child_stat.st_mode):
            entries.append((format_size(child_stat.st_size), f"{child_relative}/"))
            if depth < 2:
                _collect_entries(child, child_relative, depth + 1, root, entries)
        elif stat.S_ISREG(child_stat.st_mode):
            entries.append((format_size(child_stat.st_size), child_relative))


def _select_lines(lines: list[str], view_range: Any) -> tuple[int, list[str]] | None:
    """The SDK's view_range rule: (first line number, shown lines), or None where the SDK crashes.

    A falsy value or one whose length is not 2 shows every line; `[a, b]` shows the slice
    `lines[max(1, a) - 1 : b]` (`b == -1`: to the end). A value the tool's schema does not
    accept is applied as sent, exactly as the SDK applies it.
    """
    try:
        if not view_range or len(view_range) != 2:
            return 1, lines
        start = max(1, view_range[0]) - 1
        end = len(lines) if view_range[1] == -1 else view_range[1]
        return start + 1, lines[start:end]
    except Exception:
        return None


def _view_file(target: Path, path: str, view_range: Any) -> CommandOutcome:
    """Show a file's lines, optionally a `[start, end]` slice of them, with numbers."""
    text = _read_text(target, path)
    if isinstance(text, CommandOutcome):
        return text
    lines = text.split("\n")
    if len(lines) > MAX_LINES:
        return _error(f"File {path} exceeds maximum line limit of 999,999 lines.")
    selection = _select_lines(lines, view_range)
    if selection is None:
        return _error("Invalid input for view: `view_range` must be a list of two integers")
    first, lines = selection
    return _success(file_view_text(path, lines, first))


def file_view_text(path: str, lines: list[str], first: int = 1) -> str:
    """What `view` shows of a file's `lines`, numbered from `first` (also the app's raw view of
    a huge file's first lines)."""
    numbered = [_numbered(first + index, line) for index, line in enumerate(lines)]
    return f"Here's the content of {path} with line numbers:\n" + "\n".join(numbered)


def _blocking_file(target: Path) -> Path | None:
    """The nearest existing ancestor of `target` if it is not a directory, else None."""
    current = target.parent
    while not os.path.lexists(current):
        if current.parent == current:
            return None
        current = current.parent
    return None if current.is_dir() else current


def _create(cmd: ParsedCommand, root: Path) -> CommandOutcome:
    """Create a new file, never overwriting; parents are created (0700) first like the SDK."""
    path, target = cmd.raw_paths[0], cmd.targets[0]
    data = _encode_text(cmd.args["file_text"], path)
    if isinstance(data, CommandOutcome):
        return data
    if _blocking_file(target) is not None:
        return _error(f"Cannot create {path}: a parent of it is a file")
    if os.path.lexists(target):
        return _error(FILE_EXISTS.format(path=path))
    make_dirs(target.parent)
    try:
        create_exclusive(target, data)
    except FileExistsError:
        return _error(FILE_EXISTS.format(path=path))
    return _success(f"File created successfully at: {path}")


def _str_replace_missing(path: str) -> str:
    """str_replace's text for a path that is missing or not a regular file (D2, D3)."""
    return f"Error: {_not_found_message(path)}"


def _insert_missing(path: str) -> str:
    """insert's text for a path that is missing or not a regular file (D5, D6)."""
    return f"Error: The path {path} does not exist"


def _not_a_file(cmd: ParsedCommand, missing_message: Callable[[str], str]) -> CommandOutcome | None:
    """The command's 'missing' error unless its target is a regular file."""
    target = cmd.targets[0]
    if not target.exists() or not target.is_file():
        return _error(missing_message(cmd.raw_paths[0]))
    return None


def _editable_text(
    cmd: ParsedCommand, missing_message: Callable[[str], str]
) -> str | CommandOutcome:
    """The text of a regular file to edit, or the command's 'missing' error."""
    refusal = _not_a_file(cmd, missing_message)
    if refusal is not None:
        return refusal
    return _read_text(cmd.targets[0], cmd.raw_paths[0])


def _occurrence_lines(content: str, needle: str) -> list[int]:
    """1-based line of every match start, scanning with overlap (next search one char later)."""
    lines: list[int] = []
    position = content.find(needle)
    counted_to = 0
    line = 1
    while position != -1:
        line += content.count("\n", counted_to, position)
        counted_to = position
        lines.append(line)
        position = content.find(needle, position + 1)
    return lines


def _str_replace(cmd: ParsedCommand, root: Path) -> CommandOutcome:
    """Replace the one occurrence of old_str and show a five-line window of the result."""
    path, target = cmd.raw_paths[0], cmd.targets[0]
    old_str: str = cmd.args["old_str"]
    new_str: str = cmd.args["new_str"]
    content = _editable_text(cmd, _str_replace_missing)
    if isinstance(content, CommandOutcome):
        return content
    count = content.count(old_str)
    if count == 0:
        return _error(
            f"No replacement was performed, old_str `{old_str}` did not appear verbatim in {path}."
        )
    if count > 1:
        lines = ", ".join(map(str, _occurrence_lines(content, old_str)))
        return _error(
            f"No replacement was performed. Multiple occurrences of old_str `{old_str}` "
            f"in lines: {lines}. Please ensure it is unique"
        )
    changed_line = content.count("\n", 0, content.find(old_str))
    new_content = content.replace(old_str, new_str)
    data = _encode_text(new_content, path)
    if isinstance(data, CommandOutcome):
        return data
    atomic_write(target, data)
    new_lines = new_content.split("\n")
    first = max(0, changed_line - 2)
    last = min(len(new_lines), changed_line + 3)
    snippet = [_numbered(number, new_lines[number - 1]) for number in range(first + 1, last + 1)]
    return _success(
        "The memory file has been edited. Here is the snippet showing the change "
        "(with line numbers):\n" + "\n".join(snippet)
    )


def _insert(cmd: ParsedCommand, root: Path) -> CommandOutcome:
    """Insert a line of text at a line index; the file always ends with a newline after."""
    path, target = cmd.raw_paths[0], cmd.targets[0]
    insert_line: int = cmd.args["insert_line"]
    content = _editable_text(cmd, _insert_missing)
    if isinstance(content, CommandOutcome):
        return content
    lines = content.split("\n")
    if lines[-1] == "":
        lines.pop()
    if insert_line < 0 or insert_line > len(lines):
        return _error(
            f"Error: Invalid `insert_line` parameter: {insert_line}. "
            f"It should be within the range of lines of the file: [0, {len(lines)}]"
        )
    lines.insert(insert_line, cmd.args["insert_text"].rstrip("\n"))
    new_content = "\n".join(lines)
    if not new_content.endswith("\n"):
        new_content += "\n"
    data = _encode_text(new_content, path)
    if isinstance(data, CommandOutcome):
        return data
    atomic_write(target, data)
    return _success(f"The file {path} has been edited.")


def _delete_refusal(cmd: ParsedCommand, root: Path) -> CommandOutcome | None:
    """Why a delete cannot run: the root itself, or nothing (no file, no folder) there."""
    target = cmd.targets[0]
    if target == root:
        return _error("Cannot delete the /memories directory itself")
    if not target.is_file() and not target.is_dir():
        return _error(f"Error: The path {cmd.raw_paths[0]} does not exist")
    return None


def _delete(cmd: ParsedCommand, root: Path) -> CommandOutcome:
    """Delete a file, or a directory recursively; the root itself is refused."""
    path, target = cmd.raw_paths[0], cmd.targets[0]
    refusal = _delete_refusal(cmd, root)
    if refusal is not None:
        return refusal
    try:
        if target.is_file():
            target.unlink()
        elif target.is_dir():
            shutil.rmtree(target)
        else:
            return _error(f"Error: The path {path} does not exist")
    except FileNotFoundError:
        return _error(f"Error: The path {path} does not exist")
    fsync_dir(target.parent)
    return _success(f"Successfully deleted {path}")


def _rename_refusal(cmd: ParsedCommand, root: Path) -> CommandOutcome | None:
    """Why a rename cannot start: the root, an existing destination, a file parent, itself.

    A missing source alone is not checked here: the SDK creates the new parents first.
    """
    old_path, new_path = cmd.raw_paths
    old, new = cmd.targets
    if old == root:
        return _error("Cannot rename the /memories directory itself")
    if new.exists():
        return _error(f"Error: The destination {new_path} already exists")
    source_missing = _error(f"Error: The path {old_path} does not exist")
    blocking = _blocking_file(new)
    if blocking is not None:
        # Like the SDK: a missing source wins when no directory has to be made first.
        if blocking == new.parent and not os.path.lexists(old):
            return source_missing
        return _error(f"Cannot create {new_path}: a parent of it is a file")
    if new != old and new.is_relative_to(old):
        if os.path.lexists(old):
            return _error(f"Cannot move {old_path} into itself")
        return source_missing
    return None


def _rename(cmd: ParsedCommand, root: Path) -> CommandOutcome:
    """Move a file or directory to a destination that must not exist yet."""
    old_path, new_path = cmd.raw_paths
    old, new = cmd.targets
    refusal = _rename_refusal(cmd, root)
    if refusal is not None:
        return refusal
    source_missing = _error(f"Error: The path {old_path} does not exist")
    make_dirs(new.parent)
    try:
        os.rename(old, new)
    except (FileNotFoundError, NotADirectoryError):
        if not os.path.lexists(old):
            return source_missing
        raise
    fsync_dir(new.parent)
    if old.parent != new.parent:
        fsync_dir(old.parent)
    return _success(f"Successfully renamed {old_path} to {new_path}")


_HANDLERS: dict[str, Callable[[ParsedCommand, Path], CommandOutcome]] = {
    "view": _view,
    "create": _create,
    "str_replace": _str_replace,
    "insert": _insert,
    "delete": _delete,
    "rename": _rename,
}

_PRECHECKS: dict[str, Callable[[ParsedCommand, Path], CommandOutcome | None]] = {
    "str_replace": lambda cmd, root: _not_a_file(cmd, _str_replace_missing),
    "insert": lambda cmd, root: _not_a_file(cmd, _insert_missing),
    "delete": _delete_refusal,
    "rename": _rename_refusal,
}
