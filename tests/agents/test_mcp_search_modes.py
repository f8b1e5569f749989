"""search_memories' `mode` through the MCP SDK client: by meaning with the section that matched,
hybrid by default with a model, by text with one line saying how to turn meaning on without."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from mcp.client import Client
from mcp.types import Implementation

from memtui.agents.mcp_server import MemoryService, build_server
from memtui.core.config import Settings
from memtui.notes.meaning import TURN_ON
from tests.agents.test_mcp_notes import call_text, create
from tests.notes.meaning.conftest import make_model

GARAGE = "# Garage\n\nThe volvo is serviced each spring.\n\n## Dinner\nPasta on fridays.\n"


@asynccontextmanager
async def client_of(service: MemoryService) -> AsyncIterator[Client]:
    """An SDK client connected in-process to a memtui server of `service`."""
    async with Client(
        build_server(service), client_info=Implementation(name="meaning-agent", version="1")
    ) as client:
        yield client


def service_on(root: Path, model: Path | None) -> MemoryService:
    """A server's service on `root` whose settings name `model`."""
    settings = Settings(actor="tester", search_model=str(model) if model else None)
    return MemoryService(root, settings=settings)


async def test_by_meaning_the_agent_gets_the_section_that_matched(tmp_path: Path) -> None:
    root = tmp_path / "store"
    root.mkdir()
    service = service_on(root, make_model(tmp_path / "model"))
    async with client_of(service) as client:
        await create(client, "/memories/garage.md", GARAGE)
        by_meaning = await call_text(
            client, "search_memories", {"query": "meal", "mode": "meaning"}
        )
        await create(client, "/memories/look.md", "# Look\n\nWants a dark palette.\n")
        hybrid = await call_text(client, "search_memories", {"query": "volvo theme"})
        by_text = await call_text(client, "search_memories", {"query": "theme", "mode": "text"})
        bad = await call_text(client, "search_memories", {"query": "theme", "mode": "fast"})
    assert by_meaning == (
        '1 match in 1 note for "meal":\n'
        "\n"
        "/memories/garage.md (garage)\n"
        "  5: by meaning, section: Dinner",
        False,
    )
    assert hybrid == (
        '2 matches in 2 notes for "volvo theme":\n'
        "\n"
        "/memories/garage.md (garage)\n"
        "  3: The volvo is serviced each spring.\n"
        "\n"
        "/memories/look.md (look)\n"
        "  1: by meaning, section: Look",
        False,
    )
    assert by_text == (
        '1 match in 1 note for "theme":\n'
        "\n"
        "/memories/garage.md (garage)\n"
        "  3: The volvo is serviced each spring.",
        False,
    )
    assert bad[1] is True
    assert "mode" in bad[0]


async def test_without_a_model_the_agent_is_told_and_searched_by_text(tmp_path: Path) -> None:
    service = service_on(tmp_path, None)
    async with client_of(service) as client:
        await create(client, "/memories/garage.md", GARAGE)
        answer = await call_text(client, "search_memories", {"query": "volvo", "mode": "hybrid"})
        plain = await call_text(client, "search_memories", {"query": "volvo"})
    assert answer == (
        f"({TURN_ON}; searched by text)\n"
        '1 match in 1 note for "volvo":\n'
        "\n"
        "/memories/garage.md (garage)\n"
        "  3: The volvo is serviced each spring.",
        False,
    )
    assert plain == (answer[0].split("\n", 1)[1], False)


def test_a_server_loading_in_the_background_embeds_after_its_index(tmp_path: Path) -> None:
    (tmp_path / "garage.md").write_text(GARAGE)
    service = service_on(tmp_path, make_model(tmp_path / ".model"))
    service.notes.start_loading(watch=False)
    deadline = time.monotonic() + 30
    while service.workspace.meaning is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert service.workspace.meaning is not None
    assert service.notes.search_text("automobile", mode="meaning") == (
        '1 match in 1 note for "automobile":\n'
        "\n"
        "/memories/garage.md (garage)\n"
        "  1: by meaning, section: Garage"
    )
