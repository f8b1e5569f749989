"""What several subcommands share: one-line argument errors, the history check, index progress."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TextIO

from memtui.core import timeframe
from memtui.core.reporting import fail, open_failure


class OneLineParser(argparse.ArgumentParser):
    """An argument parser that reports a bad command line as `<prog>: <message>` and exits 2.

    `--help` still prints the whole help; subparsers added to it are of this class too.
    """

    def error(self, message: str) -> NoReturn:
        """Print the problem on one line of stderr (no usage) and exit with status 2."""
        from memtui.cli.terminal import visible

        self.exit(2, f"{self.prog}: {visible(message.removeprefix('argument '))}\n")


LARGEST_NUMBER = (1 << 63) - 1
"""The largest whole number an argument may be: what SQLite stores."""


def whole_number(text: str) -> int:
    """`int(text)` for an argument; a one-line argparse error when it is not a whole number or
    is beyond what SQLite stores (an event id, a limit)."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if abs(number) > LARGEST_NUMBER:
        raise argparse.ArgumentTypeError(f"{text!r} is too large (at most {LARGEST_NUMBER:,})")
    return number


def parse_when(value: str, now: float | None = None) -> float:
    """`--since WHEN` (a timeframe ago or an ISO date) as a unix time; a one-line argparse error
    otherwise (`memtui.core.timeframe.parse_when` reads it)."""
    try:
        return timeframe.parse_when(value, now)
    except ValueError as problem:
        raise argparse.ArgumentTypeError(str(problem)) from None


SINCE_HELP = (
    "only events since WHEN: 7d, 12h, 30m, 2 weeks, 1 month, 1y, today, yesterday, or an ISO "
    "date/time"
)


ACTOR_HELP = (
    'who is acting, recorded as "human:NAME" (default: MEMTUI_ACTOR, else the config\'s '
    "actor, else your login name)"
)


def add_actor_option(parser: argparse.ArgumentParser) -> None:
    """The `--actor NAME` option of the commands a person runs."""
    parser.add_argument("--actor", metavar="NAME", default=None, help=ACTOR_HELP)


def human_store(command: str, path: str, actor: str | None, *, recover: bool = True) -> Any:
    """The store at `path` acting as the person (`--actor NAME`, else the default human), or
    the exit status after a one-line report (a bad actor, config or folder). Without `recover`,
    its history is opened but start-up recovery is left to the command (a sync runs it while
    its fetch runs)."""
    from memtui.core.actors import ActorError, human_actor
    from memtui.core.config import ConfigError, default_human_actor, load_settings
    from memtui.core.recording.database import HistoryCorrupt
    from memtui.core.store import MemoryStore

    root = Path(path)
    if not root.is_dir():
        return fail(command, f"{path} is not a folder")
    try:
        settings = load_settings()
        who = default_human_actor(settings) if actor is None else human_actor(actor)
        store = MemoryStore(root, actor=who, settings=settings)
        if recover:
            store.ensure_recovered()  # here, so a store that cannot open is reported in one line
        else:
            store.history_before_recovery()
        return store
    except ActorError as error:
        return fail(command, f"{'login name' if actor is None else '--actor'}: {error}")
    except (ConfigError, HistoryCorrupt) as error:
        return fail(command, error)
    except OSError as error:
        return open_failure(command, path, error)


def ask(question: str) -> bool | None:
    """Ask a yes/no `question` on the terminal (`[y/N]` added); None when stdin or stdout is
    not a terminal to ask on."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return None
    try:
        answer = input(f"{question} [y/N] ")
    except (EOFError, KeyboardInterrupt):
        print()
        return False
    return answer.strip().lower() in ("y", "yes")


def report_skipped(command: str, problems: list[str]) -> None:
    """Name each entry the scan skipped on stderr, control characters made visible."""
    from memtui.cli.terminal import visible

    for problem in problems:
        fail(command, f"skipped {visible(problem)}")


def has_history(root: Path) -> bool:
    """Whether anything sits where `root`'s history goes (a folder there is a broken history)."""
    from memtui.core.recording.database import DB_NAME
    from memtui.core.resolving.lock import META_DIR_NAME

    return os.path.lexists(root / META_DIR_NAME / DB_NAME)


def open_history(root: Path) -> Any | None:
    """The store's history if it has one (never creates it), else None.

    Start-up recovery runs first, as it does for `memtui tool` and the app, so changes made
    outside memtui since it last looked are recorded as `external` events (no note is changed).
    A store that cannot be written (no lock, no recording) is read as its history stands.
    """
    if not has_history(root):
        return None
    from memtui.core.recording.history import History
    from memtui.core.store import MemoryStore

    try:
        return MemoryStore(root).history
    except OSError:
        return History(root)


def reading_workspace(root: Path, settings: Any) -> Any:
    """A Workspace on `root` for a command that reads (its store acts as `external`, its
    history opened on first use), as `memtui stale` and `memtui budget` need."""
    from memtui.core.store import MemoryStore
    from memtui.notes.workspace import Workspace

    return Workspace(
        lambda: MemoryStore(root, actor="external", settings=settings),
        root=root,
        history=lambda: open_history(root),
    )


def history_to_list(command: str, path: str) -> Any:
    """The history of the store at `path` for a command that lists it (`open_history`), or the
    exit status after one line saying why not: not a folder (2), no history yet (0, said on
    stderr, nothing created), a history that cannot be read (2)."""
    from memtui.cli.terminal import visible
    from memtui.core.recording.database import HistoryCorrupt

    root = Path(path)
    if not root.is_dir():
        return fail(command, f"{path} is not a folder")
    if not has_history(root):
        print(f"memtui {command}: {visible(path)}: no history yet", file=sys.stderr)
        return 0
    try:
        history = open_history(root)
    except HistoryCorrupt as error:
        return fail(command, error)
    return 0 if history is None else history


PROGRESS_DELAY = 0.5
"""Seconds of work before a progress line appears: quicker work (a warm cache) shows none."""
CLEAR_LINE = "\r\x1b[K"


class ProgressLine:
    """A progress callback `(done, total)` drawing `label done/total notes` on one line.

    Nothing is drawn until the work has taken `delay` seconds, and the line is cleared when the
    work is done, so a finished command leaves no progress behind.
    """

    def __init__(
        self,
        label: str,
        stream: TextIO,
        *,
        delay: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.label = label
        self.stream = stream
        self.delay = PROGRESS_DELAY if delay is None else delay
        self.clock = clock
        self.started = clock()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        """Draw the count, or clear the line once `done` reaches `total`."""
        if done >= total:
            if self.shown:
                self.stream.write(CLEAR_LINE)
                self.stream.flush()
                self.shown = False
            return
        if not self.shown and self.clock() - self.started < self.delay:
            return
        self.stream.write(f"\r{self.label} {done}/{total} notes\x1b[K")
        self.stream.flush()
        self.shown = True


def progress_printer(label: str = "indexing") -> ProgressLine | None:
    """A ProgressLine on stderr, or None when stderr is not a terminal (pipes and logs)."""
    if not sys.stderr.isatty():
        return None
    return ProgressLine(label, sys.stderr)
