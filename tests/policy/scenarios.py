"""One store per access level, the memory-tool calls every entry point makes on it, and what each
call must answer and leave on disk.

Every call acts on its own file, so the seven calls of a level run in one store, in one session
of an entry point. The folder `p/` is under the rule; `q/` is free.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from memtui.core.config import Settings
from memtui.core.resolving.lock import META_DIR_NAME
from memtui.core.store import MemoryStore

LEVELS = ("write", "review", "read", "none")
FILES = {
    "p/view.md": b"one\ntwo\n",
    "p/edit.md": b"one\ntwo\n",
    "p/ins.md": b"one\ntwo\n",
    "p/del.md": b"gone\n",
    "p/out.md": b"moving\n",
    "q/in.md": b"coming\n",
}
CALLS: dict[str, dict[str, Any]] = {
    "view": {"command": "view", "path": "/memories/p/view.md"},
    "create": {"command": "create", "path": "/memories/p/new.md", "file_text": "new\n"},
    "str_replace": {
        "command": "str_replace",
        "path": "/memories/p/edit.md",
        "old_str": "one",
        "new_str": "ONE",
    },
    "insert": {
        "command": "insert",
        "path": "/memories/p/ins.md",
        "insert_line": 1,
        "insert_text": "mid",
    },
    "delete": {"command": "delete", "path": "/memories/p/del.md"},
    "rename_out": {
        "command": "rename",
        "old_path": "/memories/p/out.md",
        "new_path": "/memories/q/out.md",
    },
    "rename_in": {
        "command": "rename",
        "old_path": "/memories/q/in.md",
        "new_path": "/memories/p/in.md",
    },
}
WRITTEN = {
    "view": "Here's the content of /memories/p/view.md with line numbers:\n     1\tone\n     2\ttwo"
    "\n     3\t",
    "create": "File created successfully at: /memories/p/new.md",
    "str_replace": "The memory file has been edited. Here is the snippet showing the change (with "
    "line numbers):\n     1\tONE\n     2\ttwo\n     3\t",
    "insert": "The file /memories/p/ins.md has been edited.",
    "delete": "Successfully deleted /memories/p/del.md",
    "rename_out": "Successfully renamed /memories/p/out.md to /memories/q/out.md",
    "rename_in": "Successfully renamed /memories/q/in.md to /memories/p/in.md",
}
AFTER_WRITE = {
    "p/view.md": b"one\ntwo\n",
    "p/edit.md": b"ONE\ntwo\n",
    "p/ins.md": b"one\nmid\ntwo\n",
    "q/out.md": b"moving\n",
    "p/in.md": b"coming\n",
    "p/new.md": b"new\n",
}


def refused(path: str) -> str:
    """The policy's refusal of a change."""
    return (
        f"Refused: the store's policy does not let this agent change {path}; nothing was changed."
    )


HIDDEN = {
    "view": "The path /memories/p/view.md does not exist. Please provide a valid path.",
    "create": refused("/memories/p/new.md"),
    "str_replace": "Error: The path /memories/p/edit.md does not exist. Please provide a valid "
    "path.",
    "insert": "Error: The path /memories/p/ins.md does not exist",
    "delete": "Error: The path /memories/p/del.md does not exist",
    "rename_out": "Error: The path /memories/p/out.md does not exist",
    "rename_in": refused("/memories/p/in.md"),
}
READ_ONLY = {
    "view": WRITTEN["view"],
    "create": refused("/memories/p/new.md"),
    "str_replace": refused("/memories/p/edit.md"),
    "insert": refused("/memories/p/ins.md"),
    "delete": refused("/memories/p/del.md"),
    "rename_out": refused("/memories/p/out.md"),
    "rename_in": refused("/memories/p/in.md"),
}
HELD = re.compile(
    r"Held for review: a person must approve this change to (?P<path>\S+) before it is "
    r"applied \(proposal (?P<id>\d+)\); until then nothing changes\."
)


def make_store(root: Path, level: str) -> Path:
    """A store holding FILES with `p/**` at `level` for every agent; returns its root."""
    person = MemoryStore(root, actor="human:dana", settings=Settings())
    for relpath, data in FILES.items():
        assert not person.create(f"/memories/{relpath}", data.decode()).is_error
    policy = root / META_DIR_NAME / "policy.toml"
    policy.write_text(f'[[rule]]\npaths = ["p/**"]\naccess = "{level}"\n')
    return root


def tree(root: Path) -> dict[str, bytes]:
    """Every file below `root` (memtui's own folder aside): relpath -> bytes."""
    found: dict[str, bytes] = {}
    for folder, folders, names in os.walk(root):
        folders[:] = [name for name in folders if name != META_DIR_NAME]
        for name in names:
            path = Path(folder) / name
            found[path.relative_to(root).as_posix()] = path.read_bytes()
    return found


def check_answers(level: str, answers: dict[str, tuple[str, bool]], root: Path) -> None:
    """Every call answered as `level` says, and the disk left as it says."""
    if level == "review":
        for name, (content, is_error) in answers.items():
            if name == "view":
                assert (content, is_error) == (WRITTEN["view"], False)
                continue
            held = HELD.fullmatch(content)
            assert held is not None and not is_error, (name, content)
            first = "old_path" if name.startswith("rename") else "path"
            assert held["path"] == CALLS[name][first]
        held_ids = [int(HELD.fullmatch(c)["id"]) for c, _e in answers.values() if HELD.match(c)]
        proposals = MemoryStore(root, settings=Settings()).proposals.listing()
        assert [proposal.id for proposal in proposals] == sorted(held_ids)
        assert tree(root) == FILES
        return
    wanted, changed = {
        "write": (WRITTEN, AFTER_WRITE),
        "read": (READ_ONLY, FILES),
        "none": (HIDDEN, FILES),
    }[level]
    for name, (content, is_error) in answers.items():
        succeeded = level == "write" or (level == "read" and name == "view")
        assert (content, is_error) == (wanted[name], not succeeded), name
    assert tree(root) == changed
