"""A person decides on changes the store's policy held: each shown against the file as it is now,
approved through the core as the agent's change (merged three ways when the file changed since
it was proposed: applied when the changes combine, asked about when they overlap, never written
over), or rejected.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from memtui.core.parsing.paths import to_relpath
from memtui.core.recording.proposals import Proposal
from memtui.core.result import CommandResult
from memtui.core.store import MemoryStore, StoreError
from memtui.notes.merge import MergeResult, diff_lines, merge_texts
from memtui.notes.operations.saving import Changed


@dataclass(frozen=True)
class Held:
    """A waiting proposal as a person sees it: the file now, and what approving would leave."""

    proposal: Proposal
    base: str | None
    """The file's text when the agent proposed the change (None: there was none)."""
    proposed: str | None
    """The text the agent's change leaves (None for a delete or rename)."""
    now: str | None
    """The file's text now (None: no file, or not text)."""
    revision: str | None
    """The file's revision now (what an approval of a merge expects)."""
    merge: MergeResult | None = None
    """The proposal merged with what changed since (None when nothing did)."""

    @property
    def id(self) -> int:
        """The proposal's id."""
        return self.proposal.id

    @property
    def changed_since(self) -> bool:
        """Whether the file changed after the agent proposed its change."""
        return self.revision != self.proposal.base_hash

    @property
    def clashes(self) -> bool:
        """Whether the proposal and the changes made since touch the same lines."""
        return self.merge is not None and not self.merge.clean

    @property
    def result(self) -> str | None:
        """The text approving leaves (None: no text, or a clash a person must resolve)."""
        if self.proposed is None or self.clashes:
            return None
        return self.merge.text() if self.merge is not None else self.proposed

    def summary(self) -> str:
        """`str_replace by agent:claude`, `rename to /memories/b.md by agent:claude`."""
        proposal = self.proposal
        target = f" to {proposal.new_path}" if proposal.new_path else ""
        return f"{proposal.command}{target} by {proposal.actor}"

    def diff(self) -> list[str]:
        """What approving now would do to the file as it is, as a unified diff (a clash: the
        agent's change against what it started from, and a line saying it clashes)."""
        proposal = self.proposal
        name = to_relpath(proposal.path)
        if proposal.command == "delete":
            return diff_lines(self.now or "", "", name, "(deleted)")
        if proposal.command == "rename":
            return [f"rename {name} -> {to_relpath(proposal.new_path or '')}"]
        if self.clashes:
            note = "changed since it was proposed; the changes overlap (approve to choose)"
            return [
                f"# {name} {note}",
                *diff_lines(self.base or "", self.proposed or "", name, name),
            ]
        return diff_lines(self.now or "", self.result or "", name, name)

    def as_changed(self) -> Changed:
        """The clash as the merge dialogs show it: the agent's change is `mine` (keeping it
        applies it over the file now), the file now `theirs` (keeping it applies nothing)."""
        merge = merge_texts(self.base or "", self.proposed or "", self.now or "")
        return Changed(
            self.proposal.path,
            self.base or "",
            self.proposed or "",
            self.now,
            self.revision,
            merge,
            [],
        )


def _text(store: MemoryStore, digest: str | None) -> str | None:
    """A history blob as text (None when there is none, or it is not text); a blob never
    changes, so reading one needs no start-up recovery (a command that only lists held changes
    writes nothing)."""
    if digest is None:
        return None
    data = store.history_before_recovery().blob(digest)
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def held(store: MemoryStore, proposal: Proposal) -> Held:
    """One proposal against the file as it is now (merged when the file changed since)."""
    now: str | None
    revision: str | None
    try:
        now, revision = store.read(proposal.path)
    except StoreError:
        now, revision = None, store.revision(proposal.path)
    shown = Held(
        proposal,
        _text(store, proposal.base_hash),
        _text(store, proposal.proposed_hash),
        now,
        revision,
    )
    if shown.proposed is None or not shown.changed_since:
        return shown
    merge = merge_texts(shown.base or "", now or "", shown.proposed)
    return Held(proposal, shown.base, shown.proposed, now, revision, merge)


def waiting(store: MemoryStore, path: str | None = None) -> list[Held]:
    """Every waiting proposal (touching `path` or below it), oldest first."""
    return [held(store, proposal) for proposal in store.proposals.listing(path=path)]


@dataclass(frozen=True)
class Approval:
    """How an approval ended: the core's result, or the clash a person must resolve first."""

    result: CommandResult | None
    held: Held | None
    """The proposal as it was shown (None when there is no such proposal)."""

    @property
    def clash(self) -> bool:
        """Whether nothing was applied because the changes overlap."""
        return self.result is None


def approve(
    store: MemoryStore, proposal_id: int, resolved: str | None = None, *, force: bool = False
) -> Approval:
    """Approve one proposal as `store`'s person: applied as it is while the file is as the agent
    saw it, else merged with what changed since; overlapping changes are applied only as
    `resolved` (the merge a person chose), never written over. `force` moves or deletes a
    source that changed since."""
    proposal = store.proposals.get(proposal_id)
    shown = None if proposal is None else held(store, proposal)
    if shown is None or shown.proposed is None or not shown.changed_since:
        return Approval(store.approve_proposal(proposal_id, force=force), shown)
    text = resolved if resolved is not None else shown.result
    if text is None:
        return Approval(None, shown)
    return Approval(store.approve_proposal(proposal_id, text, shown.revision), shown)


def reject(store: MemoryStore, proposal_ids: Iterable[int]) -> list[CommandResult]:
    """Reject proposals as `store`'s person: nothing is applied; each decision is recorded."""
    return [store.reject_proposal(proposal_id) for proposal_id in proposal_ids]
