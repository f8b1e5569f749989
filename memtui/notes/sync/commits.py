"""This machine's changes as commits: one commit per actor per sync, each holding the files that
actor changed last, with the history events it covers and the review marks made since.

The changed files come from git's own status (its stat cache), so the work grows with what
changed, not with the store. Each changed file is read once, through the core, and exactly
those bytes are scanned and committed: a file that holds a likely secret is held back (the rest
is committed) until it no longer does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from memtui.core.applying.pulling import PULL
from memtui.core.plurals import count
from memtui.core.recording.events import BASELINE, Event
from memtui.core.secrets import scan
from memtui.notes.sync.context import Context, committer_for
from memtui.notes.sync.files import Skipped, read_file
from memtui.notes.sync.git import Running
from memtui.notes.sync.provenance import (
    ChangeLine,
    Mark,
    change_trailers,
    machine_trailer,
    review_trailers,
)
from memtui.notes.sync.repo import (
    NewCommit,
    StatusEntry,
    blob_sha,
    fast_import,
    status,
    status_entries,
)
from memtui.notes.sync.setup import is_reserved
from memtui.notes.sync.state import COMMITTED, FIRST_EVENT, uid_of

EXTERNAL = "external"
UNKNOWN = ""
"""The group of files changed without an event in the history (committed as `external`)."""
SECRET_HELD = "holds a likely secret ({labels}); not pushed until it is removed"


@dataclass
class LocalChanges:
    """What this machine changed since its last commit: files to commit and files held back."""

    files: dict[str, bytes | None] = field(default_factory=dict)
    """Relative path -> its bytes now (None: deleted)."""
    held: dict[str, str] = field(default_factory=dict)
    """Relative path -> why it is not pushed."""
    same: dict[str, str] = field(default_factory=dict)
    """Relative path -> its blob in the last commit, for files git listed that hold just that
    (their index entries are set right)."""


def find_changes(ctx: Context, listing: Running | None = None) -> LocalChanges:
    """The files that differ from the last commit, read once each (the lock held); `listing`
    is `git STATUS` started with the lock held (else it runs now)."""
    listed = status(ctx.git) if listing is None else status_entries(listing.finish().stdout)
    entries = [entry for entry in listed if not is_reserved(entry.path)]
    changes = LocalChanges()
    if not entries:
        return changes
    ctx.store.record_external(entry.path for entry in entries)
    flagged = {path.removeprefix("/memories/") for path in ctx.store.history.secret_flagged_paths()}
    with ctx.store.open_site() as site:
        for entry in entries:
            _take(changes, entry, read_file(site, entry.path, ctx.store.max_size), flagged)
    return changes


def _take(
    changes: LocalChanges, entry: StatusEntry, read: bytes | Skipped | None, flagged: set[str]
) -> None:
    """Add one changed path to `changes`: its bytes, its deletion, or why it is held back."""
    if isinstance(read, Skipped):
        if not read.reason.startswith("a symbolic link"):
            changes.held[entry.path] = read.reason
        return
    if read is None:
        if entry.head is not None:
            changes.files[entry.path] = None
        return
    if blob_sha(read) == entry.head:
        changes.same[entry.path] = entry.head
        return
    reason = secret_reason(entry.path, read, entry.path in flagged)
    if reason is not None:
        changes.held[entry.path] = reason
        return
    changes.files[entry.path] = read


def secret_reason(path: str, data: bytes, flagged: bool) -> str | None:
    """Why a file is held back for a likely secret (in its text or its name), or None."""
    findings = scan(data.decode("utf-8", "surrogateescape")) + scan(path)
    labels = ", ".join(dict.fromkeys(finding.label for finding in findings))
    if not labels and flagged:
        labels = "an agent's write here was flagged"
    return SECRET_HELD.format(labels=labels) if labels else None


def new_events(ctx: Context, upto: int) -> list[Event]:
    """This machine's own changes since the last commit, oldest first (pulls left out)."""
    after = max(ctx.state.number(COMMITTED), ctx.state.number(FIRST_EVENT))
    if upto <= after:
        return []
    events = ctx.store.history.events(
        after_id=after, changes_only=True, newest_first=False, skip_reads=True
    )
    return [e for e in events if e.id <= upto and e.command not in (PULL, BASELINE)]


