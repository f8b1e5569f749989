"""`memtui log`: the history of a memory folder as a table or JSON lines."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from memtui.cli.shared import has_history, open_history, whole_number
from memtui.cli.terminal import console, json_safe, visible
from memtui.core.operations import Entry, listed_entries
from memtui.core.reporting import fail
from memtui.notes.timeframe import parse_timeframe

DEFAULT_LIMIT = 100

_DESCRIPTION = """\
Show PATH's history: every command an agent or a person ran (reads, refused and failed calls
included) and every change made outside memtui, newest first. Filters combine. With --json,
one JSON object per event and line.
"""


def parse_when(value: str, now: float | None = None) -> float:
    """Unix time of `7d`, `12h`, `45s`, `1.5d`, `2 weeks`, `1 month`, `1y`, `today` ago, or of an ISO date."""
    try:
        return parse_timeframe(value, now)
    except ValueError:
        pass
    try:
        return datetime.fromisoformat(value.strip()).timestamp()
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a time: use 7d, 12h, 30m, 2 weeks, 1 month, 1y, today, yesterday "
            "or an ISO date like 2026-11-01T09:30"
        ) from None


def _virtual(path: str) -> str:
    """A `/memories/...` path from a virtual or folder-relative path."""
    if path == "/memories" or path.startswith("/memories/"):
        return path.rstrip("/") or "/memories"
    return "/memories/" + path.strip("/") if path.strip("/") else "/memories"


def register(subparsers: Any) -> None:
    """Add the `log` subcommand."""
    parser = subparsers.add_parser(
        "log",
        help="show the history of a memory folder",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", metavar="PATH", help="the memory folder")
    parser.add_argument(
        "--actor",
        metavar="A",
        help='only this actor ("agent:claude") or kind ("agent", "human", "external")',
    )
    parser.add_argument(
        "--path",
        dest="file",
        metavar="P",
        help="only events on this file or folder (/memories/a.md or a.md; folders include contents)",
    )
    parser.add_argument(
        "--command",
        metavar="C",
        help="only this command (view, create, str_replace, insert, delete, rename, write, revert, external)",
    )
    parser.add_argument(
        "--since",
        metavar="WHEN",
        type=parse_when,
        help="only events since WHEN: 7d, 12h, 30m, 2 weeks, 1 month, 1y, today, yesterday, or an ISO date/time",
    )
    parser.add_argument(
        "--limit",
        metavar="N",
        type=whole_number,
        default=DEFAULT_LIMIT,
        help=f"show at most N events (default {DEFAULT_LIMIT}; 0 for all)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object per event")


def event_json(event: Any) -> str:
    """One event as a JSON line (valid UTF-8, control characters escaped)."""
    return json_safe(
        json.dumps(
            {
                "id": event.id,
                "time": event.time,
                "actor": event.actor,
                "session": event.session,
                "command": event.command,
                "path": event.path,
                "new_path": event.new_path,
                "args": event.args,
                "result": event.result,
                "is_error": event.is_error,
                "before_hash": event.before_hash,
                "after_hash": event.after_hash,
                "flags": list(event.flags),
                "reverted_by": event.reverted_by,
                "group_id": event.group_id,
            },
            ensure_ascii=False,
        )
    )


def _event_cells(event: Any, time_format: str, mark: str = "") -> tuple[str, ...]:
    """One event's cells (id, time, actor, command, path, result, flags), escaped; `mark`
    goes before the id of an operation's part."""
    path = event.path or ""
    if event.new_path:
        path = f"{path} -> {event.new_path}"
    flags = [flag.removeprefix("security:") for flag in event.flags]
    if event.reverted_by is not None:
        flags.append(f"undone by {event.reverted_by}")
    cells = (
        f"{mark}{event.id}",
        time.strftime(time_format, time.localtime(event.time)),
        event.actor,
        event.command,
        path,
        event.result.split("\n", 1)[0],
        " ".join(flags),
    )
    return tuple(visible(cell) for cell in cells)


