"""Differential test: random command sequences through MemoryStore give the SDK's results.

Each sequence starts by creating a few files (some of 1 KiB or more, so listings show sizes
like `1.2K`), then draws 10-30 commands whose arguments come from what is on disk at that
moment: old_str is a (mostly unique) substring of the target's current text, insert_line is
near its line count, paths come from a small pool that mostly exists. The SDK's result is mapped
by D1-D11 and M1-M4; the trees must stay byte-identical apart from `.memtui/`, and every call is
one history event.
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
import tempfile
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtui.core.config import Settings
from memtui.core.parsing.command_types import CommandOutcome
from memtui.core.parsing.tool_input import parse_command
from memtui.core.store import MemoryStore

FILES = [
    "/memories/a.md",
    "/memories/B.md",
    "/memories/_u.md",
    "/memories/é.md",
    "/memories/d/c.md",
    "/memories/d/C.md",
    "/memories/d/e/f.md",
    "/memories/node_modules/n.md",
    "/memories/x/y.md",
]
FOLDERS = ["/memories", "/memories/d", "/memories/d/e", "/memories/node_modules", "/memories/x"]
SPELLINGS = [
    "/memories/",
    "/memories//a.md",
    "/memories/a.md/",
    "/memories/./B.md",
    "/memories/d/./c.md",
    "/memories/d/",
    "/memories/.h.md",
    "/memories/a.md/z.md",
]
# memtui refuses these (M1-M3) where the SDK would act or escape; both refuse the last ones.
REFUSED = [
    "/memories/d/../a.md",
    "/memories/../a.md",
    "/memoriesX/a.md",
    "/memories/%2e%2e/a.md",
    "/memories/a\\b.md",
    "/memories/.memtui/x.md",
    "/other/a.md",
]
LINES = st.one_of(
    st.text(
        alphabet=st.sampled_from([*"abAB `\t", "é", "😀", "\u2028", "\r", "\ufeff"]), max_size=10
    ),
    st.sampled_from(["", "aaaa", "ababa", "aaa", "line", "line two", "- [x] done"]),
    st.text(alphabet="ab", min_size=2, max_size=8),
)


FILLERS = ["- [fact] the build runs on every push", "é😀\tline", "a", "ab\r"]
"""Lines repeated to make files of 1 KiB and more, whose listed sizes have a decimal (`2.3K`)."""


@st.composite
def texts(draw: st.DrawFn) -> str:
    """File text: lines joined by LF or CRLF, an optional final newline and BOM; 1 in 8 is big."""
    lines = draw(st.lists(LINES, max_size=9))
    if draw(st.integers(0, 7)) == 0:
        filler = draw(st.sampled_from(FILLERS))
        lines[draw(st.integers(0, len(lines))) : 0] = [filler] * (
            1100 // len(filler) + draw(st.integers(0, 60))
        )
    text = draw(st.sampled_from(["\n", "\r\n"])).join(lines)
    if draw(st.booleans()):
        text += "\n"
    if draw(st.integers(0, 9)) == 0:
        text = "\ufeff" + text
    return text


def pick_path(data: st.DataObject) -> str:
    """A path: mostly a pool file, sometimes a folder, an odd spelling or a refused path."""
    roll = data.draw(st.integers(0, 19))
    if roll < 14:
        return data.draw(st.sampled_from(FILES))
    if roll < 16:
        return data.draw(st.sampled_from(FOLDERS))
    if roll < 18:
        return data.draw(st.sampled_from(SPELLINGS))
    return data.draw(st.sampled_from(REFUSED))


def current_text(sdk_root: Path, path: str) -> str | None:
    """The text of the regular file a pool path names in the SDK's tree, or None."""
    if not path.startswith("/memories/") or any(part == ".." for part in path.split("/")):
        return None
    target = sdk_root / path[len("/memories/") :]
    try:
        return target.read_bytes().decode("utf-8") if target.is_file() else None
    except (OSError, UnicodeDecodeError):
        return None


def pick_old_str(data: st.DataObject, text: str | None) -> str:
    """Mostly a unique substring of the file's text; sometimes any substring, or absent text."""
    roll = data.draw(st.integers(0, 9))
    if text is None or roll < 2:
        return data.draw(st.sampled_from(["", "a", "aa", "aaa", "ab", "aba", "zz", "\n", "line"]))
    start = data.draw(st.integers(0, len(text)))
    length = data.draw(st.integers(0, min(3 if roll == 2 else 12, len(text) - start)))
    if roll > 3:
        while start + length < len(text) and (
            length == 0 or text.count(text[start : start + length]) > 1
        ):
            length += 1
    return text[start : start + length]


