"""The five changing commands on descriptors: each is checked and computed first, then written.

A handler returns a refusal, or a `Plan`: the success text, the file's new text (for the secret
scan of what lands) and the step that changes the disk. Every step acts on names relative to
the folders the site opened, so nothing reaches outside the store.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass

from memtui.core.applying.atomic import create_at, replace_at
from memtui.core.applying.site import Site
from memtui.core.applying.sizes import format_size
from memtui.core.applying.snapshots import RestoreError, State, restore
from memtui.core.applying.viewing import not_found_message, read_text
from memtui.core.parsing.command_types import (
    CommandOutcome,
    ParsedCommand,
    error,
    failure_message,
    made_folders_flag,
    not_found,
    numbered,
    success,
)
from memtui.core.parsing.echo import echo
from memtui.core.resolving.fd_paths import (
    DIR_MODE,
    Location,
    fsync_dir_fd,
    remove_tree_at,
    rename_noreplace,
)
from memtui.core.result import REFUSED

FILE_EXISTS = "Error: File {path} already exists"
"""create's refusal when something is already at the path (checked, or lost a race)."""
DESTINATION_EXISTS = "Error: The destination {new_path} already exists"
"""rename's refusal when something is already at the destination (checked, or lost a race)."""


@dataclass(frozen=True)
class Plan:
    """A changing command, checked and computed: what it will say, write and change on disk."""

    success: CommandOutcome
    write: Callable[[], CommandOutcome | None]
    """Changes the disk; returns a refusal if the disk no longer allows it (a race), the
    outcome with flags learnt while writing (folders a rename made), else None."""
    text: str | None = None
    """The file's whole new text, for commands that leave one."""
    span: tuple[int, int] = (0, 0)
    """The characters of `text` this change wrote (where a secret would have to overlap)."""


def run_plan(cmd: ParsedCommand, plan: Plan) -> CommandOutcome:
    """Carry out a plan; an unexpected OS failure becomes the one-line `Cannot ...` error."""
    try:
        refusal = plan.write()
    except Exception as problem:
        return error(failure_message(cmd, problem))
    return refusal or plan.success


def size_refusal(path: str, size: int, limit: int) -> CommandOutcome | None:
    """A refusal if a write would leave a file bigger than `limit` bytes."""
    if size <= limit:
        return None
    return error(
        f"Refused: {path} would be {format_size(size)} ({size} bytes), over the maximum "
        f"file size of {format_size(limit)} ({limit} bytes). Nothing was written.",
        kind=REFUSED,
    )


def _encode_text(text: str, path: str) -> bytes | CommandOutcome:
    """UTF-8 bytes of text the agent sent, or the M4 error for lone surrogates."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return error(f"The text for {path} is not valid Unicode")


def _new_bytes(text: str, path: str, site: Site) -> bytes | CommandOutcome:
    """A file's new text as bytes, or the refusal: not valid Unicode, or over the size limit."""
    data = _encode_text(text, path)
    if isinstance(data, CommandOutcome):
        return data
    return size_refusal(path, len(data), site.max_size) or data


def _exists(location: Location) -> bool:
    """True if something is at the location (a link counts only if it leads somewhere)."""
    info = location.lstat()
    return info is not None and not stat.S_ISLNK(info.st_mode)


# create


def plan_create(cmd: ParsedCommand, site: Site) -> Plan | CommandOutcome:
    """Create a new file, never overwriting; parents are created (0700) first like the SDK."""
    path, location = cmd.echoed[0], site.locations[0]
    text: str = cmd.args["file_text"]
    data = _encode_text(text, path)
    if isinstance(data, CommandOutcome):
        return data
    if location.blocked_by_file():
        return error(f"Cannot create {path}: a parent of it is a file")
    if location.is_root or location.lstat() is not None:
        return error(FILE_EXISTS.format(path=path))
    too_big = size_refusal(path, len(data), site.max_size)
    if too_big is not None:
        return too_big

    def write() -> CommandOutcome | None:
        parent = location.make_parents(DIR_MODE)
        try:
            create_at(site.temps, parent, location.name, data)
        except FileExistsError:
            return error(FILE_EXISTS.format(path=path))
        return None

    message = success(f"File created successfully at: {path}")
    return Plan(message, write, text, (0, len(text)))


# str_replace and insert


def _str_replace_missing(path: str) -> str:
    """str_replace's text for a path that is missing or not a regular file (D2, D3)."""
    return f"Error: {not_found_message(path)}"


def _insert_missing(path: str) -> str:
    """insert's text for a path that is missing or not a regular file (D5, D6)."""
    return f"Error: The path {path} does not exist"


