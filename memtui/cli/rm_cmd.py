"""`memtui rm`: delete a note or folder as one operation, after naming the links it breaks."""

from __future__ import annotations

import argparse
import shlex
from typing import Any

from memtui.cli.shared import add_actor_option, ask, human_store, progress_printer
from memtui.cli.terminal import visible
from memtui.core.parsing.paths import as_virtual, to_relpath
from memtui.core.reporting import fail

_DESCRIPTION = """\
Delete the note or folder P of the memory folder PATH (/memories/x.md or x.md), as you. It
first prints what goes (a folder's number of files) and which notes' [[links]] would then point
nowhere, and asks; --yes deletes without asking, and without a terminal to ask on, --yes is
required. The history keeps what was deleted: `memtui undo PATH EVENT_ID` restores it.
"""


def register(subparsers: Any) -> None:
    """Add the `rm` subcommand."""
    parser = subparsers.add_parser(
        "rm",
        help="delete a note or folder, naming the links it breaks",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", metavar="PATH", help="the memory folder")
    parser.add_argument("target", metavar="P", help="the note or folder to delete")
    parser.add_argument("--yes", action="store_true", help="delete without asking")
    add_actor_option(parser)


def run(args: argparse.Namespace) -> int:
    """Run `memtui rm`: 0 deleted, 1 not deleted, 2 not asked (no terminal, no --yes)."""
    from memtui.notes.operations.deleting import delete, plan_delete
    from memtui.notes.workspace import Workspace

    store = human_store("rm", args.path, args.actor)
    if isinstance(store, int):
        return store
    virtual = as_virtual(args.target)
    relpath = to_relpath(virtual)
    if not relpath:
        return fail("rm", "the store's root folder cannot be deleted")
    workspace = Workspace(store)
    try:
        workspace.load_index(progress_printer())
    except Exception as problem:  # a one-line message, never a traceback
        return fail("rm", problem, 1)
    plan = plan_delete(workspace, relpath)
    if plan.files == 0 and not plan.is_folder:
        return fail("rm", f"{virtual} does not exist", 1)
    print(visible(f"Deleting {plan.what()}."))
    for line in plan.consequences():
        print(visible(line))
    if not args.yes:
        answer = ask("Delete it?")
        if answer is None:
            return fail("rm", "no terminal to ask on, so nothing was deleted; pass --yes to delete")
        if not answer:
            print("Nothing deleted.")
            return 1
    deleted = delete(workspace, plan)
    if deleted.result.is_error:
        return fail("rm", deleted.result.content, 1)
    print(visible(deleted.summary))
    print(visible(f"Undo: memtui undo {shlex.quote(args.path)} {deleted.result.event_id}"))
    return 0
