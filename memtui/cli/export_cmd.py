"""`memtui export`: every note's parse (title, frontmatter, observations, relations) as JSON."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from memtui.cli.shared import progress_printer, report_skipped
from memtui.cli.terminal import json_safe
from memtui.core.reporting import fail

PROGRESS_MIN_NOTES = 200
"""Exports of more notes than this show their progress on stderr when it is a terminal."""
PROGRESS_EVERY = 100
"""How many records between two progress updates."""

_DESCRIPTION = """\
Read every file under PATH (recursively; hidden files, hidden folders such as .memtui and
symlinks out of PATH are skipped) and print one JSON object per file, sorted by path. A .md
note gives {"path", "title", "frontmatter", "observations", "relations"}, exactly as
Basic Memory 0.24.1's parser reads the note (with --warnings, also memtui's parse "warnings"
when a note has any). A note Basic Memory would refuse to index (undecodable bytes, a
non-string frontmatter key, a schema/document-extraction note without a valid source block)
gives {"path", "error"}. Any other text file gives {"path", "kind": "text", "title", "text"}: the
title is its first markdown heading or its file name, "truncated": true when the file is longer
than what memtui reads (its first MiB, at most 20,000 lines). Each entry that is skipped (a
binary file, a link out of PATH, a symlink loop, a FIFO) is named on stderr.
"""


def register(subparsers: Any) -> None:
    """Add the `export` subcommand."""
    parser = subparsers.add_parser(
        "export",
        help="print every note's parse and every text file's text as JSON",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", metavar="PATH", help="folder of markdown notes to export")
    parser.add_argument(
        "--format",
        choices=("jsonl", "json"),
        default="jsonl",
        help="jsonl: one object per line (default); json: one JSON array",
    )
    parser.add_argument(
        "--warnings",
        action="store_true",
        help='add a "warnings" list to records of notes memtui has parse warnings for',
    )


def run(args: argparse.Namespace) -> int:
    """Run `memtui export`: write records to stdout, progress to stderr when it is a terminal."""
    # Imported here: every `memtui` command builds this parser, and the parser costs 55 ms.
    from memtui.notes.export import export_records, record_json
    from memtui.notes.index import IndexUnavailable
    from memtui.notes.scan import scan_files
    from memtui.notes.workspace import Workspace

    root = Path(args.path)
    if not root.is_dir():
        return fail("export", f"{args.path} is not a folder")
    scan = scan_files(root)
    report_skipped("export", scan.problems)
    relpaths = [file.relpath for file in scan.files]
    progress = progress_printer("export:") if len(relpaths) > PROGRESS_MIN_NOTES else None
    out = sys.stdout
    first = True
    if args.format == "json":
        out.write("[")
    try:
        index = (
            Workspace(root=root).load_index(progress_printer(), use_cache=False)
            if args.warnings
            else None
        )
    except IndexUnavailable as error:
        return fail("export", error)
    records = export_records(
        root,
        relpaths,
        with_warnings=args.warnings,
        index=index,
        skipped=lambda problem: report_skipped("export", [problem]),
    )
    for done, record in enumerate(records, start=1):
        line = json_safe(record_json(record))
        if args.format == "json":
            out.write(("\n" if first else ",\n") + line)
        else:
            out.write(line + "\n")
        first = False
        if progress is not None and (done % PROGRESS_EVERY == 0 or done == len(relpaths)):
            progress(done, len(relpaths))
    if args.format == "json":
        out.write("\n]\n" if not first else "]\n")
    out.flush()
    return 0
