"""What several subcommands share: one-line error reports, the history check, index progress."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any


def fail(command: str, message: object, status: int = 2) -> int:
    """Print `memtui <command>: <message>` on stderr; returns `status` as the exit status."""
    print(f"memtui {command}: {message}", file=sys.stderr)
    return status


def open_failure(command: str, path: str, error: Exception) -> int:
    """Report a store that would not open: an OS error names the folder, others speak alone."""
    if isinstance(error, OSError):
        return fail(command, f"{path}: {error.strerror or error}")
    return fail(command, error)


def has_history(root: Path) -> bool:
    """Whether anything sits where `root`'s history goes (a folder there is a broken history)."""
    from memtui.core.history import DB_NAME
    from memtui.core.lock import META_DIR_NAME

    return os.path.lexists(root / META_DIR_NAME / DB_NAME)


def open_history(root: Path) -> Any | None:
    """The store's history if it has one (never creates it), else None."""
    if not has_history(root):
        return None
    from memtui.core.history import History

    return History(root)


def progress_printer() -> Any:
    """A load-progress callback that draws on stderr when it is a terminal, else None."""
    if not sys.stderr.isatty():
        return None

    def report(done: int, total: int) -> None:
        end = "\n" if done >= total else ""
        print(f"\rindexing {done}/{total} notes", end=end, file=sys.stderr, flush=True)

    return report
