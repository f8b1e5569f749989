"""Indexing progress on screen, search cancelled by the next key, Enter opening a hit at its line.

Slow work is made slow deterministically: the index load and one search block on a
`threading.Event` the test releases, so nothing depends on how fast the machine is.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.widgets import OptionList, Static

from memtui.notes.index import NoteIndex
from memtui.notes.search import Searcher
from memtui.tui.app import MemtuiApp
from memtui.tui.screens import search as search_screen_module
from memtui.tui.screens.main import MainScreen
from memtui.tui.screens.search import SearchScreen
from memtui.tui.widgets.note_tree import NoteTree
from memtui.tui.widgets.text_view import TextView
from tests.tui.conftest import AppFactory, wait_for, wait_for_results, wait_idle
from tests.tui.manual_timers import ManualTimers


def status_text(app: MemtuiApp) -> str:
    """The main screen's status line."""
    return str(app.screen.query_one("#status", Static).render())


async def test_indexing_progress_is_shown_then_replaced_by_the_note_count(
    store_root: Path, monkeypatch: pytest.MonkeyPatch, make_app: AppFactory
) -> None:
    """While the index loads the status line counts the notes read; when done, the total."""
    reported = threading.Event()
    release = threading.Event()
    real_refresh = NoteIndex.refresh

    def gated_refresh(self: NoteIndex, progress: Any = None, **kwargs: Any) -> set[str]:
        if progress is not None:
            progress(1, 3)
        reported.set()
        release.wait(10)
        return real_refresh(self, progress, **kwargs)

    monkeypatch.setattr(NoteIndex, "refresh", gated_refresh)
    app = make_app()
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            assert await wait_for(pilot, reported.is_set)
            indexing = f" {store_root}  ·  indexing 1 / 3 notes…  ·  F1 keys"
            assert await wait_for(pilot, lambda: status_text(app) == indexing)
            tree = app.screen.query_one(NoteTree)
            assert [c.label.plain for c in tree.root.children] == ["projects", "tools", "user"]
            assert app.ctx.index is None
            release.set()
            await wait_idle(pilot)
            assert status_text(app) == f" {store_root}  ·  3 notes  ·  F1 keys"
    finally:
        release.set()


async def test_the_next_key_cancels_a_running_search_whose_result_never_shows(
    store_root: Path, monkeypatch: pytest.MonkeyPatch, make_app: AppFactory
) -> None:
    """A search still running when the next key arrives is cancelled by that key, and its
    result, even if it comes back after the newer query's, never replaces the newer one.

    The search for "textual" blocks until released and then returns its real hits regardless
    of cancellation (like a search that never checks), so only the app can keep them off screen.
    """
    entered = threading.Event()
    release = threading.Event()
    calls: list[tuple[str, Callable[[], bool] | None]] = []
    real_search = Searcher.search

    def gated_search(self: Searcher, query: str, **kwargs: Any) -> Any:
        calls.append((query, kwargs.pop("cancelled", None)))
        if query == "textual":
            entered.set()
            release.wait(10)
        return real_search(self, query, **kwargs)

    finished: list[str] = []
    real_run_worker = SearchScreen.run_worker

    def tracked_run_worker(self: SearchScreen, work: Any, *args: Any, **kwargs: Any) -> Any:
        """Note when a search worker's body, posting included, has completely run."""
        if kwargs.get("group") != "search":
            return real_run_worker(self, work, *args, **kwargs)
        text = work.args[-1]

        def tracked() -> Any:
            try:
                return work()
            finally:
                finished.append(text)

        return real_run_worker(self, tracked, *args, **kwargs)

    monkeypatch.setattr(Searcher, "search", gated_search)
    monkeypatch.setattr(SearchScreen, "run_worker", tracked_run_worker)
    timers = ManualTimers()
    app = make_app(timers=timers)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_idle(pilot)
            await pilot.press("slash")
            screen = app.screen
            assert isinstance(screen, SearchScreen)
            await pilot.press(*"textual")
            timers.advance(search_screen_module.TYPING_PAUSE)
            assert await wait_for(pilot, entered.is_set)
            ((_query, first_cancelled),) = [call for call in calls if call[0] == "textual"]
            assert first_cancelled is not None and not first_cancelled()
            searches = len(calls)

            # The key alone cancels it: no newer search starts before the typing pause ends.
            await pilot.press("backspace")
            assert await wait_for(pilot, first_cancelled)
            assert len(calls) == searches

            await pilot.press(*["backspace"] * 6, *"style")
            timers.advance(search_screen_module.TYPING_PAUSE)
            assert await wait_for_results(pilot, "style")
            assert [hit.path for hit in screen.hits] == ["user/preferences.md"]

            release.set()
            assert await wait_for(pilot, lambda: "textual" in finished)
            processed = asyncio.Event()
            await pilot.pause()
            screen.call_later(processed.set)
            await processed.wait()
            await pilot.pause()
            assert screen.shown_query == "style"
            assert [hit.path for hit in screen.hits] == ["user/preferences.md"]
            results = screen.query_one("#search-results", OptionList)
            assert results.option_count == 1
            assert str(results.get_option_at_index(0).prompt).startswith("user/preferences.md")
            assert str(screen.query_one("#search-status", Static).render()) == "1 note"
    finally:
        release.set()


