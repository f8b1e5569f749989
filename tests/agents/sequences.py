"""Representative memory-command sequences and reference runs on the real core and notes layer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memtui.agents.notes_access import format_hits
from memtui.core.store import MemoryStore
from memtui.notes.index import NoteIndex
from memtui.notes.search import Searcher

NOTE = "/memories/projects/memtui.md"
NOTE_TEXT = "# memtui\n- [fact] A terminal app #tui\n- [fact] A command core\n"

SEQUENCE: list[dict[str, Any]] = [
    {"command": "view", "path": "/memories"},
    {"command": "create", "path": NOTE, "file_text": NOTE_TEXT},
    {"command": "create", "path": NOTE, "file_text": "again"},
    {"command": "view", "path": NOTE},
    {"command": "view", "path": "/memories/missing.md"},
    {"command": "str_replace", "path": NOTE, "old_str": "A terminal app", "new_str": "A TUI"},
    {"command": "str_replace", "path": NOTE, "old_str": "not there", "new_str": "x"},
    {"command": "str_replace", "path": NOTE, "old_str": "[fact]", "new_str": "x"},
    {"command": "insert", "path": NOTE, "insert_line": 3, "insert_text": "- [status] Tested\n"},
    {"command": "insert", "path": NOTE, "insert_line": 99, "insert_text": "late"},
    {"command": "create", "path": "/memories/scratch.md", "file_text": "tmp\n"},
    {"command": "delete", "path": "/memories/scratch.md"},
    {"command": "delete", "path": "/memories/scratch.md"},
    {"command": "create", "path": "/memories/old.md", "file_text": "old\n"},
    {"command": "rename", "old_path": "/memories/old.md", "new_path": "/memories/user/new.md"},
    {"command": "rename", "old_path": "/memories/user/new.md", "new_path": NOTE},
    {"command": "view", "path": "/memories/../etc/passwd"},
    {"command": "create", "path": 5, "file_text": "x"},
    {"command": "launch"},
    {"command": "view", "path": "/memories"},
]
"""Success and error cases of each of the six commands, plus refused and malformed input."""

EXPECTED_FINAL_NOTE = b"# memtui\n- [fact] A TUI #tui\n- [fact] A command core\n- [status] Tested\n"

EXPECTED_TEXTS: dict[int, tuple[str, bool]] = {
    1: ("File created successfully at: /memories/projects/memtui.md", False),
    2: ("Error: File /memories/projects/memtui.md already exists", True),
    3: (
        "Here's the content of /memories/projects/memtui.md with line numbers:\n"
        "     1\t# memtui\n     2\t- [fact] A terminal app #tui\n"
        "     3\t- [fact] A command core\n     4\t",
        False,
    ),
    4: ("The path /memories/missing.md does not exist. Please provide a valid path.", True),
    6: (
        "No replacement was performed, old_str `not there` did not appear verbatim in "
        "/memories/projects/memtui.md.",
        True,
    ),
    7: (
        "No replacement was performed. Multiple occurrences of old_str `[fact]` in lines: 2, 3. "
        "Please ensure it is unique",
        True,
    ),
    8: ("The file /memories/projects/memtui.md has been edited.", False),
    9: (
        "Error: Invalid `insert_line` parameter: 99. It should be within the range of lines of "
        "the file: [0, 4]",
        True,
    ),
    11: ("Successfully deleted /memories/scratch.md", False),
    12: ("Error: The path /memories/scratch.md does not exist", True),
    14: ("Successfully renamed /memories/old.md to /memories/user/new.md", False),
    15: ("Error: The destination /memories/projects/memtui.md already exists", True),
    16: ("Path /memories/../etc/passwd would escape /memories directory", True),
    17: ("Invalid input for create: `path` must be a string", True),
    18: (
        "Unknown command: launch. Expected one of: view, create, str_replace, insert, delete, "
        "rename",
        True,
    ),
}
"""Exact result strings the spec fixes for some steps of SEQUENCE (index -> content, is_error)."""


def reference_results(root: Path, sequence: list[dict[str, Any]]) -> list[tuple[str, bool]]:
    """What MemoryStore.execute returns for `sequence` on a fresh folder `root`."""
    store = MemoryStore(root, actor="agent:reference")
    results = []
    for tool_input in sequence:
        result = store.execute(tool_input)
        results.append((result.content, result.is_error))
    return results


def fresh_search(root: Path, query: str, limit: int = 10) -> str:
    """What the notes layer finds for `query` on a freshly loaded index."""
    index = NoteIndex.load(root, use_cache=False)
    searcher = Searcher(index, MemoryStore(root).history)
    return format_hits(query, searcher.search(query, limit=limit), index)
