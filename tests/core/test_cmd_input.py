"""Input validation (P9, P10, M4): exact messages, pydantic-style lax coercion, parse results."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from memtui.core.applying.dispatch import apply_command
from memtui.core.parsing.command_types import CommandOutcome, ParsedCommand, is_mutating
from memtui.core.parsing.tool_input import parse_command

Run = Callable[..., Any]
UNKNOWN = "Unknown command: {}. Expected one of: view, create, str_replace, insert, delete, rename"


@pytest.mark.parametrize(
    ("tool_input", "command_text"),
    [
        ({"command": "list", "path": "/memories"}, "list"),
        ({"path": "/memories"}, "None"),
        ({"command": None}, "None"),
        ({"command": 5}, "5"),
        ({"command": "View"}, "View"),
        ("view /memories", "None"),
        (None, "None"),
        (["view"], "None"),
    ],
)
def test_p10_unknown_or_missing_command(
    cmd_root: Path, tool_input: object, command_text: str
) -> None:
    assert parse_command(cmd_root, tool_input) == CommandOutcome(UNKNOWN.format(command_text), True)


@pytest.mark.parametrize(
    ("tool_input", "message"),
    [
        ({"command": "view"}, "Invalid input for view: `path` is required"),
        ({"command": "view", "path": None}, "Invalid input for view: `path` is required"),
        ({"command": "view", "path": 3}, "Invalid input for view: `path` must be a string"),
        ({"command": "view", "path": True}, "Invalid input for view: `path` must be a string"),
        (
            {"command": "view", "path": ["/memories"]},
            "Invalid input for view: `path` must be a string",
        ),
        (
            {"command": "create", "path": "/memories/a"},
            "Invalid input for create: `file_text` is required",
        ),
        ({"command": "create", "file_text": "x"}, "Invalid input for create: `path` is required"),
        (
            {"command": "create", "path": "/memories/a", "file_text": 1},
            "Invalid input for create: `file_text` must be a string",
        ),
        (
            {"command": "str_replace", "path": "/memories/a"},
            "Invalid input for str_replace: `old_str` is required",
        ),
        (
            {"command": "str_replace", "path": "/memories/a", "old_str": "x", "new_str": 2},
            "Invalid input for str_replace: `new_str` must be a string",
        ),
        (
            {"command": "insert", "path": "/memories/a", "insert_text": "x"},
            "Invalid input for insert: `insert_line` is required",
        ),
        (
            {"command": "insert", "path": "/memories/a", "insert_line": 1},
            "Invalid input for insert: `insert_text` is required",
        ),
        (
            {"command": "insert", "path": "/memories/a", "insert_line": "1e0", "insert_text": "x"},
            "Invalid input for insert: `insert_line` must be an integer",
        ),
        (
            {"command": "insert", "path": "/memories/a", "insert_line": 1.5, "insert_text": "x"},
            "Invalid input for insert: `insert_line` must be an integer",
        ),
        (
            {"command": "insert", "path": "/memories/a", "insert_line": [1], "insert_text": "x"},
            "Invalid input for insert: `insert_line` must be an integer",
        ),
        ({"command": "delete"}, "Invalid input for delete: `path` is required"),
        (
            {"command": "rename", "new_path": "/memories/b"},
            "Invalid input for rename: `old_path` is required",
        ),
        (
            {"command": "rename", "old_path": "/memories/a"},
            "Invalid input for rename: `new_path` is required",
        ),
        (
            {"command": "rename", "old_path": "/memories/a", "new_path": {}},
            "Invalid input for rename: `new_path` must be a string",
        ),
        (
            {"command": "create", "path": "/nope", "file_text": None},
            "Invalid input for create: `file_text` is required",
        ),
    ],
)
def test_m4_p9_missing_or_mistyped_fields(
    cmd_root: Path, tool_input: dict[str, object], message: str, cmd_snapshot: Callable[..., Any]
) -> None:
    assert parse_command(cmd_root, tool_input) == CommandOutcome(message, True)
    assert cmd_snapshot(cmd_root) == {}


INT_CASES: list[tuple[object, int | None]] = [
    (1, 1),
    (True, 1),
    (False, 0),
    (1.0, 1),
    (-0.0, 0),
    (2.0**62, 2**62),
    (2.0**63, None),
    (1e20, None),
    (1.5, None),
    (float("inf"), None),
    (float("nan"), None),
    ("1", 1),
    (" 1 ", 1),
    ("\t2\n", 2),
    ("\xa01", 1),
    ("\u20031", 1),
    ("\x1c1", None),
    ("+1", 1),
    ("-1", -1),
    ("-0", 0),
    ("01", 1),
    ("00", 0),
    ("1_0", 10),
    ("1__0", None),
    ("_1", None),
    ("1_", None),
    ("1.0", 1),
    ("1.00", 1),
    ("-0.0", 0),
    ("1.", None),
    (".0", None),
    ("1.01", None),
    ("1.0.0", None),
    ("1e0", None),
    ("0x10", None),
    ("+-1", None),
    ("١", None),
    ("", None),
    (" ", None),
    ("1" * 30, int("1" * 30)),
    (b"1", 1),
    ([1], None),
    ({}, None),
]


@pytest.mark.parametrize(("value", "expected"), INT_CASES)
def test_insert_line_coercion_table(cmd_root: Path, value: object, expected: int | None) -> None:
    parsed = parse_command(
        cmd_root,
        {"command": "insert", "path": "/memories/a", "insert_line": value, "insert_text": "x"},
    )
    if expected is None:
        assert parsed == CommandOutcome(
            "Invalid input for insert: `insert_line` must be an integer", True
        )
    else:
        assert isinstance(parsed, ParsedCommand)
        assert parsed.args["insert_line"] == expected
        assert type(parsed.args["insert_line"]) is int


@pytest.mark.parametrize(("value", "expected"), INT_CASES)
def test_insert_line_coercion_matches_sdk(value: object, expected: int | None) -> None:
    from anthropic._models import construct_type_unchecked
    from anthropic.types.beta import BetaMemoryTool20250818Command

    built = construct_type_unchecked(
        value={
            "command": "insert",
            "path": "/memories/a",
            "insert_line": value,
            "insert_text": "x",
        },
        type_=BetaMemoryTool20250818Command,  # type: ignore[arg-type]
    )
    coerced = type(built.insert_line) is int  # type: ignore[union-attr]
    assert coerced == (expected is not None)
    if coerced:
        assert built.insert_line == expected  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ([1, 2], [1, 2]),
        (["1", "2"], [1, 2]),
        ((1, 2), [1, 2]),
        ([1.0, True], [1, 1]),
        ([" 1", "2 "], [1, 2]),
        ([1, 2, 3], [1, 2, 3]),
        ([], []),
        (None, None),
    ],
)
def test_view_range_coercion(cmd_root: Path, value: object, expected: list[int] | None) -> None:
    parsed = parse_command(cmd_root, {"command": "view", "path": "/memories", "view_range": value})
    assert isinstance(parsed, ParsedCommand)
    assert parsed.args == {"path": "/memories", "view_range": expected}


JUNK_RANGES: list[object] = [
    "1,2",
    "12",
    {"a": 1},
    {"0": 1, "1": 2},
    [1, 2, "x"],
    ["1", "x"],
    ["a", 2],
    [1.5, 2],
    [0.5, 2],
    [float("nan"), 2],
    [1, float("nan")],
    [float("-inf"), -1],
    [0.5, -1.0],
    [0.5, 2.0],
    [0.5, True],
    [None, 2],
    [1, None],
    [1, 2**70],
    [1, 1e20],
    [-3.7, 3],
    [[], 2],
    3,
    0,
    "",
    {},
    [],
    False,
    True,
    2.5,
    float("nan"),
]
FILE_VIEW = "Here's the content of /memories/f.md with line numbers:\n"
ALL_LINES = FILE_VIEW + "     1\tl1\n     2\tl2\n     3\tl3\n     4\tl4\n     5\t"
BAD_RANGE = "Invalid input for view: `view_range` must be a list of two integers"


@pytest.mark.parametrize(
    ("view_range", "expected"),
    [
        ("1,2", (ALL_LINES, False)),
        ({"a": 1}, (ALL_LINES, False)),
        ([1, 2, "x"], (ALL_LINES, False)),
        ([1, None], (ALL_LINES, False)),
        ([float("nan"), 2], (FILE_VIEW + "     1\tl1\n     2\tl2", False)),
        ([0.5, True], (FILE_VIEW + "     1\tl1", False)),
        ("12", (BAD_RANGE, True)),
        ([1.5, 2], (BAD_RANGE, True)),
        ([1, float("nan")], (BAD_RANGE, True)),
        (3, (BAD_RANGE, True)),
        ({"0": 1, "1": 2}, (BAD_RANGE, True)),
    ],
)
def test_v8_f3_junk_view_range_on_a_file(
    cmd_root: Path, cmd_run: Run, view_range: object, expected: tuple[str, bool]
) -> None:
    (cmd_root / "f.md").write_bytes(b"l1\nl2\nl3\nl4\n")
    outcome = cmd_run({"command": "view", "path": "/memories/f.md", "view_range": view_range})
    assert (outcome.content, outcome.is_error) == expected


@pytest.mark.parametrize("view_range", JUNK_RANGES)
def test_v8_junk_view_range_is_ignored_for_a_directory(
    cmd_root: Path, cmd_run: Run, view_range: object
) -> None:
    (cmd_root / "f.md").write_bytes(b"l1\n")
    outcome = cmd_run({"command": "view", "path": "/memories", "view_range": view_range})
    assert (outcome.content, outcome.is_error) == (
        cmd_run({"command": "view", "path": "/memories"}).content,
        False,
    )
    assert outcome.content.endswith("\n3B\t/memories/f.md")


@pytest.mark.parametrize("view_range", JUNK_RANGES)
@pytest.mark.parametrize("name", ["", "f.md"])
def test_junk_view_range_matches_the_sdk(tmp_path: Path, view_range: object, name: str) -> None:
    from anthropic.lib.tools import ToolError
    from anthropic.tools import BetaLocalFilesystemMemoryTool

    tool = BetaLocalFilesystemMemoryTool(base_path=str(tmp_path / "sdk"))
    ours = tmp_path / "ours"
    ours.mkdir()
    for root in (tmp_path / "sdk" / "memories", ours):
        (root / "f.md").write_bytes(b"l1\nl2\nl3\nl4\n")
    path = "/memories/" + name if name else "/memories"
    tool_input = {"command": "view", "path": path, "view_range": view_range}
    parsed = parse_command(ours, tool_input)
    assert isinstance(parsed, ParsedCommand)
    outcome = apply_command(ours, parsed)
    try:
        sdk: tuple[str, bool] | None = (str(tool.call(tool_input)), False)
    except ToolError as exc:
        sdk = (str(exc.content), True)
    except Exception:
        sdk = None
    if sdk is None:
        assert (outcome.content, outcome.is_error) == (BAD_RANGE, True)
    else:
        content = sdk[0].replace("hidden items:", "hidden items and node_modules:")
        assert (outcome.content, outcome.is_error) == (content, sdk[1])


def test_parsed_command_fields(cmd_root: Path) -> None:
    (cmd_root / "real").mkdir()
    (cmd_root / "alias").symlink_to("real")
    parsed = parse_command(
        cmd_root,
        {
            "command": "rename",
            "old_path": "/memories//alias/a.md",
            "new_path": "/memories/b/",
            "extra": 1,
        },
    )
    assert parsed == ParsedCommand(
        command="rename",
        args={"old_path": "/memories//alias/a.md", "new_path": "/memories/b/"},
        raw_paths=("/memories//alias/a.md", "/memories/b/"),
        parts=(("real", "a.md"), ("b",)),
        virtual=("/memories/real/a.md", "/memories/b"),
    )


def test_new_str_defaults_to_empty(cmd_root: Path) -> None:
    parsed = parse_command(
        cmd_root, {"command": "str_replace", "path": "/memories/a", "old_str": "x"}
    )
    assert isinstance(parsed, ParsedCommand)
    assert parsed.args == {"path": "/memories/a", "old_str": "x", "new_str": ""}


def test_fields_validated_before_paths(cmd_root: Path) -> None:
    assert parse_command(cmd_root, {"command": "create", "path": "/etc/x"}) == CommandOutcome(
        "Invalid input for create: `file_text` is required", True
    )


def test_is_mutating() -> None:
    assert [
        is_mutating(c) for c in ("view", "create", "str_replace", "insert", "delete", "rename", "x")
    ] == [
        False,
        True,
        True,
        True,
        True,
        True,
        False,
    ]


def test_outcome_text_has_no_lone_surrogates(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "f.txt").write_bytes(b"abc")
    outcome = cmd_run(
        {"command": "str_replace", "path": "/memories/f.txt", "old_str": "\ud800x", "new_str": ""}
    )
    assert outcome == CommandOutcome(
        "No replacement was performed, old_str `\ufffdx` did not appear verbatim in "
        "/memories/f.txt.",
        True,
    )


def test_unexpected_os_error_becomes_one_line_message(
    cmd_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def denied(*args: object, **kwargs: object) -> int:
        raise PermissionError(13, "Permission denied")

    (cmd_root / "f.txt").write_bytes(b"abc")
    parsed = parse_command(cmd_root, {"command": "view", "path": "/memories/f.txt"})
    assert isinstance(parsed, ParsedCommand)
    monkeypatch.setattr(os, "open", denied)
    assert apply_command(cmd_root, parsed) == CommandOutcome(
        "Cannot view /memories/f.txt: Permission denied", True
    )


def test_parse_touches_nothing(tmp_path: Path) -> None:
    root = tmp_path / "not-yet"
    parsed = parse_command(
        root, {"command": "create", "path": "/memories/a/b.md", "file_text": "x"}
    )
    assert isinstance(parsed, ParsedCommand)
    assert os.listdir(tmp_path) == []


_PYDANTIC_ZERO_SIGN_QUIRK = re.compile(r"\+?[0_]+-")
"""pydantic-core reads a sign after leading zeros ("0-1" is -1); memtui refuses such text."""


@pytest.mark.parametrize("value", ["0-1", "00-5", "+0-1", "0_-1", "0-0"])
def test_a_sign_after_leading_zeros_is_refused(value: str) -> None:
    outcome = parse_command(
        Path("/nonexistent-root"),
        {"command": "insert", "path": "/memories/a", "insert_line": value, "insert_text": "x"},
    )
    assert outcome == CommandOutcome(
        "Invalid input for insert: `insert_line` must be an integer", True
    )


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        st.text(alphabet="0123456789+-._ e\t\n\xa0\x85\u3000\u200b\x1fx", max_size=8),
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(),
        st.booleans(),
    )
)
def test_int_coercion_matches_sdk_property(value: object) -> None:
    from anthropic._models import construct_type_unchecked
    from anthropic.types.beta import BetaMemoryTool20250818Command

    assume(not (isinstance(value, str) and _PYDANTIC_ZERO_SIGN_QUIRK.match(value.strip())))

    tool_input = {
        "command": "insert",
        "path": "/memories/a",
        "insert_line": value,
        "insert_text": "x",
    }
    built = construct_type_unchecked(value=tool_input, type_=BetaMemoryTool20250818Command)  # type: ignore[arg-type]
    parsed = parse_command(Path("/nonexistent-root"), tool_input)
    if type(built.insert_line) is int:  # type: ignore[union-attr]
        assert isinstance(parsed, ParsedCommand)
        assert parsed.args["insert_line"] == built.insert_line  # type: ignore[union-attr]
    else:
        assert parsed == CommandOutcome(
            "Invalid input for insert: `insert_line` must be an integer", True
        )
