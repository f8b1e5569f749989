"""`memtui tool` end to end as a subprocess: JSON lines in, one result line per input out."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memtui.core.applying.sizes import format_size
from memtui.core.config import Settings
from memtui.core.store import MemoryStore

MEMTUI = str(Path(sys.executable).with_name("memtui"))


def run_tool(args: list[str], stdin: str, tmp_path: Path) -> subprocess.CompletedProcess[bytes]:
    """Run `memtui tool` with an isolated config."""
    env = {"PATH": "/usr/bin:/bin", "MEMTUI_CONFIG_FILE": os.devnull}
    return subprocess.run(
        [MEMTUI, "tool", *args], input=stdin.encode(), capture_output=True, env=env, timeout=60
    )


def test_json_lines_in_results_out(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    stdin = "\n".join(
        json.dumps(item)
        for item in (
            {"command": "create", "path": "/memories/a.md", "file_text": "héllo\n"},
            {"command": "view", "path": "/memories/a.md"},
            {"command": "view", "path": "/memories/../x"},
        )
    )
    done = run_tool([str(root), "--actor", "claude", "--session", "s9"], stdin + "\n\n", tmp_path)
    assert done.returncode == 0
    assert done.stderr == b""
    assert done.stdout.decode() == (
        '{"is_error": false, "content": "File created successfully at: /memories/a.md"}\n'
        '{"is_error": false, "content": "Here\'s the content of /memories/a.md with line numbers:'
        '\\n     1\\théllo\\n     2\\t"}\n'
        '{"is_error": true, "content": "Path /memories/../x would escape /memories directory"}\n'
    )
    assert (root / "a.md").read_bytes() == "héllo\n".encode()
    events = MemoryStore(root, settings=Settings()).history.events(newest_first=False)
    assert [(e.actor, e.session, e.command) for e in events] == [
        ("agent:claude", "s9", "create"),
        ("agent:claude", "s9", "view"),
        ("agent:claude", "s9", "view"),
    ]


def test_json_array_and_default_actor(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    stdin = json.dumps(
        [
            {"command": "create", "path": "/memories/a.md", "file_text": "x"},
            {"command": "delete", "path": "/memories/nope"},
        ],
        indent=2,
    )
    done = run_tool([str(root)], stdin, tmp_path)
    assert done.returncode == 0
    assert done.stdout.decode().splitlines() == [
        '{"is_error": false, "content": "File created successfully at: /memories/a.md"}',
        '{"is_error": true, "content": "Error: The path /memories/nope does not exist"}',
    ]
    events = MemoryStore(root, settings=Settings()).history.events()
    assert {e.actor for e in events} == {"agent:cli"}
    run_tool([str(root), "--actor", "agent:ann"], stdin, tmp_path)
    assert MemoryStore(root, settings=Settings()).history.events(limit=1)[0].actor == "agent:ann"


@pytest.mark.parametrize(
    ("actor", "reason"),
    [
        ("human:mallory", "'human:mallory' is not an agent name"),
        ("x:y", "'x:y' is not an agent name"),
        ("external", "'external' is not an agent name: 'external' names another kind"),
        ("human:agent:x", "'human:agent:x' is not an agent name"),
        ("bot\x1b]0;x\x07", "'bot␛]0;x␇' holds control characters"),
        ("", "the agent name is empty"),
        ("agent:", "the agent name is empty"),
    ],
)
def test_the_actor_is_always_an_agent(tmp_path: Path, actor: str, reason: str | None) -> None:
    """`--actor` cannot pass as a person or an unnamed agent, which would skip the secret scan."""
    root = tmp_path / "mem"
    stdin = '{"command": "create", "path": "/memories/k.md", "file_text": "AKIAIOSFODNN7EXAMPLE"}\n'
    env_config = tmp_path / "config.toml"
    env_config.write_text('secrets = "block"\n', encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "MEMTUI_CONFIG_FILE": str(env_config)}
    done = subprocess.run(
        [MEMTUI, "tool", str(root), "--actor", actor],
        input=stdin.encode(),
        capture_output=True,
        env=env,
        timeout=60,
    )
    if reason is None:
        assert done.returncode == 0
        assert json.loads(done.stdout)["is_error"] is True
        assert not (root / "k.md").exists()
        return
    assert done.returncode == 2
    assert done.stdout == b""
    assert done.stderr.decode().startswith(f"memtui tool: --actor: {reason}")
    assert not (root / "k.md").exists()
    assert not (root / ".memtui").exists()


def test_malformed_json_lines_runs_nothing(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    stdin = '{"command": "create", "path": "/memories/a.md", "file_text": "x"}\n{"command": \n'
    done = run_tool([str(root)], stdin, tmp_path)
    assert done.returncode == 2
    assert done.stdout == b""
    assert done.stderr.decode() == (
        "memtui tool: malformed JSON on stdin: line 2, column 13: Expecting value\n"
    )
    assert not (root / "a.md").exists()


def test_malformed_json_array_reports_line_and_column(tmp_path: Path) -> None:
    done = run_tool([str(tmp_path / "mem")], '[\n  {"command": "view",}\n]', tmp_path)
    assert done.returncode == 2
    assert done.stderr.decode() == (
        "memtui tool: malformed JSON on stdin: line 2, column 22: "
        "Expecting property name enclosed in double quotes\n"
    )


def test_help_describes_the_command(tmp_path: Path) -> None:
    done = subprocess.run([MEMTUI, "tool", "--help"], capture_output=True, timeout=60)
    assert done.returncode == 0
    text = done.stdout.decode()
    for expected in ("PATH", "--actor NAME", "--session ID", "one JSON object per line"):
        assert expected in text


def test_lines_split_on_newline_only_and_crlf_is_tolerated(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    text = "a\u2028b\x85c\u2029d\x1ce\vf\fg\n"
    create = json.dumps(
        {"command": "create", "path": "/memories/u.md", "file_text": text}, ensure_ascii=False
    )
    view = json.dumps({"command": "view", "path": "/memories/u\u2028.md"}, ensure_ascii=False)
    assert "\u2028" in create and "\x85" in create
    done = run_tool([str(root)], f"{create}\r\n\r\n{view}\r\n", tmp_path)
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout.decode() == (
        '{"is_error": false, "content": "File created successfully at: /memories/u.md"}\n'
        '{"is_error": true, "content": "The path /memories/u\\u2028.md does not exist. '
        'Please provide a valid path."}\n'
    )
    assert (root / "u.md").read_bytes() == text.encode()


def test_a_form_feed_alone_on_a_line_is_not_blank(tmp_path: Path) -> None:
    done = run_tool(
        [str(tmp_path / "mem")], '{"command": "view", "path": "/memories"}\n\f\n', tmp_path
    )
    assert done.returncode == 2
    assert done.stderr.decode() == (
        "memtui tool: malformed JSON on stdin: line 2, column 1: Expecting value\n"
    )


def test_nan_and_infinity_in_the_input(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    stdin = "\n".join(
        [
            '{"command": "create", "path": "/memories/a.md", "file_text": "l1\\nl2\\n"}',
            '{"command": "insert", "path": "/memories/a.md", "insert_line": NaN, "insert_text": '
            '"x"}',
            '{"command": "view", "path": "/memories/a.md", "view_range": [NaN, 1]}',
            '{"command": "view", "path": "/memories/a.md", "view_range": [1, Infinity]}',
            '{"command": "view", "path": "/memories", "view_range": [-Infinity]}',
        ]
    )
    done = run_tool([str(root)], stdin, tmp_path)
    assert (done.returncode, done.stderr) == (0, b"")
    size = format_size(root.stat().st_size)
    assert done.stdout.decode().splitlines()[1:] == [
        '{"is_error": true, "content": "Invalid input for insert: `insert_line` must be an '
        'integer"}',
        '{"is_error": false, "content": "Here\'s the content of /memories/a.md with line numbers:'
        '\\n     1\\tl1"}',
        '{"is_error": true, "content": '
        '"Invalid input for view: `view_range` must be a list of two integers"}',
        '{"is_error": false, "content": "Here\'re the files and directories up to 2 levels deep in '
        "/memories, excluding hidden items and "
        f'node_modules:\\n{size}\\t/memories\\n6B\\t/memories/a.md"}}',
    ]
    assert (root / "a.md").read_bytes() == b"l1\nl2\n"
    events = MemoryStore(root, settings=Settings()).history.events(newest_first=False)
    assert [
        event.args.get("insert_line", event.args.get("view_range")) for event in events[1:]
    ] == [
        "NaN",
        ["NaN", 1],
        [1, "Infinity"],
        ["-Infinity"],
    ]
    json.dumps([event.args for event in events], allow_nan=False)


def test_unicode_line_separators_are_escaped_in_the_output(tmp_path: Path) -> None:
    """U+0085, U+2028 and U+2029 are written as escapes, so `splitlines` keeps one line per
    result."""
    root = tmp_path / "mem"
    text = "a\u0085b\u2028c\u2029d é ✓\n"
    stdin = "\n".join(
        json.dumps(item)
        for item in (
            {"command": "create", "path": "/memories/u.md", "file_text": text},
            {"command": "view", "path": "/memories/u.md"},
        )
    )
    done = run_tool([str(root)], stdin, tmp_path)
    assert done.returncode == 0
    out = done.stdout.decode()
    lines = out.splitlines()
    assert len(lines) == 2
    assert "\\u0085" in lines[1] and "\\u2028" in lines[1] and "\\u2029" in lines[1]
    assert "é ✓" in lines[1]
    assert json.loads(lines[1])["content"].endswith("\ta\u0085b\u2028c\u2029d é ✓\n     2\t")


def test_stdin_that_is_not_utf8_names_line_and_column(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    stdin = (
        b'{"command": "view", "path": "/memories"}\n'
        b'{"command": "create", "path": "/memories/\xc3\xa9\xff"}\n'
    )
    env = {"PATH": "/usr/bin:/bin", "MEMTUI_CONFIG_FILE": os.devnull}
    done = subprocess.run(
        [MEMTUI, "tool", str(root)], input=stdin, capture_output=True, env=env, timeout=60
    )
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.decode() == "memtui tool: stdin is not UTF-8: line 2, column 43 (byte 84)\n"
    assert not root.exists()


def test_one_pretty_printed_object_gets_a_hint(tmp_path: Path) -> None:
    stdin = json.dumps({"command": "view", "path": "/memories"}, indent=2)
    done = run_tool([str(tmp_path / "mem")], stdin, tmp_path)
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.decode() == (
        "memtui tool: malformed JSON on stdin: line 1, column 2: "
        "Expecting property name enclosed in double quotes; stdin must be a JSON array of tool "
        "inputs or one JSON object per line (this is one object spread over several lines)\n"
    )
    broken = run_tool([str(tmp_path / "mem")], '{\n  "command": "view",\n', tmp_path)
    assert broken.stderr.decode() == (
        "memtui tool: malformed JSON on stdin: line 1, column 2: "
        "Expecting property name enclosed in double quotes\n"
    )
