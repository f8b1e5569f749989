"""The search screen: query syntax, results as you type, highlighting, opening at the line."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from memtui.core.resolving.regular import Head
from memtui.notes.search import SearchFilters
from memtui.tui.screens.main import MainScreen
from memtui.tui.screens.search import SearchScreen, highlight, hit_prompt, parse_query
from tests.tui.conftest import AppFactory, wait_for, wait_for_results, wait_idle


def test_query_syntax_splits_words_and_filters() -> None:
    """`tag:`, `cat:`, `type:`, `in:`/`folder:`, `actor:` and `age:` become filters."""
    words, filters = parse_query(
        "deploy tag:#infra cat:fact type:tool in:projects/ actor:agent age:7d now"
    )
    assert words == "deploy now"
    assert filters == SearchFilters(
        folder="projects",
        tag="infra",
        category="fact",
        note_type="tool",
        actor="agent",
        max_age_days=7.0,
    )
    assert parse_query("plain words") == ("plain words", SearchFilters())


def test_highlight_marks_exactly_the_spans() -> None:
    """Matched characters get the highlight style and nothing else does."""
    text = highlight("Workers never touch widgets", ((0, 7), (20, 27)))
    assert [(s.start, s.end) for s in text.spans] == [(0, 7), (20, 27)]


async def search_for(pilot: Pilot[None], query: str) -> SearchScreen:
    """Open the search screen with `/`, type `query` and wait for its results."""
    await pilot.press("slash")
    screen = pilot.app.screen
    assert isinstance(screen, SearchScreen)
    await pilot.press(*("space" if char == " " else char for char in query))
    assert await wait_for_results(pilot, query)
    return screen


async def test_results_update_as_you_type_and_enter_opens_the_line(
    store_root: Path, make_app: AppFactory
) -> None:
    """Typing shows highlighted hits; Enter opens the note in the main screen at the hit's line."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = await search_for(pilot, "widgets")
        assert screen.hits[0].path == "tools/textual.md"
        assert screen.hits[0].line == 12
        status = str(screen.query_one("#search-status", Static).render())
        assert status.endswith("result") or status.endswith("results")
        first = str(screen.query_one("#search-results", OptionList).get_option_at_index(0).prompt)
        assert first.startswith("tools/textual.md:12")
        await pilot.press("enter")
        assert await wait_for(
            pilot,
            lambda: (
                isinstance(app.screen, MainScreen)
                and app.screen.preview.relpath == "tools/textual.md"
            ),
        )
        assert isinstance(app.screen, MainScreen)
        assert app.screen.note_tree.cursor_relpath == "tools/textual.md"
        assert app.screen.preview.relpath == "tools/textual.md"


async def test_opening_a_hit_reads_the_note_once(
    store_root: Path, monkeypatch: pytest.MonkeyPatch, make_app: AppFactory
) -> None:
    """Enter on a hit reads its note from the store exactly once, even when the folder it opens
    pushes the note under the cursor down (a second highlight for that note)."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        main.show_path("user")
        assert await wait_for(pilot, lambda: main.note_tree.cursor_relpath == "user")
        await wait_idle(pilot)
        store = app.ctx.store
        reads: list[str] = []
        original = store.read_head

        def counting_read(path: str, max_bytes: int) -> Head:
            reads.append(path)
            return original(path, max_bytes)

        monkeypatch.setattr(store, "read_head", counting_read)
        await pilot.press("slash", *"widgets")
        assert await wait_for_results(pilot, "widgets")
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: main.preview.relpath == "tools/textual.md")
        await wait_idle(pilot)
        assert app.screen is main
        assert main.preview.relpath == "tools/textual.md"
        assert reads == ["/memories/tools/textual.md"]


async def test_a_filter_limits_results_to_matching_notes(
    store_root: Path, make_app: AppFactory
) -> None:
    """`folder:user` keeps only hits from that folder."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = await search_for(pilot, "memtui")
        assert {hit.path for hit in screen.hits} == {"projects/memtui.md", "user/preferences.md"}
        await pilot.press(*" folder:user")
        assert await wait_for(
            pilot, lambda: {hit.path for hit in screen.hits} == {"user/preferences.md"}
        )
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


