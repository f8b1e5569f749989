"""`search_memories` over stdio with a 500-word query: the server answers it in bounded memory
and stays up for the next call."""

from __future__ import annotations

from pathlib import Path

from tests.agents.mcp_client import mcp_session, result_text
from tests.notes.search_flood import BEST_LINE, FLOOD_QUERY, limited_command, write_flood_store


async def test_a_500_word_query_is_answered_and_the_server_stays_up(tmp_path: Path) -> None:
    root = write_flood_store(tmp_path / "store")
    command = limited_command("mcp", str(root))
    async with mcp_session(root, client_name="flood", command=command) as session:
        result = await session.call_tool("search_memories", {"query": FLOOD_QUERY, "limit": 3})
        assert not result.is_error
        assert result_text(result) == (
            f'3 matches in 2 notes for "{FLOOD_QUERY}" (the best 3; 12 notes match in all, raise '
            "limit for more):\n"
            "\n"
            "/memories/best.md (best)\n"
            f"  3: {BEST_LINE}\n"
            "\n"
            "/memories/n00.md (n00)\n"
            "  3: - [fact] about zq000\n"
            "  4: - [fact] about zq001"
        )
        after = await session.call_tool("search_memories", {"query": "zq499"})
        assert result_text(after).startswith('10 matches in 10 notes for "zq499"')
