"""`memtui changes`: the agent and outside changes that wait for review, one line per event."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING, Any

from memtui.cli.events import event_record, lines_cell, path_cell, review_fields
from memtui.cli.filters import add_filter_argument, event_query
from memtui.cli.shared import SINCE_HELP, history_to_list, parse_when
from memtui.cli.table import Layout, output_width, print_table, time_format
from memtui.cli.terminal import visible

if TYPE_CHECKING:
    from memtui.core.recording.event_query import EventQuery
    from memtui.core.recording.events import Event
    from memtui.core.recording.history import History
    from memtui.core.recording.reviews import Review

_DESCRIPTION = """\
List what agents and processes outside memtui changed in PATH that nobody has reviewed yet,
newest first: one line per change with its id, time, actor, command, path and the lines it
added and removed. Approve changes with `memtui approve PATH ID...`, undo one with
`memtui undo PATH ID` (which also marks it reviewed); the app's inbox (`c`) does the same.
FILTER words after PATH narrow the list as the inbox's filter does (`actor:agent since:7d`).

Changes the access policy held for your approval come first, oldest first, with the lines
approving them now would add and remove (`clash` when the file changed since and the changes
overlap): `memtui approve PATH ID` applies one, `memtui reject PATH ID` drops it.
With --json, one JSON object per change and line; a held change's has "status": "held" and
its "diff" against the file as it is now (decided ones, with --all: "approved" or "rejected").
"""
WAITING = Layout(("id", "time", "actor", "command", "path", "lines"), 2, (4,))
EVERY = Layout((*WAITING.headers, "reviewed by"), 2, (4, 6))
NOTHING = "Nothing waits for review."
NOTHING_AT_ALL = "No agent or outside changes."


def register(subparsers: Any) -> None:
    """Add the `changes` subcommand."""
    parser = subparsers.add_parser(
        "changes",
        help="list the agent and outside changes waiting for review",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", metavar="PATH", help="the memory folder")
    add_filter_argument(parser, "changes")
    parser.add_argument("--since", metavar="WHEN", type=parse_when, help=SINCE_HELP)
    parser.add_argument(
        "--actor",
        metavar="A",
        help='only changes by this actor ("agent:claude") or kind ("agent", "external")',
    )
    parser.add_argument(
        "--path",
        dest="file",
        metavar="P",
        help="only changes to this note or folder (a.md or /memories/a.md), under any earlier name",
    )
    parser.add_argument(
        "--all", action="store_true", help="also list reviewed changes, with who reviewed them"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object per change")


def change_json(event: Event, counts: tuple[int, int] | None, review: Review | None) -> str:
    """One change as a JSON line (valid UTF-8, control characters escaped)."""
    return event_record(
        event,
        added=None if counts is None else counts[0],
        removed=None if counts is None else counts[1],
        flags=list(event.flags),
        **review_fields(event, review),
    )


def _rows(
    events: list[Event],
    counts: dict[int, tuple[int, int] | None],
    reviews: dict[int, Review] | None,
    when: str,
) -> list[tuple[str, ...]]:
    """Cell texts per change (id, time, actor, command, path, lines[, reviewer]), escaped."""
    rows = []
    for event in events:
        cells = [
            str(event.id),
            time.strftime(when, time.localtime(event.time)),
            event.actor,
            event.command,
            path_cell(event),
            lines_cell(counts[event.id]),
        ]
        if reviews is not None:
            review = reviews.get(event.id)
            cells.append("" if review is None else review.reviewer)
        rows.append(tuple(visible(cell) for cell in cells))
    return rows


def _list(
    history: History, query: EventQuery, args: argparse.Namespace
) -> tuple[list[Event], dict[int, Review]]:
    """The changes the query asks for, and the review marks of those that have one."""
    from memtui.core.recording.inbox import changes

    events = changes(history, query, include_reviewed=args.all)
    return events, history.reviews(event.id for event in events) if args.all else {}


def _held(history: History, query: EventQuery, args: argparse.Namespace) -> list[Any]:
    """The held changes the query asks for (path, actor, time; oldest first), each shown
    against the file now."""
    from memtui.core.recording.proposals import Proposals
    from memtui.core.store import MemoryStore
    from memtui.notes.operations.deciding import held

    proposals = Proposals(history).listing(decided=args.all, path=query.path)
    actor = query.actor
    wanted = [
        proposal
        for proposal in proposals
        if (query.since is None or proposal.time >= query.since)
        and (actor is None or actor in (proposal.actor, proposal.actor.split(":")[0]))
    ]
    if not wanted:
        return []
    store = MemoryStore(history.root)
    return [held(store, proposal) for proposal in wanted]


def held_json(shown: Any) -> str:
    """One held change as a JSON line: the proposal, its status and its diff against now."""
    from memtui.cli.terminal import json_safe
    from memtui.core.recording.inbox import line_changes

    proposal = shown.proposal
    added, removed = line_changes(shown.now, shown.result)
    record = {
        "id": proposal.id,
        "time": proposal.time,
        "actor": proposal.actor,
        "session": proposal.session,
        "command": proposal.command,
        "path": proposal.path,
        "new_path": proposal.new_path,
        "status": proposal.decision or "held",
        "decided_by": proposal.decided_by,
        "decided_at": proposal.decided_time,
        "applied_event": proposal.applied_event,
        "clash": shown.clashes,
        "added": None if shown.clashes else added,
        "removed": None if shown.clashes else removed,
        "diff": "\n".join(shown.diff()),
    }
    return json_safe(json.dumps(record, ensure_ascii=False))


def _held_rows(held: list[Any], when: str) -> list[tuple[str, ...]]:
    """Cell texts per held change (id, time, actor, command, path, lines), escaped."""
    from memtui.core.recording.inbox import line_changes

    rows = []
    for shown in held:
        proposal = shown.proposal
        target = f"{proposal.path} -> {proposal.new_path}" if proposal.new_path else proposal.path
        lines = "clash" if shown.clashes else lines_cell(line_changes(shown.now, shown.result))
        if proposal.decision is not None:
            lines += f" ({proposal.decision} by {proposal.decided_by})"
        cells = (
            str(proposal.id),
            time.strftime(when, time.localtime(proposal.time)),
            proposal.actor,
            proposal.command,
            target,
            lines,
        )
        rows.append(tuple(visible(cell) for cell in cells))
    return rows


def _print_held(held: list[Any], width: int | None) -> None:
    """The held changes' table, under a line saying what to do with them."""
    print("Held for your approval (memtui approve PATH ID / memtui reject PATH ID):")
    rows = _held_rows(held, time_format(width))
    print_table(WAITING, rows, [""] * len(rows), width)


def run(args: argparse.Namespace) -> int:
    """Run `memtui changes`."""
    from memtui.core.recording.inbox import event_line_changes

    query = event_query("changes", args)
    if isinstance(query, int):
        return query
    history = history_to_list("changes", args.path)
    if isinstance(history, int):
        return history
    events, reviews = _list(history, query, args)
    counts = {event.id: event_line_changes(history, event) for event in events}
    held = _held(history, query, args)
    if args.json:
        for shown in held:
            sys.stdout.write(held_json(shown) + "\n")
        for event in events:
            sys.stdout.write(change_json(event, counts[event.id], reviews.get(event.id)) + "\n")
        return 0
    width = output_width()
    if held:
        _print_held(held, width)
        if not events:
            return 0
        print()
    if not events:
        print(NOTHING_AT_ALL if args.all else NOTHING)
        return 0
    rows = _rows(events, counts, reviews if args.all else None, time_format(width))
    print_table(EVERY if args.all else WAITING, rows, [""] * len(rows), width)
    return 0
