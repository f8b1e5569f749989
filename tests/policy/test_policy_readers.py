"""`none` hides notes from the readers that answer agents from the index: MCP's search_memories,
build_context and recent_activity (through a real client session) and the LangGraph store's
search and list_namespaces; a link does not show what it points at."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memtui.core.config import Settings
from memtui.core.store import MemoryStore
from tests.agents.mcp_client import mcp_session, result_text

SECRET = "---\ntitle: Secret plans\n---\n# Secret plans\n- [fact] The zebra code is zq-7319-xk\n"
PUBLIC = (
    "---\ntitle: Public\n---\n# Public\n- [fact] zebras are striped\n"
    "- relates_to [[Secret plans]]\n"
)
HIDE = '[[rule]]\npaths = ["private/**"]\nactors = ["agent:pytest-agent"]\naccess = "none"\n'


@pytest.fixture(autouse=True)
def no_user_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """The servers run without the user's config."""
    monkeypatch.setenv("MEMTUI_CONFIG_FILE", os.devnull)


def make(root: Path, *, with_secret: bool) -> Path:
    """A store with a public note (linking to the secret one) and, if asked, the secret note and
    a link to it; `private/` is hidden from the test's MCP client."""
    person = MemoryStore(root, actor="human:dana", settings=Settings())
    person.create("/memories/public.md", PUBLIC)
    if with_secret:
        person.create("/memories/private/secret.md", SECRET)
        os.symlink("../private/secret.md", root / "shortcut.md")
    (root / ".memtui/policy.toml").write_text(HIDE)
    return root


async def ask(root: Path) -> dict[str, str]:
    """What the notes tools answer the client `pytest-agent`."""
    answers: dict[str, str] = {}
    async with mcp_session(root) as session:
        calls = {
            "search": ("search_memories", {"query": "zebra code"}),
            "search-title": ("search_memories", {"query": "Secret plans"}),
            "context-secret": ("build_context", {"target": "private/secret.md"}),
            "context-title": ("build_context", {"target": "Secret plans"}),
            "context-link": ("build_context", {"target": "shortcut.md"}),
            "context-public": ("build_context", {"target": "public.md"}),
            "activity": ("recent_activity", {"timeframe": "1d"}),
        }
        for name, (tool, arguments) in calls.items():
            answers[name] = result_text(await session.call_tool(tool, arguments))
    return answers


async def test_hidden_notes_are_not_found_by_the_notes_tools(tmp_path: Path) -> None:
    hidden = await ask(make(tmp_path / "hidden", with_secret=True))
    missing = await ask(make(tmp_path / "missing", with_secret=False))
    for name in ("search", "search-title", "context-secret", "context-title", "context-public"):
        assert hidden[name] == missing[name], name
    assert hidden["context-link"] == ("no note matches 'shortcut.md' (by permalink, title or path)")
    assert "## Unresolved links\n- relates_to -> Secret plans" in hidden["context-public"]
    for name in ("search", "search-title", "context-public", "activity"):
        assert "zq-7319-xk" not in hidden[name] and "private" not in hidden[name], name
        assert "shortcut" not in hidden[name], name
    assert "public.md" in hidden["activity"]
    assert "secret" not in hidden["activity"] and "shortcut" not in hidden["activity"]


async def test_other_agents_still_see_them(tmp_path: Path) -> None:
    root = make(tmp_path, with_secret=True)
    async with mcp_session(root, client_name="other") as session:
        found = result_text(await session.call_tool("search_memories", {"query": "zebra code"}))
    assert "/memories/private/secret.md (Secret plans)" in found


def test_the_langgraph_store_lists_no_hidden_namespace(tmp_path: Path) -> None:
    from memtui.agents.langgraph import MemtuiStore

    person = MemoryStore(tmp_path, actor="human:dana", settings=Settings())
    person.create("/memories/users/ana/a.json", '{"v": 1}')
    person.create("/memories/users/bo/b.json", '{"v": 2}')
    os.symlink("../bo/b.json", tmp_path / "users/ana/link.json")
    (tmp_path / ".memtui/policy.toml").write_text(
        '[[rule]]\npaths = ["users/bo/**"]\nactors = ["agent:ana-bot"]\naccess = "none"\n'
    )
    ana = MemtuiStore(tmp_path, actor="agent:ana-bot", settings=Settings())
    assert ana.list_namespaces() == [("users", "ana")]
    assert [item.key for item in ana.search(("users",))] == ["a"]
    assert ana.get(("users", "bo"), "b") is None
    bo = MemtuiStore(tmp_path, actor="agent:bo-bot", settings=Settings())
    assert bo.list_namespaces() == [("users", "ana"), ("users", "bo")]
