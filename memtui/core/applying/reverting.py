"""Undo one history event: put back its before-state, on descriptors, recorded as one unit."""

from __future__ import annotations

import errno
import os
from typing import TYPE_CHECKING, Any

from memtui.core.applying.site import Site
from memtui.core.applying.snapshots import (
    MISSING,
    RestoreError,
    State,
    capture,
    describe,
    remove,
    restore,
    same_state,
)
from memtui.core.parsing.command_types import CommandOutcome, made_folders
from memtui.core.parsing.paths import PathRefusal, check_path
from memtui.core.recording.events import BASELINE, Event, actor_kind
from memtui.core.recording.reviews import is_reviewable
from memtui.core.resolving.fd_paths import DIR_MODE, Location, rename_noreplace
from memtui.core.result import CONFLICT, NOT_FOUND, REFUSED, CommandResult

if TYPE_CHECKING:
    from memtui.core.store import MemoryStore


def revert(store: MemoryStore, event_id: int, force: bool) -> CommandResult:
    """Undo event `event_id` as `store`'s actor; refused on conflict unless `force`."""
    args: dict[str, Any] = {"event_id": event_id, "force": force}
    return store.when_locked(
        f"revert event {event_id}",
        ("revert", None, args),
        lambda: _revert_locked(store, event_id, args, force),
    )


def _revert_locked(
    store: MemoryStore, event_id: int, args: dict[str, Any], force: bool
) -> CommandResult:
    """`revert` once the lock is held."""
    with store.open_site() as site:
        event = store.history.event(event_id)
        if event is None:
            outcome = CommandOutcome(
                f"There is no event {event_id} to revert", True, kind=NOT_FOUND
            )
            return store.record_human("revert", None, args, outcome)
        if not event.changed:
            outcome = CommandOutcome(
                f"Nothing to revert: event {event_id} ({event.command}) changed nothing", True
            )
            return store.record_human("revert", event.path, args, outcome)
        if event.command == BASELINE:
            outcome = CommandOutcome(
                f"Nothing to revert: event {event_id} is the baseline, the files that were here "
                "when memtui first opened this folder",
                True,
            )
            return store.record_human("revert", event.path, args, outcome)
        if event.new_path is not None:
            return _revert_move(store, site, event, args, force)
        return _revert_in_place(store, site, event, args, force)


def _reviews(store: MemoryStore, event: Event) -> tuple[int, ...]:
    """The event a person's undo marks reviewed: the undone one, if it waited for review."""
    return (event.id,) if actor_kind(store.actor) == "human" and is_reviewable(event) else ()


def _locate(store: MemoryStore, site: Site, virtual: str | None) -> Location | CommandOutcome:
    """The location of a recorded virtual path, validated again."""
    checked = check_path(store.root, virtual or "", any_name=True)
    if isinstance(checked, PathRefusal):
        return CommandOutcome(checked.message, True, checked.flags, REFUSED)
    return site.place(checked.parts, checked.virtual)


def _already_reverted(event: Event, force: bool) -> CommandOutcome | None:
    """A conflict for an event that was already reverted (unless forced)."""
    if event.reverted_by is None or force:
        return None
    return CommandOutcome(
        f"Conflict: event {event.id} was already reverted by event {event.reverted_by}.",
        True,
        kind=CONFLICT,
    )


def _unchanged_since(store: MemoryStore, event: Event, current: State) -> bool:
    """True if `current` is still what `event` left (a folder's modes aside)."""
    return same_state(current, event.after_kind, event.after_hash, store.history.blob)


def _restore_failed(event: Event, problem: Exception) -> CommandOutcome:
    """The error for a revert that could not put the old state back."""
    reason = problem.strerror if isinstance(problem, OSError) and problem.strerror else str(problem)
    return CommandOutcome(f"Cannot revert event {event.id}: {reason}", True)


def _put_back(location: Location, state: State, site: Site) -> None:
    """Make `location` hold `state` again, from the blobs it carries."""
    if state.unkept:
        raise RestoreError("its content was over the maximum file size and was not kept")
    restore(location, state.kind, state.hash, state.blobs.get, site.temps)


def _in_place_refusal(
    store: MemoryStore, event: Event, current: State, force: bool
) -> CommandOutcome | None:
    """The conflict that stops undoing an in-place change now, or None."""
    refusal = _already_reverted(event, force)
    if refusal is None and not force and not _unchanged_since(store, event, current):
        refusal = _changed_conflict(event, current)
    return refusal


def _changed_conflict(event: Event, current: State) -> CommandOutcome:
    """The conflict for a path that is no longer what `event` left (checked, or lost a race)."""
    return CommandOutcome(
        f"Conflict: {event.path} changed since event {event.id} ({event.command}); "
        f"it is now {describe(current)}.",
        True,
        kind=CONFLICT,
    )


