"""`mode:` in the app's search: with a model configured, a query sharing no word with a note
finds it at the section that matched; without one, the app searches by text and says in one
line how to turn search by meaning on."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from memtui.core.config import Settings
from memtui.notes.meaning import TURN_ON
from memtui.tui.screens.search import SearchScreen
from tests.notes.meaning.conftest import make_model
from tests.tui.conftest import AppFactory, wait_for, wait_for_results, wait_idle

GARAGE = "# Garage\n\nThe volvo is serviced each spring.\n\n## Dinner\nPasta on fridays.\n"


async def typed(pilot: Pilot[None], query: str) -> SearchScreen:
    """The search screen opened with `/`, `query` typed and its results shown."""
    await pilot.press("slash")
    screen = pilot.app.screen
    assert isinstance(screen, SearchScreen)
    await pilot.press(*("space" if char == " " else char for char in query))
    assert await wait_for_results(pilot, query)
    return screen


def shown(screen: SearchScreen) -> tuple[str, list[str]]:
    """The status line and the text of each result option."""
    results = screen.query_one("#search-results", OptionList)
    options = [str(results.get_option_at_index(n).prompt) for n in range(results.option_count)]
    return str(screen.query_one("#search-status", Static).render()), options


async def test_mode_meaning_finds_a_note_by_meaning_at_its_section(
    store_root: Path, make_app: AppFactory, tmp_path: Path
) -> None:
    (store_root / "garage.md").write_text(GARAGE)
    model = make_model(tmp_path / "model")
    app = make_app(settings=Settings(actor="tester", search_model=str(model)))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        assert await wait_for(pilot, lambda: app.ctx.workspace.meaning is not None, timeout=30)
        screen = await typed(pilot, "meal mode:meaning")
        assert shown(screen) == ("1 note", ["garage.md\n     5  section: Dinner"])
        await pilot.press("ctrl+l", *"volvo")
        assert await wait_for_results(pilot, "volvo")
        assert shown(screen) == (
            "1 note",
            ["garage.md\n     3  The volvo is serviced each spring."],
        )
        assert [hit.spans for hit in screen.hits] == [((4, 9),)]


async def test_without_a_model_mode_meaning_searches_by_text_and_says_how_to_turn_it_on(
    store_root: Path, make_app: AppFactory
) -> None:
    (store_root / "garage.md").write_text(GARAGE)
    app = make_app(settings=Settings(actor="tester"))
    async with app.run_test(size=(200, 40)) as pilot:
        await wait_idle(pilot)
        screen = await typed(pilot, "volvo mode:meaning")
        assert shown(screen) == (
            f"1 note by text: {TURN_ON}",
            ["garage.md\n     3  The volvo is serviced each spring."],
        )
        await pilot.press("ctrl+l", *"volvo")
        assert await wait_for_results(pilot, "volvo")
        assert shown(screen)[0] == "1 note"
        assert app.ctx.workspace.meaning is None