async def test_the_age_filter_counts_days_on_the_apps_clock(
    store_root: Path, make_app: AppFactory
) -> None:
    """`age:10` keeps a note changed 6 days before the app's present, however far the wall clock
    has moved on (the demo runs on a fixed clock)."""
    import os

    present = 1_600_000_000.0
    day = 86_400.0
    os.utime(store_root / "projects/memtui.md", (present - 6 * day, present - 6 * day))
    os.utime(store_root / "user/preferences.md", (present - 20 * day, present - 20 * day))
    app = make_app(clock=lambda: present)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        await pilot.press("slash", *"memtui age:10")
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        assert await wait_for_results(pilot, "memtui age:10")
        assert {hit.path for hit in screen.hits} == {"projects/memtui.md"}


async def test_a_long_result_list_arrives_whole_and_a_newer_query_replaces_it(
    tmp_path: Path,
    make_app: AppFactory,
) -> None:
    """More hits than one frame adds all reach the list, in rank order; when a newer query's
    results come first, no option of the older query is appended to them."""
    for n in range(40):
        (tmp_path / f"n{n:02}.md").write_text(
            f"---\ntitle: Note {n:02}\n---\n\n- [fact] pelican number {n} #birds\n",
            encoding="utf-8",
        )
    (tmp_path / "heron.md").write_text(
        "---\ntitle: Heron\n---\n\n- [fact] a lone heron\n", encoding="utf-8"
    )
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = await search_for(pilot, "pelican")
        results = screen.query_one("#search-results", OptionList)
        assert len(screen.hits) >= 40
        assert await wait_for(pilot, lambda: results.option_count == len(screen.hits))
        shown = [str(results.get_option_at_index(n).prompt) for n in range(results.option_count)]
        assert shown[0].startswith(screen.hits[0].path)
        assert all(text.startswith(hit.path) for text, hit in zip(shown, screen.hits, strict=True))
        pelican_hits = list(screen.hits)
        await pilot.press("ctrl+l", *"heron")
        assert await wait_for_results(pilot, "heron")
        assert await wait_for(pilot, lambda: results.option_count == len(screen.hits))
        prompts = [str(results.get_option_at_index(n).prompt) for n in range(results.option_count)]
        assert prompts and all("heron" in text for text in prompts)
        assert results.option_count == len(screen.hits)
        heron_hits = list(screen.hits)
        screen._show("pelican", pelican_hits, [hit_prompt(hit) for hit in pelican_hits])
        screen._show("heron", heron_hits, [hit_prompt(hit) for hit in heron_hits])
        await wait_idle(pilot)
        assert results.option_count == len(heron_hits) == 3


async def test_filters_alone_list_notes_and_a_bad_filter_says_why(
    store_root: Path, make_app: AppFactory
) -> None:
    """`type:tool` with no words lists the matching notes; `age:abc` shows what is wrong instead
    of an empty list; a text file's lines are found like a note's."""
    (store_root / "decisions.txt").write_text("# Decisions\nWe picked NATS for events.\n")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = await search_for(pilot, "type:tool")
        assert [(hit.path, hit.kind, hit.text) for hit in screen.hits] == [
            ("tools/textual.md", "note", "Textual")
        ]
        await pilot.press("ctrl+l", *"nats")
        assert await wait_for_results(pilot, "nats")
        assert [(hit.path, hit.line) for hit in screen.hits] == [("decisions.txt", 2)]
        await pilot.press("ctrl+l", *"memtui age:abc")
        status = screen.query_one("#search-status", Static)
        assert await wait_for(
            pilot,
            lambda: (
                str(status.render()) == "age:abc is not a number of days (e.g. age:7 or age:7d)"
            ),
        )
        assert screen.hits == []
        await pilot.press("ctrl+l", *"age:[/x]")
        assert await wait_for(
            pilot,
            lambda: (
                str(status.render()) == "age:[/x] is not a number of days (e.g. age:7 or age:7d)"
            ),
        )
        assert app.is_running
