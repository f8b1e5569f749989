"""The graph screen: drawing, depth, keyboard and mouse navigation, recentring, lists, opening."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import OptionList, Static, TabbedContent

from memtui.notes.index import NoteIndex
from memtui.tui.context import AppContext, default_settings
from memtui.tui.screens.graph import GraphScreen
from memtui.tui.widgets.graph_view import GraphView
from tests.tui.screens_harness import ScreenHarness, notes_copy
from tests.tui.settle import wait_idle

CENTRE = "projects/memtui.md"
SIZE = (120, 40)


def graph_app(tmp_path: Path, relpath: str = CENTRE) -> ScreenHarness:
    """The graph screen on a copy of the demo notes (the graph only reads the index)."""
    root = notes_copy(tmp_path)
    ctx = AppContext(
        root=root,
        settings=default_settings(),
        store=None,  # type: ignore[arg-type]
        index=NoteIndex.load(root, use_cache=False),
    )
    return ScreenHarness(ctx, lambda: GraphScreen(relpath))


async def settle(pilot: Pilot[None]) -> None:
    """Wait until the graph and its lists are computed and shown."""
    await wait_idle(pilot)


async def press(pilot: Pilot[None], *keys: str) -> None:
    """Press keys one by one, letting the graph redraw after each."""
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


def title(app: ScreenHarness) -> str:
    return str(app.screen.query_one("#graph-title", Static).render())


def canvas(app: ScreenHarness) -> GraphView:
    return app.screen.query_one(GraphView)


async def test_draws_the_neighbourhood_with_labelled_edges(tmp_path: Path) -> None:
    app = graph_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert title(app) == "Graph · memtui (projects/memtui.md) · depth 1 · 9 neighbours"
        graph = canvas(app).graph
        assert graph is not None
        assert graph.lines[0] == "            ┌─ inspired_by ▶ ────────────── ‹? Basic Memory›"
        assert (
            graph.lines[4] == "◆ memtui ◆ ─┼─ ◀ applied_in, uses ▶ ─────── [ Textual UI Patterns ]"
        )
        unresolved = graph.node("?Basic Memory")
        assert unresolved is not None and unresolved.kind == "unresolved"
        assert canvas(app).cursor_key == CENTRE
        detail = str(app.screen.query_one("#graph-detail", Static).render())
        assert detail.startswith("projects/memtui.md\nOut (7): uses → patterns/textual-ui.md;")


async def test_plus_and_minus_change_the_depth(tmp_path: Path) -> None:
    app = graph_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "plus")
        assert title(app) == "Graph · memtui (projects/memtui.md) · depth 2 · 20 neighbours"
        await press(pilot, "plus", "plus")
        assert "depth 3" in title(app)
        await press(pilot, "minus", "minus", "minus", "minus")
        assert title(app) == "Graph · memtui (projects/memtui.md) · depth 1 · 9 neighbours"


async def test_arrows_move_between_nodes_and_enter_recentres(tmp_path: Path) -> None:
    app = graph_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("right")
        assert canvas(app).cursor_key == "patterns/textual-ui.md"
        await pilot.press("up")
        assert canvas(app).cursor_key == "patterns/sqlite-tips.md"
        await press(pilot, "enter")
        assert isinstance(app.screen, GraphScreen)
        assert app.screen.centre == "patterns/sqlite-tips.md"
        assert (
            title(app) == "Graph · SQLite Tips (patterns/sqlite-tips.md) · depth 1 · 3 neighbours"
        )
        graph = canvas(app).graph
        assert graph is not None
        assert graph.nodes[0].text == "◆ SQLite Tips ◆"
        assert canvas(app).cursor_key == "patterns/sqlite-tips.md"


async def test_tab_cycles_nodes_and_o_opens_the_focused_note(tmp_path: Path) -> None:
    app = graph_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("tab", "tab")
        assert canvas(app).cursor_key == "patterns/error-handling.md"
        await pilot.press("o")
        assert app.opened == ["patterns/error-handling.md"]
        await pilot.press("shift+tab")
        assert canvas(app).cursor_key == "?Basic Memory"
        await pilot.press("o")
        assert app.opened == ["patterns/error-handling.md"]


async def test_clicking_a_node_focuses_it_and_clicking_again_recentres(tmp_path: Path) -> None:
    app = graph_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = canvas(app)
        graph = view.graph
        assert graph is not None
        roadmap = graph.node("projects/memtui-roadmap.md")
        assert roadmap is not None
        # The canvas has one row and two columns of padding.
        offset = (roadmap.x + 2 + 3, roadmap.y + 1)
        await pilot.click(GraphView, offset=offset)
        assert view.cursor_key == "projects/memtui-roadmap.md"
        await pilot.click(GraphView, offset=offset)
        assert app.screen.centre == "projects/memtui-roadmap.md"


async def test_lists_show_hubs_orphans_unresolved_and_enter_centres(tmp_path: Path) -> None:
    app = graph_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        hubs = screen.query_one("#graph-hubs", OptionList)
        assert (
            str(hubs.get_option_at_index(0).prompt)
            == "  8  Billing Service  (projects/billing-service.md)"
        )
        orphans = screen.query_one("#graph-orphans", OptionList)
        assert [
            str(orphans.get_option_at_index(i).prompt) for i in range(orphans.option_count)
        ] == [
            "billing_context  (claude/billing_context.md)",
            "project_context  (claude/project_context.md)",
            "Prompt Formats  (patterns/prompt-formats.md)",
            "Retry with Back-off  (patterns/retry-backoff.md)",
            "Website Redesign  (projects/website-redesign.md)",
            "2026-09-02-scratch  (sessions/2026-09-02-scratch.md)",
            "Schedule Notes  (user/schedule.md)",
        ]
        unresolved = screen.query_one("#graph-unresolved", OptionList)
        assert str(unresolved.get_option_at_index(2).prompt) == "Kubernetes Migration  (1)"
        await pilot.press("4")
        assert screen.query_one(TabbedContent).active == "tab-unresolved"
        assert unresolved.has_focus
        unresolved.highlighted = 2
        await press(pilot, "enter")
        assert screen.centre == "projects/billing-service.md"
        assert screen.query_one(TabbedContent).active == "tab-graph"
        assert canvas(app).has_focus
        assert canvas(app).cursor_key == "?Kubernetes Migration"
        await pilot.press("3")
        orphans.highlighted = 6
        await press(pilot, "enter")
        assert screen.centre == "user/schedule.md"
        assert title(app) == "Graph · Schedule Notes (user/schedule.md) · depth 1 · 0 neighbours"


async def test_a_list_tab_starts_on_its_first_item(tmp_path: Path) -> None:
    """`2` highlights the first hub, so Enter centres on it and Down then Enter on the second."""
    app = graph_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        hubs = screen.query_one("#graph-hubs", OptionList)
        first, second = (hubs.get_option_at_index(i).id for i in (0, 1))
        await press(pilot, "2")
        assert hubs.has_focus and hubs.highlighted == 0
        await press(pilot, "enter")
        assert screen.centre == first
        await press(pilot, "2", "down", "enter")
        assert screen.centre == second
        await press(pilot, "4")
        unresolved = screen.query_one("#graph-unresolved", OptionList)
        assert unresolved.has_focus and unresolved.highlighted == 0


def test_a_hub_is_described_with_its_first_links_and_how_many_more(tmp_path: Path) -> None:
    """A node with many links names the first few per direction and counts the rest."""
    from memtui.tui.screens.graph import LISTED_LINKS, describe_node

    (tmp_path / "hub.md").write_text("---\ntitle: Hub\n---\n\n- part_of [[Leaf 00]]\n")
    for n in range(50):
        (tmp_path / f"leaf{n:02}.md").write_text(
            f"---\ntitle: Leaf {n:02}\n---\n\n- part_of [[Hub]]\n"
        )
    index = NoteIndex.load(tmp_path)
    text = describe_node(index, "hub.md")
    lines = text.splitlines()
    assert lines[:2] == ["hub.md", "Out (1): part_of → leaf00.md"]
    assert lines[2].startswith("In (50): leaf00.md → part_of; leaf01.md → part_of;")
    assert lines[2].endswith(
        f"; leaf{LISTED_LINKS - 1:02}.md → part_of; … {50 - LISTED_LINKS} more"
    )
    assert describe_node(index, "leaf07.md").splitlines()[2] == "In (0): none"
