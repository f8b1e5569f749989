"""`memtui mcp` argument handling and the context-editing example's start-up checks."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from memtui.agents import example


def run_memtui(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run `python -m memtui ARGS` and capture its output."""
    return subprocess.run(
        [sys.executable, "-m", "memtui", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def test_mcp_help_names_the_tools_and_transports() -> None:
    done = run_memtui("mcp", "--help")
    assert done.returncode == 0
    assert (
        "usage: memtui mcp [-h] [--actor NAME] [--http] [--token TOKEN] [--port N] PATH"
        in done.stdout
    )
    for text in ("search_memories", "memory_protocol", "http://127.0.0.1:PORT/mcp", "agent:mcp"):
        assert text in done.stdout


def test_mcp_refuses_a_file_as_store(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "notes.txt"
    not_a_folder.write_text("x")
    done = run_memtui("mcp", str(not_a_folder))
    assert done.returncode == 2
    assert done.stderr == f"memtui mcp: {not_a_folder} is not a folder\n"


def test_mcp_refuses_a_bad_port(tmp_path: Path) -> None:
    done = run_memtui("mcp", str(tmp_path), "--http", "--port", "70000")
    assert done.returncode == 2
    assert done.stderr == "memtui mcp: --port must be between 1 and 65535, got 70000\n"


def test_example_without_api_key_exits_2(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if key != "ANTHROPIC_API_KEY"}
    done = subprocess.run(
        [sys.executable, "-m", "memtui.agents.example", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "memtui example: set ANTHROPIC_API_KEY to run the agent "
        "(https://console.anthropic.com/settings/keys)\n"
    )
    assert list(tmp_path.iterdir()) == []


def run_example(path: Path, config: Path) -> subprocess.CompletedProcess[str]:
    """Run the example on `path` with a key set and an API address where nothing listens."""
    env = {
        **os.environ,
        "ANTHROPIC_API_KEY": "test",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
        "MEMTUI_CONFIG_FILE": str(config),
    }
    return subprocess.run(
        [sys.executable, "-m", "memtui.agents.example", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def test_example_reports_a_bad_config_in_one_line(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("bogus = 1\n", encoding="utf-8")
    done = run_example(tmp_path / "store", config)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f'memtui example: {config}: unknown key "bogus"\n'
    assert not (tmp_path / "store").exists()


def test_example_refuses_a_file_as_store(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "notes.txt"
    not_a_folder.write_text("x")
    done = run_example(not_a_folder, Path(os.devnull))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"memtui example: {not_a_folder} is not a folder\n"
    assert not_a_folder.read_text() == "x"


def test_example_reports_a_folder_it_cannot_create(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    done = run_example(tmp_path / "file" / "store", Path(os.devnull))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"memtui example: {tmp_path / 'file' / 'store'}: Not a directory\n"


def test_example_reports_a_corrupt_history_and_keeps_it(tmp_path: Path) -> None:
    database = tmp_path / "store" / ".memtui" / "history.db"
    database.parent.mkdir(parents=True)
    database.write_bytes(b"not a database " * 100)
    done = run_example(tmp_path / "store", Path(os.devnull))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f"memtui example: {database}: ")
    assert done.stderr.count("\n") == 1
    assert database.read_bytes() == b"not a database " * 100


def test_example_compacts_when_the_context_is_large(capsys: pytest.CaptureFixture[str]) -> None:
    class Usage:
        input_tokens = example.COMPACT_AT_INPUT_TOKENS

    class Block:
        type = "text"
        text = "working"

    class Message:
        content = (Block(),)
        usage = Usage()

    class Runner:
        def __init__(self) -> None:
            self.compactions: list[dict[str, object]] = []

        def __iter__(self) -> Iterator[Message]:
            return iter([Message()])

        def compact_before_next_turn(self, compaction: dict[str, object]) -> None:
            self.compactions.append(compaction)

    runner = Runner()
    assert example.run_agent(runner) == "working"
    assert runner.compactions == [example.COMPACTION]
    assert capsys.readouterr().out == "working\n"


def test_mcp_reports_a_bad_config(tmp_path: Path) -> None:
    env = {**os.environ, "MEMTUI_SECRETS": "bogus"}
    done = run_memtui("mcp", str(tmp_path / "store"), env=env)
    assert done.returncode == 2
    assert done.stderr == 'memtui mcp: MEMTUI_SECRETS must be "warn" or "block", got "bogus"\n'


def test_mcp_reports_a_busy_port(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = run_memtui("mcp", str(tmp_path), "--http", "--port", str(port))
    assert done.returncode == 2
    assert done.stderr == f"memtui mcp: port {port} on 127.0.0.1 is already in use\n"


@pytest.mark.parametrize(
    ("actor", "message"),
    [
        (
            "agent:",
            "the agent name is empty: give a plain name such as 'claude'",
        ),
        (
            "human:ana",
            "'human:ana' is not an agent name: give a plain name such as 'claude' or agent:NAME",
        ),
    ],
)
def test_mcp_refuses_an_actor_that_is_not_an_agent(
    tmp_path: Path, actor: str, message: str
) -> None:
    done = run_memtui("mcp", str(tmp_path / "store"), "--actor", actor)
    assert done.returncode == 2
    assert done.stderr == f"memtui mcp: --actor: {message}\n"
    assert not (tmp_path / "store").exists()


def test_mcp_refuses_a_port_without_http(tmp_path: Path) -> None:
    done = run_memtui("mcp", str(tmp_path / "store"), "--port", "9000")
    assert done.returncode == 2
    assert done.stderr == "memtui mcp: --port only applies with --http (stdio has no port)\n"
    assert not (tmp_path / "store").exists()
