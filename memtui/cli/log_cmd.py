"""`memtui log`: the history of a memory folder as a table or JSON lines."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

DEFAULT_LIMIT = 100
_RELATIVE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}

_DESCRIPTION = """\
Show PATH's history: every command an agent or a person ran (reads, refused and failed calls
included) and every change made outside memtui, newest first. Filters combine. With --json,
one JSON object per event and line.
"""


def parse_when(value: str, now: float | None = None) -> float:
    """Unix time of `7d`, `12h`, `30m`, `45s`, `2w` ago, or of an ISO date/time (local time)."""
    match = _RELATIVE.match(value)
    current = time.time() if now is None else now
    if match:
        return current - float(match.group(1)) * _SECONDS[match.group(2)]
    try:
        return datetime.fromisoformat(value.strip()).timestamp()
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a time: use 7d, 12h, 30m or an ISO date like 2026-11-01T09:30"
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
        help="only events since WHEN: 7d, 12h, 30m, or an ISO date/time",
    )
    parser.add_argument(
        "--limit",
        metavar="N",
        type=int,
        default=DEFAULT_LIMIT,
        help=f"show at most N events (default {DEFAULT_LIMIT}; 0 for all)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object per event")


def event_json(event: Any) -> str:
    """One event as a JSON line."""
    return json.dumps(
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
        },
        ensure_ascii=False,
    )


def _table(events: list[Any]) -> Any:
    """A Rich table of events; errors in red."""
    from rich.table import Table
    from rich.text import Text

    table = Table(show_lines=False, header_style="bold")
    for name in ("id", "time", "actor", "command", "path"):
        table.add_column(name, no_wrap=True)
    table.add_column("result", no_wrap=True, overflow="ellipsis", ratio=1, min_width=12)
    table.add_column("flags", overflow="fold")
    for event in events:
        path = event.path or ""
        if event.new_path:
            path = f"{path} -> {event.new_path}"
        first_line = event.result.split("\n", 1)[0]
        flags = list(event.flags)
        if event.reverted_by is not None:
            flags.append(f"undone by {event.reverted_by}")
        style = "red" if event.is_error else ""
        table.add_row(
            str(event.id),
            time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(event.time)),
            event.actor,
            event.command,
            path,
            Text(first_line, style=style),
            " ".join(flags),
            style=style,
        )
    return table


def run(args: argparse.Namespace) -> int:
    """Run `memtui log`."""
    from memtui.core.history import DB_NAME, History, HistoryCorrupt
    from memtui.core.lock import META_DIR_NAME

    root = Path(args.path)
    if not root.is_dir():
        print(f"memtui log: {args.path}: not a folder", file=sys.stderr)
        return 2
    if not (root / META_DIR_NAME / DB_NAME).is_file():
        print(f"memtui log: {args.path}: no history yet", file=sys.stderr)
        return 0
    try:
        events = History(root).events(
            path=_virtual(args.file) if args.file else None,
            actor=args.actor,
            command=args.command,
            since=args.since,
            limit=args.limit if args.limit and args.limit > 0 else None,
        )
    except HistoryCorrupt as error:
        print(f"memtui log: {error}", file=sys.stderr)
        return 1
    if args.json:
        out = sys.stdout
        for event in events:
            out.write(event_json(event) + "\n")
        return 0
    from rich.console import Console

    Console().print(_table(events))
    return 0
