"""MemtuiMemoryTool(base_path=X) is a drop-in for the SDK's
BetaLocalFilesystemMemoryTool(base_path=X).

The SDK's own tool runner runs one scripted conversation against a local fake API twice, once
with each class, each on its own base_path. Every tool result must be identical, except the
calls that docs/compatibility.md lists (D1-D11, M1-M4), whose two results must be exactly the
documented SDK and memtui strings. The folders must end up identical but for what those listed
calls change.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import pytest
from anthropic.tools import BetaLocalFilesystemMemoryTool

from memtui.agents.anthropic import MemtuiMemoryTool
from tests.agents.test_tool_runner import FakeMessagesAPI, sent_tool_results

A = "/memories/a.md"
DIR_HEADER = (
    "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items"
)

CALLS: list[tuple[dict[str, Any], str | None]] = [
    ({"command": "create", "path": A, "file_text": "one\ntwo\nthree\n"}, None),
    ({"command": "create", "path": "/memories/dir/b.md", "file_text": "b\n"}, None),
    ({"command": "create", "path": "/memories/node_modules/x.md", "file_text": "x\n"}, None),
    ({"command": "view", "path": A}, None),
    ({"command": "view", "path": A, "view_range": [2, -1]}, None),
    ({"command": "view", "path": "/memories/missing.md"}, None),
    ({"command": "str_replace", "path": A, "old_str": "two", "new_str": "TWO"}, None),
    ({"command": "str_replace", "path": A, "old_str": "nope", "new_str": "x"}, None),
    ({"command": "str_replace", "path": A, "old_str": "e", "new_str": "x"}, None),
    ({"command": "insert", "path": A, "insert_line": 1, "insert_text": "inserted\n"}, None),
    ({"command": "rename", "old_path": "/memories/dir/b.md", "new_path": "/memories/c.md"}, None),
    ({"command": "delete", "path": "/memories/c.md"}, None),
    ({"command": "delete", "path": "/memories"}, None),
    ({"command": "view", "path": "/memoriesx/../a.md", "view_range": [1, 1]}, "M2"),
    ({"command": "create", "path": A, "file_text": "again"}, "D1"),
    ({"command": "str_replace", "path": "/memories/no.md", "old_str": "a", "new_str": "b"}, "D2"),
    ({"command": "str_replace", "path": "/memories/dir", "old_str": "a", "new_str": "b"}, "D3"),
    ({"command": "create", "path": "/memories/d4.md", "file_text": "keep drop\n"}, None),
    ({"command": "str_replace", "path": "/memories/d4.md", "old_str": " drop"}, "D4"),
    ({"command": "insert", "path": "/memories/no.md", "insert_line": 0, "insert_text": "x"}, "D5"),
    ({"command": "insert", "path": "/memories/dir", "insert_line": 0, "insert_text": "x"}, "D6"),
    ({"command": "insert", "path": A, "insert_line": 9, "insert_text": "x"}, "D7"),
    ({"command": "delete", "path": "/memories/no.md"}, "D8"),
    ({"command": "rename", "old_path": "/memories/no.md", "new_path": "/memories/n.md"}, "D9"),
    ({"command": "rename", "old_path": A, "new_path": "/memories/d4.md"}, "D10"),
    ({"command": "view", "path": "/memories"}, "D11"),
    ({"command": "view", "path": "/memories/.memtui/history.db"}, "M1"),
    ({"command": "view", "path": "/memoriesfoo"}, "M2"),
    ({"command": "view", "path": "/memories/dir/../a.md"}, "M3"),
    ({"command": "create", "path": "/memories/m4.md"}, "M4"),
    ({"command": "launch", "path": A}, "M4"),
]
"""Each call and the rule that makes its two results differ (None: they must be identical)."""

DOCUMENTED: dict[int, tuple[tuple[str, bool], tuple[str, bool]]] = {
    13: (
        ("Here's the content of /memoriesx/../a.md with line numbers:\n     1\tone", False),
        ("Path must start with /memories, got: /memoriesx/../a.md", True),
    ),
    14: (
        ("File /memories/a.md already exists", True),
        ("Error: File /memories/a.md already exists", True),
    ),
    15: (
        ("The path /memories/no.md does not exist. Please provide a valid path.", True),
        ("Error: The path /memories/no.md does not exist. Please provide a valid path.", True),
    ),
    16: (
        ("The path /memories/dir is not a file.", True),
        ("Error: The path /memories/dir does not exist. Please provide a valid path.", True),
    ),
    18: (
        ("TypeError('replace() argument 2 must be str, not None')", True),
        (
            "The memory file has been edited. Here is the snippet showing the change "
            "(with line numbers):\n     1\tkeep\n     2\t",
            False,
        ),
    ),
    19: (
        ("The path /memories/no.md does not exist. Please provide a valid path.", True),
        ("Error: The path /memories/no.md does not exist", True),
    ),
    20: (
        ("The path /memories/dir is not a file.", True),
        ("Error: The path /memories/dir does not exist", True),
    ),
    21: (
        ("Invalid `insert_line` parameter: 9. It should be within the range [0, 4].", True),
        (
            "Error: Invalid `insert_line` parameter: 9. It should be within the range of lines "
            "of the file: [0, 4]",
            True,
        ),
    ),
    22: (
        ("The path /memories/no.md does not exist", True),
        ("Error: The path /memories/no.md does not exist", True),
    ),
    23: (
        ("The path /memories/no.md does not exist", True),
        ("Error: The path /memories/no.md does not exist", True),
    ),
    24: (
        ("The destination /memories/d4.md already exists", True),
        ("Error: The destination /memories/d4.md already exists", True),
    ),
    26: (
        (
            "The path /memories/.memtui/history.db does not exist. Please provide a valid path.",
            True,
        ),
        ("The path /memories/.memtui/history.db is reserved for memtui's history", True),
    ),
    27: (
        ("The path /memoriesfoo does not exist. Please provide a valid path.", True),
        ("Path must start with /memories, got: /memoriesfoo", True),
    ),
    28: (
        (
            "Here's the content of /memories/dir/../a.md with line numbers:\n     1\tone\n"
            "     2\tinserted\n     3\tTWO\n     4\tthree\n     5\t",
            False,
        ),
        ("Path /memories/dir/../a.md would escape /memories directory", True),
    ),
    29: (
        ("AttributeError(\"'NoneType' object has no attribute 'encode'\")", True),
        ("Invalid input for create: `file_text` is required", True),
    ),
    30: (
        ("NotImplementedError('Unknown command: launch')", True),
        (
            "Unknown command: launch. Expected one of: view, create, str_replace, insert, "
            "delete, rename",
            True,
        ),
    ),
}
"""(SDK result, memtui result) of every call with a rule, as docs/compatibility.md lists them."""

DIFFERING_FILES = {"d4.md": (b"keep drop\n", b"keep\n"), "m4.md": (b"", None)}
"""Files the listed calls leave different: D4 edits where the SDK crashes, M4 leaves none."""


def run_conversation(tool: Any) -> list[tuple[str, bool]]:
    """Every tool result the SDK's runner sends back, one tool call per turn."""
    turns = [
        [{"type": "tool_use", "id": f"toolu_{i}", "name": "memory", "input": tool_input}]
        for i, (tool_input, _) in enumerate(CALLS)
    ]
    api = FakeMessagesAPI([*turns, [{"type": "text", "text": "Done."}]])
    client = anthropic.Anthropic(
        api_key="test", http_client=httpx2.Client(transport=httpx2.MockTransport(api))
    )
    runner = client.beta.messages.tool_runner(
        model="claude-sonnet-5-5",
        max_tokens=1024,
        tools=[tool],
        betas=["context-management-2025-06-27"],
        messages=[{"role": "user", "content": "Use your memory."}],
    )
    assert list(runner)[-1].content[0].text == "Done."
    return [(block["content"], block.get("is_error", False)) for block in sent_tool_results(api)]


