"""A store written only through the memory tool, as Claude writes it (`memtui tool` fed JSON tool
inputs): search finds `.txt`, `.xml` and tagged text in the app, the CLI and over MCP; the
preview shows tagged lines and a `.txt` file's line breaks; the raw view names the file; the
review proposes only what is stale."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from textual.widgets import Static

from memtui.cli import main
from memtui.tui.screens.main import MainScreen
from memtui.tui.screens.review import ReviewScreen
from memtui.tui.widgets.text_view import TextView
from tests.agents.test_mcp_notes import call_text, in_process_client
from tests.tui.conftest import AppFactory, wait_for, wait_idle
from tests.tui.test_preview_kinds import open_file, region_lines
from tests.tui.test_search_screen import search_for

MEMTUI = str(Path(sys.executable).with_name("memtui"))
CONTEXT = (
    "# Project context\n"
    "\n"
    "Billing service for the SaaS plans.\n"
    "\n"
    "<important>\n"
    "Never retry a charge without an idempotency key.\n"
    "</important>\n"
    "\n"
    "Text after the tags stays visible.\n"
)
TOOL_INPUTS = [
    {"command": "view", "path": "/memories"},
    {
        "command": "create",
        "path": "/memories/user_preferences.xml",
        "file_text": "<user_preferences>\n  <theme>prefers dark mode everywhere</theme>\n"
        "  <editor>Neovim</editor>\n</user_preferences>\n",
    },
    {"command": "create", "path": "/memories/project_context.md", "file_text": CONTEXT},
    {
        "command": "create",
        "path": "/memories/decisions.txt",
        "file_text": "2026-09-28 Event bus: NATS JetStream, not Kafka.\n"
        "2026-10-04 Idempotency keys on every invoice mutation.\n",
    },
    {
        "command": "insert",
        "path": "/memories/decisions.txt",
        "insert_line": 2,
        "insert_text": "2026-11-02 Dunning moves from cron to consumers.\n",
    },
    {
        "command": "create",
        "path": "/memories/prefs.json",
        "file_text": '{\n  "timezone": "Europe/Lisbon",\n  "units": "metric"\n}\n',
    },
    {
        "command": "create",
        "path": "/memories/project_context_draft.md",
        "file_text": CONTEXT.replace("stays visible", "is kept"),
    },
    {"command": "view", "path": "/memories/decisions.txt"},
]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The store as `memtui tool` leaves it after the agent's inputs (built once)."""
    root = tmp_path_factory.mktemp("memory-tool") / "memories"
    env = {"PATH": "/usr/bin:/bin", "MEMTUI_CONFIG_FILE": os.devnull}
    done = subprocess.run(
        [MEMTUI, "tool", str(root), "--actor", "claude"],
        input="\n".join(json.dumps(item) for item in TOOL_INPUTS).encode(),
        capture_output=True,
        env=env,
        timeout=60,
        check=True,
    )
    results = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert [r["is_error"] for r in results] == [False] * len(TOOL_INPUTS)
    return root


