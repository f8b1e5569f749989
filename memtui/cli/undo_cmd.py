"""`memtui undo`: revert one history event through the core, as a human."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memtui.cli.shared import has_history, whole_number
from memtui.cli.terminal import visible
from memtui.core.reporting import fail, open_failure

_DESCRIPTION = """\
Undo one event of PATH's history (see `memtui log PATH`): restore what the event changed to how
it was before (an edit, a create, a rename, a delete of a file or a whole folder, a save, an
outside change, or an earlier undo). Refused with a "Conflict:" message if the file changed
since the event, unless --force. The undo is itself recorded, so it can be undone too.
"""


def register(subparsers: Any) -> None:
    """Add the `undo` subcommand."""
    parser = subparsers.add_parser(
        "undo",
        help="undo one history event (restore its before-state)",
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
        "--actor",
        metavar="NAME",
        default=None,
        help=(
            'who is undoing, recorded as "human:NAME" (default: MEMTUI_ACTOR, else the config\'s '
            "actor, else your login name)"
        ),
    )


def run(args: argparse.Namespace) -> int:
    """Run `memtui undo`: print the result; exit 1 on a conflict or error."""
    from memtui.core.actors import ActorError, human_actor
    from memtui.core.config import ConfigError, default_human_actor, load_settings
    from memtui.core.history import HistoryCorrupt
    from memtui.core.store import MemoryStore

    root = Path(args.path)
    if not has_history(root):
        return fail("undo", f"{args.path}: no memtui history here")
    try:
        settings = load_settings()
        actor = default_human_actor(settings) if args.actor is None else human_actor(args.actor)
        store = MemoryStore(root, actor=actor, settings=settings)
        if store.history.event(args.event_id) is None:
            return fail("undo", f"no event {args.event_id} in {args.path}'s history (see memtui log)")
        result = store.revert(args.event_id, force=args.force)
    except ActorError as error:
        return fail("undo", f"{'login name' if args.actor is None else '--actor'}: {error}")
    except (ConfigError, HistoryCorrupt) as error:
        return fail("undo", error)
    except OSError as error:
        return open_failure("undo", args.path, error)
    if result.is_error:
        return fail("undo", result.content, 1)
    print(visible(result.content))
    return 0
