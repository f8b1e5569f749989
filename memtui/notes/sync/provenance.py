"""Who changed what, carried in commits: trailers that name the machine, the history events a
commit holds (their global ids) and the review marks made, and reading them back.

A change's global id is `<machine id>.<event id>` (`state.uid_of`); a commit lists its events
per path as ranges of ids (`Memtui-Change: 12,15-40 notes/a.md`), paths percent-encoded, so a
commit of hundreds of appends to one note stays a few lines. A commit made without memtui (plain
git) has no trailers; each of its files counts as one change with the id `git:<sha>:<path>`.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from memtui.core.actors import ActorError, check_actor
from memtui.notes.sync.context import MACHINE_NAME_MOST

MACHINE = "Memtui-Machine"
CHANGE = "Memtui-Change"
REVIEWED = "Memtui-Reviewed"
_TRAILER = re.compile(r"^(Memtui-[A-Za-z]+): (.*)$")
_RANGES = re.compile(r"^\d+(-\d+)?(,\d+(-\d+)?)*$")
MAX_RANGE = 1_000_000
"""The most ids the trailers of one commit may stand for, all ranges together (a hostile
commit cannot blow up: past it, its further trailers are passed over)."""


def quote_path(path: str) -> str:
    """A path for a trailer: percent-encoded bytes, `/` kept, never a blank or line break."""
    return urllib.parse.quote(path.encode("utf-8", "surrogateescape"), safe="/")


def unquote_path(text: str) -> str:
    """A trailer's path back as memtui spells names."""
    return urllib.parse.unquote_to_bytes(text).decode("utf-8", "surrogateescape")


def ranges(ids: Iterable[int]) -> str:
    """`1-3,7,9-10` for the ids 1, 2, 3, 7, 9, 10."""
    ordered = sorted(set(ids))
    runs: list[str] = []
    start = previous = None
    for number in ordered:
        if previous is not None and number == previous + 1:
            previous = number
            continue
        if start is not None:
            runs.append(str(start) if start == previous else f"{start}-{previous}")
        start = previous = number
    if start is not None:
        runs.append(str(start) if start == previous else f"{start}-{previous}")
    return ",".join(runs)


def expand(text: str, most: int = MAX_RANGE) -> list[int]:
    """The ids of a `ranges` text (an empty list for a malformed one, or one standing for more
    than `most` ids)."""
    if not _RANGES.match(text):
        return []
    ids: list[int] = []
    for run in text.split(","):
        low, _, high = run.partition("-")
        first, last = int(low), int(high or low)
        if last < first or len(ids) + last - first >= most:
            return []
        ids.extend(range(first, last + 1))
    return ids


@dataclass(frozen=True)
class ChangeLine:
    """Events of one commit on one path (and, for a move, the path it moved to)."""

    ids: tuple[int, ...]
    path: str
    new_path: str | None = None

    def touches(self, path: str) -> bool:
        """Whether these events changed `path` (the path itself, or a folder above it)."""
        return any(
            place is not None and (path == place or path.startswith(place + "/"))
            for place in (self.path, self.new_path)
        )


@dataclass(frozen=True)
class Mark:
    """A review mark: the change's global id, who reviewed it and when."""

    uid: str
    reviewer: str
    time: float


def machine_trailer(machine_id: str, machine: str) -> str:
    """The trailer naming the machine a commit was made on."""
    return f"{MACHINE}: {machine_id} {_one_line(machine)}"


def change_trailers(changes: Sequence[ChangeLine]) -> list[str]:
    """The trailers of a commit's events."""
    lines = []
    for change in changes:
        where = quote_path(change.path)
        if change.new_path is not None:
            where += " " + quote_path(change.new_path)
        lines.append(f"{CHANGE}: {ranges(change.ids)} {where}")
    return lines


def review_trailers(marks: Sequence[Mark]) -> list[str]:
    """The trailers of review marks, ids of one machine, reviewer and time as ranges."""
    grouped: dict[tuple[str, str, float], list[int]] = {}
    loose: list[Mark] = []
    for mark in marks:
        machine, _, number = mark.uid.rpartition(".")
        if machine and number.isdigit() and "." not in machine and ":" not in machine:
            grouped.setdefault((machine, mark.reviewer, mark.time), []).append(int(number))
        else:
            loose.append(mark)
    lines = [
        f"{REVIEWED}: {machine}.{ranges(ids)} {when!r} {_one_line(reviewer)}"
        for (machine, reviewer, when), ids in grouped.items()
    ]
    lines += [f"{REVIEWED}: {mark.uid} {mark.time!r} {_one_line(mark.reviewer)}" for mark in loose]
    return lines


