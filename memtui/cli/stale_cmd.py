"""`memtui stale`: the review queue of notes that may be out of date, with the reasons."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from memtui.cli.shared import progress_printer, reading_workspace, report_skipped, whole_number
from memtui.cli.terminal import json_safe, visible
from memtui.core.reporting import fail


def register(subparsers: Any) -> None:
    """Add the `stale` subcommand."""
    parser = subparsers.add_parser(
        "stale",
        help="list files that may be stale, with the reasons",
        description=(
            "Rank the files of a memory folder (notes and any other text file) that may be out "
            "of date: not read back by an agent since they changed, unchanged for long, "
            "superseded by a newer near-duplicate, expired or unverified frontmatter dates, "
            "broken path links, links to notes not written yet, no links (only in a store "
            "where most notes link), very large, lines the agent never sees (past line 200 of "
            "MEMORY.md), over the always-loaded budget, a statement a newer one contradicts "
            "(the reason `contradicts`, with both paths, lines and texts). A file is proposed "
            "when its reasons add up to one strong signal. Only proposes; never changes a file."
        ),
    )
    parser.add_argument("path", metavar="PATH", help="the memory folder (what /memories maps to)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per note")
    parser.add_argument(
        "--limit",
        type=whole_number,
        default=50,
        metavar="N",
        help="at most N notes (50; 0 for all)",
    )


def _statement(line: Any) -> dict[str, Any]:
    """One statement of a contradiction: its path, line, text and when it was written."""
    return {"path": line.path, "line": line.line, "text": line.text, "time": line.time or None}


def reason_record(reason: Any) -> dict[str, Any]:
    """One reason as a JSON-ready dict; a `contradicts` reason adds both statements."""
    record: dict[str, Any] = {"kind": reason.kind, "text": reason.text, "weight": reason.weight}
    if reason.pair is not None:
        record["older"] = _statement(reason.pair.older)
        record["newer"] = _statement(reason.pair.newer)
        record["rule"] = reason.pair.reason
        record["key"] = reason.pair.key
    return record


def candidate_record(candidate: Any) -> dict[str, Any]:
    """One review candidate as a JSON-ready dict: path, score, reasons."""
    return {
        "path": candidate.path,
        "score": candidate.score,
        "reasons": [reason_record(r) for r in candidate.reasons],
    }


def run(args: argparse.Namespace) -> int:
    """Run `memtui stale`."""
    from memtui.core.config import ConfigError, load_settings
    from memtui.notes.budget import listing_of
    from memtui.notes.health_review import health_review, left_out_line, shown_reasons

    root = Path(args.path)
    if not root.is_dir():
        return fail("stale", f"{args.path} is not a folder")
    if args.limit < 0:
        return fail("stale", "--limit must be 0 or more")
    try:
        settings = load_settings()
        workspace = reading_workspace(root, settings)
        history = workspace.history
        index = workspace.load_index(progress_printer())
        candidates = health_review(
            index,
            history,
            budget_settings=settings.budget,
            listing=listing_of(workspace.store),
        ).candidates
    except ConfigError as error:
        return fail("stale", error)
    except Exception as exc:  # a one-line message, never a traceback
        return fail("stale", exc)
    report_skipped("stale", index.problems)
    if args.limit:
        candidates = candidates[: args.limit]
    for candidate in candidates:
        if args.json:
            print(json_safe(json.dumps(candidate_record(candidate), ensure_ascii=False)))
        else:
            print(f"{candidate.score:5.1f}  {visible(candidate.path)}")
            shown, left_out = shown_reasons(candidate.reasons)
            for reason in shown:
                print(f"       - {visible(reason.text)}")
            if left_out:
                print(f"       - {left_out_line(left_out)} (--json lists them all)")
    if not candidates and not args.json:
        print("nothing to review")
    return 0