def line_count(text: str | None) -> int:
    """The SDK's insert line count: LF-split lines, one trailing empty element dropped."""
    if text is None:
        return 2
    lines = text.split("\n")
    return len(lines) - 1 if lines[-1] == "" else len(lines)


def draw_command(data: st.DataObject, sdk_root: Path) -> dict[str, Any]:  # noqa: C901
    """One tool input whose arguments fit what is on disk now."""
    command = data.draw(
        st.sampled_from(
            ["view"] * 3
            + ["create"] * 2
            + ["str_replace"] * 6
            + ["insert"] * 4
            + ["delete", "rename"]
        )
    )
    present = [path for path in FILES if current_text(sdk_root, path) is not None]
    missing = [path for path in FILES if path not in present]
    roll = data.draw(st.integers(0, 3))
    if command == "view" and roll > 1:
        path = data.draw(st.sampled_from(FOLDERS))
    elif command in ("str_replace", "insert", "view") and present and roll > 0:
        path = data.draw(st.sampled_from(present))
    elif command == "create" and missing and roll > 1:
        path = data.draw(st.sampled_from(missing))
    else:
        path = pick_path(data)
    text = current_text(sdk_root, path)
    if command == "view":
        tool_input: dict[str, Any] = {"command": "view", "path": path}
        if data.draw(st.integers(0, 2)) == 0:
            high = line_count(text) + 2
            tool_input["view_range"] = data.draw(
                st.lists(st.integers(-3, high), min_size=2, max_size=2)
                | st.sampled_from([[], [1], ["2", " 3 "], [1, 2, 3], "1,2", [0.5, -1]])
            )
        return tool_input
    if command == "create":
        return {"command": "create", "path": path, "file_text": data.draw(texts())}
    if command == "str_replace":
        tool_input = {"command": "str_replace", "path": path, "old_str": pick_old_str(data, text)}
        if data.draw(st.integers(0, 9)) > 0:
            tool_input["new_str"] = data.draw(texts() | LINES)
        return tool_input
    if command == "insert":
        lines = line_count(text)
        line: object = data.draw(st.integers(-1, lines + 1))
        if data.draw(st.integers(0, 9)) == 0:
            line = data.draw(st.sampled_from([str(line), f" {line} ", float(line), True]))
        return {
            "command": "insert",
            "path": path,
            "insert_line": line,
            "insert_text": data.draw(texts() | LINES),
        }
    if command == "delete":
        return {"command": "delete", "path": path}
    new_path = pick_path(data)
    if missing and data.draw(st.booleans()):
        new_path = data.draw(st.sampled_from(missing))
    return {"command": "rename", "old_path": path, "new_path": new_path}


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
            r"Invalid `insert_line` parameter: (-?\d+)\. It should be within the range \[0, "
            r"(\d+)\]\.",
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


def run_sequence(data: st.DataObject) -> None:
    """Seed a few files, then run 10-30 drawn commands through the store and the SDK side
    by side."""
    from anthropic.tools import BetaLocalFilesystemMemoryTool

    with tempfile.TemporaryDirectory() as temp, mock.patch("os.fsync"):
        tool = BetaLocalFilesystemMemoryTool(base_path=str(Path(temp) / "sdk"))
        sdk_root = Path(temp) / "sdk" / "memories"
        ours = Path(temp) / "ours" / "memories"
        ours.mkdir(parents=True, mode=0o700)
        store = MemoryStore(ours, actor="agent:diff", settings=Settings(actor="diff"))
        seeds = data.draw(st.lists(st.sampled_from(FILES), min_size=3, max_size=6, unique=True))
        sequence: list[dict[str, Any] | None] = [
            {"command": "create", "path": path, "file_text": data.draw(texts())} for path in seeds
        ]
        sequence += [None] * data.draw(st.integers(10, 30))
        for planned in sequence:
            tool_input = planned if planned is not None else draw_command(data, sdk_root)
            expected = expected_outcome(tool, sdk_root, ours, tool_input)
            result = store.execute(tool_input)
            assert (result.content, result.is_error) == expected, tool_input
            assert snapshot(ours) == snapshot(sdk_root), tool_input
        assert len(store.history.events()) == len(sequence)


@settings(
    max_examples=int(os.environ.get("MEMTUI_DIFF_EXAMPLES", "200")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.data())
def test_random_sequences_match_the_sdk(data: st.DataObject) -> None:
    run_sequence(data)


@pytest.mark.slow
@settings(
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.data())
def test_many_more_random_sequences_match_the_sdk(data: st.DataObject) -> None:
    run_sequence(data)
