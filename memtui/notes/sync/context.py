"""What every step of a sync works with: the store, its repository, the sync tables, the branch
and this machine's name and id."""

from __future__ import annotations

import re
import socket
from collections.abc import Callable
from dataclasses import dataclass, field

from memtui.core.store import MemoryStore
from memtui.notes.sync.git import Git, Identity
from memtui.notes.sync.state import LAST_TIP, SyncState

ORIGIN = "origin"
DEFAULT_BRANCH = "main"
JOURNAL_REF = "refs/memtui/merging"
"""Set while a merge is applied to the files: the commit being merged (a killed sync resumes)."""
RESCUE_PREFIX = "refs/memtui/rescue/"
"""Where a branch tip that would otherwise be dropped is kept."""


def machine_name(configured: str | None = None) -> str:
    """This machine's name in commits and pulled events: the config's, else the host name."""
    name = " ".join((configured or "").split()) or socket.gethostname() or "this machine"
    return name[:100]


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

    @property
    def branch_ref(self) -> str:
        """The local branch's full ref."""
        return f"refs/heads/{self.branch}"

    @property
    def tracking_ref(self) -> str:
        """Where the remote's branch is fetched to."""
        return f"refs/remotes/{ORIGIN}/{self.branch}"

    def author(self, actor: str) -> Identity:
        """The git author of an actor's changes on this machine."""
        return Identity(actor, f"memtui@{slug(self.machine)}")

    def move_branch(self, new: str, old: str | None, reason: str) -> None:
        """Move the branch from `old` to `new` (refused if it moved meanwhile) and remember the
        tip, so a tip moved away by hand later is kept as a rescue."""
        self.git.run("update-ref", "-m", reason, self.branch_ref, new, old or "0" * 40)
        self.state.put(LAST_TIP, new)

    def now(self) -> int:
        """The store clock's time, in whole seconds."""
        return int(self.store.clock())


def committer_for(machine: str) -> Identity:
    """The committer of every commit memtui makes on a machine."""
    return Identity(f"memtui on {machine}", f"memtui@{slug(machine)}")
