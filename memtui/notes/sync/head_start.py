"""A one-shot sync's head start: the sync's lock taken, the remote's URL and branch read and the
fetch started before the store and the sync's machinery are imported, so git fetches while
Python loads them. Only git's runner and the lock are imported here."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path

from memtui.core.resolving.lock import MutationLock
from memtui.notes.sync.context import ORIGIN, branch_ref, tracking_ref
from memtui.notes.sync.git import NETWORK_TIMEOUT, Git, GitError, Running
from memtui.notes.sync.setup import BRANCH_KEY, clear_stale_locks, repo_exists, settings

SYNC_LOCK = "sync.lock"
"""The lock only one sync of a store holds at a time (`.memtui/sync.lock`)."""


def start_fetch(git: Git, branch: str) -> Running:
    """Start fetching the remote's `branch` (the sync waits for it before it merges)."""
    return git.start(
        "fetch",
        "--quiet",
        "--no-tags",
        ORIGIN,
        f"+{branch_ref(branch)}:{tracking_ref(branch)}",
        timeout=NETWORK_TIMEOUT,
    )


@dataclass
class HeadStart:
    """What a sync started before the store was opened: the sync's lock held, the remote read,
    the fetch running. `release()` once the sync is over (or never ran)."""

    lock: MutationLock
    git: Git
    url: str
    branch: str
    fetching: Running
    _held: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)

    def release(self) -> None:
        """Stop the fetch if it still runs, let go of the lock and close it."""
        try:
            self.fetching.stop()
        finally:
            self._held.close()
            self.lock.close()


def head_start(root: Path, *, wait: float) -> HeadStart | None:
    """Take the sync's lock of the store at `root` (waiting up to `wait` seconds for another
    sync: LockBusy), read its remote and start the fetch; None, having changed nothing, when
    the store is not set up for sync or anything stands in the way (the sync itself then finds
    it and says why in one line)."""
    git = Git.for_store(root)
    if not repo_exists(git):
        return None
    lock = MutationLock(root, SYNC_LOCK)
    held = contextlib.ExitStack()
    try:
        held.enter_context(lock.hold(timeout=wait))
        git.held_fds = (lock.fileno(),)
        known = settings(git)
        url = known.get(f"remote.{ORIGIN}.url")
        if url is not None:
            clear_stale_locks(git)
            branch = known.get(BRANCH_KEY) or "main"
            return HeadStart(lock, git, url, branch, start_fetch(git, branch), held)
    except (OSError, GitError):
        pass
    except BaseException:
        held.close()
        lock.close()
        raise
    held.close()
    lock.close()
    return None
