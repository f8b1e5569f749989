"""The history filter on the command line: `memtui log` and `memtui changes` take the filter
syntax of the app's history and inbox (`actor:agent since:7d path:notes/ words`) as words
after PATH, and their flags (`--actor`, `--since`, `--path`, `--command`) as the same filters."""

from __future__ import annotations

import argparse
import shlex
import time
from dataclasses import replace
from typing import Any

from memtui.core.parsing.paths import as_virtual
from memtui.core.recording.event_query import FILTER_HELP, EventQuery, parse_event_query
from memtui.core.reporting import fail


def add_filter_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """The FILTER words after PATH, which `event_query` reads."""
    parser.add_argument(
        "filter",
        metavar="FILTER",
        nargs="*",
        help=(
            f"only {what} matching every filter (as in the app's filter row): {FILTER_HELP}; "
            "a flag below sets the same filter and wins over it"
        ),
    )


def event_query(
    command: str, args: argparse.Namespace, now: float | None = None
) -> EventQuery | int:
    """The query of the FILTER words with the flags given set over them, a path followed back
    through its earlier names; or the exit status (2) after one line naming a filter that
    cannot be used. `since:` counts back from `now` (the wall clock if None)."""
    query = parse_event_query(shlex.join(args.filter), time.time() if now is None else now)
    if query.problems:
        return fail(command, query.problems[0])
    flags: dict[str, Any] = {
        "path": as_virtual(args.file) if args.file else None,
        "actor": args.actor,
        "command": getattr(args, "command", None),
        "since": args.since,
    }
    query = replace(query, **{name: value for name, value in flags.items() if value is not None})
    return replace(query, follow=query.path is not None)
