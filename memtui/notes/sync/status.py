"""A store's sync state at a glance, for a status line: changes not sent yet, commits the last
fetch found on the remote and not merged, when the last sync finished, what waits for a person.
Reading it never touches the network and never takes a lock (git reads refs only)."""

from __future__ import annotations

from dataclasses import dataclass

from memtui.core.plurals import count
from memtui.core.store import MemoryStore
from memtui.notes.sync.context import ORIGIN
from memtui.notes.sync.git import Git
from memtui.notes.sync.setup import BRANCH_KEY, repo_exists, settings
from memtui.notes.sync.state import COMMITTED, FIRST_EVENT, LAST_SYNC, SyncState


@dataclass(frozen=True)
class SyncStatus:
    """Where a store stands with its remote."""

    configured: bool
    to_send: int = 0
    """This machine's changes not pushed yet (events since the last commit, and commits)."""
    to_merge: int = 0
    """Commits the last fetch found on the remote that are not merged here."""
    last_sync: float | None = None
    clashes: int = 0
    held: int = 0

    def line(self, now: float) -> str:
        """`sync: 3 to send · 2 min ago · 1 clash` (empty when sync is not set up)."""
        if not self.configured:
            return ""
        parts = []
        if self.to_send:
            parts.append(f"{self.to_send:,} to send")
        if self.to_merge:
            parts.append(f"{self.to_merge:,} to merge")
        if not parts:
            parts.append("in sync")
        parts.append(ago(self.last_sync, now))
        if self.clashes:
            parts.append(count(self.clashes, "clash", "clashes"))
        if self.held:
            parts.append(f"{self.held:,} held back")
        return "sync: " + " · ".join(parts)


def ago(when: float | None, now: float) -> str:
    """`never synced`, `just now`, `5 min ago`, `3 h ago`, `2 days ago`."""
    if when is None:
        return "never synced"
    seconds = max(0.0, now - when)
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    return count(int(seconds // 86400), "day") + " ago"


def sync_status(store: MemoryStore) -> SyncStatus:
    """The store's sync status (not configured when it has no repository or remote)."""
    git = Git.for_store(store.root)
    if not repo_exists(git):
        return SyncStatus(False)
    known = settings(git)
    if f"remote.{ORIGIN}.url" not in known:
        return SyncStatus(False)
    branch = known.get(BRANCH_KEY) or "main"
    ahead, behind = _counts(git, branch)
    state = SyncState.existing(store.history)
    if state is None:
        return SyncStatus(True, ahead, behind)
    last = state.get(LAST_SYNC)
    after = max(state.number(COMMITTED), state.number(FIRST_EVENT))
    unsent = state.changes_after(after)
    return SyncStatus(
        True,
        ahead + unsent,
        behind,
        float(last) if last else None,
        state.open_clash_count(),
        len(state.held()),
    )


def _counts(git: Git, branch: str) -> tuple[int, int]:
    """(commits here not on the remote's branch as last fetched, and the other way round)."""
    done = git.run(
        "rev-list",
        "--left-right",
        "--count",
        f"refs/heads/{branch}...refs/remotes/{ORIGIN}/{branch}",
        check=False,
        env={"GIT_OPTIONAL_LOCKS": "0"},
    )
    parts = done.stdout.split()
    if done.returncode != 0 or len(parts) != 2:
        return 0, 0
    return int(parts[0]), int(parts[1])
