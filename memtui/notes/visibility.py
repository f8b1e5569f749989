"""Which indexed paths an agent may see: the readers that answer agents from the index (search,
context, recent activity, the LangGraph store's listings) leave out what the store's policy
hides from it, as the memory tool's `view` does.

A path is hidden when the policy says `none` for it as written or for where it resolves (a link
inside the store is followed on descriptors, as the command core follows it), so a link never
shows what it points at.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from memtui.core.applying.guard import broken
from memtui.core.policy.rules import ActorPolicy
from memtui.core.resolving.fd_paths import OutsideStore, StoreRoot

if TYPE_CHECKING:
    from memtui.core.store import MemoryStore

Visible = Callable[[str], bool]
"""A test of a path relative to the store: may the reader see it?"""


class PolicyUnusable(ValueError):
    """The store's policy cannot be used, so an agent is answered nothing; the message says so
    in one line."""


class Visibility:
    """What one agent may see of a store: `allows(relpath)`."""

    def __init__(self, root: Path, gate: ActorPolicy) -> None:
        """Test paths of `root` against `gate` (whose policy can be used)."""
        self.root = root
        self.gate = gate
        self._seen: dict[str, bool] = {}

    @classmethod
    def of(cls, store: MemoryStore) -> Visibility | None:
        """The visibility of `store`'s agent; None when it may see everything (a person, or no
        rule hides anything from it). Raises PolicyUnusable when the policy cannot be used."""
        gate = store.gate()
        if gate is None:
            return None
        if gate.problem is not None:
            raise PolicyUnusable(broken(gate).content)
        if not gate.hides_any:
            return None
        return cls(store.root, gate)

    def allows(self, relpath: str) -> bool:
        """Whether the agent may see `relpath` (remembered for this object's life: make one per
        request)."""
        known = self._seen.get(relpath)
        if known is None:
            known = not self.gate.hidden(relpath) and not self._hidden_target(relpath)
            self._seen[relpath] = known
        return known

    def _hidden_target(self, relpath: str) -> bool:
        """Whether `relpath` resolves (links followed on descriptors) to a hidden path, or out
        of the store."""
        try:
            with StoreRoot(self.root) as root, root.locate_relative(relpath) as location:
                resolved = location.relative
        except (OSError, OutsideStore):
            return True
        return resolved != relpath and self.gate.hidden(resolved)


def visible_filter(store: MemoryStore) -> Visible | None:
    """`Visibility.of(store).allows`, or None when the agent may see everything."""
    visibility = Visibility.of(store)
    return None if visibility is None else visibility.allows