@pytest.fixture
def root(template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh copy of the memory-tool store (its history included)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    dest = tmp_path / "memories"
    shutil.copytree(template, dest, symlinks=True)
    return dest


def cli_hits(capsys: pytest.CaptureFixture[str], root: Path, query: str) -> list[tuple[str, int]]:
    """(path, line) of each hit `memtui search --json` prints."""
    assert main(["search", str(root), query, "--json"]) == 0
    return [(h["path"], h["line"]) for h in map(json.loads, capsys.readouterr().out.splitlines())]


def test_cli_search_finds_txt_xml_and_tagged_text(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_hits(capsys, root, "NATS") == [("decisions.txt", 1)]
    assert cli_hits(capsys, root, "dark mode") == [("user_preferences.xml", 2)]
    assert sorted(cli_hits(capsys, root, "idempotency")) == [
        ("decisions.txt", 2),
        ("project_context.md", 6),
        ("project_context_draft.md", 6),
    ]


async def test_mcp_search_memories_finds_txt_xml_and_tagged_text(root: Path) -> None:
    async with in_process_client(root) as client:
        text, is_error = await call_text(client, "search_memories", {"query": "NATS"})
        assert not is_error
        assert text.splitlines()[:3] == [
            '1 match in 1 note for "NATS":',
            "",
            "/memories/decisions.txt (decisions.txt)",
        ]
        text, _ = await call_text(client, "search_memories", {"query": "dark mode"})
        assert "/memories/user_preferences.xml (user_preferences.xml)" in text
        text, _ = await call_text(client, "search_memories", {"query": "retry a charge"})
        assert "/memories/project_context.md" in text


async def test_the_app_finds_and_shows_what_the_agent_wrote(
    root: Path, make_app: AppFactory
) -> None:
    """Search finds the `.txt` line; Enter opens it with its line breaks; the tagged note shows
    its tags and the text after them; the raw view's header names the file."""
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = await search_for(pilot, "NATS")
        assert [(hit.path, hit.line) for hit in screen.hits] == [("decisions.txt", 1)]
        await pilot.press("enter")
        main_screen = app.screen
        assert isinstance(main_screen, MainScreen)
        assert await wait_for(pilot, lambda: main_screen.preview.relpath == "decisions.txt")
        await wait_idle(pilot)
        view = main_screen.query_one("#preview-plain", TextView)
        assert region_lines(app, view)[:3] == [
            " 2026-09-28 Event bus: NATS JetStream, not Kafka.",
            " 2026-10-04 Idempotency keys on every invoice mutation.",
            " 2026-11-02 Dunning moves from cron to consumers.",
        ]
        screen = await search_for(pilot, "dark mode")
        assert [(hit.path, hit.line) for hit in screen.hits] == [("user_preferences.xml", 2)]
        await pilot.press("escape")
        main_screen = await open_file(pilot, "project_context.md")
        body = main_screen.query_one("#preview-body")
        shown = [line.strip() for line in region_lines(app, body) if line.strip()]
        assert shown == [
            "Project context",
            "Billing service for the SaaS plans.",
            "<important>",
            "Never retry a charge without an idempotency key.",
            "</important>",
            "Text after the tags stays visible.",
        ]
        assert not main_screen.query_one("#preview-frontmatter").display
        await pilot.press("v")
        assert await wait_for(pilot, lambda: main_screen.preview.mode == "raw")
        header = str(main_screen.query_one("#preview-header", Static).render())
        assert header.startswith("project_context.md  ·  raw view  ·  ≈ ")


async def test_the_review_of_the_fresh_store_proposes_the_two_near_copies(
    root: Path, make_app: AppFactory
) -> None:
    """Written minutes apart, the draft and the context are twins: both proposed, nothing else
    (no file is old, and nothing links in a store of plain memory files)."""
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        await pilot.press("r")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen))
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        title = screen.query_one("#review-title", Static)
        assert await wait_for(pilot, lambda: "2 notes proposed" in str(title.render()))
        assert [(c.path, c.score, [r.text for r in c.reasons]) for c in screen.candidates] == [
            (
                "project_context.md",
                2.0,
                ["near-duplicate of project_context_draft.md (95% similar content)"],
            ),
            (
                "project_context_draft.md",
                2.0,
                ["near-duplicate of project_context.md (95% similar content)"],
            ),
        ]


def test_cli_review_proposes_the_superseded_draft_only(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A month later by its file time, the draft the agent left behind is superseded by the
    newer context; nothing else of this young store is stale."""
    month_ago = time.time() - 30.5 * 86400
    os.utime(root / "project_context_draft.md", (month_ago, month_ago))
    assert main(["stale", str(root), "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["path"], [x["kind"] for x in r["reasons"]]) for r in rows] == [
        ("project_context_draft.md", ["superseded"])
    ]
    assert rows[0]["reasons"][0]["text"] == (
        "superseded by project_context.md, changed 30 days later (95% similar content)"
    )