def _one_line(text: str) -> str:
    """Text kept on one trailer line."""
    return " ".join(text.split())


@dataclass
class LogCommit:
    """A commit as the sync reads it: who, what it changed and the marks it carries."""

    sha: str
    author: str
    time: float
    machine_id: str | None = None
    machine: str | None = None
    changes: list[ChangeLine] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    ids_left: int = MAX_RANGE
    """How many more ids its trailers may stand for (see MAX_RANGE)."""

    def uids(self, path: str) -> list[str]:
        """The global ids of this commit's changes to `path`."""
        if self.machine_id is None:
            return [f"git:{self.sha}:{quote_path(path)}"] if path in self.files else []
        return [
            f"{self.machine_id}.{number}"
            for change in self.changes
            if change.touches(path)
            for number in change.ids
        ]


def log_command(since: str | None, until: str) -> tuple[str, ...]:
    """The git command listing the commits (merges left out) reachable from `until` and not
    from `since`, newest first, read by `log_commits`."""
    span = until if since is None else f"{since}..{until}"
    return ("log", "-z", "--no-merges", "--name-only", "--format=%x01%H%n%an%n%at%n%B", span)


def log_commits(raw: bytes) -> list[LogCommit]:
    """The commits in the output of `log_command`, newest first."""
    commits = []
    for chunk in raw.split(b"\x01"):
        if chunk:
            parsed = _parse_chunk(chunk)
            if parsed is not None:
                commits.append(parsed)
    return commits


def _parse_chunk(chunk: bytes) -> LogCommit | None:
    """One commit of `log_command`'s output, or None if it is not one."""
    text, _, files = chunk.partition(b"\0")
    head = text.decode("utf-8", "replace").split("\n", 3)
    if len(head) < 3 or not re.fullmatch(r"[0-9a-f]{40,64}", head[0]):
        return None
    try:
        when = float(head[2])
    except ValueError:
        when = 0.0
    commit = LogCommit(head[0], head[1], when)
    commit.files = [
        name.decode("utf-8", "surrogateescape") for name in files.lstrip(b"\n").split(b"\0") if name
    ]
    for line in (head[3] if len(head) > 3 else "").splitlines():
        _read_trailer(commit, line)
    return commit


def _read_trailer(commit: LogCommit, line: str) -> None:
    """Take one message line into `commit` if it is one of memtui's trailers."""
    found = _TRAILER.match(line.strip())
    if found is None:
        return
    key, value = found.group(1), found.group(2)
    if key == MACHINE:
        machine_id, _, name = value.partition(" ")
        if re.fullmatch(r"[0-9a-f]{8,64}", machine_id):
            commit.machine_id = machine_id
            commit.machine = " ".join(name.split())[:MACHINE_NAME_MOST] or machine_id
    elif key == CHANGE:
        parts = value.split(" ")
        ids = expand(parts[0], commit.ids_left)
        commit.ids_left -= len(ids)
        if ids and len(parts) in (2, 3):
            new_path = unquote_path(parts[2]) if len(parts) == 3 else None
            commit.changes.append(ChangeLine(tuple(ids), unquote_path(parts[1]), new_path))
    elif key == REVIEWED:
        _read_marks(commit, value)


def _read_marks(commit: LogCommit, value: str) -> None:
    """The marks of one `Memtui-Reviewed` trailer."""
    parts = value.split(" ", 2)
    if len(parts) != 3:
        return
    uid, when, reviewer = parts
    try:
        time = float(when)
        check_actor(reviewer)
    except (ValueError, ActorError):
        return
    machine, dot, numbers = uid.partition(".")
    if dot and re.fullmatch(r"[0-9a-f]{8,64}", machine) and _RANGES.match(numbers):
        ids = expand(numbers, commit.ids_left)
        commit.ids_left -= len(ids)
        commit.marks += [Mark(f"{machine}.{n}", reviewer, time) for n in ids]
    elif uid.startswith("git:"):
        commit.marks.append(Mark(uid, reviewer, time))