def _exists_again(event: Event) -> CommandOutcome:
    """The conflict for a rename whose old path is taken again (checked, or lost a race)."""
    return CommandOutcome(
        f"Conflict: {event.path} exists again, so {event.new_path} cannot move back; "
        "move or delete it first.",
        True,
        kind=CONFLICT,
    )


def _move_refusal(
    store: MemoryStore, event: Event, source: Location, current: State, force: bool
) -> CommandOutcome | None:
    """The conflict that stops moving a renamed path back now, or None."""
    refusal = _already_reverted(event, force)
    if refusal is None and source.lstat() is not None:
        refusal = _exists_again(event)
    if refusal is None and not force and not _unchanged_since(store, event, current):
        refusal = CommandOutcome(
            f"Conflict: {event.new_path} changed since event {event.id} (rename); "
            f"it is {describe(current)}.",
            True,
            kind=CONFLICT,
        )
    return refusal


def conflict_now(
    store: MemoryStore, site: Site, event: Event, force: bool
) -> CommandOutcome | None:
    """Why undoing the changing event `event` now would be refused (lock held), or None."""
    if event.new_path is None:
        target = _locate(store, site, event.path)
        if isinstance(target, CommandOutcome):
            return target
        return _in_place_refusal(store, event, capture(target, store.max_size), force)
    source = _locate(store, site, event.path)
    destination = _locate(store, site, event.new_path)
    for located in (source, destination):
        if isinstance(located, CommandOutcome):
            return located
    assert isinstance(source, Location) and isinstance(destination, Location)
    return _move_refusal(store, event, source, capture(destination, store.max_size), force)


def _revert_in_place(
    store: MemoryStore, site: Site, event: Event, args: dict[str, Any], force: bool
) -> CommandResult:
    """Revert an event that changed one path: put its before-state back."""
    target = _locate(store, site, event.path)
    if isinstance(target, CommandOutcome):
        return store.record_human("revert", event.path, args, target)
    current = capture(target, store.max_size)
    refusal = _in_place_refusal(store, event, current, force)
    if refusal is not None:
        return store.record_human("revert", event.path, args, refusal)

    def apply() -> tuple[CommandOutcome, State]:
        try:
            restore(
                target,
                event.before_kind,
                event.before_hash,
                store.history.blob,
                site.temps,
                replace=current.kind is not None,
            )
        except FileExistsError:
            return _changed_conflict(event, capture(target, store.max_size)), MISSING
        except (RestoreError, OSError) as problem:
            return _restore_failed(event, problem), MISSING
        outcome = CommandOutcome(f"Reverted event {event.id} ({event.command} {event.path})", False)
        return outcome, capture(target, store.max_size)

    return store.human_change(
        "revert",
        event.path or "",
        args,
        apply,
        lambda: _put_back(target, current, site),
        before=current,
        what=f"revert event {event.id}",
        reverts=event.id,
        reviews=_reviews(store, event),
    )


def _revert_move(
    store: MemoryStore, site: Site, event: Event, args: dict[str, Any], force: bool
) -> CommandResult:
    """Revert a rename: move the destination back to the source path."""
    source = _locate(store, site, event.path)
    destination = _locate(store, site, event.new_path)
    for located in (source, destination):
        if isinstance(located, CommandOutcome):
            return store.record_human("revert", event.new_path, args, located)
    assert isinstance(source, Location) and isinstance(destination, Location)
    current = capture(destination, store.max_size)
    unchanged = _unchanged_since(store, event, current)
    refusal = _move_refusal(store, event, source, current, force)
    if refusal is not None:
        return store.record_human("revert", event.new_path, args, refusal)

    def apply() -> tuple[CommandOutcome, State]:
        try:
            if unchanged:
                _move(destination, source)
            else:
                restore(
                    source,
                    event.before_kind,
                    event.before_hash,
                    store.history.blob,
                    site.temps,
                    replace=False,
                )
                remove(destination)
        except FileExistsError:
            return _exists_again(event), MISSING
        except (RestoreError, OSError) as problem:
            return _restore_failed(event, problem), MISSING
        outcome = CommandOutcome(
            f"Reverted event {event.id} (rename {event.path} to {event.new_path})", False
        )
        return outcome, capture(source, store.max_size)

    def undo() -> None:
        if unchanged:
            _move(source, destination)
        else:
            remove(source)
            _put_back(destination, current, site)

    result = store.human_change(
        "revert",
        event.new_path or "",
        args,
        apply,
        undo,
        before=current,
        what=f"revert event {event.id}",
        new_path=event.path,
        reverts=event.id,
        reviews=_reviews(store, event),
    )
    if not result.is_error:
        destination.remove_empty_parents(made_folders(event.flags))
    return result


def _move(origin: Location, target: Location) -> None:
    """Rename `origin` to `target` by descriptors, making `target`'s missing parents;
    FileExistsError if anything is at `target`."""
    target_parent = target.make_parents(DIR_MODE)
    origin_parent = origin.parent_fd()
    if origin_parent is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), origin.relative)
    rename_noreplace(origin_parent, origin.name, target_parent, target.name)
