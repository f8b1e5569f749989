"""One sync of a store: fetch, commit this machine's changes, merge the other machines' (both
with the store's lock held), push; a push refused because the remote moved fetches, merges and
tries again, a bounded number of times, never forcing.

Only one sync of a store runs at a time (a lock of its own, `.memtui/sync.lock`); agents and the
app keep working while it fetches and pushes, and wait only while it commits and merges. The
fetch runs while the sync does its other work (the store's start-up recovery, finding this
machine's changes); nothing is committed or merged until it has succeeded.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from memtui.core.resolving.lock import LockBusy, MutationLock
from memtui.core.store import MemoryStore
from memtui.notes.sync.commits import LocalChanges, commit_local, find_changes, last_event_id
from memtui.notes.sync.context import (
    ORIGIN,
    RESCUE_PREFIX,
    Context,
    committer_for,
    machine_name,
)
from memtui.notes.sync.git import NETWORK_TIMEOUT, Git, GitError, Running, error_of
from memtui.notes.sync.head_start import SYNC_LOCK, HeadStart, start_fetch
from memtui.notes.sync.merging import merge_remote
from memtui.notes.sync.repo import STATUS, index_info, is_ancestor, read_refs
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
LOCKED_WAIT = 0.1
"""Seconds a sync holding the store's lock waits for its fetch once this machine's changes are
found; a slower fetch is waited for with the lock released, and the changes found again."""


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
    head: HeadStart | None = None,
) -> SyncReport:
    """Sync the store with its remote (`remote`: set it up with that URL first); `wait` is how
    long to wait for another sync of the store (or a git run it left) to end; `head`: what a
    head start of this store began (its lock, remote and fetch; its owner releases it), given
    only without `remote`.

    Raises SyncError (one line) when it cannot: no remote set up, the remote unreachable or
    refusing, another sync running, the store's lock held too long.
    """
    git = head.git if head is not None else Git.for_store(store.root)
    lock = head.lock if head is not None else MutationLock(store.root, SYNC_LOCK)
    say = progress or (lambda _text: None)
    try:
        with lock.hold(timeout=wait):
            git.held_fds = (lock.fileno(),)
            report = _sync(store, git, machine, remote, say, attempts, head)
            if machine and SyncState(store.history).get(MACHINE_NAME) != report.machine:
                SyncState(store.history).put(MACHINE_NAME, report.machine)
            return report
    except LockBusy as busy:
        raise SyncError("another sync of this store is running; try again when it ends") from busy
    except GitError as problem:
        raise SyncError(str(problem)) from problem
    finally:
        if head is None:
            lock.close()


def _machine(store: MemoryStore, given: str | None) -> str:
    """This machine's name: the one given, else the config's, else the one last given to a
    sync of this store, else the host name."""
    if given or store.settings.sync.machine:
        return machine_name(given or store.settings.sync.machine)
    state = SyncState.existing(store.history_before_recovery())
    return machine_name(state.get(MACHINE_NAME) if state is not None else None)


def _sync(
    store: MemoryStore,
    git: Git,
    machine: str | None,
    remote: str | None,
    progress: Callable[[str], None],
    attempts: int,
    head: HeadStart | None = None,
) -> SyncReport:
    """`sync_store` with the sync lock held: the fetch started first (or by the head start
    `head`), then the store's history opened (its start-up recovery running while the fetch
    does)."""
    if head is not None:
        url, branch, fetching = head.url, head.branch, head.fetching
        progress("fetching")
    else:
        url, branch = _remote(store, git, remote, progress)
        progress("fetching")
        fetching = start_fetch(git, branch)
    try:
        name = _machine(store, machine)
        git.committer = committer_for(name)
        state = SyncState(store.history_before_recovery())
        if state.get(FIRST_EVENT) is None:
            store.ensure_recovered()
        ctx = Context(store, git, state, branch, name, state.machine_id(), progress)
        _first_time(ctx)
        report = SyncReport(url, branch, name)
        ctx.tip = read_refs(git, ctx.branch_ref).get(ctx.branch_ref)
        report.rescued = _rescue_if_moved(ctx)
    except BaseException:
        fetching.stop()
        raise
    _rounds(ctx, report, fetching, attempts)
    state.put(LAST_SYNC, repr(store.clock()))
    report.clashes = state.clashes()
    return report


def _remote(
    store: MemoryStore, git: Git, remote: str | None, progress: Callable[[str], None]
) -> tuple[str, str]:
    """The remote's URL and branch (set up first with `remote`, when given); SyncError when the
    store is not set up for sync."""
    if remote is not None:
        progress("looking at the remote")
        connect(git, remote)
    known = settings(git) if repo_exists(git) else {}
    url = known.get(f"remote.{ORIGIN}.url")
    if url is None:
        raise SyncError(
            f"{store.root} is not set up for sync: run `memtui sync {store.root} --remote URL` once"
        )
    clear_stale_locks(git)
    return url, known.get(BRANCH_KEY) or "main"


def _rounds(ctx: Context, report: SyncReport, fetching: Running, attempts: int) -> None:
    """Rounds until a push goes through (the first finishing the fetch `fetching`); SyncError
    after `attempts` refusals."""
    reason = ""
    started: Running | None = fetching
    for attempt in range(1, attempts + 1):
        report.attempts = attempt
        refused = _round(ctx, report, started)
        started = None
        if refused is None:
            return
        reason = refused
    if started is not None:
        started.stop()
    raise SyncError(
        f"the remote refused the push {attempts} times ({reason}); this machine's changes "
        "are committed here and go out with the next sync"
    )


def _first_time(ctx: Context) -> None:
    """On a store's first sync: later changes are committed one by one, what came before is
    committed as the store's state."""
    if ctx.state.get(FIRST_EVENT) is None:
        newest = last_event_id(ctx)
        ctx.state.put(FIRST_EVENT, newest)
        ctx.state.put(COMMITTED, newest)