def last_event_id(ctx: Context) -> int:
    """The id of the newest event in the history (0 for none)."""
    newest = ctx.store.history.events(limit=1)
    return newest[0].id if newest else 0


@dataclass
class _Group:
    """The files one actor changed last, and the events on them."""

    actor: str
    files: dict[str, bytes | None] = field(default_factory=dict)
    events: dict[int, Event] = field(default_factory=dict)

    @property
    def newest(self) -> int:
        """The newest event id of the group (0 for none)."""
        return max(self.events, default=0)


def _places(events: Sequence[Event]) -> dict[str, list[Event]]:
    """Relative path (file or folder) -> the events that changed it, oldest first."""
    places: dict[str, list[Event]] = {}
    for event in events:
        for virtual in (event.path, event.new_path):
            if virtual is not None and virtual.startswith("/memories/"):
                places.setdefault(virtual.removeprefix("/memories/"), []).append(event)
    return places


def _events_on(places: dict[str, list[Event]], path: str) -> list[Event]:
    """The events that changed `path` itself or a folder above it."""
    found: list[Event] = []
    parts = path.split("/")
    for end in range(1, len(parts) + 1):
        found += places.get("/".join(parts[:end]), [])
    return sorted({event.id: event for event in found}.values(), key=lambda event: event.id)


def group_by_actor(files: dict[str, bytes | None], events: Sequence[Event]) -> list[_Group]:
    """The files grouped by the actor of their last change, groups oldest first."""
    places = _places(events)
    groups: dict[str, _Group] = {}
    for path, data in sorted(files.items()):
        touching = _events_on(places, path)
        actor = touching[-1].actor if touching else UNKNOWN
        group = groups.setdefault(actor, _Group(actor))
        group.files[path] = data
        group.events.update((event.id, event) for event in touching)
    return sorted(groups.values(), key=lambda group: (group.newest, group.actor))


def _change_lines(events: Iterable[Event]) -> list[ChangeLine]:
    """The events as trailer lines: ids by (path, new path)."""
    by_place: dict[tuple[str, str | None], list[int]] = {}
    for event in events:
        if event.path is None or not event.path.startswith("/memories/"):
            continue
        new_path = event.new_path.removeprefix("/memories/") if event.new_path else None
        by_place.setdefault((event.path.removeprefix("/memories/"), new_path), []).append(event.id)
    return [ChangeLine(tuple(ids), path, new) for (path, new), ids in by_place.items()]


def _subject(actor: str, files: dict[str, bytes | None], machine: str) -> str:
    """A commit's first line: who changed how many files where."""
    if len(files) == 1:
        return f"{actor} changed {next(iter(files))} on {machine}"
    return f"{actor} changed {count(len(files), 'file')} on {machine}"


def actor_commits(ctx: Context, groups: Sequence[_Group], parent: str | None) -> list[NewCommit]:
    """One commit per group, chained on `parent` (a sha, or `:N`, the N-th commit of the same
    import, when these follow N others)."""
    offset = int(parent[1:]) if parent is not None and parent.startswith(":") else 0
    commits: list[NewCommit] = []
    for group in groups:
        trailers = [machine_trailer(ctx.machine_id, ctx.machine)]
        trailers += change_trailers(_change_lines(group.events.values()))
        times = [event.time for event in group.events.values()]
        previous = f":{len(commits) + offset}" if commits else parent
        actor = group.actor or EXTERNAL
        commits.append(
            NewCommit(
                author=ctx.author(actor),
                when=ctx.now(),
                authored=int(max(times)) if times else None,
                message=_subject(actor, group.files, ctx.machine)
                + "\n\n"
                + "\n".join(trailers)
                + "\n",
                parents=[previous] if previous else [],
                files=group.files,
            )
        )
    return commits


