"""Restoring a file as it was at an earlier moment of the history: its bytes then written over
what is there now (or created again), one `write` through the core against the revision just
read, so it is recorded, undoable, and refused when the file changes meanwhile."""

from __future__ import annotations

from memtui.core.parsing.paths import from_relpath
from memtui.core.result import CommandResult
from memtui.notes.as_of import NotThen, StoreAsOf, shown_time
from memtui.notes.workspace import Workspace


def restore_file(workspace: Workspace, as_of: StoreAsOf, relpath: str) -> CommandResult:
    """Write `relpath` back to its content in `as_of` and bring the workspace up to date."""
    store = workspace.store
    virtual = from_relpath(relpath)
    try:
        data = as_of.content(store.history, relpath)
    except NotThen as problem:
        return CommandResult(f"Cannot restore {virtual}: {problem}", True)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return CommandResult(f"Cannot restore {virtual}: its bytes then were not UTF-8 text", True)
    revision = store.revision(virtual)
    if revision is not None and store.read(virtual)[0] == text:
        return CommandResult(f"{virtual} already holds what it held then; nothing changed", False)
    result = store.write(virtual, text, revision)
    if result.is_error:
        return result
    workspace.apply([relpath])
    return CommandResult(
        f"Restored {virtual} as it was at {shown_time(as_of.when)}", False, result.event_id
    )
