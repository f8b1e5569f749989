"""Rename or move a note or folder as one operation: the move and every inbound link rewrite
share one history group, so they show and undo as one; and archiving, a move to `archive/`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memtui.core.parsing.paths import from_relpath
from memtui.core.plurals import count
from memtui.core.recording.database import RecordFailed, unrecorded_message
from memtui.core.result import HELD, CommandResult
from memtui.core.store import MemoryStore, StoreError
from memtui.notes.links import (
    MovePrediction,
    Plan,
    links_into,
    moved_path,
    retargets,
    rewrite_links,
)
from memtui.notes.stale import ARCHIVE_FOLDER
from memtui.notes.visibility import PolicyUnusable, visible_filter
from memtui.notes.workspace import Workspace

RENAME_KIND = "rename"
ARCHIVE_KIND = "archive"


@dataclass
class Moved:
    """What a move did: the rename's result, its operation, and the notes whose links it
    rewrote, could not rewrite, or (when no rewrite was asked) left pointing at the old path."""

    result: CommandResult
    old: str
    new: str
    group_id: int | None = None
    rewritten: list[str] = field(default_factory=list)
    unrewritten: list[tuple[str, str]] = field(default_factory=list)
    """(note, why) for each note whose links could not be rewritten."""
    broken: list[str] = field(default_factory=list)
    held: list[str] = field(default_factory=list)
    """The notes whose link rewrites the store's policy holds for a person's approval."""
    verb: str = "Moved"
    links: int = 0
    """How many links the rewrites changed, in all."""

    @property
    def summary(self) -> str:
        """One line: what moved, and what became of the links into it."""
        if self.result.is_error or self.result.kind == HELD:
            return self.result.content
        line = f"{self.verb} {self.old} to {self.new}"
        if self.rewritten:
            line += f"; rewrote {count(self.links, 'link')} in {count(len(self.rewritten), 'note')}"
        if self.held:
            line += (
                f"; the link rewrites in {count(len(self.held), 'note')} wait for a person's "
                f"approval ({', '.join(self.held[:3])}{', ...' if len(self.held) > 3 else ''})"
            )
        if self.unrewritten:
            note, why = self.unrewritten[0]
            line += (
                f"; could not rewrite the links in {count(len(self.unrewritten), 'note')} "
                f"({note}: {why})"
            )
        if self.broken:
            verb = "links" if len(self.broken) == 1 else "link"
            line += (
                f"; {count(len(self.broken), 'note')} still {verb} to the old path "
                f"({', '.join(self.broken[:3])}{', ...' if len(self.broken) > 3 else ''})"
            )
        return line

    @property
    def changed(self) -> set[str]:
        """The paths the operation changed (for index and screen updates)."""
        if self.result.is_error or self.result.kind == HELD:
            return set()
        return {self.old, self.new, *self.rewritten}


def move(
    workspace: Workspace,
    old: str,
    new: str,
    *,
    rewrite_links: bool,
    kind: str = RENAME_KIND,
    inbound: Plan | None = None,
) -> Moved:
    """Move the note or folder `old` to `new` (paths relative to the root) as one operation;
    with `rewrite_links`, point the path links that the move breaks at the new name (the links
    into `old` are `inbound` when the caller has read them; none are known without the
    workspace's index). The workspace is brought up to date with each part as it lands.

    Links by title, or by a permalink set in the frontmatter, keep working and are left as
    they are. The lock is held throughout, so no other change lands between the parts. An
    agent's move leaves alone (and never names) the notes the store's policy hides from it.
    """
    store, index = workspace.store, workspace.index
    old, new = old.strip().strip("/"), new.strip().strip("/")
    if inbound is None:
        inbound = links_into(index, old) if index is not None and old else {}
    try:
        inbound = _seen_by(store, inbound)
    except PolicyUnusable as problem:
        return Moved(CommandResult(str(problem), True), old, new)
    breaks: Plan = {}
    if index is not None and inbound and not rewrite_links and new and new != old:
        breaks = MovePrediction(index, inbound, old).broken(new)
    args: dict[str, Any] = {"old_path": from_relpath(old), "new_path": from_relpath(new)}
    moves: list[Moved] = []

    def locked() -> CommandResult:
        moves.append(_move_locked(workspace, old, new, inbound if rewrite_links else {}, kind))
        return moves[-1].result

    result = store.when_locked(
        f"move {from_relpath(old)}", ("rename", from_relpath(old), args), locked
    )
    if not moves:
        return Moved(result, old, new)
    moved = moves[0]
    moved.broken = sorted(moved_path(source, old, new) for source in breaks)
    return moved


def _seen_by(store: MemoryStore, inbound: Plan) -> Plan:
    """The linking notes of `inbound` that `store`'s agent may see (all, for a person)."""
    visible = visible_filter(store)
    if visible is None:
        return inbound
    return {source: links for source, links in inbound.items() if visible(source)}


def archive_path(relpath: str) -> str:
    """Where a note or folder is archived: `archive/<its path>`."""
    return f"{ARCHIVE_FOLDER}/{relpath.strip('/')}"


def archive(workspace: Workspace, relpath: str) -> Moved:
    """Move a note or folder to `archive/` as one operation, keeping the links into it working."""
    moved = move(workspace, relpath, archive_path(relpath), rewrite_links=True, kind=ARCHIVE_KIND)
    moved.verb = "Archived"
    return moved


def _move_locked(workspace: Workspace, old: str, new: str, inbound: Plan, kind: str) -> Moved:
    """`move` once the lock is held: the rename, then each link rewrite, in one operation."""
    store, index = workspace.store, workspace.index
    source, target = from_relpath(old), from_relpath(new)
    try:
        operation = store.operation(kind, f"{kind} {source} to {target}")
    except RecordFailed as problem:
        message = unrecorded_message(f"move {source}", problem)
        return Moved(CommandResult(message, True), old, new)
    moved = Moved(operation.rename(source, target), old, new, operation.group_id)
    if moved.result.is_error or moved.result.kind == HELD:
        return moved
    workspace.apply([old, new])
    if index is None:
        return moved
    for note, renames in retargets(index, inbound, old, new).items():
        links, why = _rewrite(operation, note, renames)
        if why is None:
            moved.rewritten.append(note)
            moved.links += links
        elif why is HELD:
            moved.held.append(note)
        else:
            moved.unrewritten.append((note, why))
    workspace.apply(moved.rewritten)
    return moved


def _rewrite(store: MemoryStore, relpath: str, renames: dict[str, str]) -> tuple[int, str | None]:
    """Point the links of one note at their new names with one `write`: how many links it
    changed, and None, `HELD` (the policy holds the write for approval) or why not."""
    virtual = from_relpath(relpath)
    try:
        text, revision = store.read(virtual)
    except StoreError as problem:
        return 0, str(problem)
    rewritten, rewrites = rewrite_links(text, renames)
    if rewrites == 0:
        return 0, "its links changed meanwhile"
    result = store.write(virtual, rewritten, revision)
    if result.kind == HELD:
        return rewrites, HELD
    return rewrites, result.content if result.is_error else None
