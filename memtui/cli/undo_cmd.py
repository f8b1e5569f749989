"""`memtui undo`: revert one history event, or the whole operation it is a part of, as a human."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memtui.cli.events import path_cell
from memtui.cli.shared import add_actor_option, ask, has_history, human_store, whole_number
from memtui.cli.terminal import visible
from memtui.core.reporting import fail

if TYPE_CHECKING:
    from memtui.core.result import CommandResult

_DESCRIPTION = """\
Undo one event of PATH's history (see `memtui log PATH`): restore what the event changed to how
it was before (an edit, a create, a rename, a delete of a file or a whole folder, a save, an
outside change, or an earlier undo). Refused with a "Conflict:" message if the file changed
since the event, unless --force. The undo is itself recorded, so it can be undone too.

An event that is a part of an operation (a rename and the links it rewrote) undoes the whole
operation: its parts are listed and, on a terminal, you are asked first (--yes answers for
you; without a terminal it is required). --event-only undoes just the one event.
"""


def register(subparsers: Any) -> None:
    """Add the `undo` subcommand."""
    parser = subparsers.add_parser(
        "undo",
        help="undo one history event or operation (restore its before-state)",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", metavar="PATH", help="the memory folder")
    parser.add_argument(
        "event_id", metavar="EVENT_ID", type=whole_number, help="the event id to undo"
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="restore the before-state even if the file changed since the event",
    )
    parser.add_argument(
        "--yes", action="store_true", help="undo a whole operation without asking first"
    )
    parser.add_argument(
        "--event-only",
        action="store_true",
        help="undo only this event, not the rest of the operation it is a part of",
    )
    add_actor_option(parser)


def run(args: argparse.Namespace) -> int:
    """Run `memtui undo`: print the result; exit 1 on a conflict or error."""
    from memtui.core.applying.group_reverting import changed_parts
    from memtui.core.recording.database import HistoryCorrupt

    if not has_history(Path(args.path)):
        return fail("undo", f"{args.path}: no memtui history here")
    store = human_store("undo", args.path, args.actor)
    if isinstance(store, int):
        return store
    try:
        event = store.history.event(args.event_id)
        if event is None:
            return fail(
                "undo", f"no event {args.event_id} in {args.path}'s history (see memtui log)"
            )
        parts = [] if event.group_id is None else changed_parts(store, event.group_id)
        if len(parts) > 1 and not args.event_only:
            return _undo_operation(store, args, event.group_id, parts)
        result = store.revert(args.event_id, force=args.force)
    except HistoryCorrupt as error:
        return fail("undo", error)
    return _report(result)


def _report(result: CommandResult) -> int:
    """Print what the undo did, or why not (a conflict says how to force it); the exit status."""
    if result.conflict:
        return fail("undo", f"{result.content} Use --force to undo it anyway.", 1)
    if result.is_error:
        return fail("undo", result.content, 1)
    print(visible(result.content))
    return 0


def _undo_operation(store: Any, args: argparse.Namespace, group_id: int, parts: list[Any]) -> int:
    """List the operation's parts, ask (or take --yes), and undo them all as one."""
    group = store.history.group(group_id)
    summary = group.summary if group is not None else f"operation {group_id}"
    print(
        visible(
            f"Event {args.event_id} is a part of operation {group_id} ({summary}), "
            f"{len(parts)} changes:"
        )
    )
    for part in parts:
        print(visible(f"  {part.id}  {part.command}  {path_cell(part)}"))
    if not args.yes:
        answer = ask(f"Undo all {len(parts)}?")
        if answer is None:
            return fail(
                "undo",
                f"event {args.event_id} is a part of operation {group_id} ({len(parts)} changes) "
                "and there is no terminal to ask on; pass --yes to undo all of them, or "
                "--event-only for this event alone",
            )
        if not answer:
            print("Nothing undone.")
            return 1
    return _report(store.revert_group(group_id, force=args.force))
