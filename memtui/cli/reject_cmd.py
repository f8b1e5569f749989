"""`memtui reject`: decide against changes the store's policy held for approval."""

from __future__ import annotations

import argparse
from typing import Any

from memtui.cli.shared import add_actor_option, has_history, human_store, whole_number
from memtui.cli.terminal import visible
from memtui.core.reporting import fail

_DESCRIPTION = """\
Reject changes the access policy held for your approval (see `memtui changes PATH`): nothing of
them is applied, and the history records who rejected them and when. Approve one instead with
`memtui approve PATH ID`.
"""


def register(subparsers: Any) -> None:
    """Add the `reject` subcommand."""
    parser = subparsers.add_parser(
        "reject",
        help="reject changes held for your approval",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", metavar="PATH", help="the memory folder")
    parser.add_argument(
        "proposal_ids",
        metavar="ID",
        nargs="+",
        type=whole_number,
        help="the held changes to reject",
    )
    add_actor_option(parser)


def run(args: argparse.Namespace) -> int:
    """Run `memtui reject`: exit 1 if any could not be rejected."""
    from pathlib import Path

    from memtui.notes.operations.deciding import reject

    if not has_history(Path(args.path)):
        return fail("reject", f"{args.path}: no memtui history here")
    store = human_store("reject", args.path, args.actor)
    if isinstance(store, int):
        return store
    status = 0
    for result in reject(store, args.proposal_ids):
        if result.is_error:
            status = fail("reject", result.content, 1)
        else:
            print(visible(result.content))
    return status
