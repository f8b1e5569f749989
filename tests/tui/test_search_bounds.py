"""The search box with a 500-word query: answered in bounded memory, best hit first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Input, OptionList

from memtui.notes.search import MAX_WORDS
from memtui.notes.search_groups import COLUMNS, MAX_GROUPS
from memtui.tui.screens.search import SearchScreen
from tests.notes.search_flood import BEST_LINE, FLOOD_QUERY, memory_ceiling, write_flood_store
from tests.tui.conftest import AppFactory, wait_for, wait_idle


async def test_a_500_word_query_in_the_search_box_is_answered_in_bounded_memory(
    store_root: Path, make_app: AppFactory
) -> None:
    write_flood_store(store_root)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        await pilot.press("slash")
        screen: Any = app.screen
        assert isinstance(screen, SearchScreen)

        def answered() -> bool:
            status = str(screen.query_one("#search-status").render())
            return screen.shown_query == FLOOD_QUERY and status != "searching…"

        with memory_ceiling():
            screen.query_one("#search-input", Input).value = FLOOD_QUERY
            assert await wait_for(pilot, answered, timeout=60)
        assert str(screen.query_one("#search-status").render()) == "53 results"
        assert (screen.hits[0].path, screen.hits[0].line) == ("best.md", 3)
        results = screen.query_one("#search-results", OptionList)
        assert str(results.get_option_at_index(0).prompt).startswith("best.md:3")
        assert BEST_LINE in str(results.get_option_at_index(0).prompt)
        searcher = app.ctx.searcher
        assert searcher is not None
        work = searcher.work
        assert work.groups <= MAX_GROUPS + MAX_WORDS * len(COLUMNS) + 1
        assert work.candidates <= 1_000
