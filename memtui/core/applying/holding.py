"""An agent's change held for review: checked exactly as if it were applied, then kept as a
proposal (with what it started from and, for a text, the text it would leave) and not applied.

The agent's call and the proposal are stored in one transaction; the proposal's id is the call's
event id, which the agent's answer names. Nothing at all changes on disk, not even the folders a
rename of a missing source would make. The call is recorded as one that changed nothing (like
a refusal, flagged `policy:held`), so no list of changes, review or undo counts it; the agent's
answer is not an error.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from memtui.core.applying.guard import FLAG_HELD
from memtui.core.applying.handlers import rename_missing_source
from memtui.core.applying.site import Site
from memtui.core.applying.snapshots import State
from memtui.core.hashing import digest
from memtui.core.parsing.command_types import CommandOutcome, ParsedCommand
from memtui.core.recording.database import RecordFailed, unrecorded_message
from memtui.core.recording.events import PendingEvent
from memtui.core.recording.keeping import Scanner
from memtui.core.recording.proposals import Proposal, prepared_event_id
from memtui.core.result import HELD, CommandResult

if TYPE_CHECKING:
    from memtui.core.store import MemoryStore


def held_message(parsed: ParsedCommand, proposal_id: int) -> str:
    """The one sentence an agent gets for a held change."""
    return (
        f"Held for review: a person must approve this change to {parsed.echoed[0]} before it is "
        f"applied (proposal {proposal_id}); until then nothing changes."
    )


def hold(
    store: MemoryStore,
    parsed: ParsedCommand,
    args: Mapping[str, Any],
    site: Site,
    before: State,
    proposed: bytes | None,
    *,
    flags: tuple[str, ...] = (),
    scanner: Scanner | None = None,
) -> CommandResult:
    """Keep a checked change of `store`'s agent as a proposal instead of applying it.

    `before` is what is at the command's (first) path now; `proposed` the file's whole new text
    for a change that leaves one; `flags` what the event adds (a secret the text holds). A
    rename whose source is missing answers as it would if it were applied.
    """
    scanner = scanner or Scanner()
    if parsed.command == "rename" and before.kind is None:
        missing = rename_missing_source(parsed, site, make_parents=False)
        return store.record_call(parsed, args, missing, scanner)
    when = store.clock()
    new_path = parsed.virtual[1] if len(parsed.virtual) > 1 else None
    blobs = dict(before.blobs)
    proposed_hash = None
    if proposed is not None:
        proposed_hash = digest(proposed)
        blobs[proposed_hash] = proposed
    outcomes: list[CommandOutcome] = []

    def event(outcome: CommandOutcome) -> PendingEvent:
        return store.pending_event(
            parsed.command,
            outcome,
            scanner,
            args=args,
            path=parsed.virtual[0],
            new_path=new_path,
            flags=outcome.flags,
            when=when,
        )

    def apply() -> PendingEvent:
        conn = store.history.connection()
        held_id = prepared_event_id(conn)
        outcome = CommandOutcome(held_message(parsed, held_id), False, (FLAG_HELD, *flags), HELD)
        outcomes.append(outcome)
        store.proposals.add(
            conn,
            Proposal(
                held_id,
                when,
                store.actor,
                store.session,
                parsed.command,
                parsed.virtual[0],
                new_path,
                before.kind,
                before.hash,
                proposed_hash,
            ),
        )
        held = event(outcome)
        return dataclasses.replace(held, is_error=True, blobs={**(held.blobs or {}), **blobs})

    try:
        event_id = store.history.change(
            event(CommandOutcome("", False)), apply, lambda _event: None
        )
    except RecordFailed as problem:
        what = f"hold the change to {parsed.echoed[0]}"
        return CommandResult(unrecorded_message(what, problem), True)
    return CommandResult(outcomes[-1].content, False, event_id, HELD)
