"""What several subcommands share: one-line argument errors, the history check, index progress."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

from memtui.core.reporting import fail


class OneLineParser(argparse.ArgumentParser):
    """An argument parser that reports a bad command line as `<prog>: <message>` and exits 2.

    `--help` still prints the whole help; subparsers added to it are of this class too.
    """

    def error(self, message: str) -> NoReturn:
        """Print the problem on one line of stderr (no usage) and exit with status 2."""
        from memtui.cli.terminal import visible

        self.exit(2, f"{self.prog}: {visible(message.removeprefix('argument '))}\n")


def whole_number(text: str) -> int:
    """`int(text)` for an argument; a one-line argparse error when it is not a whole number."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def report_skipped(command: str, problems: list[str]) -> None:
    """Name each entry the scan skipped on stderr, control characters made visible."""
    from memtui.cli.terminal import visible

    for problem in problems:
        fail(command, f"skipped {visible(problem)}")


def has_history(root: Path) -> bool:
    """Whether anything sits where `root`'s history goes (a folder there is a broken history)."""
    from memtui.core.history import DB_NAME
    from memtui.core.lock import META_DIR_NAME

    return os.path.lexists(root / META_DIR_NAME / DB_NAME)


def open_history(root: Path) -> Any | None:
    """The store's history if it has one (never creates it), else None.

    Start-up recovery runs first, as it does for `memtui tool` and the app, so changes made
    outside memtui since it last looked are recorded as `external` events (no note is changed).
    A store that cannot be written (no lock, no recording) is read as its history stands.
    """
    if not has_history(root):
        return None
    from memtui.core.history import History
    from memtui.core.store import MemoryStore

    try:
        return MemoryStore(root).history
    except OSError:
        return History(root)


def progress_printer(label: str = "indexing", unit: str = "files") -> Any:
    """A progress callback `(done, total)` that draws `label done/total files` on stderr.

    None when stderr is not a terminal, so pipes and logs get no progress lines; nothing is
    drawn when there is nothing to do (total 0).
    """
    if not sys.stderr.isatty():
        return None

    def report(done: int, total: int) -> None:
        if total == 0:
            return
        end = "\n" if done >= total else ""
        print(f"\r{label} {done}/{total} {unit}", end=end, file=sys.stderr, flush=True)

    return report