def paragraphs_note(count: int) -> str:
    """A note rendered as Markdown: many short paragraphs, the last one with a rare word."""
    body = "".join(f"Paragraph {n}: ordinary filler text.\n\n" for n in range(count))
    return f"---\ntitle: Long\n---\n\n# Long\n\n{body}The zanzibar clue is in the last one.\n"


def lines_note(count: int) -> str:
    """A note too big for the Markdown widget (shown as plain text), a rare word near its end."""
    lines = "".join(f"- [fact] line {n} of ordinary filler text here\n" for n in range(count))
    return f"---\ntitle: Huge\n---\n\n{lines}- [fact] the zanzibar clue\n" + lines[:400]


async def open_first_hit(pilot: Any, query: str) -> tuple[MainScreen, int]:
    """Search for `query`, press Enter on the first hit; returns the main screen and the line."""
    app = pilot.app
    await pilot.press("slash")
    screen = app.screen
    assert isinstance(screen, SearchScreen)
    await pilot.press(*query)
    assert await wait_for_results(pilot, query)
    line = screen.hits[0].line
    await pilot.press("down", "enter")
    assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
    main = app.screen
    assert isinstance(main, MainScreen)
    return main, line


async def test_enter_on_a_hit_scrolls_the_rendered_note_to_its_line(
    store_root: Path, make_app: AppFactory
) -> None:
    """A hit in the last paragraph of a long note: the preview scrolls that paragraph into view."""
    text = paragraphs_note(60)
    (store_root / "tools" / "long.md").write_text(text, encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        main, line = await open_first_hit(pilot, "zanzibar")
        assert text.splitlines()[line - 1] == "The zanzibar clue is in the last one."
        preview = main.preview
        assert await wait_for(pilot, lambda: preview.relpath == "tools/long.md")
        assert preview.mode == "rendered"
        scroller = preview.query_one("#preview-rendered", VerticalScroll)
        blocks = list(preview.query_one("#preview-body").children)
        body_line = line - 1 - 4  # the frontmatter and the blank line after it take four lines
        (target,) = [
            block
            for block in blocks
            if block.source_range[0] <= body_line < block.source_range[1]  # type: ignore[attr-defined]
        ]
        assert "zanzibar" in target.source  # type: ignore[attr-defined]

        def hit_paragraph_visible() -> bool:
            region = target.region
            return (
                scroller.scroll_y > 0 and bool(region) and scroller.region.contains_region(region)
            )

        assert await wait_for(pilot, hit_paragraph_visible)
        assert not scroller.region.overlaps(blocks[0].region)


async def test_enter_on_a_hit_puts_the_plain_view_cursor_on_its_line(
    store_root: Path, make_app: AppFactory
) -> None:
    """In a note shown as plain text the cursor lands on the hit's line, scrolled into view."""
    text = lines_note(300)
    (store_root / "tools" / "huge.md").write_text(text, encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        main, line = await open_first_hit(pilot, "zanzibar")
        assert text.splitlines()[line - 1] == "- [fact] the zanzibar clue"
        preview = main.preview
        assert await wait_for(pilot, lambda: preview.relpath == "tools/huge.md")
        assert preview.mode == "plain"
        plain = preview.query_one("#preview-plain", TextView)

        def hit_line_visible() -> bool:
            top = plain.scroll_offset.y
            height = plain.scrollable_content_region.height
            row = plain.cursor_row
            return plain.cursor_line == line - 1 and top > 0 and top <= row < top + height

        assert await wait_for(pilot, hit_line_visible)


async def test_enter_on_a_hit_in_a_big_demo_note_settles_on_its_line(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, make_app: AppFactory
) -> None:
    """From a cursor elsewhere, Enter on a hit deep in the demo's 12 KB runbook leaves the plain
    view's cursor on the hit's line once the app is idle (not back at the top)."""
    from tests.tui.screens_harness import demo_clock, demo_copy

    root = demo_copy(tmp_path, tmp_path_factory.mktemp("demo-template"))
    runbook = "projects/data-pipeline/runbook.md"
    assert (root / runbook).stat().st_size > 8_000
    app = make_app(root, clock=demo_clock)
    async with app.run_test(size=(140, 42)) as pilot:
        await wait_idle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        assert main.note_tree.cursor_relpath != runbook
        await pilot.press("slash", *"invoice_pdf_render")
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        assert await wait_for_results(pilot, "invoice_pdf_render")
        position, hit = next(
            (n, hit) for n, hit in enumerate(screen.hits) if hit.path == runbook and hit.line > 150
        )
        await pilot.press("down", *["down"] * position, "enter")
        await wait_idle(pilot)
        assert app.screen is main
        preview = main.preview
        assert (preview.relpath, preview.mode) == (runbook, "plain")
        plain = preview.query_one("#preview-plain", TextView)
        top = plain.scroll_offset.y
        assert plain.cursor_line == hit.line - 1
        row = plain.cursor_row
        assert top > 0 and top <= row < top + plain.scrollable_content_region.height
