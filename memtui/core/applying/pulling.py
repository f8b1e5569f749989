"""A change pulled from another machine: the file made as the sync decided, on descriptors, and
recorded as one unit under the change's original actor (command `pull`, the machine named).

The sync (memtui.notes.sync) decides what a file becomes; this module only puts it there when
the file is still what the sync read (`expected`), so a change made meanwhile is never written
over. A pulled text is not refused for holding a likely secret (it is already on the other
machine); it is flagged, as an agent's write in `warn` mode is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memtui.core.applying.atomic import DIR_MODE, replace_at
from memtui.core.applying.snapshots import (
    MISSING,
    State,
    capture,
    file_state,
    remove,
    restore,
    stat_now,
)
from memtui.core.parsing.command_types import CommandOutcome
from memtui.core.parsing.echo import echo
from memtui.core.parsing.paths import PathRefusal, check_path
from memtui.core.recording.blobs import KIND_DIR
from memtui.core.recording.keeping import Scanner, secret_flags
from memtui.core.result import CONFLICT, REFUSED, CommandResult

if TYPE_CHECKING:
    from memtui.core.applying.site import Site
    from memtui.core.resolving.fd_paths import Location
    from memtui.core.store import MemoryStore

PULL = "pull"
"""The history command of a change pulled from another machine."""


@dataclass(frozen=True)
class Pulled:
    """What a pulled change makes of one file, and where it came from."""

    virtual: str
    """The note's virtual path, `/memories/...`."""
    data: bytes | None
    """The file's new bytes; None when the change deletes it."""
    machine: str
    """The name of the machine the change was made on."""
    commit: str
    """The git commit it arrived in."""
    changes: tuple[str, ...] = ()
    """The global ids of the other machines' changes it carries (for review marks)."""
    merged: bool = False
    """True when it was combined with this machine's own changes to the file."""


def pulled_args(pulled: Pulled) -> dict[str, Any]:
    """The arguments a pull event keeps: the path, the machine, the commit and the changes."""
    return {
        "path": pulled.virtual,
        "machine": pulled.machine,
        "commit": pulled.commit,
        "changes": list(pulled.changes),
        "merged": pulled.merged,
    }


def apply_pulled(store: MemoryStore, pulled: Pulled, expected: str | None) -> CommandResult:
    """Make the file `pulled.virtual` hold `pulled.data` if it is still at revision `expected`
    (None: no file there), recorded as a `pull` event by `store.actor`.

    A file that changed since (or a folder in the way) is a conflict: nothing is written and
    nothing recorded. A refused path (memtui's own folder, a path out of the store) is refused.
    """
    args = pulled_args(pulled)
    return store.when_locked(
        f"pull {echo(pulled.virtual)}",
        (PULL, pulled.virtual, args),
        lambda: _apply_locked(store, pulled, expected, args),
    )


def _apply_locked(
    store: MemoryStore, pulled: Pulled, expected: str | None, args: dict[str, Any]
) -> CommandResult:
    """`apply_pulled` once the lock is held."""
    checked = check_path(store.root, pulled.virtual, any_name=True)
    if isinstance(checked, PathRefusal):
        return CommandResult(checked.message, True, None, REFUSED)
    shown = echo(pulled.virtual)
    with store.open_site() as site:
        location = site.place(checked.parts, shown)
        if isinstance(location, CommandOutcome):
            return CommandResult(location.content, True, None, location.kind or REFUSED)
        before = capture(location, store.max_size)
        if before.kind == KIND_DIR or before.hash != expected:
            what = "a folder" if before.kind == KIND_DIR else "changed"
            return CommandResult(f"Conflict: {shown} is {what} here", True, None, CONFLICT)
        if before.kind is None and pulled.data is None:
            return CommandResult(f"{shown} is already gone", False)
        flags = _flags(pulled.data)

        def apply() -> tuple[CommandOutcome, State]:
            return _put(site, location, pulled, shown, flags)

        def undo() -> None:
            restore(location, before.kind, before.hash, before.blobs.get, site.temps)

        return store.human_change(
            PULL, pulled.virtual, args, apply, undo, before=before, what=f"pull {shown}"
        )


def _flags(data: bytes | None) -> tuple[str, ...]:
    """The secret flags of pulled bytes (read as UTF-8, undecodable bytes kept as escapes)."""
    if data is None:
        return ()
    text = data.decode("utf-8", errors="surrogateescape")
    return secret_flags(Scanner().in_change(text, (0, len(text))))


def _put(
    site: Site, location: Location, pulled: Pulled, shown: str, flags: tuple[str, ...]
) -> tuple[CommandOutcome, State]:
    """Write (or remove) the file; the outcome and the state left there."""
    where = f"from {pulled.machine}"
    try:
        if pulled.data is None:
            remove(location)
            return CommandOutcome(f"Deleted {shown}, as {pulled.machine} did", False), MISSING
        parent = location.make_parents(DIR_MODE)
        replace_at(site.temps, parent, location.name, pulled.data)
    except OSError as problem:
        return CommandOutcome(f"Cannot pull {shown}: {problem.strerror or problem}", True), MISSING
    written = file_state(pulled.data)
    now = stat_now(location)
    if now is not None:
        written.stats[""] = now
    merged = " (merged with this machine's changes)" if pulled.merged else ""
    return CommandOutcome(f"Pulled {shown} {where}{merged}", False, flags), written
