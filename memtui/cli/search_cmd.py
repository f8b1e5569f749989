"""`memtui search`: fuzzy search over a memory store's notes from the command line."""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memtui.cli.shared import open_history, progress_printer, report_skipped, whole_number
from memtui.cli.terminal import console, json_safe, visible, visible_spans
from memtui.core.reporting import fail
from memtui.notes.query import MEANING_KIND, MODES, QueryError, SearchFilters, parse_query

if TYPE_CHECKING:
    from memtui.notes.search import SearchHit
    from memtui.notes.search_results import NoteHits

HIGHLIGHT = "bold yellow"
PLAIN_WINDOW = 200
"""Characters of a longer line shown in the plain output, around its first match."""
PLAIN_BEFORE = 60
"""How many of those come before the first match."""
JSON_TEXT_LIMIT = 10_000
"""A longer line is cut to its first this many characters in --json output."""
MAX_SPANS = 100
"""Most matched spans printed for one hit."""


def register(subparsers: Any) -> None:
    """Add the `search` subcommand."""
    parser = subparsers.add_parser(
        "search",
        help="fuzzy search titles, paths, tags, observations, relations and text",
        description=(
            "Fuzzy search every text file of a memory folder (notes and any other text file; "
            "binary files are skipped and named): titles, paths, frontmatter tags and type, "
            "observations, relations and lines. Typos are tolerated; exact words and phrases "
            "rank first. Each matching note is listed once, with its best three matching lines "
            "(a title or path match shows no line number). Filters go in the query as in the "
            "app (tag:NAME category:NAME "
            "type:NAME folder:PATH actor:WHO age:DAYS) or as the options below; a query of "
            "filters alone lists the notes that pass them, most recently changed first. "
            f"A line longer than {PLAIN_WINDOW} characters is shown around its first match, cut "
            "ends marked "
            "with …. Control characters in notes and file names are shown as symbols (ESC as ␛, "
            "a newline as ␊, a byte that is not UTF-8 as \\xff); a note that is not valid UTF-8 "
            "is searched with its bad bytes read as �. --mode (or mode: in the query) ranks by "
            "the words (text), by meaning (meaning: notes that say it in other words, each shown "
            "at its nearest section) or by both (hybrid); by meaning needs the `meaning` extra and "
            "[search] model in config.toml, and is then the default as hybrid (else text). "
            "The index is kept in PATH/.memtui and "
            "only files changed since any memtui process last looked are read. "
            "Exit status: 0 with matches, 1 without, 2 on error."
        ),
    )
    parser.add_argument("path", metavar="PATH", help="the memory folder (what /memories maps to)")
    parser.add_argument(
        "query", metavar="QUERY", nargs="?", default="", help="words to look for, in any order"
    )
    parser.add_argument(
        "--limit", type=whole_number, default=20, metavar="N", help="at most N notes (20)"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help=(
            "print one JSON object per hit shown: path, line (0 for a title or path), kind, "
            "text, score, spans; a text "
            f"longer than {JSON_TEXT_LIMIT:,} characters is cut to its first {JSON_TEXT_LIMIT:,}, "
            f"with at most {MAX_SPANS} spans"
        ),
    )
    parser.add_argument("--folder", metavar="F", help="only notes under folder F (e.g. projects)")
    parser.add_argument(
        "--tag", metavar="T", help="only notes tagged T (frontmatter or observation)"
    )
    parser.add_argument(
        "--category", metavar="C", help="only notes with an observation of category C"
    )
    parser.add_argument("--type", dest="note_type", metavar="T", help="only notes whose type is T")
    parser.add_argument(
        "--actor",
        metavar="A",
        help="only notes last changed by A: human, agent, external, or e.g. agent:claude",
    )
    parser.add_argument(
        "--max-age", type=float, metavar="DAYS", help="only notes modified in the last DAYS days"
    )
    parser.add_argument(
        "--mode",
        choices=MODES,
        help="rank by the words (text), by meaning, or both (hybrid); default: hybrid when "
        "search by meaning is on, else text",
    )


def clip(
    text: str, spans: tuple[tuple[int, int], ...], limit: int, before: int
) -> tuple[str, list[tuple[int, int]]]:
    """At most `limit` characters of a line, `before` of them ahead of its first match, ends `…`."""
    if len(text) <= limit:
        return text, list(spans[:MAX_SPANS])
    first = spans[0][0] if spans else 0
    start = max(0, min(first - before, len(text) - limit))
    end = start + limit
    prefix = "…" if start else ""
    suffix = "…" if end < len(text) else ""
    shift = len(prefix) - start
    kept = [
        (max(span_start, start) + shift, min(span_end, end) + shift)
        for span_start, span_end in spans
        if span_end > start and span_start < end
    ]
    return prefix + text[start:end] + suffix, kept[:MAX_SPANS]


