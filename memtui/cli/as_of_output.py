"""The store as it was, for `memtui export --as-of` and `memtui show --as-of`: the history opened
for it, the moment checked, and a file's bytes as a record or on the terminal."""

from __future__ import annotations

import base64
import sys
from pathlib import Path
from typing import Any

from memtui.cli.shared import history_to_list
from memtui.cli.terminal import visible
from memtui.core.display import visible_text
from memtui.core.reporting import fail

AS_OF_HELP = (
    "the store as it was at WHEN, rebuilt from the history (the same forms as --since: 7d, "
    "12h, 2 weeks, yesterday, or an ISO date/time)"
)


def as_of_store(command: str, path: str, when: float) -> tuple[Any, Any] | int:
    """(history, the store as of `when`), or the exit status after one line saying why not
    (no history, unreadable, a time before the history began)."""
    from memtui.notes.as_of import BeforeHistory, store_at

    history = history_to_list(command, path)
    if isinstance(history, int):
        return history or 2
    try:
        return history, store_at(history, when)
    except BeforeHistory as problem:
        return fail(command, problem)


def file_record(relpath: str, data: bytes) -> dict[str, Any]:
    """One file as a JSON record: its text when it is UTF-8, else its bytes in base64."""
    try:
        return {"path": relpath, "text": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"path": relpath, "base64": base64.b64encode(data).decode("ascii")}


def write_bytes(data: bytes) -> None:
    """A file's bytes on stdout: exact in a pipe, display-safe on a terminal."""
    if sys.stdout.isatty():
        sys.stdout.write(visible_text(data.decode("utf-8", errors="replace")))
        sys.stdout.flush()
        return
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def write_folder(command: str, history: Any, as_of: Any, dest: str) -> int:
    """Every file of `as_of` written under `dest` (new or empty); 1 if any could not be."""
    from memtui.notes.as_of import write_tree

    try:
        problems = list(write_tree(as_of, history, Path(dest)))
    except FileExistsError as problem:
        return fail(command, problem)
    except OSError as problem:
        return fail(command, f"{dest}: {problem.strerror or problem}")
    for line in problems:
        print(f"memtui {command}: {visible(line)}", file=sys.stderr)
    return 1 if problems else 0
