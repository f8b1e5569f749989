"""The store as it was: every file and its bytes at a past moment (a time or a history event),
rebuilt from the history by replaying its changes (renames, deletes and folder moves included),
each file's bytes taken from the history's kept content.

Read-only: nothing here changes the store. A file whose bytes the history did not keep (larger
than `max_file_size` when it was written) is named as such, never guessed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from memtui.core.opening.recovery import known_files
from memtui.core.parsing.paths import VIRTUAL_ROOT, from_relpath, to_relpath
from memtui.core.recording.events import Event
from memtui.core.recording.history import History


class BeforeHistory(ValueError):
    """The moment asked for is before the history's first event: nothing is known of it."""


class NotThen(LookupError):
    """A file that was not in the store at that moment, or whose bytes were not kept."""


@dataclass(frozen=True)
class StoreAsOf:
    """The files of a store at one moment: relpath -> sha256 of their bytes then."""

    when: float
    """The moment: the time asked for, or the time of the event asked for."""
    event_id: int | None
    """The last event replayed (the one asked for, or the last at or before `when`)."""
    files: dict[str, str]

    def paths(self) -> list[str]:
        """Every file's relpath, sorted."""
        return sorted(self.files)

    def content(self, history: History, relpath: str) -> bytes:
        """A file's bytes then; NotThen when it was not there or its bytes were not kept."""
        digest = self.files.get(relpath)
        if digest is None:
            raise NotThen(f"{from_relpath(relpath)} was not in the store then")
        data = history.blob(digest)
        if data is None:
            raise NotThen(f"{from_relpath(relpath)}: the history did not keep its content then")
        return data


def shown_time(when: float) -> str:
    """A unix time as a local date and time to the second."""
    return datetime.fromtimestamp(when).strftime("%Y-%m-%d %H:%M:%S")


def _check_begun(history: History, when: float) -> None:
    """BeforeHistory when `when` is before the history's first event (or it has none)."""
    since = history.recording_since()
    if since is None:
        raise BeforeHistory("the history is empty: nothing is known of the store before now")
    if when < since:
        raise BeforeHistory(
            f"{shown_time(when)} is before the history began ({shown_time(since)}): "
            "nothing is known of the store then"
        )


def _relpaths(state: dict[str, str]) -> dict[str, str]:
    """Virtual path -> digest as relpath -> digest (the root itself left out)."""
    prefix = VIRTUAL_ROOT + "/"
    return {to_relpath(path): digest for path, digest in state.items() if path.startswith(prefix)}


def store_at(history: History, when: float) -> StoreAsOf:
    """The store at unix time `when`; BeforeHistory before the history began."""
    _check_begun(history, when)
    last = history.events(until=when, limit=1)
    event_id = last[0].id if last else None
    return StoreAsOf(when, event_id, _relpaths(known_files(history, until=when)))


def store_after(history: History, event: Event) -> StoreAsOf:
    """The store just after `event` (every event up to and including it replayed)."""
    return StoreAsOf(event.time, event.id, _relpaths(known_files(history, through=event.id)))


def file_at(history: History, relpath: str, when: float) -> bytes:
    """One file's bytes at `when` (BeforeHistory, NotThen)."""
    return store_at(history, when).content(history, relpath)


def write_tree(as_of: StoreAsOf, history: History, dest: Path) -> Iterator[str]:
    """Write every file of `as_of` under `dest` (a new or empty folder), byte for byte; yields
    one line for each file that could not be written."""
    dest.mkdir(parents=True, exist_ok=True)
    if any(dest.iterdir()):
        raise FileExistsError(f"{dest} is not empty")
    for relpath in as_of.paths():
        parts = relpath.split("/")
        if any(part in ("", ".", "..") for part in parts):
            yield f"{from_relpath(relpath)}: not a name a file can have here"
            continue
        try:
            data = as_of.content(history, relpath)
        except NotThen as problem:
            yield str(problem)
            continue
        target = dest.joinpath(*parts)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "xb") as out:
                out.write(data)
        except OSError as problem:
            yield f"{from_relpath(relpath)}: {problem.strerror or problem}"
