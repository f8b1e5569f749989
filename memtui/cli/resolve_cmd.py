"""`memtui resolve`: a sync clash resolved by a person (yours, theirs, both, or edited)."""

from __future__ import annotations

import argparse
from typing import Any

from memtui.cli.shared import add_actor_option, human_store, whole_number
from memtui.cli.terminal import visible
from memtui.core.reporting import fail

_DESCRIPTION = """\
Resolve clash ID of the memory folder PATH (`memtui sync` and `memtui changes` list them): the
same lines were changed here and on another machine, and the note kept this machine's text.
Choose --yours (keep it), --theirs (take the other machine's text), --both (this machine's
lines, then theirs) or --edit (write it in $EDITOR, starting from both). For a note deleted on
one side and changed on the other, --yours and --theirs keep or delete it as that side did.
The change is saved as you, recorded in the history, and goes out with the next sync.
Without a choice, the clash is printed.
"""


def register(subparsers: Any) -> None:
    """Add the `resolve` subcommand."""
    parser = subparsers.add_parser(
        "resolve",
        help="resolve a sync clash: yours, theirs, both or edit",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", metavar="PATH", help="the memory folder")
    parser.add_argument("clash", metavar="ID", type=whole_number, help="the clash to resolve")
    choice = parser.add_mutually_exclusive_group()
    for name in ("yours", "theirs", "both", "edit"):
        choice.add_argument(
            f"--{name}", dest="choice", action="store_const", const=name, help=f"take {name}"
        )
    add_actor_option(parser)


def run(args: argparse.Namespace) -> int:
    """Run `memtui resolve`: 0 resolved (or shown), 1 not resolved, 2 error."""
    from memtui.notes.sync.resolving import clash_texts, resolve_clash
    from memtui.notes.sync.state import SyncState

    store = human_store("resolve", args.path, args.actor)
    if isinstance(store, int):
        return store
    state = SyncState.existing(store.history)
    clash = state.clash(args.clash) if state is not None else None
    if state is None or clash is None:
        return fail("resolve", f"there is no clash {args.clash} in {visible(args.path)}")
    if args.choice is None:
        _show(clash)
        return 0
    text = None
    if args.choice == "edit":
        start = clash_texts(clash).side("both")
        text = _edited(clash.path, start or "")
        if text is None:
            return 1
    result = resolve_clash(store, state, args.clash, args.choice, text)
    if result.is_error:
        return fail("resolve", visible(result.content), 1)
    print(visible(f"Resolved clash {args.clash} ({args.choice}): {result.content}"))
    return 0


def _edited(relpath: str, start: str) -> str | None:
    """The text written in $EDITOR, starting from `start`; None (said why) if not saved."""
    from memtui.notes.operations.external import EditCopy, EditorProblem, editor_command, run_editor

    copy = EditCopy.create(relpath, start)
    try:
        status = run_editor(editor_command(), copy.path)
        text = copy.read()
    except (EditorProblem, OSError, UnicodeDecodeError) as problem:
        fail("resolve", visible(str(problem)))
        copy.remove()
        return None
    copy.remove()
    if status != 0:
        fail("resolve", f"the editor exited with status {status}; nothing resolved")
        return None
    return text


def _show(clash: Any) -> None:
    """Print a clash: what it is, and each overlapping change, yours then theirs."""
    from memtui.notes.sync.resolving import clash_texts, describe

    print(visible(f"clash {clash.id}: {clash.virtual}: {describe(clash)}"))
    texts = clash_texts(clash)
    if texts.merge is None:
        for label, text in (("yours", texts.ours), ("theirs", texts.theirs)):
            print(f"--- {label}")
            for line in ["(deleted)"] if text is None else text.rstrip("\n").split("\n"):
                print(visible(line))
        return
    for conflict in texts.merge.conflicts:
        print(visible(f"@@ line {conflict.line} @@"))
        print("--- yours")
        for line in conflict.mine:
            print(visible(line.rstrip("\n")))
        print("--- theirs")
        for line in conflict.theirs:
            print(visible(line.rstrip("\n")))
