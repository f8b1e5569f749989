"""Context for agents: a note with its observations and related notes, and recent activity."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memtui.core.parsing.paths import from_relpath, under_root
from memtui.core.plurals import count
from memtui.core.recording.event_query import EventQuery
from memtui.core.recording.events import Event
from memtui.core.recording.reviews import is_reviewable
from memtui.core.timeframe import parse_timeframe
from memtui.notes.index import NoteIndex
from memtui.notes.model import Observation

MEMORY_URL = "memory://"


def _when(seconds: float) -> str:
    """A local timestamp to the minute."""
    return datetime.fromtimestamp(seconds).strftime("%Y-%m-%d %H:%M")


@dataclass(frozen=True)
class RelatedNote:
    """A note linked (directly or through others) to the primary note."""

    path: str
    title: str
    relation_type: str
    direction: str
    """"outgoing" (the linking note points at this one) or "incoming" (this one points back)."""
    via: str
    """The relpath of the note on the other end of this relation."""
    depth: int
    mtime: float


@dataclass(frozen=True)
class NoteContext:
    """What an agent needs about one note: its facts and its neighbourhood."""

    path: str
    title: str
    permalink: str
    note_type: str
    mtime: float
    observations: tuple[Observation, ...]
    related: tuple[RelatedNote, ...]
    unresolved: tuple[tuple[str, str], ...]
    """(relation type, target) of the primary note's links that resolve to nothing."""
    depth: int
    timeframe: str | None
    """None when related notes of any age are kept."""
    hidden: int = 0
    """Related notes left out because they did not change within `timeframe`."""

    def to_text(self) -> str:
        """Concise plain text for an agent's context window."""
        lines = [
            f"# {self.title} ({from_relpath(self.path)})",
            f"permalink: {self.permalink} | type: {self.note_type} | changed: {_when(self.mtime)}",
        ]
        if self.observations:
            lines += ["", "## Observations"]
            for obs in self.observations:
                category = f"[{obs.category}] " if obs.category is not None else ""
                context = f" ({obs.context})" if obs.context else ""
                lines.append(f"- {category}{obs.content}{context}")
        window = f", changed within {self.timeframe}" if self.timeframe else ""
        lines += ["", f"## Related (depth {self.depth}{window})"]
        if not self.related:
            lines.append("- none")
        for rel in self.related:
            arrow = "->" if rel.direction == "outgoing" else "<-"
            lines.append(
                f"- {rel.via} {arrow} {rel.relation_type} {arrow} {rel.title} "
                f"({from_relpath(rel.path)})"
                if rel.depth > 1
                else f"- {rel.relation_type} {arrow} {rel.title} ({from_relpath(rel.path)})"
            )
        if self.hidden:
            lines.append(
                f"- ({self.hidden} more changed before {self.timeframe}; "
                "widen or drop the timeframe to see them)"
            )
        if self.unresolved:
            lines += ["", "## Unresolved links"]
            lines += [f"- {kind} -> {target}" for kind, target in self.unresolved]
        return "\n".join(lines) + "\n"


def _everything(_relpath: str) -> bool:
    """Every path is visible (a person's reader)."""
    return True


def _resolve_target(index: NoteIndex, target: str) -> str | None:
    """A note by permalink, title or path, or any text file by its path (also `memory://x` and
    `/memories/x.md`)."""
    target = target.strip()
    if target.startswith(MEMORY_URL):
        target = target[len(MEMORY_URL) :]
    relpath = under_root(target)
    if relpath is not None:
        target = relpath
    found = index.resolve(target)
    if found is None and index.entry(target) is not None:
        return target
    return found


def _relations(index: NoteIndex, relpath: str) -> list[tuple[str, str, str, str]]:
    """Each resolved relation of a note, outgoing then incoming, as (source, target, type,
    direction)."""
    links = [(relpath, t, r.relation_type, "outgoing") for r, t in index.outgoing(relpath) if t]
    links += [(s, relpath, r.relation_type, "incoming") for s, r in index.backlinks(relpath)]
    return links


def _related(
    index: NoteIndex, primary: str, depth: int, since: float, seeing: Callable[[str], bool]
) -> tuple[list[RelatedNote], int]:
    """Every relation within `depth` links of `primary` to a note `seeing` allows, once per
    (source, target, type) as Basic Memory keeps them, both directions and several to one note;
    and how many notes were left out as older than `since`."""
    related: list[RelatedNote] = []
    listed: set[tuple[str, str, str]] = set()
    hidden: set[str] = set()
    seen = {primary}
    queue: deque[tuple[str, int]] = deque([(primary, 0)])
    while queue:
        current, distance = queue.popleft()
        if distance >= depth:
            continue
        for source, target, relation_type, direction in _relations(index, current):
            other = target if direction == "outgoing" else source
            if (source, target, relation_type) in listed or other == current:
                continue
            if not seeing(other):
                continue
            listed.add((source, target, relation_type))
            if other not in seen:
                seen.add(other)
                queue.append((other, distance + 1))
            entry = index.entry(other)
            if entry is None or other == primary:
                continue
            if entry.mtime < since:
                hidden.add(other)
                continue
            related.append(
                RelatedNote(
                    other, entry.title, relation_type, direction, current, distance + 1, entry.mtime
                )
            )
    return related, len(hidden)


