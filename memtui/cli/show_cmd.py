"""`memtui show`: one history event and what it changed, before anyone approves it."""

from __future__ import annotations

import argparse
from typing import Any

from memtui.cli.event_diff import print_event
from memtui.cli.shared import history_to_list, whole_number
from memtui.core.reporting import fail

_DESCRIPTION = """\
Show one event of PATH's history (an id from `memtui changes PATH` or `memtui log PATH`): who
did what to which note and when, then what it changed as a unified diff, coloured on a
terminal and plain in a pipe (what a read returned; the error a refused change got).
"""


def register(subparsers: Any) -> None:
    """Add the `show` subcommand."""
    parser = subparsers.add_parser(
        "show",
        help="show one history event and its diff",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", metavar="PATH", help="the memory folder")
    parser.add_argument("event_id", metavar="ID", type=whole_number, help="the event id to show")


def run(args: argparse.Namespace) -> int:
    """Run `memtui show`: 0 shown, 1 no such event, 2 no readable history."""
    from memtui.core.recording.history import HistoryCorrupt
    from memtui.core.recording.inbox import event_line_changes

    history = history_to_list("show", args.path)
    if isinstance(history, int):
        return history or fail("show", f"no event {args.event_id}: {args.path} has no history", 1)
    try:
        event = history.event(args.event_id)
        if event is None:
            return fail(
                "show", f"no event {args.event_id} in {args.path}'s history (see memtui log)", 1
            )
        print_event(history, event, event_line_changes(history, event))
    except HistoryCorrupt as error:
        return fail("show", error)
    return 0
