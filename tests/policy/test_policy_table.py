"""Every access level holds for every memory-tool command through every entry point: `memtui
tool`, MCP through a real client session, the Anthropic SDK tool classes (sync and async), and
the core itself; and for the LangGraph store's operations."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from anthropic.lib.tools import ToolError

from memtui.agents.anthropic import AsyncMemtuiMemoryTool, MemtuiMemoryTool
from memtui.core.config import Settings
from memtui.core.store import MemoryStore
from tests.agents.mcp_client import call_memory, mcp_session
from tests.policy.scenarios import CALLS, FILES, HELD, LEVELS, check_answers, make_store, tree

MEMTUI = str(Path(sys.executable).with_name("memtui"))


@pytest.fixture(autouse=True)
def no_user_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every entry point (and the servers it starts) runs without the user's config."""
    monkeypatch.setenv("MEMTUI_CONFIG_FILE", os.devnull)


@pytest.mark.parametrize("level", LEVELS)
def test_the_core_store(tmp_path: Path, level: str) -> None:
    root = make_store(tmp_path / "mem", level)
    agent = MemoryStore(root, actor="agent:bot", settings=Settings())
    answers = {}
    for name, call in CALLS.items():
        result = agent.execute(call)
        answers[name] = (result.content, result.is_error)
    check_answers(level, answers, root)


@pytest.mark.parametrize("level", LEVELS)
def test_memtui_tool(tmp_path: Path, level: str) -> None:
    root = make_store(tmp_path / "mem", level)
    stdin = "".join(json.dumps(call) + "\n" for call in CALLS.values())
    done = subprocess.run(
        [MEMTUI, "tool", str(root), "--actor", "claude"],
        input=stdin.encode(),
        capture_output=True,
        env={**os.environ, "MEMTUI_CONFIG_FILE": os.devnull},
        timeout=60,
        check=True,
    )
    lines = [json.loads(line) for line in done.stdout.decode().splitlines()]
    answers = {
        name: (line["content"], line["is_error"]) for name, line in zip(CALLS, lines, strict=True)
    }
    check_answers(level, answers, root)


@pytest.mark.parametrize("level", LEVELS)
async def test_mcp_through_a_client_session(tmp_path: Path, level: str) -> None:
    root = make_store(tmp_path / "mem", level)
    answers = {}
    async with mcp_session(root) as session:
        for name, call in CALLS.items():
            answers[name] = await call_memory(session, call)
    check_answers(level, answers, root)


@pytest.mark.parametrize("level", LEVELS)
def test_the_anthropic_sdk_tool_class(tmp_path: Path, level: str) -> None:
    root = make_store(tmp_path / "mem", level)
    tool = MemtuiMemoryTool(root=root, actor="agent:sdk")
    answers = {}
    for name, call in CALLS.items():
        try:
            content = tool.call(call)
            answers[name] = (content, False)
        except ToolError as refused:
            answers[name] = (refused.content, True)
    check_answers(level, answers, root)


@pytest.mark.parametrize("level", LEVELS)
async def test_the_async_anthropic_sdk_tool_class(tmp_path: Path, level: str) -> None:
    root = make_store(tmp_path / "mem", level)
    tool = AsyncMemtuiMemoryTool(root=root, actor="agent:sdk")
    answers = {}
    for name, call in CALLS.items():
        try:
            content = await tool.call(call)
            answers[name] = (content, False)
        except ToolError as refused:
            answers[name] = (refused.content, True)
    check_answers(level, answers, root)


def test_a_person_is_never_restricted(tmp_path: Path) -> None:
    root = make_store(tmp_path / "mem", "none")
    person = MemoryStore(root, actor="human:dana", settings=Settings())
    for call in CALLS.values():
        assert not person.execute(call).is_error
    assert tree(root) != FILES
    assert person.read("/memories/p/edit.md")[0] == "ONE\ntwo\n"


NS = ("p",)
HELD_TEXT = re.compile("memtui: " + HELD.pattern)


def langgraph_store(root: Path, level: str) -> object:
    """A LangGraph store as agent:graph on a store whose namespace folder `p` is at `level`."""
    from memtui.agents.langgraph import MemtuiStore

    person = MemoryStore(root, actor="human:dana", settings=Settings())
    person.create("/memories/p/a.json", '{\n  "v": 1\n}\n')
    person.create("/memories/p/d.json", '{\n  "v": 0\n}\n')
    person.create("/memories/q/b.json", '{\n  "v": 5\n}\n')
    (root / ".memtui/policy.toml").write_text(f'[[rule]]\npaths = ["p/**"]\naccess = "{level}"\n')
    return MemtuiStore(root, actor="agent:graph", settings=Settings())


@pytest.mark.parametrize("level", LEVELS)
def test_the_langgraph_store(tmp_path: Path, level: str, caplog: pytest.LogCaptureFixture) -> None:
    from memtui.agents.langgraph import MemtuiStoreError

    root = tmp_path / "mem"
    store = langgraph_store(root, level)
    before = tree(root)
    got = store.get(NS, "a")  # type: ignore[attr-defined]
    searched = [item.key for item in store.search(NS)]  # type: ignore[attr-defined]
    namespaces = store.list_namespaces()  # type: ignore[attr-defined]
    outcomes = []
    for op in (
        lambda: store.put(NS, "a", {"v": 2}),  # type: ignore[attr-defined]
        lambda: store.put(NS, "n", {"v": 3}),  # type: ignore[attr-defined]
        lambda: store.delete(NS, "d"),  # type: ignore[attr-defined]
    ):
        try:
            op()
            outcomes.append("ok")
        except MemtuiStoreError as refused:
            outcomes.append(str(refused))
    if level == "none":
        assert (got, searched, namespaces) == (None, [], [("q",)])
        assert outcomes == [
            "Refused: the store's policy does not let this agent change /memories/p/a.json; "
            "nothing was changed.",
            "Refused: the store's policy does not let this agent change /memories/p/n.json; "
            "nothing was changed.",
            "ok",
        ]
        assert tree(root) == before
        return
    assert got is not None and got.value == {"v": 1}
    assert (searched, namespaces) == (["a", "d"], [("p",), ("q",)])
    if level == "write":
        assert outcomes == ["ok", "ok", "ok"]
        assert tree(root) == {
            "p/a.json": b'{\n  "v": 2\n}\n',
            "p/n.json": b'{\n  "v": 3\n}\n',
            "q/b.json": b'{\n  "v": 5\n}\n',
        }
    elif level == "review":
        assert outcomes == ["ok", "ok", "ok"]
        assert tree(root) == before
        held = MemoryStore(root, settings=Settings()).proposals.listing()
        assert [(p.command, p.path) for p in held] == [
            ("write", "/memories/p/a.json"),
            ("write", "/memories/p/n.json"),
            ("delete", "/memories/p/d.json"),
        ]
        warned = [record.getMessage() for record in caplog.records]
        assert [HELD_TEXT.fullmatch(text) is not None for text in warned] == [True] * 3, warned
    else:
        assert outcomes == [
            "Refused: the store's policy does not let this agent change /memories/p/a.json; "
            "nothing was changed.",
            "Refused: the store's policy does not let this agent change /memories/p/n.json; "
            "nothing was changed.",
            "Refused: the store's policy does not let this agent change /memories/p/d.json; "
            "nothing was changed.",
        ]
        assert tree(root) == before
