"""`memtui budget`: what a memory folder costs its agent at the start of every session."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from memtui.cli.shared import progress_printer, reading_workspace, report_skipped
from memtui.cli.terminal import json_safe, visible
from memtui.core.plurals import count
from memtui.core.reporting import fail


def register(subparsers: Any) -> None:
    """Add the `budget` subcommand."""
    parser = subparsers.add_parser(
        "budget",
        help="what the agent loads of a memory folder, and what it reads",
        description=(
            "For every file of a memory folder: its bytes, estimated tokens (4 bytes a token), "
            "whether the agent loads it at the start of every session (always), in part "
            "(partly: with the lines it never sees) or when it reads it (on demand), and the "
            "tokens agents read from it in the last 30 days; then the total loaded at every "
            "session's start against the limit. The rules come from the kind of store, "
            "detected (Claude Code auto memory, Letta memory repository, Anthropic memory "
            "tool, Basic Memory) or set in the config's [budget] table."
        ),
    )
    parser.add_argument("path", metavar="PATH", help="the memory folder (what /memories maps to)")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object per file, then one with the total",
    )


def total_record(budget: Any) -> dict[str, Any]:
    """The last JSON line: the kind, the session-start total and its limit."""
    return {
        "total": {
            "kind": budget.rules.kind,
            "kind_name": budget.rules.name,
            "detected": budget.rules.detected,
            "loaded_tokens": budget.loaded_tokens,
            "limit": budget.rules.limit,
            "over_limit": budget.over_limit,
        }
    }


def _line(row: Any) -> str:
    """One row as text."""
    note = ""
    if row.unseen_lines:
        note = (
            f"  ({count(row.unseen_lines, 'line')} never seen, from line {row.first_unseen_line})"
        )
    return (
        f"{row.tokens:>9,}  {row.loaded:<9}  {row.read_tokens_30d:>9,}  {visible(row.path)}{note}"
    )


def run(args: argparse.Namespace) -> int:
    """Run `memtui budget`."""
    from memtui.core.config import ConfigError, load_settings
    from memtui.notes.budget import listing_of, store_budget

    root = Path(args.path)
    if not root.is_dir():
        return fail("budget", f"{args.path} is not a folder")
    try:
        settings = load_settings()
        workspace = reading_workspace(root, settings)
        history = workspace.history
        index = workspace.load_index(progress_printer())
        budget = store_budget(
            index,
            history,
            settings=settings.budget,
            listing=listing_of(workspace.store),
        )
    except ConfigError as error:
        return fail("budget", error)
    except Exception as exc:  # a one-line message, never a traceback
        return fail("budget", exc)
    report_skipped("budget", index.problems)
    if args.json:
        for row in budget.rows:
            print(json_safe(json.dumps(row.record(), ensure_ascii=False)))
        print(json_safe(json.dumps(total_record(budget), ensure_ascii=False)))
        return 0
    print(visible(budget.summary()))
    print(f"{'tokens':>9}  {'loaded':<9}  {'read 30d':>9}  path")
    for row in budget.rows:
        print(_line(row))
    return 0