def _not_a_file(
    cmd: ParsedCommand, site: Site, missing_message: Callable[[str], str]
) -> CommandOutcome | None:
    """The command's 'missing' error unless its target is a regular file."""
    info = site.locations[0].lstat()
    if info is None or not stat.S_ISREG(info.st_mode):
        return not_found(missing_message(cmd.echoed[0]))
    return None


def _editable_text(
    cmd: ParsedCommand, site: Site, missing_message: Callable[[str], str]
) -> str | CommandOutcome:
    """The text of a regular file to edit, or the command's 'missing' error."""
    refusal = _not_a_file(cmd, site, missing_message)
    if refusal is not None:
        return refusal
    return read_text(site.locations[0], cmd.echoed[0], site.max_size)


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


def _replacing(site: Site, location: Location, data: bytes) -> Callable[[], None]:
    """The step that atomically replaces the located file with `data`."""

    def write() -> None:
        parent = location.parent_fd()
        if parent is None:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT))
        replace_at(site.temps, parent, location.name, data)

    return write


def plan_str_replace(cmd: ParsedCommand, site: Site) -> Plan | CommandOutcome:
    """Replace the one occurrence of old_str and show a five-line window of the result."""
    path = cmd.echoed[0]
    old_str: str = cmd.args["old_str"]
    new_str: str = cmd.args["new_str"]
    content = _editable_text(cmd, site, _str_replace_missing)
    if isinstance(content, CommandOutcome):
        return content
    count = content.count(old_str)
    if count == 0:
        return error(
            f"No replacement was performed, old_str `{echo(old_str)}` did not appear verbatim "
            f"in {path}."
        )
    if count > 1:
        lines = ", ".join(map(str, _occurrence_lines(content, old_str)))
        return error(
            f"No replacement was performed. Multiple occurrences of old_str `{echo(old_str)}` "
            f"in lines: {lines}. Please ensure it is unique"
        )
    start = content.find(old_str)
    changed_line = content.count("\n", 0, start)
    new_content = content[:start] + new_str + content[start + len(old_str) :]
    data = _new_bytes(new_content, path, site)
    if isinstance(data, CommandOutcome):
        return data
    new_lines = new_content.split("\n")
    first = max(0, changed_line - 2)
    last = min(len(new_lines), changed_line + 3)
    snippet = [numbered(number, new_lines[number - 1]) for number in range(first + 1, last + 1)]
    message = success(
        "The memory file has been edited. Here is the snippet showing the change "
        "(with line numbers):\n" + "\n".join(snippet)
    )
    return Plan(
        message,
        _quiet(_replacing(site, site.locations[0], data)),
        new_content,
        (start, start + len(new_str)),
    )


def _quiet(step: Callable[[], None]) -> Callable[[], CommandOutcome | None]:
    """A step that never refuses, as a plan's `write`."""

    def write() -> CommandOutcome | None:
        step()
        return None

    return write


def plan_insert(cmd: ParsedCommand, site: Site) -> Plan | CommandOutcome:
    """Insert a line of text at a line index; the file always ends with a newline after."""
    path = cmd.echoed[0]
    insert_line: int = cmd.args["insert_line"]
    content = _editable_text(cmd, site, _insert_missing)
    if isinstance(content, CommandOutcome):
        return content
    lines = content.split("\n")
    if lines[-1] == "":
        lines.pop()
    if insert_line < 0 or insert_line > len(lines):
        return error(
            f"Error: Invalid `insert_line` parameter: {insert_line}. "
            f"It should be within the range of lines of the file: [0, {len(lines)}]"
        )
    inserted = cmd.args["insert_text"].rstrip("\n")
    start = sum(len(line) + 1 for line in lines[:insert_line])
    lines.insert(insert_line, inserted)
    new_content = "\n".join(lines)
    if not new_content.endswith("\n"):
        new_content += "\n"
    data = _new_bytes(new_content, path, site)
    if isinstance(data, CommandOutcome):
        return data
    message = success(f"The file {path} has been edited.")
    write = _quiet(_replacing(site, site.locations[0], data))
    return Plan(message, write, new_content, (start, start + len(inserted)))


# delete


def delete_refusal(cmd: ParsedCommand, site: Site) -> CommandOutcome | None:
    """Why a delete cannot run: the root itself, or nothing (no file, no folder) there."""
    location = site.locations[0]
    if location.is_root:
        return error("Cannot delete the /memories directory itself")
    info = location.lstat()
    if info is None or not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
        return not_found(f"Error: The path {cmd.echoed[0]} does not exist")
    return None


