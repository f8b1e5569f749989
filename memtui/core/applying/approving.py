"""A person decides on a held change: approving applies it as the agent's change (recorded with
who approved it, and marked reviewed by them), rejecting applies nothing; each is one unit with
the proposal's decision.

A text change applies only onto the file it was made against (or onto the revision a merge was
made against, with the merged text): anything newer is a conflict, never overwritten. A delete
or rename applies only while its source is as it was, unless forced. Proposals to one path apply
in the order they were made.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memtui.core.applying.dispatch import plan_command
from memtui.core.applying.guard import FLAG_APPROVED
from memtui.core.applying.handlers import run_plan, size_refusal, undo_command
from memtui.core.applying.site import Site, open_site
from memtui.core.applying.snapshots import (
    MISSING,
    State,
    capture,
    put_whole,
    restore,
    same_state,
)
from memtui.core.parsing.command_types import CommandOutcome, ParsedCommand
from memtui.core.parsing.echo import echo
from memtui.core.parsing.paths import PathRefusal, check_path
from memtui.core.parsing.tool_input import parse_command
from memtui.core.recording.blobs import KIND_DIR
from memtui.core.recording.database import RecordFailed, unrecorded_message
from memtui.core.recording.keeping import Scanner
from memtui.core.recording.proposals import (
    APPROVED,
    REJECTED,
    NotWaiting,
    Proposal,
    prepared_event_id,
)
from memtui.core.result import CONFLICT, NOT_FOUND, REFUSED, CommandResult

if TYPE_CHECKING:
    from memtui.core.store import MemoryStore


class _Stopped(Exception):
    """Applying failed after the decision was written: the transaction is rolled back."""

    def __init__(self, outcome: CommandOutcome) -> None:
        """Carry the failure's outcome."""
        super().__init__(outcome.content)
        self.outcome = outcome


@dataclass(frozen=True)
class _Asked:
    """One approval as asked: the proposal, the merged text (if any) and its base revision."""

    proposal: Proposal
    text: str | None
    revision: str | None
    force: bool

    @property
    def args(self) -> dict[str, Any]:
        """What the history records of the approval's call."""
        args: dict[str, Any] = {"proposal": self.proposal.id}
        if self.text is not None:
            args["merged"] = True
            args["revision"] = self.revision
        if self.force:
            args["force"] = True
        return args


def _problem(store: MemoryStore, proposal_id: int, what: str) -> CommandOutcome | Proposal:
    """The waiting proposal a person may decide on, or why not."""
    if store.is_agent:
        return CommandOutcome(
            f"Cannot {what} proposal {proposal_id}: only a person decides on held changes",
            True,
            kind=REFUSED,
        )
    proposal = store.proposals.get(proposal_id)
    if proposal is None:
        return CommandOutcome(f"There is no proposal {proposal_id}", True, kind=NOT_FOUND)
    if not proposal.waiting:
        return CommandOutcome(
            f"Proposal {proposal_id} was already {proposal.decision} by {proposal.decided_by}",
            True,
        )
    earlier = store.proposals.earlier_waiting(proposal)
    if earlier is not None and what == "approve":
        return CommandOutcome(
            f"Proposal {proposal_id} waits for proposal {earlier.id} to {echo(earlier.path)} "
            "(changes to one path apply in order): approve or reject that one first",
            True,
        )
    return proposal


def approve(
    store: MemoryStore,
    proposal_id: int,
    text: str | None = None,
    revision: str | None = None,
    force: bool = False,
) -> CommandResult:
    """Apply a held change as its agent's, approved by `store`'s person.

    Without `text`, a text change applies only if the file is still as the agent saw it; with
    it (a three-way merge of the proposal with the file now), the file must be at `revision`.
    A delete or rename applies only while its source is unchanged, unless `force`.
    """
    found = _problem(store, proposal_id, "approve")
    recorded = ("approve", None, {"proposal": proposal_id})
    if isinstance(found, CommandOutcome):
        return store.record_human(*recorded, found)
    asked = _Asked(found, text, revision, force)
    return store.when_locked(
        f"approve proposal {proposal_id}",
        ("approve", found.path, asked.args),
        lambda: _approve_locked(store, asked),
    )


