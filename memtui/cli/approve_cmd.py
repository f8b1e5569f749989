"""`memtui approve`: mark agent and outside changes reviewed, as a person."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memtui.cli.shared import has_history, whole_number
from memtui.cli.terminal import visible
from memtui.core.plurals import count, noun_for
from memtui.core.reporting import fail

if TYPE_CHECKING:
    from memtui.core.recording.events import Event
    from memtui.core.recording.reviews import NotReviewable, Review

_DESCRIPTION = """\
Mark changes of PATH's history reviewed (see `memtui changes PATH`), as "human:NAME": they
leave the list of changes waiting for review, here and in the app's inbox, for every process
on the store. Name the event ids you reviewed, or give --all for every change waiting now
(including any an agent made since you listed them). An id that is not in the history, or that
is not an agent's or outside change, stops the command with nothing marked.

An id of a change the access policy held for your approval applies it, as the agent's change
approved by you, in the order the agent made them. If the file changed since, the two are
merged; changes that overlap are not applied (resolve them in the app's inbox, `c`, or reject
the change with `memtui reject`). A held delete or move of something changed since needs
--force. --all never applies held changes.
"""


def register(subparsers: Any) -> None:
    """Add the `approve` subcommand."""
    parser = subparsers.add_parser(
        "approve",
        help="mark agent and outside changes reviewed",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", metavar="PATH", help="the memory folder")
    parser.add_argument(
        "event_ids", metavar="EVENT_ID", nargs="*", type=whole_number, help="the changes to approve"
    )
    parser.add_argument("--all", action="store_true", help="approve every change waiting now")
    parser.add_argument(
        "--force",
        action="store_true",
        help="apply a held delete or move even if its source changed since it was proposed",
    )
    parser.add_argument(
        "--actor",
        metavar="NAME",
        default=None,
        help=(
            'who reviewed them, recorded as "human:NAME" (default: MEMTUI_ACTOR, else the '
            "config's actor, else your login name)"
        ),
    )


def _refusal(error: NotReviewable, path: str) -> str:
    """The one line saying which ids cannot be approved."""
    if error.unknown:
        ids = ", ".join(str(event_id) for event_id in error.unknown)
        noun = noun_for(len(error.unknown), "event")
        return f"no {noun} {ids} in {path}'s history (see memtui changes); nothing approved"
    shown = ", ".join(
        f"{event.id} ({'the baseline' if event.command == 'baseline' else _what(event)})"
        for event in error.not_changes
    )
    noun, verb = ("event", "is") if len(error.not_changes) == 1 else ("events", "are")
    return f"{noun} {shown} {verb} not an agent's or outside change to review; nothing approved"


def _what(event: Event) -> str:
    """`view by agent:x`, `refused create by agent:x`: an event in a few words."""
    refused = "refused " if event.is_error else ""
    return f"{refused}{event.command} by {event.actor}"


def _report(marked: list[int], earlier: dict[int, Review], reviewer: str, listed: bool) -> None:
    """Print what was approved now and what had been reviewed before."""
    if not marked and not earlier:
        print("Nothing waits for review.")
        return
    if marked:
        ids = f": {', '.join(map(str, marked))}" if listed else ""
        print(visible(f"Approved {count(len(marked), 'change')} as {reviewer}{ids}"))
    for event_id, review in sorted(earlier.items()):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(review.time))
        print(visible(f"Event {event_id} was already reviewed by {review.reviewer} on {when}"))


def _held_ids(root: Path, event_ids: list[int]) -> list[int]:
    """The ids among `event_ids` of changes held for approval (waiting or decided)."""
    from memtui.core.recording.history import History
    from memtui.core.recording.proposals import Proposals

    if not event_ids:
        return []
    proposals = Proposals(History(root))
    return [event_id for event_id in event_ids if proposals.get(event_id) is not None]


def _apply_held(args: argparse.Namespace, held: list[int]) -> int:
    """Approve held changes, in the order given; 1 if any was not applied."""
    from memtui.cli.shared import human_store
    from memtui.notes.operations.deciding import approve

    store = human_store("approve", args.path, args.actor)
    if isinstance(store, int):
        return store
    status = 0
    for proposal_id in held:
        approval = approve(store, proposal_id, force=args.force)
        if approval.result is None:
            path = approval.held.proposal.path if approval.held is not None else ""
            status = fail(
                "approve",
                f"proposal {proposal_id}: {path} changed since it was proposed and the changes "
                "overlap; nothing was applied. Choose in the app's inbox (c), or reject it",
                1,
            )
        elif approval.result.is_error:
            status = fail("approve", approval.result.content, 1)
        else:
            print(visible(approval.result.content))
    return status


def run(args: argparse.Namespace) -> int:
    """Run `memtui approve`: exit 2 for a bad id or command line, 1 if nothing could be marked."""
    from memtui.core.actors import ActorError, human_actor
    from memtui.core.config import ConfigError, default_human_actor, load_settings
    from memtui.core.recording.database import HistoryCorrupt, RecordFailed
    from memtui.core.recording.history import History
    from memtui.core.recording.inbox import changes
    from memtui.core.recording.reviews import NotReviewable

    if bool(args.event_ids) == bool(args.all):
        return fail("approve", "give the EVENT_IDs to approve, or --all (not both)")
    root = Path(args.path)
    if not has_history(root):
        return fail("approve", f"{args.path}: no memtui history here")
    try:
        held = _held_ids(root, args.event_ids)
    except HistoryCorrupt as error:
        return fail("approve", error)
    if held:
        status = _apply_held(args, held)
        args.event_ids = [event_id for event_id in args.event_ids if event_id not in held]
        if not args.event_ids or status:
            return status
    try:
        settings = load_settings()
        reviewer = default_human_actor(settings) if args.actor is None else human_actor(args.actor)
        history = History(root)
        wanted = args.event_ids or [event.id for event in changes(history)]
        marked, earlier = history.mark_reviewed(wanted, reviewer, time.time())
    except ActorError as error:
        return fail("approve", f"{'login name' if args.actor is None else '--actor'}: {error}")
    except (ConfigError, HistoryCorrupt) as error:
        return fail("approve", error)
    except NotReviewable as error:
        return fail("approve", _refusal(error, args.path))
    except RecordFailed as error:
        reason = f"{args.path}: cannot record the review ({error.reason}); nothing approved"
        return fail("approve", reason, 1)
    _report(marked, earlier, reviewer, listed=bool(args.event_ids))
    return 0
