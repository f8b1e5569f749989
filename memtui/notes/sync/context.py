"""What every step of a sync works with: the store, its repository, the sync tables, the branch
and this machine's name and id."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memtui.notes.sync.git import Git, Identity

if TYPE_CHECKING:
    from memtui.core.store import MemoryStore
    from memtui.notes.sync.state import SyncState

ORIGIN = "origin"
DEFAULT_BRANCH = "main"
RESCUE_PREFIX = "refs/memtui/rescue/"
"""Where a branch tip that would otherwise be dropped is kept."""
MACHINE_NAME_MOST = 100
"""Characters of a machine's name kept, this machine's and the names other machines give."""


def machine_name(configured: str | None = None) -> str:
    """This machine's name in commits and pulled events: the config's, else the host name."""
    name = " ".join((configured or "").split()) or os.uname().nodename or "this machine"
    return name[:MACHINE_NAME_MOST]


def branch_ref(branch: str) -> str:
    """The full ref of the local branch `branch`."""
    return f"refs/heads/{branch}"


def tracking_ref(branch: str) -> str:
    """Where the remote's branch `branch` is fetched to."""
    return f"refs/remotes/{ORIGIN}/{branch}"


def slug(text: str) -> str:
    """`text` as a word for an e-mail address (letters, digits, `.`, `-`)."""
    return re.sub(r"[^A-Za-z0-9.-]+", "-", text).strip("-.") or "machine"


@dataclass
class Context:
    """One sync's shared state."""

    store: MemoryStore
    git: Git
    state: SyncState
    branch: str
    machine: str
    machine_id: str
    progress: Callable[[str], None] = field(default=lambda _text: None)
    tip: str | None = None
    """The branch's commit (read when the round starts, kept as memtui moves it)."""
    index: dict[str, str | None] = field(default_factory=dict)
    """Index entries to write once the round's commits are made (path -> blob, None: gone)."""

    @property
    def branch_ref(self) -> str:
        """The local branch's full ref."""
        return branch_ref(self.branch)

    @property
    def tracking_ref(self) -> str:
        """Where the remote's branch is fetched to."""
        return tracking_ref(self.branch)

    def author(self, actor: str) -> Identity:
        """The git author of an actor's changes on this machine."""
        return Identity(actor, f"memtui@{slug(self.machine)}")

    def moved(self, new: str) -> None:
        """Remember the branch's new tip (so a tip moved away by hand later is rescued)."""
        from memtui.notes.sync.state import LAST_TIP  # the sync's tables: not for a head start

        self.tip = new
        self.state.put(LAST_TIP, new)

    def move_branch(self, new: str, reason: str) -> None:
        """Move the branch from the tip known to `new` (refused if it moved meanwhile)."""
        self.git.run("update-ref", "-m", reason, self.branch_ref, new, self.tip or "0" * 40)
        self.moved(new)

    def now(self) -> int:
        """The store clock's time, in whole seconds."""
        return int(self.store.clock())


def committer_for(machine: str) -> Identity:
    """The committer of every commit memtui makes on a machine."""
    return Identity(f"memtui on {machine}", f"memtui@{slug(machine)}")