def _approve_locked(store: MemoryStore, asked: _Asked) -> CommandResult:
    """`approve` once the lock is held."""
    found = _problem(store, asked.proposal.id, "approve")
    if isinstance(found, CommandOutcome):
        return store.record_human("approve", asked.proposal.path, asked.args, found)
    try:
        if found.proposed_hash is not None:
            return _approve_text(store, asked)
        return _approve_command(store, asked)
    except _Stopped as stopped:
        return store.record_human("approve", found.path, asked.args, stopped.outcome)


def _applied(store: MemoryStore, proposal: Proposal) -> CommandOutcome:
    """The result of an approved change, as its event records it."""
    return CommandOutcome(
        f"Applied proposal {proposal.id} ({proposal.command} of {echo(proposal.path)} by "
        f"{proposal.actor}), approved by {store.actor}",
        False,
        (FLAG_APPROVED,),
    )


def _decide_approved(store: MemoryStore, proposal: Proposal) -> None:
    """Write the approval inside the change's transaction (the change's event is the one the
    transaction prepared)."""
    conn = store.history.connection()
    try:
        store.proposals.decide(
            conn, proposal.id, APPROVED, store.actor, store.clock(), prepared_event_id(conn)
        )
    except NotWaiting:
        raise _Stopped(
            CommandOutcome(f"Proposal {proposal.id} is no longer waiting", True)
        ) from None


def _approve_text(store: MemoryStore, asked: _Asked) -> CommandResult:
    """Write a text proposal (or the merge of it) over the file it was made against."""
    proposal = asked.proposal
    shown = echo(proposal.path)
    checked = check_path(store.root, proposal.path, any_name=True)
    if isinstance(checked, PathRefusal):
        raise _Stopped(CommandOutcome(checked.message, True, checked.flags, REFUSED))
    with store.open_site() as site:
        location = site.place(checked.parts, shown)
        if isinstance(location, CommandOutcome):
            raise _Stopped(location)
        current = capture(location, store.max_size)
        if current.kind == KIND_DIR:
            raise _Stopped(CommandOutcome(f"Cannot approve: {shown} is a folder now", True))
        data = _approved_bytes(store, asked, current, shown)

        def apply() -> tuple[CommandOutcome, State]:
            _decide_approved(store, proposal)
            try:
                return _applied(store, proposal), put_whole(site.temps, location, data)
            except OSError as problem:
                reason = problem.strerror or str(problem)
                raise _Stopped(CommandOutcome(f"Cannot write {shown}: {reason}", True)) from None

        def undo() -> None:
            restore(location, current.kind, current.hash, current.blobs.get, site.temps)

        return _as_agent(store, proposal).human_change(
            proposal.command,
            proposal.path,
            asked.args,
            apply,
            undo,
            before=current,
            what=f"approve proposal {proposal.id}",
        )


def _approved_bytes(store: MemoryStore, asked: _Asked, current: State, shown: str) -> bytes:
    """The bytes approving writes: the proposed text while the file is as the agent saw it,
    else the merged text made against the file as it is now; raises _Stopped otherwise."""
    proposal = asked.proposal
    if asked.text is None:
        if current.pair != proposal.base:
            raise _Stopped(
                CommandOutcome(
                    f"Conflict: {shown} changed since proposal {proposal.id} was made; "
                    "merge the two (the app's inbox shows the merge) before approving",
                    True,
                    kind=CONFLICT,
                )
            )
        data = store.history.blob(proposal.proposed_hash or "")
        if data is None:
            raise _Stopped(
                CommandOutcome(f"The text of proposal {proposal.id} is not in the history", True)
            )
        return data
    if current.hash != asked.revision:
        raise _Stopped(
            CommandOutcome(
                f"Conflict: {shown} changed again while the merge was made; nothing was written",
                True,
                kind=CONFLICT,
            )
        )
    try:
        data = asked.text.encode("utf-8")
    except UnicodeEncodeError:
        raise _Stopped(CommandOutcome(f"The text for {shown} is not valid Unicode", True)) from None
    too_big = size_refusal(shown, len(data), store.max_size)
    if too_big is not None:
        raise _Stopped(too_big)
    return data


