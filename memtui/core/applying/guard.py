"""The policy judged on a located command: every path it touches, after resolution on descriptors.

Each path argument is judged as written and as resolved (links followed), the stricter counting;
a folder a `delete` or `rename` would act on is walked on descriptors (never through a link) and
every entry in it judged too, at its place now and, for a rename, at its place after. A file
whose frontmatter says `read_only: true` is `read`. A path that is `none` for the agent is
answered exactly as if it were missing, so no answer tells a hidden file from a missing one.
memtui's own folder of a store nested inside this one (`a/.memtui`) is as reserved as the root's
for an agent's changes: its policy and history are never the agent's to write.
"""

from __future__ import annotations

import stat
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from memtui.core.applying.handlers import rename_missing_source
from memtui.core.applying.site import Site
from memtui.core.applying.viewing import not_found_message
from memtui.core.parsing.command_types import CommandOutcome, ParsedCommand, error, not_found
from memtui.core.parsing.echo import echo
from memtui.core.parsing.paths import (
    FLAG_OUTSIDE,
    FLAG_REFUSED,
    FLAG_RESERVED,
    RESERVED_NAME,
    PathRefusal,
    check_path,
    written_relpath,
)
from memtui.core.policy.loading import POLICY_SHOWN
from memtui.core.policy.read_only import file_read_only
from memtui.core.policy.rules import NONE, READ, REVIEW, WRITE, Access, ActorPolicy, strictest
from memtui.core.resolving.fd_paths import (
    Location,
    close_quietly,
    entries,
    entry_lstat,
    open_child_dir,
)
from memtui.core.result import NOT_FOUND, REFUSED

FLAG_POLICY = "policy:refused"
"""An agent's call refused by the store's policy (or by a note's `read_only` frontmatter)."""
FLAG_HIDDEN = "policy:hidden"
"""An agent's call about a path the policy hides from it, answered as if it were missing."""
FLAG_HELD = "policy:held"
"""An agent's change held as a proposal for a person to approve."""
FLAG_APPROVED = "policy:approved"
"""An agent's held change, applied once a person approved it."""


def refusal(message: str) -> CommandOutcome:
    """A policy refusal (recorded with its flag; the agent sees only the message)."""
    return error(message, FLAG_POLICY, kind=REFUSED)


def broken(gate: ActorPolicy) -> CommandOutcome:
    """The refusal of every agent command while the policy cannot be used."""
    return refusal(
        f"Refused: the store's access policy cannot be used ({gate.problem}); nothing was done. "
        f"A person must fix {POLICY_SHOWN}."
    )


def not_allowed(path: str) -> CommandOutcome:
    """The refusal of a change the policy does not let the agent make."""
    return refusal(
        f"Refused: the store's policy does not let this agent change {path}; nothing was changed."
    )


def _hidden(outcome: CommandOutcome) -> CommandOutcome:
    """`outcome` (a missing path's answer) marked in the history as hidden by the policy."""
    return CommandOutcome(outcome.content, True, (FLAG_HIDDEN,), outcome.kind)


def hidden_answer(cmd: ParsedCommand, site: Site, *, make_parents: bool = True) -> CommandOutcome:
    """What the command answers when its (first) path is missing: a hidden path's answer (a
    rename makes its destination's parents as a missing source's would: not when it would be
    held for review, `make_parents` False)."""
    path = cmd.echoed[0]
    if cmd.command in ("create", "write"):
        return not_allowed(path)
    if cmd.command == "rename":
        return _hidden(rename_missing_source(cmd, site, make_parents=make_parents))
    return _hidden(not_found(_MISSING_ANSWERS[cmd.command].format(path=path)))


_MISSING_ANSWERS = {
    "view": not_found_message("{path}"),
    "str_replace": "Error: " + not_found_message("{path}"),
    "insert": "Error: The path {path} does not exist",
    "delete": "Error: The path {path} does not exist",
    "rename": "Error: The path {path} does not exist",
}
"""What each command answers for a missing (first) path, before it looks any further."""


def escaped_answer(
    root: Path, tool_input: object, refused: CommandOutcome, gate: ActorPolicy
) -> CommandOutcome:
    """A refusal of a path that leads out of the store through a link, answered as missing
    when the path as written is hidden from the agent (a link in a hidden folder is as absent
    as the folder); any other refusal as it is."""
    if not isinstance(tool_input, Mapping):
        return refused
    command = tool_input.get("command")
    fields = ("old_path", "new_path") if command == "rename" else ("path",)
    for field in fields:
        raw = tool_input.get(field)
        if not isinstance(raw, str):
            return refused
        checked = check_path(root, raw)
        if not isinstance(checked, PathRefusal):
            continue
        if FLAG_OUTSIDE not in checked.flags or not gate.hidden(written_relpath(raw)):
            return refused
        if field == "new_path" or command == "create":
            answer = not_allowed(echo(raw))
        else:
            answer = error(_MISSING_ANSWERS[str(command)].format(path=echo(raw)), kind=NOT_FOUND)
        return CommandOutcome(answer.content, True, (*refused.flags, FLAG_HIDDEN), answer.kind)
    return refused


