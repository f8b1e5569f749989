"""Differential test: random command sequences give the SDK's results (mapped by D1-D11, M1-M4)."""

from __future__ import annotations

import os
import posixpath
import re
import stat
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtui.core.commands import CommandOutcome, apply_command, parse_command

PATHS = [
    "/memories",
    "/memories/",
    "/memories/a.md",
    "/memories/a.md/",
    "/memories//a.md",
    "/memories/B.md",
    "/memories/é.md",
    "/memories/.h.md",
    "/memories/d",
    "/memories/d/",
    "/memories/d/./c.md",
    "/memories/d/c.md",
    "/memories/d/e",
    "/memories/d/e/f.md",
    "/memories/d/e/g/h.md",
    "/memories/a.md/x.md",
    "/memories/node_modules",
    "/memories/node_modules/n.md",
    "/memories/d/node_modules/m.md",
    # Paths that memtui refuses where the SDK would act (M1-M3), or both refuse.
    "/memories/d/../a.md",
    "/memories/..",
    "/memories/../a.md",
    "/memoriesX/a.md",
    "/memories/%2e%2e/a.md",
    "/memories/a\\b.md",
    "/memories/.memtui/x.md",
    "/other/a.md",
]
TEXTS = [
    "",
    "a",
    "a\n",
    "aa\naaa\n",
    "x\r\ny\r\n",
    "é😀\n\n",
    "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\n",
    "\n\n",
    "no newline",
    "tab\there `tick`\n",
]
NEEDLES = [
    "",
    "a",
    "aa",
    "\n",
    "\r\n",
    "line 3",
    "line",
    "y\r\n",
    "😀",
    "no",
    "zz",
    "line 2\nline 3",
]

paths = st.sampled_from(PATHS)
texts = st.sampled_from(TEXTS)
commands = st.one_of(
    st.builds(
        lambda p, r: {"command": "view", "path": p, **({"view_range": r} if r is not None else {})},
        paths,
        st.none() | st.lists(st.integers(-3, 8), min_size=0, max_size=3) | st.just(["2", " 3 "]),
    ),
    st.builds(lambda p, t: {"command": "create", "path": p, "file_text": t}, paths, texts),
    st.builds(
        lambda p, o, n, omit: (
            {"command": "str_replace", "path": p, "old_str": o} | ({} if omit else {"new_str": n})
        ),
        paths,
        st.sampled_from(NEEDLES),
        texts,
        st.booleans(),
    ),
    st.builds(
        lambda p, line, t: {"command": "insert", "path": p, "insert_line": line, "insert_text": t},
        paths,
        st.integers(-1, 7) | st.sampled_from(["1", " 2 ", 1.0, True]),
        texts,
    ),
    st.builds(lambda p: {"command": "delete", "path": p}, paths),
    st.builds(lambda o, n: {"command": "rename", "old_path": o, "new_path": n}, paths, paths),
)


def memtui_refusal(root: Path, tool_input: dict[str, Any]) -> CommandOutcome | None:
    """memtui's own refusal for M1-M3 paths (the SDK is not asked: it would act or escape)."""
    parsed = parse_command(root, tool_input)
    if isinstance(parsed, CommandOutcome) and (
        parsed.flags or "start with /memories" in parsed.content
    ):
        return parsed
    return None


def lexical(path: str) -> str:
    """The in-root relative path of a pool path (no symlinks are generated)."""
    return posixpath.normpath("/" + path[len("/memories") :].lstrip("/"))


def ancestors(path: str) -> list[str]:
    """Every proper ancestor of a lexical in-root path, nearest first."""
    parents = []
    while path != "/":
        path = posixpath.dirname(path)
        parents.append(path)
    return parents


def blocking_file(root: Path, path: str) -> str | None:
    """The nearest existing ancestor of a lexical path if it is a regular file."""
    for ancestor in ancestors(path):
        if os.path.lexists(root / ancestor.lstrip("/")):
            return ancestor if (root / ancestor.lstrip("/")).is_file() else None
    return None


def expected_parent_failure(root: Path, old_path: str, new_path: str) -> str:
    """M4 for a rename below a regular file; a missing source wins if no mkdir comes first."""
    new = lexical(new_path)
    old_exists = os.path.lexists(root / lexical(old_path).lstrip("/"))
    blocking = blocking_file(root, new)
    if (blocking is None or blocking == posixpath.dirname(new)) and not old_exists:
        return f"Error: The path {old_path} does not exist"
    return f"Cannot create {new_path}: a parent of it is a file"


def below(path: str, ancestor: str) -> bool:
    """True if lexical `path` is strictly below `ancestor`."""
    return path != ancestor and path.startswith(ancestor.rstrip("/") + "/")


def run_sdk(tool: Any, tool_input: dict[str, Any]) -> tuple[str, bool]:
    """Call the SDK tool as its runner would: ToolError content or repr of a crash."""
    from anthropic.lib.tools import ToolError

    try:
        return str(tool.call(tool_input)), False
    except ToolError as exc:
        return str(exc.content), True
    except Exception as exc:
        return repr(exc)[:4096], True


