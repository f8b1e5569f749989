"""`memtui changes`: the agent and outside changes that wait for review, one line per event."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING, Any

from memtui.cli.event_diff import diff_json, print_event
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
With --diff, each change with what it changed as a unified diff (coloured on a terminal, plain
in a pipe; `memtui show PATH ID` shows one). With --json, one JSON object per change and line
(with --diff, its `diff` lines too).

Changes the access policy held for your approval come first, oldest first, with the lines
approving them now would add and remove (`clash` when the file changed since and the changes
overlap): `memtui approve PATH ID` applies one, `memtui reject PATH ID` drops it. In JSON a
held change's object has "status": "held" and its "diff" against the file as it is now
(decided ones, with --all: "approved" or "rejected").
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
    parser.add_argument(
        "--diff", action="store_true", help="show each change's diff, before it is approved"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object per change")


def change_json(
    event: Event,
    counts: tuple[int, int] | None,
    review: Review | None,
    diff: list[str] | None = None,
) -> str:
    """One change as a JSON line (valid UTF-8, control characters escaped), with its `diff`
    lines when given."""
    extra = {} if diff is None else {"diff": diff}
    return event_record(
        event,
        added=None if counts is None else counts[0],
        removed=None if counts is None else counts[1],
        flags=list(event.flags),
        **review_fields(event, review),
        **extra,
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


def _sync_waiting(history: History) -> tuple[list[Any], dict[str, str]]:
    """The sync clashes and held-back files waiting (none for a store that never synced)."""
    from memtui.notes.sync.state import SyncState

    state = SyncState.existing(history)
    if state is None:
        return [], {}
    return state.clashes(), state.held()


def sync_records(clashes: list[Any], held: dict[str, str]) -> list[str]:
    """JSON lines of the sync's waiting items: each clash with its three texts, each file held
    back with the reason."""
    from memtui.notes.sync.resolving import clash_texts, describe

    records = []
    for clash in clashes:
        texts = clash_texts(clash)
        record = {
            "clash": clash.id,
            "time": clash.time,
            "path": clash.virtual,
            "kind": clash.kind,
            "actor": clash.actor,
            "machine": clash.machine,
            "commit": clash.commit,
            "summary": describe(clash),
            "base": texts.base,
            "ours": texts.ours,
            "theirs": texts.theirs,
        }
        records.append(json.dumps(record, ensure_ascii=True))
    for name, reason in held.items():
        records.append(json.dumps({"held": "/memories/" + name, "reason": reason}))
    return records


def _print_json(
    history: Any,
    events: list[Any],
    counts: dict[int, Any],
    reviews: Any,
    waiting: tuple[Any, Any],
    args: argparse.Namespace,
) -> None:
    """`--json`: the sync's waiting clashes and held files, then one line per change."""
    for record in sync_records(*waiting):
        sys.stdout.write(record + "\n")
    for event in events:
        diff = diff_json(history, event) if args.diff else None
        line = change_json(event, counts[event.id], reviews.get(event.id), diff)
        sys.stdout.write(line + "\n")


def _print_waiting(
    args: argparse.Namespace, clashes: list[Any], held_back: dict[str, str], proposals: list[Any]
) -> bool:
    """What waits beside the changes: the sync's clashes and held-back files, then the changes
    the access policy held; whether anything was printed."""
    if clashes or held_back:
        from memtui.cli.sync_cmd import waiting_lines

        for line in waiting_lines(args.path, clashes, held_back):
            print(visible(line))
    if proposals:
        _print_held(proposals, output_width())
    return bool(clashes or held_back or proposals)


def _print_text(
    history: Any, events: list[Any], counts: dict[int, Any], reviews: Any, args: argparse.Namespace
) -> None:
    """The changes as a table, or each with its diff (`--diff`)."""
    if not events:
        print(NOTHING_AT_ALL if args.all else NOTHING)
    elif args.diff:
        for number, event in enumerate(events):
            if number:
                print()
            print_event(history, event, counts[event.id])
    else:
        width = output_width()
        rows = _rows(events, counts, reviews if args.all else None, time_format(width))
        print_table(EVERY if args.all else WAITING, rows, [""] * len(rows), width)


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
    clashes, held_back = _sync_waiting(history)
    proposals = _held(history, query, args)
    if args.json:
        for shown in proposals:
            sys.stdout.write(held_json(shown) + "\n")
        _print_json(history, events, counts, reviews, (clashes, held_back), args)
        return 0
    if _print_waiting(args, clashes, held_back, proposals):
        if not events:
            return 0
        if proposals:
            print()
    _print_text(history, events, counts, reviews, args)
    return 0