def plan_delete(cmd: ParsedCommand, site: Site) -> Plan | CommandOutcome:
    """Delete a file, or a directory recursively (by descriptors); the root itself is refused."""
    refusal = delete_refusal(cmd, site)
    if refusal is not None:
        return refusal
    path, location = cmd.echoed[0], site.locations[0]

    def write() -> CommandOutcome | None:
        parent = location.parent_fd()
        if parent is None:
            return not_found(f"Error: The path {path} does not exist")
        try:
            remove_tree_at(parent, location.name)
        except FileNotFoundError:
            return not_found(f"Error: The path {path} does not exist")
        fsync_dir_fd(parent)
        return None

    return Plan(success(f"Successfully deleted {path}"), write)


# rename


def rename_refusal(cmd: ParsedCommand, site: Site) -> CommandOutcome | None:
    """Why a rename cannot start: the root, an existing destination, a file parent, itself.

    A missing source alone is not checked here: the SDK creates the new parents first.
    """
    old = site.locations[0]
    if old.is_root:
        return error("Cannot rename the /memories directory itself")
    return _destination_refusal(cmd, site, lambda: old.lstat() is None)


def _destination_refusal(
    cmd: ParsedCommand, site: Site, source_missing: Callable[[], bool]
) -> CommandOutcome | None:
    """Why a rename cannot start at its destination: it exists, a parent of it is a file, or it
    lies inside the source (`source_missing()` is asked only where the answer depends on it)."""
    old_path, new_path = cmd.echoed
    old, new = site.locations
    if new.is_root or _exists(new):
        return error(DESTINATION_EXISTS.format(new_path=new_path))
    missing = not_found(f"Error: The path {old_path} does not exist")
    if new.blocked_by_file():
        # Like the SDK: a missing source wins when no directory has to be made first.
        if len(new.fds) == len(new.parts) - 1 and source_missing():
            return missing
        return error(f"Cannot create {new_path}: a parent of it is a file")
    if new.parts != old.parts and new.starts_with(old):
        if not source_missing():
            return error(f"Cannot move {old_path} into itself")
        return missing
    return None


def rename_missing_source(
    cmd: ParsedCommand, site: Site, *, make_parents: bool = True
) -> CommandOutcome:
    """What a rename answers when its source is not there: the destination's refusal, else the
    missing source, after making the destination's parents as a rename that tried would have
    (so a source hidden from the agent answers exactly like one that is missing; without
    `make_parents`, for a rename held for review, nothing is made)."""
    refusal = _destination_refusal(cmd, site, lambda: True)
    if refusal is not None:
        return refusal
    try:
        if make_parents:
            site.locations[1].make_parents(DIR_MODE)
    except OSError as problem:
        return error(failure_message(cmd, problem))
    return not_found(f"Error: The path {cmd.echoed[0]} does not exist")


def plan_rename(cmd: ParsedCommand, site: Site) -> Plan | CommandOutcome:
    """Move a file or directory to a destination that must not exist yet."""
    refusal = rename_refusal(cmd, site)
    if refusal is not None:
        return refusal
    old_path, new_path = cmd.echoed
    old, new = site.locations
    done = success(f"Successfully renamed {old_path} to {new_path}")

    def write() -> CommandOutcome | None:
        source_missing = not_found(f"Error: The path {old_path} does not exist")
        new_parent = new.make_parents(DIR_MODE)
        old_parent = old.parent_fd()
        if old_parent is None:
            return source_missing
        try:
            rename_noreplace(old_parent, old.name, new_parent, new.name)
        except FileExistsError:
            return error(DESTINATION_EXISTS.format(new_path=new_path))
        except (FileNotFoundError, NotADirectoryError):
            if old.lstat() is None:
                return source_missing
            raise
        fsync_dir_fd(new_parent)
        if old.parts[:-1] != new.parts[:-1]:
            fsync_dir_fd(old_parent)
        if new.made:
            return CommandOutcome(done.content, False, (*done.flags, made_folders_flag(new.made)))
        return None

    return Plan(done, write)


PLANNERS: dict[str, Callable[[ParsedCommand, Site], Plan | CommandOutcome]] = {
    "create": plan_create,
    "str_replace": plan_str_replace,
    "insert": plan_insert,
    "delete": plan_delete,
    "rename": plan_rename,
}


def undo_command(parsed: ParsedCommand, site: Site, before: State) -> None:
    """Put back what a command changed, from its before-state (the history could not record it)."""
    location = site.locations[0]
    if parsed.command == "rename":
        destination = site.locations[1]
        source_parent = location.parent_fd()
        destination_parent = destination.parent_fd()
        if source_parent is None or destination_parent is None:
            raise RestoreError("the renamed path is gone")
        rename_noreplace(destination_parent, destination.name, source_parent, location.name)
        return
    if before.unkept:
        raise RestoreError("its content was over the maximum file size and was not kept")
    restore(location, before.kind, before.hash, before.blobs.get, site.temps)
