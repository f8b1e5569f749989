"""`memtui show`: one file of a memory folder as it was at a moment (FILE --as-of WHEN), or one
event of its history (ID)."""

from __future__ import annotations

import argparse
from typing import Any

from memtui.cli.as_of_output import AS_OF_HELP, as_of_store, write_bytes
from memtui.cli.shared import history_to_list, parse_when
from memtui.core.reporting import fail


def register(subparsers: Any) -> None:
    """Add the `show` subcommand."""
    parser = subparsers.add_parser(
        "show",
        help="a file as it was at a moment (FILE --as-of WHEN), or one event (ID)",
        description=(
            "With FILE and --as-of WHEN: the file's bytes as they were then, rebuilt from the "
            "history (exact in a pipe; on a terminal, control characters shown as symbols). "
            "FILE is its name then, or its name now when it was renamed since. A time before "
            "the history began is refused in one line. With an event ID: that event."
        ),
    )
    parser.add_argument("path", metavar="PATH", help="the memory folder (what /memories maps to)")
    parser.add_argument(
        "target", metavar="FILE|ID", help="a file (with --as-of), or an event id of the history"
    )
    parser.add_argument("--as-of", metavar="WHEN", type=parse_when, help=AS_OF_HELP)


def _names(history: Any, relpath: str) -> list[str]:
    """The relpaths a file may have had: the one given, then its earlier names (newest first)."""
    from memtui.core.parsing.paths import as_virtual, to_relpath

    names = [relpath]
    for span in history.lineage(as_virtual(relpath)).spans:
        name = to_relpath(span.path)
        if name not in names:
            names.append(name)
    return names


def show_as_of(args: argparse.Namespace) -> int:
    """`memtui show PATH FILE --as-of WHEN`."""
    from memtui.core.parsing.paths import as_virtual, to_relpath

    found = as_of_store("show", args.path, args.as_of)
    if isinstance(found, int):
        return found
    history, as_of = found
    relpath = to_relpath(as_virtual(args.target))
    for name in _names(history, relpath):
        if name in as_of.files:
            from memtui.notes.as_of import NotThen

            try:
                write_bytes(as_of.content(history, name))
            except NotThen as problem:
                return fail("show", problem)
            return 0
    return fail("show", f"{as_virtual(args.target)} was not in the store then")


def show_event(args: argparse.Namespace) -> int:
    """`memtui show PATH ID`: who did what to which file and when, then what it changed as a
    unified diff (coloured on a terminal, plain in a pipe); 1 when there is no such event."""
    from memtui.cli.event_diff import print_event
    from memtui.core.recording.history import HistoryCorrupt
    from memtui.core.recording.inbox import event_line_changes

    if not args.target.isdigit():
        return fail("show", f"{args.target!r} is not an event id (a file needs --as-of WHEN)")
    event_id = int(args.target)
    history = history_to_list("show", args.path)
    if isinstance(history, int):
        return history or fail("show", f"no event {event_id}: {args.path} has no history", 1)
    try:
        event = history.event(event_id)
        if event is None:
            return fail("show", f"no event {event_id} in {args.path}'s history (see memtui log)", 1)
        print_event(history, event, event_line_changes(history, event))
    except HistoryCorrupt as error:
        return fail("show", error)
    return 0


def run(args: argparse.Namespace) -> int:
    """Run `memtui show`: 0 shown, 1 no such event or file then, 2 no readable history."""
    if args.as_of is not None:
        return show_as_of(args)
    return show_event(args)
