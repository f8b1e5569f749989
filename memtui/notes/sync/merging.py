"""The other machines' commits merged into this machine's branch, file by file, by memtui's rules.

git never merges here, so it never writes a conflict marker: for each file the other side
changed since the merge base, memtui decides what the file becomes (`plan_file`, the rules of
`rules.py` for notes both sides changed), writes it through the core (a `pull` event under the
change's original actor, the machine named), and then makes the merge commit itself with
fast-import (two parents). A clash keeps this machine's text and waits for a person.

A merge in progress is remembered in the sync tables (`MERGING`); a sync killed half-way finds
it and finishes: a file already written is recognised by its bytes and not written again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from memtui.core.actors import EXTERNAL, ActorError, check_actor
from memtui.core.applying.pulling import Pulled, apply_pulled
from memtui.core.hashing import digest
from memtui.core.result import CONFLICT, CommandResult
from memtui.notes.sync.context import MACHINE_NAME_MOST, Context, committer_for
from memtui.notes.sync.files import Skipped, read_file
from memtui.notes.sync.provenance import LogCommit, Mark, log_command, log_commits
from memtui.notes.sync.repo import (
    EMPTY_TREE,
    FILE_MODES,
    NewCommit,
    TreeChange,
    blob_sha,
    cat_blobs,
    diff_tree_command,
    fast_import,
    merge_base,
    tree_changes,
)
from memtui.notes.sync.rules import has_markers, sync_merge, text_of
from memtui.notes.sync.setup import is_reserved
from memtui.notes.sync.state import (
    CLASH_DELETED_HERE,
    CLASH_DELETED_THERE,
    CLASH_KEPT,
    CLASH_MARKERS,
    CLASH_TEXT,
    MERGING,
    Clash,
)


@dataclass
class FilePlan:
    """What one file the other side changed becomes."""

    path: str
    base: bytes | None
    ours: bytes | None
    theirs: bytes | None
    result: bytes | None
    """What the merge commit holds (and the file, unless it changed here since)."""
    clash: str | None = None
    """The kind of clash, or None when the changes combined."""
    merged: bool = False
    """True when both sides' changes are in the result."""


def plan_file(
    path: str,
    base: bytes | None,
    ours: bytes | None,
    theirs: bytes | None,
    *,
    theirs_kind_ok: bool = True,
) -> FilePlan:
    """What a file becomes when the other side changed it from `base` to `theirs` and this side
    to `ours` (None: no file)."""
    plan = FilePlan(path, base, ours, theirs, ours)
    if is_reserved(path):
        plan.result = None
        return plan
    if not theirs_kind_ok:
        plan.clash = CLASH_KEPT
        return plan
    if ours == theirs or theirs == base:
        return plan
    if has_markers(theirs) and not has_markers(base) and not has_markers(ours):
        plan.clash = CLASH_MARKERS
        return plan
    if ours == base:
        plan.result = theirs
        return plan
    if theirs is None:
        plan.clash = CLASH_DELETED_THERE
        return plan
    if ours is None:
        plan.result, plan.clash = theirs, CLASH_DELETED_HERE
        return plan
    merged = merge_bytes(base, ours, theirs)
    if merged is None:
        plan.clash = CLASH_KEPT
        return plan
    plan.result, clashed = merged
    plan.merged = True
    if clashed:
        plan.clash = CLASH_TEXT
    return plan


def merge_bytes(base: bytes | None, ours: bytes, theirs: bytes) -> tuple[bytes, bool] | None:
    """Two changed files merged by the rules (ours kept at each clash) and whether they clashed;
    None when one of them is not UTF-8 text."""
    texts = text_of(base), text_of(ours), text_of(theirs)
    if texts[1] is None or texts[2] is None or (base is not None and texts[0] is None):
        return None
    merge = sync_merge(texts[0], texts[1], texts[2])
    text = merge.text([conflict.side("mine") for conflict in merge.conflicts])
    return text.encode(), bool(merge.conflicts)


@dataclass
class Origin:
    """Where the other side's change to a file came from."""

    actor: str
    machine: str
    uids: list[str]


