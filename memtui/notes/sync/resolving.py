"""A clash resolved by a person: yours (this machine's text stays), theirs, both, or a text they
wrote. The change is a person's write through the core, so it is in the history, can be undone,
and goes out with the next sync like any other change.

The note may have changed since the sync left it; the resolution is then merged three ways with
that change (the text the sync left as the base), and written only if they combine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from memtui.core.result import CONFLICT, NOT_FOUND, CommandResult
from memtui.core.store import MemoryStore, StoreError
from memtui.notes.merge import MergeResult, Side, merge_texts
from memtui.notes.sync.rules import sync_merge, text_of
from memtui.notes.sync.state import (
    CLASH_DELETED_HERE,
    CLASH_DELETED_THERE,
    CLASH_MARKERS,
    CLASH_TEXT,
    Clash,
    SyncState,
)

Choice = Literal["yours", "theirs", "both", "edit"]
CHOICES: tuple[Choice, ...] = ("yours", "theirs", "both", "edit")
_SIDES: dict[str, Side] = {"yours": "mine", "theirs": "theirs", "both": "both"}


@dataclass(frozen=True)
class ClashTexts:
    """A clash's three texts and their merge (the overlapping changes as its conflicts)."""

    base: str | None
    ours: str | None
    theirs: str | None
    merge: MergeResult | None

    @property
    def left(self) -> str | None:
        """The text the sync left in the file (this machine's side of every clash)."""
        if self.merge is not None:
            return self.merge.text([c.side("mine") for c in self.merge.conflicts])
        return self.ours

    def side(self, choice: str) -> str | None:
        """The whole text a choice makes (None: the note goes away)."""
        if self.merge is not None:
            side = _SIDES[choice]
            return self.merge.text([c.side(side) for c in self.merge.conflicts])
        if choice == "both":
            return self.ours if self.ours is not None else self.theirs
        return self.ours if choice == "yours" else self.theirs


def clash_texts(clash: Clash) -> ClashTexts:
    """The texts of a clash, merged again by the sync's rules when both sides are text."""
    base, ours, theirs = text_of(clash.base), text_of(clash.ours), text_of(clash.theirs)
    merge = None
    if clash.kind == CLASH_TEXT and ours is not None and theirs is not None:
        merge = sync_merge(base, ours, theirs)
    return ClashTexts(base, ours, theirs, merge)


def describe(clash: Clash) -> str:
    """One line saying what the clash is (untrusted names left for the caller to make safe)."""
    where = f"{clash.actor} on {clash.machine}"
    if clash.kind == CLASH_TEXT:
        return f"the same lines were changed here and by {where}; this machine's text is kept"
    if clash.kind == CLASH_DELETED_THERE:
        return f"changed here, deleted by {where}; the note is kept"
    if clash.kind == CLASH_DELETED_HERE:
        return f"deleted here, changed by {where}; their change is kept"
    if clash.kind == CLASH_MARKERS:
        return (
            f"changed by {where} into a text holding git conflict markers; this machine's is kept"
        )
    return f"changed by {where} in a way memtui cannot apply here; this machine's state is kept"


def resolve_clash(
    store: MemoryStore, state: SyncState, clash_id: int, choice: Choice, text: str | None = None
) -> CommandResult:
    """Resolve clash `clash_id` as `store`'s person; `text` is the whole note for `edit`."""
    clash = state.clash(clash_id)
    if clash is None or clash.resolved_time is not None:
        what = "no clash" if clash is None else "already resolved: clash"
        return CommandResult(f"There is {what} {clash_id}", True, kind=NOT_FOUND)
    texts = clash_texts(clash)
    target = text if choice == "edit" else texts.side(choice)
    if choice == "edit" and text is None:
        return CommandResult("Resolving with edit needs the text", True)
    if choice == "theirs" and texts.theirs is None and clash.theirs is not None:
        return CommandResult(
            f"Cannot take theirs for {clash.virtual}: their version is not text", True
        )
    result = _bring_to(
        store,
        clash.virtual,
        texts.left if clash.kind != CLASH_DELETED_HERE else texts.theirs,
        target,
    )
    if not result.is_error:
        state.resolve(clash_id, store.actor, choice, store.clock())
    return result


def _bring_to(
    store: MemoryStore, virtual: str, left: str | None, target: str | None
) -> CommandResult:
    """Make the note hold `target` (None: deleted), merging with a change made since the sync
    left it at `left`."""
    try:
        current, revision = store.read(virtual)
    except StoreError:
        current, revision = None, None
    if current == target:
        return CommandResult(f"Kept {virtual} as it is", False)
    if current is not None and left is not None and target is not None and current != left:
        merged = merge_texts(left, target, current)
        if not merged.clean:
            return CommandResult(
                f"Conflict: {virtual} changed since the sync; resolve it with edit",
                True,
                kind=CONFLICT,
            )
        target = merged.text()
    if target is None:
        return store.delete(virtual)
    return store.write(virtual, target, revision)