def build_context(
    index: NoteIndex,
    target: str,
    depth: int = 1,
    timeframe: str | None = None,
    history: Any | None = None,
    *,
    now: float | None = None,
    visible: Callable[[str], bool] | None = None,
) -> NoteContext:
    """The note `target` names, its observations and the notes linked to it up to `depth` (1-3).

    With a `timeframe`, related notes are kept only if they changed within it (the others are
    counted as hidden); the primary note always is. With `visible`, a note it does not allow is
    as if it were not there: never the primary note, never related, never passed through, and
    a link to it is unresolved.
    Raises LookupError when no note matches and ValueError for a bad depth or timeframe.
    """
    if not 1 <= depth <= 3:
        raise ValueError(f"depth must be 1, 2 or 3, not {depth}")
    since = parse_timeframe(timeframe, now) if timeframe else float("-inf")
    seeing = visible or _everything
    primary = _resolve_target(index, target)
    entry = index.entry(primary) if primary is not None else None
    if primary is None or entry is None or not seeing(primary):
        raise LookupError(f"no note matches {target!r} (by permalink, title or path)")
    note = index.notes.get(primary)
    related, hidden = _related(index, primary, depth, since, seeing)
    unresolved = tuple(
        (r.relation_type, r.target)
        for r, t in index.outgoing(primary)
        if t is None or not seeing(t)
    )
    return NoteContext(
        path=primary,
        title=entry.title,
        permalink=entry.permalink or "",
        note_type=entry.note_type or "text",
        mtime=entry.mtime,
        observations=tuple(note.observations) if note is not None else (),
        related=tuple(related),
        unresolved=unresolved,
        depth=depth,
        timeframe=timeframe,
        hidden=hidden,
    )


@dataclass(frozen=True)
class ActivityItem:
    """One recent change: which note, when, by whom and with which command."""

    path: str
    title: str
    when: float
    actor: str
    """The actor from the history, or `unknown` for a file change the history did not record."""
    command: str
    reviewable: bool = False
    """True for an agent's or outside change, which waits for a person's review."""
    reviewed_by: str | None = None
    """Who reviewed it (approved, undid or saved over it), if someone did."""
    notes_inside: int = 0
    """For a folder (a folder's move or delete): how many notes it holds now."""

    @property
    def review_text(self) -> str:
        """`, reviewed by human:dana`, `, not reviewed yet`, or nothing for other changes."""
        if not self.reviewable:
            return ""
        if self.reviewed_by is None:
            return ", not reviewed yet"
        return f", reviewed by {self.reviewed_by}"


def _untitled(item: ActivityItem) -> str:
    """What stands for the title of a path the index holds no file at: a folder of notes, or a
    path no longer there."""
    if item.notes_inside:
        return f" (folder of {count(item.notes_inside, 'note')})"
    return " (no longer there)"


@dataclass(frozen=True)
class RecentActivity:
    """What changed in the store within a timeframe, newest first."""

    timeframe: str
    items: tuple[ActivityItem, ...]

    def to_text(self) -> str:
        """Concise plain text for an agent's context window."""
        lines = [f"# Recent activity (within {self.timeframe})"]
        if not self.items:
            lines.append("- nothing changed")
        for item in self.items:
            what = item.actor if item.command == item.actor else f"{item.actor} {item.command}"
            title = f" {item.title}" if item.title else _untitled(item)
            lines.append(
                f"- {_when(item.when)} {what}{title} ({from_relpath(item.path)}){item.review_text}"
            )
        return "\n".join(lines) + "\n"


def recent_activity(
    index: NoteIndex,
    history: Any | None,
    timeframe: str = "7d",
    limit: int = 20,
    *,
    now: float | None = None,
    visible: Callable[[str], bool] | None = None,
) -> RecentActivity:
    """The newest change per path within `timeframe`, from the history and from file mtimes;
    an agent's or outside change says whether a person reviewed it. With `visible`, paths it
    does not allow are left out."""
    since = parse_timeframe(timeframe, now)
    seeing = visible or _everything
    latest: dict[str, ActivityItem] = {}
    if history is not None:
        newest: dict[str, Event] = {}
        for event in history.events(EventQuery(since=since, changes_only=True)):
            virtual = event.new_path or event.path
            relpath = under_root(virtual) if virtual else None
            if relpath is not None and seeing(relpath):
                newest.setdefault(relpath, event)
        reviews = history.reviews(event.id for event in newest.values())
        for relpath, event in newest.items():
            entry = index.entry(relpath)
            review = reviews.get(event.id)
            latest[relpath] = ActivityItem(
                relpath,
                entry.title if entry else "",
                event.time,
                event.actor,
                event.command,
                reviewable=is_reviewable(event),
                reviewed_by=None if review is None else review.reviewer,
                notes_inside=0
                if entry
                else sum(1 for note in index.notes_under(relpath) if seeing(note)),
            )
    for entry in index.entries(since_ns=int(since * 1e9)):
        if entry.mtime < since or not seeing(entry.path):
            continue
        known = latest.get(entry.path)
        if known is None or known.when + 2 < entry.mtime:
            latest[entry.path] = ActivityItem(
                entry.path, entry.title, entry.mtime, "unknown", "modified"
            )
    items = sorted(latest.values(), key=lambda item: (-item.when, item.path))
    return RecentActivity(timeframe, tuple(items[:limit]))
