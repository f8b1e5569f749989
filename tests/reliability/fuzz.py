"""Traversal fuzzing harness: hostile paths through an entry point, checked against a sandbox."""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.reliability.hostile import OUTSIDE_MARKER, snapshot

SANDBOX_DEPTH = 8
"""Folders between the sandbox and the store: more than any generated path has `..` steps."""

REFUSALS = (
    "Path must start with /memories, got: ",
    " would escape /memories directory",
    " is reserved for memtui's history",
    "Path must not contain NUL characters",
    " is not valid Unicode",
)
"""Fragments that mark a result as a refused path."""

Caller = Callable[[dict[str, Any]], tuple[str, bool]]
"""An entry point: raw tool input -> (result text, is_error)."""


@dataclass
class Sandbox:
    """A store deep inside a sandbox folder full of bait files that must never be touched."""

    base: Path
    root: Path
    outside: Path


@dataclass
class FuzzFigures:
    """What one entry point did with the hostile paths."""

    calls: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    errors: int = 0
    leaks: list[str] = field(default_factory=list)


def build_sandbox(base: Path) -> Sandbox:
    """The sandbox: bait outside the store at every level, symlinked folders inside it."""
    deep = base.joinpath(*(f"level{number}" for number in range(SANDBOX_DEPTH)))
    root = deep / "store"
    (root / "inner").mkdir(parents=True)
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(f"{OUTSIDE_MARKER}\n", encoding="utf-8")
    folders = [base] + [
        base.joinpath(*(f"level{number}" for number in range(depth)))
        for depth in range(1, SANDBOX_DEPTH + 1)
    ]
    for folder in folders:
        for name in ("secret.md", "new.md", "history.db", "con"):
            (folder / name).write_text(f"{OUTSIDE_MARKER} {name}\n", encoding="utf-8")
        (folder / "etc").mkdir(exist_ok=True)
        (folder / "etc" / "passwd").write_text(f"{OUTSIDE_MARKER} passwd\n", encoding="utf-8")
    (root / "inner" / "note.md").write_text("inside\n", encoding="utf-8")
    os.symlink(outside, root / "linkout")
    os.symlink("..", root / "inner" / "linkup")
    return Sandbox(base=base, root=root, outside=outside)


def outside_state(sandbox: Sandbox) -> dict[bytes, tuple[object, ...]]:
    """Every entry of the sandbox except the store itself."""
    store_rel = os.fsencode(sandbox.root.relative_to(sandbox.base))
    return {
        path: state
        for path, state in snapshot(sandbox.base, skip=()).items()
        if path != store_rel and not path.startswith(store_rel + b"/")
    }


def tool_inputs(paths: Iterable[str], *, seed: int = 5) -> Iterable[dict[str, Any]]:
    """One command per hostile path, cycling through all six commands and both rename slots."""
    rng = random.Random(seed)
    for number, path in enumerate(paths):
        kind = number % 7
        if kind == 0:
            yield {"command": "view", "path": path}
        elif kind == 1:
            yield {"command": "create", "path": path, "file_text": "pwned\n"}
        elif kind == 2:
            yield {"command": "str_replace", "path": path, "old_str": " ", "new_str": "X"}
        elif kind == 3:
            yield {"command": "insert", "path": path, "insert_line": 0, "insert_text": "pwned"}
        elif kind == 4:
            yield {"command": "delete", "path": path}
        elif kind == 5:
            yield {
                "command": "rename",
                "old_path": path,
                "new_path": f"/memories/moved{rng.random()}.md",
            }
        else:
            yield {"command": "rename", "old_path": "/memories/inner/missing.md", "new_path": path}


def is_refusal(text: str) -> bool:
    """True if a result refuses a path."""
    return any(fragment in text for fragment in REFUSALS)


def run_fuzz(caller: Caller, inputs: Iterable[dict[str, Any]]) -> FuzzFigures:
    """Send every input through `caller`; collect refusals and any leaked outside content."""
    figures = FuzzFigures()
    for tool_input in inputs:
        text, is_error = caller(tool_input)
        figures.calls += 1
        if OUTSIDE_MARKER in text:
            figures.leaks.append(repr(tool_input))
        if is_error:
            figures.errors += 1
            if is_refusal(text):
                figures.refused[text] += 1
    return figures


def refused_in_history(root: Path) -> Counter[str]:
    """Result texts of every refused-path event in the store's history that is flagged refused."""
    from memtui.core.parsing.paths import FLAG_REFUSED
    from memtui.core.recording.history import History

    return Counter(
        event.result
        for event in History(root).events(newest_first=False)
        if event.is_error and is_refusal(event.result) and FLAG_REFUSED in event.flags
    )


def not_shown_as_refused(root: Path) -> list[str]:
    """Refused events whose flags column in the app's history screen does not say `refused`."""
    from memtui.core.parsing.paths import FLAG_REFUSED
    from memtui.core.recording.history import History
    from memtui.tui.widgets.history_events import event_flags

    return [
        f"event {event.id}: {event_flags(event)!r}"
        for event in History(root).events(newest_first=False)
        if FLAG_REFUSED in event.flags and not event_flags(event).startswith("refused")
    ]