def map_sdk(
    tool_input: dict[str, Any], content: str, is_error: bool, sdk_root: Path
) -> tuple[str, bool]:
    """Map an SDK result to memtui's target strings (rules D1-D11 and M4)."""

    command = tool_input["command"]
    path = tool_input.get("path", "")
    missing = f"The path {path} does not exist. Please provide a valid path."
    not_file = f"The path {path} is not a file."
    if command == "view" and not is_error and content.startswith("Here're the files"):
        header, *lines = content.split("\n")
        header = header.replace(
            "excluding hidden items:", "excluding hidden items and node_modules:"
        )
        kept = [lines[0]] + [
            line
            for line in lines[1:]
            if "node_modules" not in line.split("\t", 1)[1][len(path) + 1 :].split("/")
        ]
        return "\n".join([header, *kept]), False
    if command == "create" and content == f"File {path} already exists":
        return "Error: " + content, True
    if command == "create" and content.startswith("NotADirectoryError("):
        return f"Cannot create {path}: a parent of it is a file", True
    if command == "str_replace" and content in (missing, not_file):
        return "Error: " + missing, True
    if command == "insert" and content in (missing, not_file):
        return f"Error: The path {path} does not exist", True
    if command == "insert" and (
        match := re.fullmatch(
            r"Invalid `insert_line` parameter: (-?\d+)\. It should be within the range \[0, (\d+)\]\.",
            content,
        )
    ):
        return (
            f"Error: Invalid `insert_line` parameter: {match[1]}. "
            f"It should be within the range of lines of the file: [0, {match[2]}]",
            True,
        )
    if command == "delete" and content == f"The path {path} does not exist":
        return "Error: " + content, True
    if command == "rename":
        old, new = tool_input["old_path"], tool_input["new_path"]
        if content in (f"The path {old} does not exist", f"The destination {new} already exists"):
            return "Error: " + content, True
        if content.startswith("NotADirectoryError("):
            return expected_parent_failure(sdk_root, old, new), True
    return content, is_error


def snapshot(root: Path) -> dict[str, object]:
    """Files (bytes, mode) and directories (mode) below root, memtui's .memtui excluded."""
    tree: dict[str, object] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not (Path(dirpath) == root and d == ".memtui")]
        for name in dirnames + filenames:
            full = Path(dirpath) / name
            info = full.lstat()
            relative = full.relative_to(root).as_posix()
            if stat.S_ISREG(info.st_mode):
                tree[relative] = (full.read_bytes(), stat.S_IMODE(info.st_mode))
            else:
                tree[relative] = ("dir", stat.S_IMODE(info.st_mode))
    return tree


def expected_outcome(
    tool: Any, sdk_root: Path, ours: Path, tool_input: dict[str, Any]
) -> tuple[str, bool]:
    """What memtui must answer: memtui's refusal, a mapped SDK result, or an M4 rename rule."""
    refusal = memtui_refusal(ours, tool_input)
    if refusal is not None:
        return refusal.content, refusal.is_error
    if tool_input["command"] == "rename":
        old, new = lexical(tool_input["old_path"]), lexical(tool_input["new_path"])
        if (sdk_root / new.lstrip("/")).exists() or old == "/":
            pass
        elif blocking_file(sdk_root, new) is not None:
            expected = expected_parent_failure(
                sdk_root, tool_input["old_path"], tool_input["new_path"]
            )
            return expected, True
        elif below(new, old):
            if os.path.lexists(sdk_root / old.lstrip("/")):
                return f"Cannot move {tool_input['old_path']} into itself", True
            return f"Error: The path {tool_input['old_path']} does not exist", True
    sdk_input = dict(tool_input)
    if sdk_input["command"] == "str_replace" and "new_str" not in sdk_input:
        sdk_input["new_str"] = ""
    content, is_error = run_sdk(tool, sdk_input)
    return map_sdk(tool_input, content, is_error, sdk_root)


@settings(
    max_examples=int(os.environ.get("MEMTUI_DIFF_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.lists(commands, min_size=1, max_size=14))
def test_random_sequences_match_the_sdk(sequence: list[dict[str, Any]]) -> None:
    from anthropic.tools import BetaLocalFilesystemMemoryTool

    with tempfile.TemporaryDirectory() as temp:
        tool = BetaLocalFilesystemMemoryTool(base_path=str(Path(temp) / "sdk"))
        sdk_root = Path(temp) / "sdk" / "memories"
        ours = Path(temp) / "ours" / "memories"
        ours.mkdir(parents=True, mode=0o700)
        for tool_input in sequence:
            expected = expected_outcome(tool, sdk_root, ours, tool_input)
            parsed = parse_command(ours, tool_input)
            outcome = parsed if isinstance(parsed, CommandOutcome) else apply_command(ours, parsed)
            assert (outcome.content, outcome.is_error) == expected, tool_input
            assert snapshot(ours) == snapshot(sdk_root), tool_input
