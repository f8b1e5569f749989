"""`memtui edit`: a note edited in $EDITOR on a copy, saved through the core, merged three ways
with changes saved meanwhile."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from memtui.cli.shared import add_actor_option, human_store
from memtui.cli.terminal import visible
from memtui.core.parsing.paths import as_virtual, to_relpath
from memtui.core.plurals import count
from memtui.core.reporting import fail

_DESCRIPTION = """\
Edit the note NOTE (/memories/x.md or x.md) of the memory folder PATH in your editor ($VISUAL,
else $EDITOR, else vi), on a copy, then save it through memtui's core as you (recorded in the
history, so it can be undone).

If the note changed while you edited it (an agent wrote to it), your changes and theirs are
merged: changes to different lines are combined and saved, and the result is printed as a
diff; changes to the same lines are printed as conflicts, nothing is saved, the exit status is
1, and your edited copy is kept (its path is printed) to merge by hand.
"""
SAVE_ATTEMPTS = 3
"""How often a merged text is saved again when the note keeps changing under it."""


def register(subparsers: Any) -> None:
    """Add the `edit` subcommand."""
    parser = subparsers.add_parser(
        "edit",
        help="edit a note in $EDITOR, merging changes saved meanwhile",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", metavar="PATH", help="the memory folder")
    parser.add_argument("note", metavar="NOTE", help="the note to edit (/memories/x.md or x.md)")
    add_actor_option(parser)


def when(seconds: float) -> str:
    """A history time as local date and time."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds))


def run(args: argparse.Namespace) -> int:
    """Run `memtui edit`: 0 saved (or nothing to save), 1 not saved."""
    from memtui.core.store import StoreError
    from memtui.notes.operations.external import (
        EditCopy,
        EditorProblem,
        editor_command,
        run_editor,
    )

    store = human_store("edit", args.path, args.actor)
    if isinstance(store, int):
        return store
    virtual = as_virtual(args.note)
    try:
        text, revision = store.read(virtual)
        command = editor_command()
    except (StoreError, EditorProblem) as problem:
        return fail("edit", problem, 1)
    copy = EditCopy.create(to_relpath(virtual), text)
    try:
        status = run_editor(command, copy.path)
        edited = copy.read()
    except EditorProblem as problem:
        copy.remove()
        return fail("edit", problem, 1)
    except (OSError, UnicodeDecodeError) as problem:
        return fail("edit", f"cannot read the edited copy {copy.path}: {problem}", 1)
    if status != 0:
        kept = f"; your edited copy is kept at {copy.path}" if edited != text else ""
        if not kept:
            copy.remove()
        return fail("edit", f"the editor exited with status {status}; nothing saved{kept}", 1)
    if edited == text:
        copy.remove()
        print(visible(f"No changes to {virtual}."))
        return 0
    return _save(store, copy, virtual, text, revision, edited)


def _save(
    store: Any, copy: Any, virtual: str, loaded: str, revision: str | None, edited: str
) -> int:
    """Save the edited text, merging with changes saved meanwhile; report what happened."""
    from memtui.notes.operations.saving import save_edit, save_merged
    from memtui.notes.workspace import Workspace

    workspace = Workspace(store)
    saved = save_edit(workspace, virtual, edited, revision, loaded)
    if not saved.result.is_error:
        copy.remove()
        print(visible(saved.result.content))
        return 0
    for _attempt in range(SAVE_ATTEMPTS):
        changed = saved.changed
        if changed is None or changed.merge is None or not changed.clean:
            break
        saved = save_merged(workspace, changed, changed.merge.text())
        if not saved.result.is_error:
            copy.remove()
            _print_merged(changed, loaded)
            return 0
    return _not_saved(saved, copy, virtual)


def _print_merged(changed: Any, loaded: str) -> None:
    """Say that the note changed meanwhile and print the saved merge as a diff from the text
    the editor loaded."""
    from memtui.notes.merge import diff_lines
    from memtui.notes.operations.saving import who_changed

    print(
        visible(
            f"{changed.virtual} changed while you edited it "
            f"({who_changed(changed.changes, when)}); both changes were merged and saved:"
        )
    )
    merged = changed.merge.text()
    for line in diff_lines(
        loaded, merged, f"{changed.virtual} (as you loaded it)", f"{changed.virtual} (saved)"
    ):
        print(visible(line))


def _not_saved(saved: Any, copy: Any, virtual: str) -> int:
    """Report a save that did not happen: the overlapping changes, or the error; the edited
    copy is kept."""
    from memtui.notes.operations.saving import who_changed

    kept = f"nothing saved; your edited copy is kept at {copy.path}"
    changed = saved.changed
    if changed is None:
        return fail("edit", f"{saved.result.content}; {kept}", 1)
    who = who_changed(changed.changes, when)
    if changed.merge is None:
        return fail("edit", f"{virtual} was deleted while you edited it ({who}); {kept}", 1)
    conflicts = changed.merge.conflicts
    print(
        visible(
            f"{virtual} changed while you edited it ({who}); "
            f"{count(len(conflicts), 'change')} {'overlaps' if len(conflicts) == 1 else 'overlap'}"
            " yours:"
        )
    )
    for conflict in conflicts:
        print(visible(f"@@ line {conflict.line} of your copy @@"))
        print("<<<<<<< yours")
        _print_lines(conflict.mine)
        print("=======")
        _print_lines(conflict.theirs)
        print(">>>>>>> saved meanwhile")
    sys.stdout.flush()
    return fail("edit", kept, 1)


def _print_lines(lines: tuple[str, ...]) -> None:
    """Print lines of a note, each made display-safe."""
    for line in lines:
        print(visible(line.rstrip("\n")))
