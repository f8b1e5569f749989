"""What the six memory-tool commands take and give: a parsed command and its outcome."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from memtui.core.parsing.echo import echo
from memtui.core.result import NOT_FOUND, REFUSED, ResultKind

COMMANDS = ("view", "create", "str_replace", "insert", "delete", "rename")
MUTATING_COMMANDS = frozenset({"create", "str_replace", "insert", "delete", "rename"})
_SURROGATE = re.compile("[\ud800-\udfff]")
NO_BYTE = re.compile("[\ud800-\udc7f\udd00-\udfff]")
"""Lone surrogates that stand for no byte (`os.fsdecode` makes only U+DC80-U+DCFF)."""
MAX_LINES = 999_999
"""The most lines `view` shows of a file."""
LINE_NUMBER_WIDTH = len(str(MAX_LINES))
_VERBS = {
    "view": "view",
    "create": "create",
    "str_replace": "edit",
    "insert": "edit",
    "delete": "delete",
    "rename": "rename",
}


MADE_FOLDERS = "folders:made-"
"""The flag of a rename that created folders above its destination: `folders:made-2` (the two
innermost), so undoing it removes them again when they are left empty."""


def made_folders_flag(count: int) -> str:
    """The flag for a change that created `count` folders above its path."""
    return f"{MADE_FOLDERS}{count}"


def made_folders(flags: tuple[str, ...]) -> int:
    """How many folders above its path an event's change created (0 when it says nothing)."""
    for flag in flags:
        if flag.startswith(MADE_FOLDERS) and flag[len(MADE_FOLDERS) :].isdigit():
            return int(flag[len(MADE_FOLDERS) :])
    return 0


@dataclass(frozen=True)
class ReadSource:
    """The file bytes a successful `view` showed and which of their lines (1-based, inclusive),
    so the history can keep a reference to them instead of the text (`read_refs`)."""

    data: bytes = field(repr=False)
    digest: str
    first: int
    last: int


@dataclass(frozen=True)
class CommandOutcome:
    """A command's tool_result text, its error flag and any security flags it raised."""

    content: str
    is_error: bool
    flags: tuple[str, ...] = ()
    kind: ResultKind | None = None
    """What became of it (see `result.ResultKind`); None: `ok` or `error` by the error flag."""
    read: ReadSource | None = field(default=None, compare=False, repr=False)
    """For a `view` of a file: the bytes its text shows."""


@dataclass(frozen=True)
class ParsedCommand:
    """A validated command: coerced arguments plus each path as sent, resolved and normalised.

    `parts` are the resolved paths relative to the root (links followed): what the command
    acts on, walked again on descriptors when it acts.
    """

    command: str
    args: dict[str, Any] = field(hash=False)
    raw_paths: tuple[str, ...]
    parts: tuple[tuple[str, ...], ...]
    virtual: tuple[str, ...]

    @property
    def echoed(self) -> tuple[str, ...]:
        """The paths as messages echo them (cut after 4,096 characters, rule M5)."""
        return tuple(echo(path) for path in self.raw_paths)


def is_mutating(command: str) -> bool:
    """True for the commands that can change the disk (everything but view)."""
    return command in MUTATING_COMMANDS


def well_formed(text: str) -> str:
    """Fold lone UTF-16 surrogates to U+FFFD, as the SDK's tool runner does before sending."""
    return _SURROGATE.sub("\ufffd", text)


def only_name_bytes(text: str) -> bool:
    """True if every lone surrogate in `text` stands for a byte of a name (`os.fsencode` gives
    the name back)."""
    return NO_BYTE.search(text) is None


def numbered(number: int, line: str) -> str:
    """One line as the tool shows it: the number right-aligned to width 6, a tab, the text."""
    return f"{str(number).rjust(LINE_NUMBER_WIDTH)}\t{line}"


def numbered_lines(lines: list[str], first: int) -> str:
    """`lines` numbered from `first`, as `view` shows them below its first line."""
    return "\n".join(numbered(first + index, line) for index, line in enumerate(lines))


def shown(value: object) -> str:
    """`str(value)` (cut as messages echo it), or a short description of a value nested too
    deeply."""
    try:
        return echo(str(value))
    except RecursionError:
        return f"<a {type(value).__name__} nested too deeply to show>"


def error(message: str, *flags: str, kind: ResultKind | None = None) -> CommandOutcome:
    """An error outcome with its text made safe to encode; one with security or secret flags
    is a refusal unless `kind` says otherwise."""
    return CommandOutcome(
        well_formed(message), True, tuple(flags), kind or (REFUSED if flags else None)
    )


def not_found(message: str) -> CommandOutcome:
    """An error outcome about a path that is not there."""
    return error(message, kind=NOT_FOUND)


def success(message: str) -> CommandOutcome:
    """A success outcome with its text made safe to encode."""
    return CommandOutcome(well_formed(message), False)


def failure_message(cmd: ParsedCommand, problem: Exception) -> str:
    """`Cannot <verb> <path>: <reason>` for a failure outside the command's own checks."""
    if isinstance(problem, OSError):
        reason = problem.strerror or str(problem) or type(problem).__name__
    else:
        reason = f"unexpected {type(problem).__name__}"
    return well_formed(f"Cannot {_VERBS[cmd.command]} {cmd.echoed[0]}: {reason}")
