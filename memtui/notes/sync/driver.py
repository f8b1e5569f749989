"""One sync of a store: fetch, commit this machine's changes, merge the other machines' (both
with the store's lock held), push; a push refused because the remote moved fetches, merges and
tries again, a bounded number of times, never forcing.

Only one sync of a store runs at a time (a lock of its own, `.memtui/sync.lock`); agents and the
app keep working while it fetches and pushes, and wait only while it commits and merges.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from memtui.core.resolving.lock import LockBusy, MutationLock
from memtui.core.store import MemoryStore
from memtui.notes.sync.commits import commit_local, last_event_id
from memtui.notes.sync.context import (
    ORIGIN,
    RESCUE_PREFIX,
    Context,
    committer_for,
    machine_name,
)
from memtui.notes.sync.git import NETWORK_TIMEOUT, Git, GitError, error_of
from memtui.notes.sync.merging import merge_remote
from memtui.notes.sync.repo import index_info, is_ancestor, read_refs
from memtui.notes.sync.reviews import apply_marks
from memtui.notes.sync.setup import (
    BRANCH_KEY,
    SyncError,
    clear_stale_locks,
    connect,
    repo_exists,
    settings,
)
from memtui.notes.sync.state import (
    COMMITTED,
    FIRST_EVENT,
    LAST_SYNC,
    LAST_TIP,
    MACHINE_NAME,
    MERGING,
    Clash,
    SyncState,
)

ATTEMPTS = 5
"""How many times a sync pushes before it gives up (each refusal fetches and merges first)."""
SYNC_LOCK = "sync.lock"


@dataclass
class SyncReport:
    """What a sync did, and what waits for a person."""

    remote: str
    branch: str
    machine: str
    committed: int = 0
    pulled: int = 0
    paths: set[str] = field(default_factory=set)
    """The files the sync wrote here (relative paths), for whatever depends on them."""
    pushed: bool = False
    marks_sent: int = 0
    marks_received: int = 0
    attempts: int = 0
    new_clashes: list[int] = field(default_factory=list)
    clashes: list[Clash] = field(default_factory=list)
    """Every clash still waiting (this sync's and earlier ones)."""
    held: dict[str, str] = field(default_factory=dict)
    rescued: list[str] = field(default_factory=list)

    @property
    def waiting(self) -> bool:
        """Whether something waits for a person (a clash, a file held back)."""
        return bool(self.clashes or self.held)


def sync_store(
    store: MemoryStore,
    *,
    remote: str | None = None,
    machine: str | None = None,
    progress: Callable[[str], None] | None = None,
    attempts: int = ATTEMPTS,
    wait: float = 0.0,
) -> SyncReport:
    """Sync the store with its remote (`remote`: set it up with that URL first); `wait` is how
    long to wait for another sync of the store (or a git run it left) to end.

    Raises SyncError (one line) when it cannot: no remote set up, the remote unreachable or
    refusing, another sync running, the store's lock held too long.
    """
    name = _machine(store, machine)
    git = Git.for_store(store.root, committer_for(name))
    lock = MutationLock(store.root, SYNC_LOCK)
    try:
        with lock.hold(timeout=wait):
            git.held_fds = (lock.fileno(),)
            report = _sync(store, git, name, remote, progress or (lambda _text: None), attempts)
            if machine and SyncState(store.history).get(MACHINE_NAME) != name:
                SyncState(store.history).put(MACHINE_NAME, name)
            return report
    except LockBusy as busy:
        raise SyncError("another sync of this store is running; try again when it ends") from busy
    except GitError as problem:
        raise SyncError(str(problem)) from problem
    finally:
        lock.close()


def _machine(store: MemoryStore, given: str | None) -> str:
    """This machine's name: the one given, else the config's, else the one last given to a
    sync of this store, else the host name."""
    if given or store.settings.sync.machine:
        return machine_name(given or store.settings.sync.machine)
    state = SyncState.existing(store.history)
    return machine_name(state.get(MACHINE_NAME) if state is not None else None)


def _sync(
    store: MemoryStore,
    git: Git,
    machine: str,
    remote: str | None,
    progress: Callable[[str], None],
    attempts: int,
) -> SyncReport:
    """`sync_store` with the sync lock held."""
    if remote is not None:
        progress("looking at the remote")
        connect(git, remote)
    known = settings(git) if repo_exists(git) else {}
    url = known.get(f"remote.{ORIGIN}.url")
    if url is None:
        raise SyncError(
            f"{store.root} is not set up for sync: run `memtui sync {store.root} --remote URL` once"
        )
    branch = known.get(BRANCH_KEY) or "main"
    clear_stale_locks(git)
    state = SyncState(store.history)
    ctx = Context(store, git, state, branch, machine, state.machine_id(), progress)
    _first_time(ctx)
    report = SyncReport(url, branch, machine)
    ctx.tip = read_refs(git, ctx.branch_ref).get(ctx.branch_ref)
    report.rescued = _rescue_if_moved(ctx)
    reason = ""
    for attempt in range(1, attempts + 1):
        report.attempts = attempt
        refused = _round(ctx, report)
        if refused is None:
            break
        reason = refused
    else:
        raise SyncError(
            f"the remote refused the push {attempts} times ({reason}); this machine's changes "
            "are committed here and go out with the next sync"
        )
    state.put(LAST_SYNC, repr(store.clock()))
    report.clashes = state.clashes()
    return report


def _first_time(ctx: Context) -> None:
    """On a store's first sync: later changes are committed one by one, what came before is
    committed as the store's state."""
    if ctx.state.get(FIRST_EVENT) is None:
        newest = last_event_id(ctx)
        ctx.state.put(FIRST_EVENT, newest)
        ctx.state.put(COMMITTED, newest)


def _round(ctx: Context, report: SyncReport) -> str | None:
    """Fetch, commit, merge, push once; None when done, else why the push was refused."""
    ctx.progress("fetching")
    fetch(ctx)
    refs = read_refs(ctx.git, ctx.branch_ref, ctx.tracking_ref)
    ctx.tip, theirs = refs.get(ctx.branch_ref), refs.get(ctx.tracking_ref)
    ctx.progress("committing")
    try:
        with ctx.store.locked():
            _merge_and_commit(ctx, theirs, report)
            index_info(ctx.git, ctx.index)
            ctx.index.clear()
    except LockBusy as busy:
        raise SyncError(
            f"the store's lock was held for {busy.waited:.0f} s (an agent or another memtui); "
            "nothing was merged, try again in a moment"
        ) from busy
    if ctx.tip is None or ctx.tip == theirs:
        return None
    ctx.progress("pushing")
    refused = push(ctx, ctx.tip)
    report.pushed = refused is None
    return refused


def _merge_and_commit(ctx: Context, theirs: str | None, report: SyncReport) -> None:
    """A merge a killed sync left finished, this machine's changes committed, the other
    machines' merged (the store's lock held)."""
    pending = ctx.state.get(MERGING)
    if pending:
        _count(report, merge_remote(ctx, pending), ctx)
    first = f"memtui: the notes on {ctx.machine} when sync began"
    committed = commit_local(ctx, first_message=first)
    report.committed += committed.files
    report.marks_sent += committed.marks
    report.held = committed.held
    ctx.state.set_held(committed.held)
    if theirs is not None:
        _count(report, merge_remote(ctx, theirs), ctx)


def _count(report: SyncReport, merged: object, ctx: Context) -> None:
    """Add a merge's figures to the report and put the marks it brought on events."""
    from memtui.notes.sync.merging import Merged

    assert isinstance(merged, Merged)
    report.pulled += merged.pulled
    report.paths |= merged.paths
    report.new_clashes += merged.clashes
    report.marks_received += apply_marks(ctx, merged.marks)


def fetch(ctx: Context) -> None:
    """Fetch the remote's branch (a remote without it leaves no tracking ref)."""
    done = ctx.git.run(
        "fetch",
        "--quiet",
        "--no-tags",
        ORIGIN,
        f"+{ctx.branch_ref}:{ctx.tracking_ref}",
        check=False,
        timeout=NETWORK_TIMEOUT,
    )
    if done.returncode == 0:
        return
    if b"couldn't find remote ref" not in done.stderr:
        raise SyncError(str(error_of("fetch", done)))
    ctx.git.run("update-ref", "-d", ctx.tracking_ref, check=False)


def push(ctx: Context, tip: str) -> str | None:
    """Push `tip` to the remote's branch, never forcing; None when pushed, else why the remote
    refused it (a branch that moved meanwhile, a hook)."""
    done = ctx.git.run(
        "push",
        "--porcelain",
        ORIGIN,
        f"{tip}:{ctx.branch_ref}",
        check=False,
        timeout=NETWORK_TIMEOUT,
    )
    if done.returncode == 0:
        return None
    for line in done.stdout.decode("utf-8", "replace").splitlines():
        if line.startswith("!"):
            fields = line.split("\t")
            return _reason(fields[2] if len(fields) > 2 else "")
    raise SyncError(str(error_of("push", done)))


def _reason(summary: str) -> str:
    """`pre-receive hook declined` from `[remote rejected] (pre-receive hook declined)`."""
    inside = summary.partition("(")[2].rpartition(")")[0].strip()
    return inside or summary.strip() or "rejected"


def _rescue_if_moved(ctx: Context) -> list[str]:
    """Keep under a rescue ref the tip memtui last left when the branch no longer holds it
    (moved back or away by hand): those commits would otherwise be dropped."""
    last = ctx.state.get(LAST_TIP)
    tip = ctx.tip
    if not last or last == tip or not ctx.git.ok("cat-file", "-e", f"{last}^{{commit}}"):
        return []
    if tip is not None and is_ancestor(ctx.git, last, tip):
        return []
    ref = RESCUE_PREFIX + time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + f"-{last[:12]}"
    ctx.git.run("update-ref", "-m", "memtui sync: rescue", ref, last)
    ctx.state.put(LAST_TIP, tip or "")
    return [ref]
