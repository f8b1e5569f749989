"""Themes recolour the text memtui styles itself: tree badges, tags, actors and search matches."""

from __future__ import annotations

from pathlib import Path

from textual.widget import Widget

from memtui.core.store import MemoryStore
from memtui.tui.app import MemtuiApp
from memtui.tui.widgets.note_tree import NoteTree
from tests.tui.conftest import AppFactory, wait_for, wait_for_results, wait_idle

NOW = 1_790_000_000.0
THEMES = ("textual-dark", "nord", "textual-light")


def colour_of(widget: Widget, text: str) -> str | None:
    """The foreground colour (`#rrggbb`) the widget draws `text` in, or None if not drawn."""
    for y in range(widget.size.height):
        for segment in widget.render_line(y):
            if text in segment.text and segment.style is not None and segment.style.color:
                triplet = segment.style.color.get_truecolor()
                return triplet.hex
    return None


def theme_colour(app: MemtuiApp, name: str) -> str:
    """A colour variable of the current theme, as `#rrggbb`."""
    return app.theme_variables[name].lower()


async def test_switching_the_theme_recolours_badges_tags_actors_and_matches(
    store_root: Path,
    make_app: AppFactory,
) -> None:
    """Each theme paints the agent badge, the agent in the side panel, the observation tags and
    the search matches in its own colours."""
    agent = MemoryStore(store_root, actor="agent:claude", clock=lambda: NOW - 3600)
    relpath = "projects/memtui.md"
    assert not agent.str_replace(f"/memories/{relpath}", "#memory", "#memory #agents").is_error
    agent.history.close()
    app = make_app(clock=lambda: NOW)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        assert await wait_for(pilot, lambda: "agent" in app.badges.get(relpath, frozenset()))
        screen = app.screen
        screen.show_path(relpath)  # type: ignore[attr-defined]
        await wait_idle(pilot)
        seen: dict[str, tuple[str | None, ...]] = {}
        for theme in THEMES:
            app.theme = theme
            await wait_idle(pilot)
            primary, accent = theme_colour(app, "text-primary"), theme_colour(app, "text-accent")
            drawn = (
                colour_of(screen.query_one(NoteTree), "●"),
                colour_of(screen.query_one("#side"), "agent:claude"),
                colour_of(screen.query_one("#preview-observations"), "#agents"),
            )
            assert drawn == (primary, primary, accent), theme
            seen[theme] = drawn
        assert len(set(seen.values())) == len(THEMES)

        await pilot.press("slash", *"widgets")
        assert await wait_for_results(pilot, "widgets")
        await wait_idle(pilot)
        results = app.screen.query_one("#search-results")
        for theme in ("nord", "textual-light"):
            app.theme = theme
            await wait_idle(pilot)
            assert colour_of(results, "widgets") == theme_colour(app, "text-accent"), theme