def pending_marks(ctx: Context) -> tuple[list[Mark], list[int]]:
    """The review marks made here not sent yet, and the events they are on."""
    first = ctx.state.number(FIRST_EVENT)
    unsent = ctx.state.unsent_reviews(first)
    if not unsent:
        return [], []
    origins = ctx.state.origins(event_id for event_id, _who, _when in unsent)
    marks: list[Mark] = []
    for event_id, reviewer, when in unsent:
        if event_id in origins:
            marks += [Mark(uid, reviewer, when) for uid in origins[event_id]]
            continue
        event = ctx.store.history.event(event_id)
        if event is not None and event.command != PULL:
            marks.append(Mark(uid_of(ctx.machine_id, event_id), reviewer, when))
    return marks, [event_id for event_id, _who, _when in unsent]


def review_commit(ctx: Context, marks: Sequence[Mark], parent: str | None) -> NewCommit:
    """A commit that changes no file and carries review marks."""
    trailers = [machine_trailer(ctx.machine_id, ctx.machine), *review_trailers(marks)]
    return NewCommit(
        author=committer_for(ctx.machine),
        when=ctx.now(),
        message=f"memtui: {count(len(marks), 'change')} reviewed on {ctx.machine}\n\n"
        + "\n".join(trailers)
        + "\n",
        parents=[parent] if parent else [],
    )


@dataclass
class Committed:
    """What the commit step did."""

    tip: str | None
    files: int = 0
    marks: int = 0
    held: dict[str, str] = field(default_factory=dict)


def commit_local(
    ctx: Context, *, first_message: str | None = None, changes: LocalChanges | None = None
) -> Committed:
    """Commit this machine's changes and review marks on the branch (the store's lock held).

    `first_message` is the message of the branch's first commit (when it has none), which holds
    every file as it is. `changes` are this machine's changes when `find_changes` found them
    with the lock held since (else they are found now).
    """
    head = ctx.tip
    if changes is None:
        changes = find_changes(ctx)
    upto = last_event_id(ctx)
    commits: list[NewCommit] = []
    groups = group_by_actor(changes.files, new_events(ctx, upto)) if changes.files else []
    unknown = next((group for group in groups if group.actor == UNKNOWN), None)
    if unknown is not None and head is None and first_message is not None:
        groups.remove(unknown)
        commits.append(_first_commit(ctx, unknown.files, first_message))
    commits += actor_commits(ctx, groups, f":{len(commits)}" if commits else head)
    marks, marked_events = pending_marks(ctx)
    if marks:
        parent = f":{len(commits)}" if commits else head
        commits.append(review_commit(ctx, marks, parent))
    ctx.index.update(changes.same)
    if not commits:
        ctx.state.put(COMMITTED, upto)
        ctx.state.mark_sent(marked_events)
        return Committed(head, held=changes.held)
    shas = fast_import(ctx.git, commits, ctx.branch_ref)
    ctx.moved(shas[-1])
    ctx.index.update(
        {path: None if data is None else blob_sha(data) for path, data in changes.files.items()}
    )
    ctx.state.put(COMMITTED, upto)
    ctx.state.add_marks((mark.uid, mark.reviewer, mark.time) for mark in marks)
    ctx.state.mark_sent(marked_events)
    return Committed(shas[-1], len(changes.files), len(marks), changes.held)


def _first_commit(ctx: Context, files: dict[str, bytes | None], message: str) -> NewCommit:
    """The branch's first commit: every file of the store as it is."""
    return NewCommit(
        author=committer_for(ctx.machine),
        when=ctx.now(),
        message=message + "\n\n" + machine_trailer(ctx.machine_id, ctx.machine) + "\n",
        parents=[],
        files={path: data for path, data in files.items() if data is not None},
    )