def tree(root: Path) -> dict[str, bytes | None]:
    """Every file below `root` (the history folder aside) and its bytes; folders as None."""
    found: dict[str, bytes | None] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [name for name in dirs if name != ".memtui"]
        for name in dirs:
            found[Path(folder, name).relative_to(root).as_posix()] = None
        for name in files:
            path = Path(folder, name)
            found[path.relative_to(root).as_posix()] = path.read_bytes()
    return found


def test_replacing_the_sdk_class_changes_only_the_documented_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMTUI_CONFIG_FILE", os.devnull)
    sdk = run_conversation(BetaLocalFilesystemMemoryTool(base_path=str(tmp_path / "sdk")))
    ours = run_conversation(MemtuiMemoryTool(base_path=str(tmp_path / "memtui")))
    assert len(sdk) == len(ours) == len(CALLS)
    for index, ((tool_input, rule), mine, theirs) in enumerate(zip(CALLS, ours, sdk, strict=True)):
        if rule is None:
            assert mine == theirs, (index, tool_input)
        elif rule == "D11":
            assert theirs[0].startswith(DIR_HEADER + ":\n")
            assert mine[0].startswith(DIR_HEADER + " and node_modules:\n")
            assert "node_modules" in theirs[0] and "node_modules" not in mine[0].split("\n", 1)[1]
        else:
            assert (theirs, mine) == DOCUMENTED[index], (index, rule)
    assert sorted(DOCUMENTED) == [
        i for i, (_, rule) in enumerate(CALLS) if rule not in (None, "D11")
    ]
    theirs_tree = tree(tmp_path / "sdk" / "memories")
    mine_tree = tree(tmp_path / "memtui" / "memories")
    for name, (sdk_bytes, memtui_bytes) in DIFFERING_FILES.items():
        assert (theirs_tree.pop(name, None), mine_tree.pop(name, None)) == (sdk_bytes, memtui_bytes)
    assert mine_tree == theirs_tree


def test_base_path_root_and_positional_forms(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMTUI_CONFIG_FILE", os.devnull)
    monkeypatch.chdir(tmp_path)
    default = MemtuiMemoryTool()
    assert default.memory_root == Path("memory/memories") and default.base_path == Path("memory")
    assert (tmp_path / "memory" / "memories").is_dir()
    assert MemtuiMemoryTool(base_path="kept").memory_root == Path("kept/memories")
    assert MemtuiMemoryTool(root="direct").memory_root == Path("direct")
    rooted = MemtuiMemoryTool(root="direct")
    assert (rooted.memory_root, rooted.base_path) == (Path("direct"), None)
    positional = MemtuiMemoryTool("kept")
    assert (positional.memory_root, positional.base_path) == (Path("kept/memories"), Path("kept"))
    assert MemtuiMemoryTool(root="~/m").memory_root == Path.home() / "m"
    with pytest.raises(TypeError, match="not both"):
        MemtuiMemoryTool("a", root="b")