def path_access(gate: ActorPolicy, raw: str, parts: tuple[str, ...]) -> Access:
    """The agent's access to one path argument: as written, and where it resolved to."""
    return strictest((gate.access(written_relpath(raw)), gate.access("/".join(parts))))


def guard_view(cmd: ParsedCommand, site: Site, gate: ActorPolicy) -> CommandOutcome | None:
    """The answer to a `view` the policy decides (broken policy, hidden path), else None."""
    site.gate = gate
    if gate.problem is not None:
        return broken(gate)
    if path_access(gate, cmd.raw_paths[0], cmd.parts[0]) == NONE:
        return hidden_answer(cmd, site)
    return None


def guard_change(cmd: ParsedCommand, site: Site, gate: ActorPolicy) -> CommandOutcome | Access:
    """The answer to a change the policy refuses or hides, else `write` or `review` (hold it)."""
    site.gate = gate
    if gate.problem is not None:
        return broken(gate)
    reserved = _nested_reserved(cmd)
    if reserved is not None:
        return reserved
    levels = [
        path_access(gate, raw, parts) for raw, parts in zip(cmd.raw_paths, cmd.parts, strict=True)
    ]
    if cmd.command == "rename" and levels[1] in (READ, NONE):
        return not_allowed(cmd.echoed[1])
    if levels[0] == NONE:
        held = cmd.command == "rename" and levels[1] == REVIEW
        return hidden_answer(cmd, site, make_parents=not held)
    if levels[0] == READ:
        return not_allowed(cmd.echoed[0])
    if cmd.command == "create":
        return levels[0]

    inside = _held_inside(cmd, site.locations, gate)
    if isinstance(inside, CommandOutcome):
        return inside
    return strictest((*levels, inside))


def _nested_reserved(cmd: ParsedCommand) -> CommandOutcome | None:
    """The refusal of a change to a nested store's own folder (`a/.memtui/...`), as written or
    where it resolves to, else None."""
    for raw, parts, shown in zip(cmd.raw_paths, cmd.parts, cmd.echoed, strict=True):
        if RESERVED_NAME in (*written_relpath(raw).split("/"), *parts):
            return error(
                f"The path {shown} is reserved for memtui's history", FLAG_REFUSED, FLAG_RESERVED
            )
    return None


def _held_inside(
    cmd: ParsedCommand, locations: list[Location], gate: ActorPolicy
) -> Access | CommandOutcome:
    """The strictest access to what the command's source holds: its frontmatter for a file,
    every entry below it (now and after a rename) for a folder; a refusal for `read`/`none`."""
    source = locations[0]
    info = source.lstat()
    parent = source.parent_fd()
    if info is None or parent is None:
        return WRITE
    if stat.S_ISREG(info.st_mode):
        if file_read_only(source.name, parent):
            return refusal(
                f"Refused: {cmd.echoed[0]} is marked read_only in its frontmatter; "
                "nothing was changed."
            )
        return WRITE
    if not stat.S_ISDIR(info.st_mode):
        return WRITE
    after = locations[1].relative if cmd.command == "rename" else None
    level = _folder_access(gate, source, after)
    if level in (READ, NONE):
        return refusal(
            f"Refused: {cmd.echoed[0]} holds files the store's policy does not let this agent "
            "change; nothing was changed."
        )
    return level


def _folder_access(gate: ActorPolicy, folder: Location, after: str | None) -> Access:
    """The strictest access to the entries below a folder (at `after` too, for a rename);
    stops at the first that is `read` or `none`."""
    found: Access = WRITE
    for relative, parent, name, mode in _walk(folder):
        if name == RESERVED_NAME:
            return READ
        level = gate.access(f"{folder.relative}/{relative}")
        if after is not None:
            level = strictest((level, gate.access(f"{after}/{relative}")))
        if level != NONE and stat.S_ISREG(mode) and file_read_only(name, parent):
            level = READ
        if level in (READ, NONE):
            return level
        if level == REVIEW:
            found = REVIEW
    return found


def _walk(folder: Location) -> Iterator[tuple[str, int, str, int]]:
    """Every entry below `folder` as (path below it, parent descriptor, name, st_mode), entered
    by descriptor without following a link; unreadable folders are passed over."""
    with _opened(folder) as top:
        pending: list[tuple[str, int]] = [("", top)]
        try:
            while pending:
                prefix, fd = pending.pop()
                try:
                    for name in sorted(entries(fd)):
                        info = entry_lstat(fd, name)
                        if info is None:
                            continue
                        relative = f"{prefix}/{name}" if prefix else name
                        yield relative, fd, name, info.st_mode
                        if stat.S_ISDIR(info.st_mode):
                            pending.append((relative, open_child_dir(fd, name)))
                finally:
                    if fd != top:
                        close_quietly(fd)
        finally:
            for _prefix, fd in pending:
                if fd != top:
                    close_quietly(fd)


@contextmanager
def _opened(folder: Location) -> Iterator[int]:
    """A descriptor of the located folder, closed after."""
    fd = folder.open_dir()
    try:
        yield fd
    finally:
        close_quietly(fd)
