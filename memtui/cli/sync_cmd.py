"""`memtui sync`: the store made a git repository with a remote, and synced with it."""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memtui.cli.shared import add_actor_option, human_store
from memtui.cli.terminal import visible
from memtui.core.plurals import count
from memtui.core.reporting import fail

if TYPE_CHECKING:
    from memtui.notes.sync import SyncReport
    from memtui.notes.sync.head_start import HeadStart
    from memtui.notes.sync.state import Clash

_DESCRIPTION = """\
Sync the memory folder PATH with a git remote: commit what changed here (each actor's changes
as its own commit, the history's event ids in trailers), fetch, merge the other machines'
changes by memtui's rules (different lines combine, lines added at the same place are all
kept, the same lines changed two ways keep this machine's text and wait for you as a clash;
never conflict markers), and push (never forced).

Run it once with --remote URL (any git remote: ssh, https, a local path): a missing or empty
PATH is cloned; a store with files and an empty remote is committed and pushed; a store with
files and a non-empty remote joins it. memtui's own folder (.memtui: index, history, and the
repository itself, in .memtui/git) is never committed. After that, `memtui sync PATH` syncs.

Exit status: 0 in sync with nothing waiting for you; 1 in sync, with clashes or files held back
(a likely secret) waiting, one line each (resolve a clash with `memtui resolve PATH ID`);
2 on an error (no remote, authentication, network: one line).
"""


WAIT = 60.0
"""Seconds `memtui sync` waits for another sync of the store to end."""


def register(subparsers: Any) -> None:
    """Add the `sync` subcommand."""
    parser = subparsers.add_parser(
        "sync",
        help="sync the memory folder with a git remote",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", metavar="PATH", help="the memory folder")
    parser.add_argument("--remote", metavar="URL", help="set up (or change) the git remote")
    parser.add_argument(
        "--machine",
        metavar="NAME",
        help="this machine's name, kept for later syncs (default: [sync] machine, else the name "
        "given last, else the host)",
    )
    add_actor_option(parser)


def run(args: argparse.Namespace) -> int:
    """Run `memtui sync`: 0 in sync, 1 something waits, 2 error."""
    root = Path(args.path).expanduser().absolute()
    head = _head_start(root) if args.remote is None else None
    try:
        return _sync(args, root, head)
    finally:
        if head is not None:
            head.release()


def _head_start(root: Path) -> HeadStart | None:
    """The sync's lock taken and the fetch started before the store and the sync's machinery
    load (git fetches while Python imports them); None when the store is not set up for it."""
    from memtui.notes.sync.head_start import head_start

    return head_start(root, wait=0.0) if root.is_dir() else None


def _sync(args: argparse.Namespace, root: Path, head: HeadStart | None) -> int:
    """`run` once the head start (if any) is under way."""
    gc.disable()  # what the imports make lives as long as this process: no collection needed
    try:
        from memtui.notes.sync import SyncError, sync_store
    finally:
        gc.freeze()
        gc.enable()

    cloned = None
    if args.remote is not None:
        try:
            cloned = _clone(root, args.remote, args.machine)
        except SyncError as problem:
            return fail("sync", visible(str(problem)))
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
    store = human_store("sync", str(root), args.actor, recover=False)
    if isinstance(store, int):
        return store
    try:
        report = sync_store(
            store, remote=args.remote, machine=args.machine, progress=_progress(), head=head
        )
    except SyncError as problem:
        return fail("sync", visible(str(problem)))
    finally:
        _clear_progress()
        store.close()
    if cloned is not None:
        print(visible(f"Cloned {args.remote} into {root}."))
    return report_sync(report, args.path)


def _clone(root: Path, url: str, machine: str | None) -> str | None:
    """Clone `url` into an empty `root` before memtui first opens it; the commit, or None."""
    from memtui.core.config import ConfigError, load_settings
    from memtui.notes.sync.context import committer_for, machine_name
    from memtui.notes.sync.git import Git
    from memtui.notes.sync.setup import clone_into_empty, is_empty_store

    if not is_empty_store(root):
        return None
    try:
        configured = load_settings().sync.machine
    except ConfigError:
        configured = None
    git = Git.for_store(root.absolute(), committer_for(machine_name(machine or configured)))
    return clone_into_empty(git, url)


def _progress() -> Any:
    """A progress callback drawing one line on stderr, or None when it is not a terminal."""
    if not sys.stderr.isatty():
        return None

    def show(text: str) -> None:
        sys.stderr.write(f"\rsync: {text}…\x1b[K")
        sys.stderr.flush()

    return show


def _clear_progress() -> None:
    """Clear the progress line."""
    if sys.stderr.isatty():
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()


def summary(report: SyncReport) -> str:
    """The first line: in sync with what, and what moved."""
    done = []
    if report.committed:
        done.append(f"committed {count(report.committed, 'file')}")
    if report.pulled:
        done.append(f"pulled {count(report.pulled, 'file')}")
    if report.marks_sent or report.marks_received:
        done.append(f"review marks {report.marks_sent:,} sent, {report.marks_received:,} received")
    if report.pushed:
        done.append("pushed")
    what = ", ".join(done) if done else "nothing to do"
    return f"In sync with {report.remote} ({report.branch}): {what}."


def waiting_lines(path: str, clashes: list[Clash], held: dict[str, str]) -> list[str]:
    """One line per thing waiting for a person: clashes, then files held back."""
    from memtui.notes.sync.resolving import describe

    lines = [
        f"clash {clash.id}: {clash.virtual}: {describe(clash)} (memtui resolve {path} {clash.id})"
        for clash in clashes
    ]
    lines += [f"held: /memories/{name}: {reason}" for name, reason in held.items()]
    return lines


def report_sync(report: SyncReport, path: str) -> int:
    """Print what the sync did and what waits; the exit status."""
    print(visible(summary(report)))
    for ref in report.rescued:
        print(
            visible(
                f"Kept this machine's earlier commits, which the branch no longer held, under {ref}"
            )
        )
    lines = waiting_lines(path, report.clashes, report.held)
    if lines:
        print(f"Waiting for you ({count(len(lines), 'item')}):")
        for line in lines:
            print(visible(line))
    return 1 if report.waiting else 0