def origin_of(path: str, log: list[LogCommit]) -> Origin:
    """The actor and machine of the newest commit that changed `path`, and the global ids of
    every change to it in `log` (the commits that changed it, newest first)."""
    uids = [uid for commit in log for uid in commit.uids(path)]
    newest = log[0] if log else None
    if newest is None:
        return Origin(EXTERNAL, "another machine", [])
    try:
        actor = check_actor(newest.author)
    except ActorError:
        actor = EXTERNAL
    machine = newest.machine or f"git ({newest.author[:MACHINE_NAME_MOST]})"
    return Origin(actor, machine, list(dict.fromkeys(uids)))


@dataclass
class Merged:
    """What merging the other side did."""

    tip: str | None
    pulled: int = 0
    paths: set[str] = field(default_factory=set)
    """The files written here (relative paths)."""
    clashes: list[int] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)


def merge_remote(ctx: Context, theirs: str) -> Merged:
    """Merge `theirs` into the branch: files written through the core, then the commit (the
    store's lock held). Nothing to do when the branch already holds `theirs`."""
    ours = ctx.tip
    base = merge_base(ctx.git, ours, theirs) if ours is not None else None
    if base is not None and base == theirs:
        _end_journal(ctx)
        return Merged(ours)
    if ctx.state.get(MERGING) != theirs:
        ctx.state.put(MERGING, theirs)
    base_tree = base or EMPTY_TREE
    commands = [diff_tree_command(base_tree, theirs), log_command(ours, theirs)]
    if ours is not None:
        commands.append(diff_tree_command(base_tree, ours))
    listed = ctx.git.outs(*commands)
    their_changes, log = tree_changes(listed[0]), log_commits(listed[1])
    our_changes = tree_changes(listed[2]) if ours is not None else {}
    ctx.progress(f"merging {len(their_changes):,} changed files")
    plans = _plans(ctx, their_changes, our_changes)
    by_path: dict[str, list[LogCommit]] = {}
    for commit in log:
        for name in commit.files:
            by_path.setdefault(name, []).append(commit)
    merged = Merged(None)
    tree: dict[str, bytes | None] = {}
    exact = ours is None or base == ours
    for plan in plans:
        origin = origin_of(plan.path, by_path.get(plan.path, []))
        tree_value = _apply(ctx, plan, origin, theirs, merged)
        if tree_value != plan.ours:
            tree[plan.path] = tree_value
        new = their_changes[plan.path].new
        exact = exact and (None if tree_value is None else blob_sha(tree_value)) == new
    if exact:
        ctx.move_branch(theirs, "memtui sync: merge")
    else:
        ctx.moved(_merge_commit(ctx, ours, theirs, tree, their_changes))
    ctx.index.update(
        {path: None if data is None else blob_sha(data) for path, data in tree.items()}
    )
    merged.tip = ctx.tip
    merged.marks = [mark for commit in reversed(log) for mark in commit.marks]
    _end_journal(ctx)
    return merged


def _end_journal(ctx: Context) -> None:
    """Forget the merge in progress."""
    if ctx.state.get(MERGING):
        ctx.state.put(MERGING, "")


def _plans(
    ctx: Context, their_changes: dict[str, TreeChange], our_changes: dict[str, TreeChange]
) -> list[FilePlan]:
    """The plan of every file the other side changed (their blobs read in one run)."""
    wanted: list[str] = []
    for path, change in their_changes.items():
        mine = our_changes.get(path)
        wanted += [
            sha
            for sha, mode in (
                (change.old, change.old_mode),
                (change.new, change.new_mode),
                (mine.new, mine.new_mode) if mine else (None, ""),
            )
            if sha is not None and mode in FILE_MODES
        ]
    blobs = cat_blobs(ctx.git, wanted)
    plans = []
    for path, change in their_changes.items():
        mine = our_changes.get(path)
        ours_sha = mine.new if mine is not None else change.old
        kind_ok = change.new is None or change.new_mode in FILE_MODES
        base = blobs.get(change.old) if change.old else None
        ours = blobs.get(ours_sha) if ours_sha else None
        theirs = blobs.get(change.new) if change.new and kind_ok else None
        plans.append(plan_file(path, base, ours, theirs, theirs_kind_ok=kind_ok))
    return plans


