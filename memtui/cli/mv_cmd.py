"""`memtui mv`: rename or move a note or folder as one operation, optionally rewriting the
links that the move would break."""

from __future__ import annotations

import argparse
import shlex
from typing import Any

from memtui.cli.shared import add_actor_option, human_store, progress_printer
from memtui.cli.terminal import visible
from memtui.core.parsing.paths import as_virtual, to_relpath
from memtui.core.reporting import fail

_DESCRIPTION = """\
Rename or move the note or folder OLD of the memory folder PATH to NEW (/memories/x.md or
x.md), as you, recorded in the history as one operation. With --rewrite-links, the notes whose
[[links]] the move would break are rewritten to the new name in the same operation (links by
title, or by a permalink set in the frontmatter, keep working and are left as they are);
without it they are named. `memtui undo PATH EVENT_ID` of any of its events undoes all of it.
"""


def register(subparsers: Any) -> None:
    """Add the `mv` subcommand."""
    parser = subparsers.add_parser(
        "mv",
        help="rename or move a note or folder, optionally rewriting links to it",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", metavar="PATH", help="the memory folder")
    parser.add_argument("old", metavar="OLD", help="the note or folder to move")
    parser.add_argument("new", metavar="NEW", help="where it goes")
    parser.add_argument(
        "--rewrite-links",
        action="store_true",
        help="point the links the move would break at the new name (in the same operation)",
    )
    add_actor_option(parser)


def run(args: argparse.Namespace) -> int:
    """Run `memtui mv`: 0 moved, 1 not moved."""
    from memtui.notes.operations.moving import move
    from memtui.notes.workspace import Workspace

    store = human_store("mv", args.path, args.actor)
    if isinstance(store, int):
        return store
    old, new = to_relpath(as_virtual(args.old)), to_relpath(as_virtual(args.new))
    if not old or not new:
        return fail("mv", "the store's root folder cannot be moved, nor anything moved onto it")
    workspace = Workspace(store)
    try:
        workspace.load_index(progress_printer())
    except Exception as problem:  # a one-line message, never a traceback
        return fail("mv", problem, 1)
    moved = move(workspace, old, new, rewrite_links=args.rewrite_links)
    if moved.result.is_error:
        return fail("mv", moved.result.content, 1)
    print(visible(moved.summary))
    if moved.broken:
        print("Pass --rewrite-links to point them at the new name.")
    print(visible(f"Undo: memtui undo {shlex.quote(args.path)} {moved.result.event_id}"))
    return 0