def hit_json(hit: SearchHit) -> str:
    """One hit as a JSON line: the line cut to `JSON_TEXT_LIMIT` characters, valid UTF-8."""
    text = hit.text[:JSON_TEXT_LIMIT]
    spans = [
        [start, min(end, JSON_TEXT_LIMIT)] for start, end in hit.spans if start < JSON_TEXT_LIMIT
    ][:MAX_SPANS]
    return json_safe(
        json.dumps(
            {
                "path": hit.path,
                "line": hit.line,
                "kind": hit.kind,
                "text": text,
                "score": hit.score,
                "spans": spans,
            },
            ensure_ascii=False,
        )
    )


def print_notes(notes: list[NoteHits]) -> None:
    """Each note's path, then its hits as `line  kind  text` (no number for a title or path),
    the matches highlighted on a terminal, control chars visible."""
    from rich.text import Text

    out = console(highlight=False, soft_wrap=True)
    for note in notes:
        out.print(Text(visible(note.path), style="cyan"))
        for hit in note.hits:
            out.print(hit_row(hit))


def hit_row(hit: SearchHit) -> Any:
    """One hit under its note: its line number (none for a title or path), kind and text."""
    from rich.text import Text

    line = Text(f"{hit.line or '':>7}  ", style="cyan")
    line.append(f"{hit.kind:<11} ", style="dim")
    text = f"section: {hit.text}" if hit.kind == MEANING_KIND else hit.text
    shown, spans = visible_spans(*clip(text, hit.spans, PLAIN_WINDOW, PLAIN_BEFORE))
    body = Text(shown)
    for start, end in spans:
        body.stylize(HIGHLIGHT, start, end)
    line.append_text(body)
    return line


def filters_of(args: argparse.Namespace, query_filters: SearchFilters) -> SearchFilters:
    """The query's filters, each overridden by its command-line option when that is given."""
    return replace(
        query_filters,
        **{
            name: value
            for name, value in (
                ("folder", args.folder),
                ("tag", args.tag),
                ("category", args.category),
                ("note_type", args.note_type),
                ("actor", args.actor),
                ("max_age_days", args.max_age),
            )
            if value is not None
        },
    )


def configured_model() -> str | None:
    """`[search] model` of the user's settings (None when unset or the settings are bad: the
    command has checked them before it runs)."""
    from memtui.core.config import load_settings

    try:
        return load_settings().search_model
    except Exception:
        return None


def _bad_numbers(args: argparse.Namespace) -> str | None:
    """What is wrong with --limit or --max-age, if anything."""
    if args.limit < 1:
        return "--limit must be at least 1"
    if args.max_age is not None and not (math.isfinite(args.max_age) and args.max_age >= 0):
        return f"--max-age must be a number of days, 0 or more (not {args.max_age})"
    return None


def _print_found(notes: list[Any], as_json: bool) -> int:
    """The matching notes as text or JSON lines; 1 when there are none."""
    if as_json:
        for note in notes:
            for hit in note.hits:
                print(hit_json(hit))
    else:
        print_notes(notes)
    if not notes:
        return fail("search", "no matches", 1) if not as_json else 1
    return 0


def run(args: argparse.Namespace) -> int:
    """Run `memtui search`."""
    root = Path(args.path)
    if not root.is_dir():
        return fail("search", f"{args.path} is not a folder")
    bad = _bad_numbers(args)
    if bad is not None:
        return fail("search", bad)
    try:
        words, query_filters = parse_query(args.query)
    except QueryError as error:
        return fail("search", error)
    filters = filters_of(args, query_filters)
    if not words and not filters.any():
        return fail("search", "give words to look for, filters, or both")
    # Imported here: every `memtui` command builds this parser, and these cost 35 ms.
    from memtui.notes.search_results import PER_NOTE, notes_of
    from memtui.notes.workspace import Workspace

    readers = partial(open_history, root) if filters.actor else (lambda: None)
    workspace = Workspace(root=root, history=readers, search_model=configured_model())
    try:
        index = workspace.load_index(progress_printer())
        workspace.install_searcher()
        mode = args.mode or filters.mode
        if mode != "text" and workspace.meaning_wanted:
            workspace.open_meaning()
        found = workspace.search(
            words, filters, limit=args.limit * PER_NOTE, mode=mode, per_note=PER_NOTE
        )
    except Exception as exc:  # a one-line message, never a traceback
        return fail("search", exc)
    report_skipped("search", index.problems)
    if found.note and mode not in (None, "text"):
        fail("search", f"{found.note}; searching by text")
    return _print_found(notes_of(found.hits, args.limit), args.json)