def _apply(
    ctx: Context, plan: FilePlan, origin: Origin, commit: str, merged: Merged
) -> bytes | None:
    """Bring the file to the plan's result (merging a change made here since the commit);
    what the merge commit holds for it."""
    if is_reserved(plan.path):
        return None
    if plan.result == plan.ours and plan.clash is None:
        return plan.result
    with ctx.store.open_site() as site:
        disk = read_file(site, plan.path, ctx.store.max_size)
    if isinstance(disk, Skipped):
        _clash(ctx, plan, CLASH_KEPT, origin, commit, merged)
        return plan.ours
    if plan.clash in (CLASH_KEPT, CLASH_DELETED_THERE, CLASH_MARKERS):
        _clash(ctx, plan, plan.clash, origin, commit, merged, ours=disk)
        return plan.result
    if disk == plan.result:
        if plan.clash is not None:
            _clash(ctx, plan, plan.clash, origin, commit, merged, ours=plan.ours)
        return plan.result
    target, clash, ours = plan.result, plan.clash, plan.ours
    if disk != plan.ours:
        target, clash = _over_local(plan, disk)
        ours = disk
    written = _write(ctx, plan, target, disk, origin, commit)
    if written.is_error:
        _clash(ctx, plan, CLASH_KEPT, origin, commit, merged, ours=disk)
        return plan.ours if written.kind != CONFLICT else plan.result
    merged.pulled += 1
    merged.paths.add(plan.path)
    if clash is not None:
        _clash(ctx, plan, clash, origin, commit, merged, ours=ours)
    return plan.result


def _over_local(plan: FilePlan, disk: bytes | None) -> tuple[bytes | None, str | None]:
    """What the file becomes when it changed here after the commit: that change merged with
    the plan's result (the commit's text as the base), and the clash it leaves."""
    if disk is None:
        return plan.result, CLASH_DELETED_HERE if plan.result is not None else None
    if plan.result is None:
        return disk, CLASH_DELETED_THERE
    merged = merge_bytes(plan.ours, disk, plan.result)
    if merged is None:
        return disk, CLASH_KEPT
    target, clashed = merged
    return target, CLASH_TEXT if clashed else plan.clash


def _write(
    ctx: Context,
    plan: FilePlan,
    target: bytes | None,
    disk: bytes | None,
    origin: Origin,
    commit: str,
) -> CommandResult:
    """Write the file through the core as the change's actor; its pulled event remembers the
    other machine's changes."""
    pulled = Pulled(
        "/memories/" + plan.path,
        target,
        origin.machine,
        commit,
        tuple(origin.uids),
        merged=plan.merged or target != plan.result,
    )
    store = ctx.store.with_actor(origin.actor)
    result = apply_pulled(store, pulled, None if disk is None else digest(disk))
    if result.event_id is not None and not result.is_error and origin.uids:
        ctx.state.add_origins(result.event_id, origin.uids)
    return result


def _clash(
    ctx: Context,
    plan: FilePlan,
    kind: str,
    origin: Origin,
    commit: str,
    merged: Merged,
    *,
    ours: bytes | Skipped | None = None,
) -> None:
    """Keep a clash for a person: both texts and where theirs came from."""
    mine = plan.ours if isinstance(ours, Skipped) else ours
    clash = Clash(
        0,
        ctx.store.clock(),
        plan.path,
        kind,
        plan.base,
        mine,
        plan.theirs,
        origin.actor,
        origin.machine,
        commit,
    )
    merged.clashes.append(ctx.state.add_clash(clash))


def _merge_commit(
    ctx: Context,
    ours: str | None,
    theirs: str,
    tree: dict[str, bytes | None],
    their_changes: dict[str, TreeChange],
) -> str:
    """The merge commit: our tree with the merged files, parents ours and theirs."""
    files: dict[str, bytes | None] = {}
    blobs: dict[str, str] = {}
    for path, data in tree.items():
        change = their_changes.get(path)
        if data is not None and change is not None and change.new == blob_sha(data):
            blobs[path] = change.new
        else:
            files[path] = data
    commit = NewCommit(
        author=committer_for(ctx.machine),
        when=ctx.now(),
        message=f"memtui: merge on {ctx.machine}\n",
        parents=[ours, theirs] if ours is not None else [theirs],
        files=files,
        blobs=blobs,
    )
    return fast_import(ctx.git, [commit], ctx.branch_ref)[0]