def _round(ctx: Context, report: SyncReport, fetching: Running | None) -> str | None:
    """Fetch (or finish the fetch already started), commit, merge, push once; None when done,
    else why the push was refused."""
    if fetching is None:
        ctx.progress("fetching")
        fetching = start_fetch(ctx.git, ctx.branch)
    try:
        theirs = _commit_and_merge(ctx, report, fetching)
    except LockBusy as busy:
        raise SyncError(
            f"the store's lock was held for {busy.waited:.0f} s (an agent or another memtui); "
            "nothing was merged, try again in a moment"
        ) from busy
    finally:
        fetching.stop()
    if ctx.tip is None or ctx.tip == theirs:
        return None
    ctx.progress("pushing")
    refused = push(ctx, ctx.tip)
    report.pushed = refused is None
    return refused


def _commit_and_merge(ctx: Context, report: SyncReport, fetching: Running) -> str | None:
    """This machine's changes committed and the fetched branch merged, the store's lock held
    (found while the fetch runs, when it ends soon enough); the remote branch's tip fetched."""
    with ctx.store.locked():
        if not ctx.state.get(MERGING):
            ctx.progress("committing")
            changes = _changes(ctx)
            if fetching.done_within(LOCKED_WAIT):
                theirs = fetched(ctx, fetching)
                _merge_and_commit(ctx, theirs, report, changes)
                return theirs
    theirs = fetched(ctx, fetching)
    ctx.progress("committing")
    with ctx.store.locked():
        _merge_and_commit(ctx, theirs, report, None)
    return theirs


def _changes(ctx: Context) -> LocalChanges:
    """This machine's changes (the store's lock held), git listing them while the store's
    start-up recovery runs, if it has not run yet in this process."""
    listing = ctx.git.start(*STATUS)
    try:
        ctx.store.ensure_recovered()
        return find_changes(ctx, listing)
    finally:
        listing.stop()


def _merge_and_commit(
    ctx: Context, theirs: str | None, report: SyncReport, changes: LocalChanges | None
) -> None:
    """A merge a killed sync left finished, this machine's changes (`changes`, found with the
    lock held; else found now) committed, the other machines' merged (the store's lock held)."""
    pending = ctx.state.get(MERGING)
    if pending:
        _count(report, merge_remote(ctx, pending), ctx)
    first = f"memtui: the notes on {ctx.machine} when sync began"
    committed = commit_local(ctx, first_message=first, changes=changes)
    report.committed += committed.files
    report.marks_sent += committed.marks
    report.held = committed.held
    ctx.state.set_held(committed.held)
    if theirs is not None:
        _count(report, merge_remote(ctx, theirs), ctx)
    index_info(ctx.git, ctx.index)
    ctx.index.clear()


def _count(report: SyncReport, merged: object, ctx: Context) -> None:
    """Add a merge's figures to the report and put the marks it brought on events."""
    from memtui.notes.sync.merging import Merged

    assert isinstance(merged, Merged)
    report.pulled += merged.pulled
    report.paths |= merged.paths
    report.new_clashes += merged.clashes
    report.marks_received += apply_marks(ctx, merged.marks)


def fetched(ctx: Context, fetching: Running) -> str | None:
    """Wait for the fetch; the remote branch's tip (None when the remote has no such branch:
    no tracking ref is left). SyncError (one line) when the fetch failed."""
    done = fetching.finish(check=False)
    if done.returncode != 0:
        if b"couldn't find remote ref" not in done.stderr:
            raise SyncError(str(error_of("fetch", done)))
        ctx.git.run("update-ref", "-d", ctx.tracking_ref, check=False)
    refs = read_refs(ctx.git, ctx.branch_ref, ctx.tracking_ref)
    ctx.tip = refs.get(ctx.branch_ref)
    return refs.get(ctx.tracking_ref)


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