def _as_agent(store: MemoryStore, proposal: Proposal) -> MemoryStore:
    """The store recording as the agent that proposed the change (in its session)."""
    agent = store.with_actor(proposal.actor, proposal.session)
    agent.lock_policy = store.lock_policy
    return agent


def _approve_command(store: MemoryStore, asked: _Asked) -> CommandResult:
    """Carry out a held delete or rename while its source is as it was (or when forced)."""
    proposal = asked.proposal
    tool_input: dict[str, Any] = (
        {"command": "rename", "old_path": proposal.path, "new_path": proposal.new_path}
        if proposal.command == "rename"
        else {"command": proposal.command, "path": proposal.path}
    )
    parsed = parse_command(store.root, tool_input, any_name=True)
    if isinstance(parsed, CommandOutcome):
        raise _Stopped(parsed)
    site = open_site(store.root, parsed, store.max_size)
    if isinstance(site, CommandOutcome):
        raise _Stopped(site)
    with site:
        current = _unchanged_source(store, asked, parsed, site)
        plan = plan_command(parsed, site)
        if isinstance(plan, CommandOutcome):
            raise _Stopped(plan)

        def apply() -> tuple[CommandOutcome, State]:
            _decide_approved(store, proposal)
            outcome = run_plan(parsed, plan)
            if outcome.is_error:
                raise _Stopped(outcome)
            return _applied(store, proposal), (MISSING if parsed.command == "delete" else current)

        return _as_agent(store, proposal).human_change(
            proposal.command,
            parsed.virtual[0],
            asked.args,
            apply,
            lambda: undo_command(parsed, site, current),
            before=current,
            what=f"approve proposal {proposal.id}",
            new_path=parsed.virtual[1] if len(parsed.virtual) > 1 else None,
        )


def _unchanged_source(
    store: MemoryStore, asked: _Asked, parsed: ParsedCommand, site: Site
) -> State:
    """What is at the source now, if it is still what the agent saw (or `force`); raises
    _Stopped otherwise."""
    proposal = asked.proposal
    shown = echo(proposal.path)
    current = capture(site.locations[0], store.max_size)
    if current.kind is None:
        raise _Stopped(
            CommandOutcome(
                f"{shown} is gone since proposal {proposal.id} was made; reject it",
                True,
                kind=NOT_FOUND,
            )
        )
    if not asked.force and not same_state(current, *proposal.base, store.history.blob):
        verb = "delete" if parsed.command == "delete" else "move"
        raise _Stopped(
            CommandOutcome(
                f"Conflict: {shown} changed since proposal {proposal.id} was made; approving "
                f"would {verb} those changes too. Approve it with force, or reject it",
                True,
                kind=CONFLICT,
            )
        )
    return current


def reject(store: MemoryStore, proposal_id: int) -> CommandResult:
    """Decide against a held change: nothing is applied; the decision and who made it are
    recorded (a `reject` event and the proposal's decision, as one unit)."""
    found = _problem(store, proposal_id, "reject")
    args = {"proposal": proposal_id}
    if isinstance(found, CommandOutcome):
        return store.record_human("reject", None, args, found)
    return store.when_locked(
        f"reject proposal {proposal_id}",
        ("reject", found.path, args),
        lambda: _reject_locked(store, found, args),
    )


def _reject_locked(store: MemoryStore, proposal: Proposal, args: dict[str, Any]) -> CommandResult:
    """`reject` once the lock is held."""
    when = store.clock()
    outcome = CommandOutcome(
        f"Rejected proposal {proposal.id} ({proposal.command} of {echo(proposal.path)} by "
        f"{proposal.actor}); nothing was applied",
        False,
    )
    event = store.pending_event(
        "reject", outcome, Scanner(), args=args, path=proposal.path, when=when
    )

    def apply() -> Any:
        store.proposals.decide(store.history.connection(), proposal.id, REJECTED, store.actor, when)
        return event

    try:
        event_id = store.history.change(event, apply, lambda _event: None)
    except NotWaiting:
        failed = CommandOutcome(f"Proposal {proposal.id} is no longer waiting", True)
        return store.record_human("reject", proposal.path, args, failed)
    except RecordFailed as problem:
        what = f"reject proposal {proposal.id}"
        return CommandResult(unrecorded_message(what, problem), True)
    return CommandResult(outcome.content, False, event_id)