def _rows(entries: list[Entry], time_format: str) -> list[tuple[tuple[str, ...], str]]:
    """The table's rows and their styles: one per event, and for an operation a row naming it
    (`op N`) above its parts (errors red)."""
    rows: list[tuple[tuple[str, ...], str]] = []
    for entry in entries:
        if not entry.is_operation or entry.group is None:
            event = entry.first
            rows.append((_event_cells(event, time_format), "red" if event.is_error else ""))
            continue
        group = entry.group
        header = (
            f"op {group.id}",
            time.strftime(time_format, time.localtime(group.time)),
            group.actor,
            group.kind,
            _event_cells(entry.events[-1], time_format)[4],
            group.summary,
            f"{len(entry.events)} changes",
        )
        rows.append((tuple(visible(cell) for cell in header), "bold"))
        for position, event in enumerate(entry.events):
            mark = "└ " if position == len(entry.events) - 1 else "├ "
            style = "red" if event.is_error else ""
            rows.append((_event_cells(event, time_format, mark), style))
    return rows


MIN_TEXT_ROOM = 20
"""Path and result together get at least this many columns; the actor is cut first."""
MIN_ACTOR = 8
UNLIMITED = 100_000
"""The width a table is laid out in when nothing limits it (piped without COLUMNS)."""
_TRAILING_BLANKS = re.compile(r" +((?:\x1b\[[0-9;]*m)*)$")


def output_width() -> int | None:
    """The width to fit: COLUMNS if set, else the terminal's; None when piped without COLUMNS."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return None


def _table(entries: list[Entry], width: int | None) -> Any:
    """A Rich table of events that fits `width` (None: any width): fixed columns whole, path and
    result cut only when they must be; errors red. Every cell is plain text."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    time_format = "%Y-%m-%d %H:%M:%S" if width is None or width >= 120 else "%m-%d %H:%M"
    styled = _rows(entries, time_format)
    rows = [row for row, _style in styled]
    headers = ("id", "time", "actor", "command", "path", "result", "flags")
    widths = [max([len(h)] + [len(row[i]) for row in rows]) for i, h in enumerate(headers)]
    if width is not None:
        _fit(widths, width - 3 * (len(headers) - 1))
    table = Table(header_style="bold", box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    for header, column_width in zip(headers, widths, strict=True):
        table.add_column(header, no_wrap=True, overflow="ellipsis", width=column_width)
    for row, style in styled:
        table.add_row(*map(Text, row), style=style)
    return table


def _fit(widths: list[int], room: int) -> None:
    """Cut the path and result columns (and the actor if need be) so the widths sum to `room`."""
    fixed = sum(widths[i] for i in (0, 1, 3, 6))
    free = room - fixed - widths[2]
    if free < MIN_TEXT_ROOM:
        widths[2] = max(MIN_ACTOR, widths[2] - (MIN_TEXT_ROOM - free))
        free = max(room - fixed - widths[2], MIN_TEXT_ROOM)
    if widths[4] + widths[5] > free:
        widths[4] = min(widths[4], max(free * 2 // 5, free - widths[5]))
        widths[5] = max(min(widths[5], free - widths[4]), 1)


def print_table(entries: list[Entry]) -> None:
    """The events as a table that fits the terminal (or COLUMNS), no line padded with blanks."""
    width = output_width()
    out = console(width=width or UNLIMITED, highlight=False)
    with out.capture() as captured:
        out.print(_table(entries, width))
    lines = (_TRAILING_BLANKS.sub(r"\1", line) for line in captured.get().splitlines())
    sys.stdout.write("".join(line + "\n" for line in lines if line.strip(" ")))


def run(args: argparse.Namespace) -> int:
    """Run `memtui log`."""
    from memtui.core.history import HistoryCorrupt

    root = Path(args.path)
    if not root.is_dir():
        return fail("log", f"{args.path} is not a folder")
    if not has_history(root):
        print(f"memtui log: {visible(args.path)}: no history yet", file=sys.stderr)
        return 0
    try:
        history = open_history(root)
        if history is None:
            return 0
        events = history.events(
            path=_virtual(args.file) if args.file else None,
            actor=args.actor,
            command=args.command,
            since=args.since,
            limit=args.limit if args.limit > 0 else None,
        )
    except HistoryCorrupt as error:
        return fail("log", error)
    if args.json:
        out = sys.stdout
        for event in events:
            out.write(event_json(event) + "\n")
        return 0
    print_table(listed_entries(history, events))
    return 0
