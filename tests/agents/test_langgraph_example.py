"""`python -m memtui.agents.langgraph_example PATH` runs offline; memtui then shows its memories."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from memtui.tui.app import MemtuiApp
from memtui.tui.screens.main import MainScreen
from memtui.tui.widgets.text_view import TextView
from tests.tui.conftest import wait_for, wait_idle

EXPECTED_OUTPUT = """\
saved   users/ana/memories/coffee-order.json: Ana orders oat-milk flat whites at every coffee shop
saved   users/ana/memories/home-city.json: Ana has lived in Lisbon since March
recalled home-city (score 0.22): Ana has lived in Lisbon since March
recalled coffee-order (score 0.21): Ana orders oat-milk flat whites at every coffee shop
answer  An oat-milk flat white: you told me you drink them, and you live in Lisbon now.
See them with `memtui {path}`; the history names agent:langgraph-example.
"""


def run_example(path: Path) -> subprocess.CompletedProcess[str]:
    """The example as a user runs it, without a config file of their own."""
    env = {**os.environ, "MEMTUI_CONFIG_FILE": os.devnull}
    return subprocess.run(
        [sys.executable, "-m", "memtui.agents.langgraph_example", str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def memtui_log(path: Path) -> list[dict[str, object]]:
    """`memtui log PATH --json`, parsed."""
    done = subprocess.run(
        [str(Path(sys.executable).with_name("memtui")), "log", str(path), "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "MEMTUI_CONFIG_FILE": os.devnull},
        check=True,
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


async def test_example_saves_recalls_and_memtui_shows_it(tmp_path: Path) -> None:
    root = tmp_path / "memories"
    done = run_example(root)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == EXPECTED_OUTPUT.format(path=root)
    item = root / "users/ana/memories/coffee-order.json"
    assert json.loads(item.read_text("utf-8")) == {
        "memory": "Ana orders oat-milk flat whites at every coffee shop"
    }
    events = memtui_log(root)
    assert {event["actor"] for event in events} == {"agent:langgraph-example"}
    assert sorted((event["command"], event["path"]) for event in events) == [
        ("view", "/memories/users/ana/memories/coffee-order.json"),
        ("view", "/memories/users/ana/memories/home-city.json"),
        ("write", "/memories/users/ana/memories/coffee-order.json"),
        ("write", "/memories/users/ana/memories/home-city.json"),
    ]

    app = MemtuiApp(root, actor="human:tester", watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path("users/ana/memories/coffee-order.json")
        await wait_for(
            pilot, lambda: screen.preview.relpath == "users/ana/memories/coffee-order.json"
        )
        await wait_idle(pilot)
        shown = screen.query_one("#preview-plain", TextView).text
        assert "Ana orders oat-milk flat whites at every coffee shop" in shown
        history = [
            str(screen.side.get_option_at_index(i).prompt) for i in range(screen.side.option_count)
        ]
        assert any("agent:langgraph-example" in line for line in history)


def test_example_on_a_file_is_one_line(tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x", encoding="utf-8")
    done = run_example(target)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith(
        "memtui langgraph_example: "
    )
