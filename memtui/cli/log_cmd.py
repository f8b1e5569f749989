"""`memtui log`: the history of a memory folder as a table or JSON lines."""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING, Any

from memtui.cli.events import event_record, path_cell, review_fields
from memtui.cli.filters import add_filter_argument, event_query
from memtui.cli.shared import (
    SINCE_HELP,
    history_to_list,
    parse_when,
    whole_number,
)
from memtui.cli.table import Layout, output_width, print_table, time_format
from memtui.cli.terminal import visible
from memtui.core.recording.entries import Entry, listed_entries
from memtui.core.recording.result_line import first_line

if TYPE_CHECKING:
    from memtui.core.recording.events import Event
    from memtui.core.recording.reviews import Review

DEFAULT_LIMIT = 100

_DESCRIPTION = """\
Show PATH's history: every command an agent or a person ran (reads, refused and failed calls
included) and every change made outside memtui, newest first. Filters combine: FILTER words
after PATH as in the app (`memtui log ~/memories actor:agent since:2 weeks path:projects/`) or
the flags below. With --json, one JSON object per event and line.
"""


def register(subparsers: Any) -> None:
    """Add the `log` subcommand."""
    parser = subparsers.add_parser(
        "log",
        help="show the history of a memory folder",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", metavar="PATH", help="the memory folder")
    add_filter_argument(parser, "events")
    parser.add_argument(
        "--actor",
        metavar="A",
        help='only this actor ("agent:claude") or kind ("agent", "human", "external")',
    )
    parser.add_argument(
        "--path",
        dest="file",
        metavar="P",
        help=(
            "only events on this file or folder (/memories/a.md or a.md; folders include contents),"
            " under every name it had before (renames and folder moves are followed)"
        ),
    )
    parser.add_argument(
        "--command",
        metavar="C",
        help=(
            "only this command (view, create, str_replace, insert, delete, rename, write, revert,"
            " external, baseline)"
        ),
    )
    parser.add_argument(
        "--since",
        metavar="WHEN",
        type=parse_when,
        help=SINCE_HELP,
    )
    parser.add_argument(
        "--limit",
        metavar="N",
        type=whole_number,
        default=DEFAULT_LIMIT,
        help=f"show at most N events (default {DEFAULT_LIMIT}; 0 for all)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object per event")


LAYOUT = Layout(("id", "time", "actor", "command", "path", "result", "flags"), 2, (4, 5))


def event_json(event: Event, review: Review | None = None) -> str:
    """One event as a JSON line (valid UTF-8, control characters escaped)."""
    return event_record(
        event,
        args=event.args,
        result=event.result,
        is_error=event.is_error,
        before_hash=event.before_hash,
        after_hash=event.after_hash,
        flags=list(event.flags),
        reverted_by=event.reverted_by,
        group_id=event.group_id,
        **review_fields(event, review),
    )


def _cells(event: Event, reviews: dict[int, Review], when: str, mark: str = "") -> tuple[str, ...]:
    """One event's cells (id, time, actor, command, path, result, flags), escaped; `mark` goes
    before the id of an operation's part."""
    flags = [flag.removeprefix("security:") for flag in event.flags]
    if event.reverted_by is not None:
        flags.append(f"undone by {event.reverted_by}")
    if event.id in reviews:
        flags.append("reviewed")
    cells = (
        f"{mark}{event.id}",
        time.strftime(when, time.localtime(event.time)),
        event.actor,
        event.command,
        path_cell(event),
        first_line(event.result, (event.path, event.new_path)),
        " ".join(flags),
    )
    return tuple(visible(cell) for cell in cells)


def _rows(
    entries: list[Entry], reviews: dict[int, Review], when: str
) -> tuple[list[tuple[str, ...]], list[str]]:
    """The table's rows and their styles: one row per event, and for an operation a row
    naming it (`op N`, its kind and summary) above its parts; errors red."""
    rows: list[tuple[str, ...]] = []
    styles: list[str] = []
    for entry in entries:
        if not entry.is_operation or entry.group is None:
            rows.append(_cells(entry.first, reviews, when))
            styles.append("red" if entry.first.is_error else "")
            continue
        group = entry.group
        header = (
            f"op {group.id}",
            time.strftime(when, time.localtime(group.time)),
            group.actor,
            group.kind,
            path_cell(entry.events[-1]),
            group.summary,
            f"{len(entry.events)} changes",
        )
        rows.append(tuple(visible(cell) for cell in header))
        styles.append("bold")
        for position, event in enumerate(entry.events):
            mark = "└ " if position == len(entry.events) - 1 else "├ "
            rows.append(_cells(event, reviews, when, mark))
            styles.append("red" if event.is_error else "")
    return rows, styles


def print_events(entries: list[Entry], reviews: dict[int, Review]) -> None:
    """The events as a table that fits the terminal (or COLUMNS); an operation is one entry
    with its parts; errors red."""
    width = output_width()
    rows, styles = _rows(entries, reviews, time_format(width))
    print_table(LAYOUT, rows, styles, width)


def run(args: argparse.Namespace) -> int:
    """Run `memtui log`."""
    query = event_query("log", args)
    if isinstance(query, int):
        return query
    history = history_to_list("log", args.path)
    if isinstance(history, int):
        return history
    events = history.events(query, limit=args.limit if args.limit > 0 else None)
    reviews = history.reviews(event.id for event in events)
    if args.json:
        out = sys.stdout
        for event in events:
            out.write(event_json(event, reviews.get(event.id)) + "\n")
        return 0
    print_events(listed_entries(history, events), reviews)
    return 0
