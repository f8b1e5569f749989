"""The graph as a new user meets it: ↓ and Enter work from the centre, the Hubs tab names paths,
relation labels are whole when there is room, depth 2 fits the width, and `g` on a folder
draws the folder's notes."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from memtui.notes.index import NoteIndex
from memtui.tui.screens.graph import GraphScreen, graph_lists
from memtui.tui.screens.main import MainScreen
from memtui.tui.widgets.graph_view import GraphView
from tests.tui.conftest import AppFactory, wait_for, wait_idle
from tests.tui.test_graph_screen import CENTRE, canvas, graph_app, press, settle, title


async def test_from_the_centre_down_moves_to_a_link_and_enter_acts(tmp_path: Path) -> None:
    """↓ from the centre goes to the link drawn just below it; Enter there recentres; Enter on
    the centre opens the note."""
    app = graph_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        view = canvas(app)
        graph = view.graph
        assert graph is not None and view.cursor_key == CENTRE
        centre = graph.node(CENTRE)
        assert centre is not None
        below = min((n for n in graph.nodes if n.y > centre.y), key=lambda n: n.y)
        await pilot.press("down")
        assert view.cursor_key == below.key == "projects/memtui-roadmap.md"
        await pilot.press("up", "up")
        assert view.cursor_key == "patterns/sqlite-tips.md"
        await pilot.press("j", "j", "k", "j")
        assert view.cursor_key == "projects/memtui-roadmap.md"
        await pilot.press("left")
        assert view.cursor_key == CENTRE
        await press(pilot, "enter")
        assert app.opened == [CENTRE]
        await press(pilot, "down", "enter")
        assert app.screen.centre == "projects/memtui-roadmap.md"  # type: ignore[attr-defined]


async def test_relation_labels_are_whole_when_there_is_room_and_depth_two_fits(
    tmp_path: Path,
) -> None:
    """At 120 columns depth 1 shows every relation label whole; depth 2 fits the canvas, at
    120 and at 100 columns (labels cut only as far as needed)."""
    app = graph_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        graph = canvas(app).graph
        assert graph is not None
        assert "◀ part_of, documented_in ▶" in "\n".join(graph.lines)
        assert "…" not in "".join(label.text for label in graph.labels)
        await press(pilot, "plus")
        assert "depth 2" in title(app)
        view = canvas(app)
        assert view.graph is not None and view.graph.width < view.size.width
        assert view.max_scroll_x == 0
        await pilot.resize_terminal(100, 30)
        assert await wait_for(
            pilot,
            lambda: view.graph is not None and view.graph.width < view.size.width <= 100,
        )
        await settle(pilot)
        assert view.max_scroll_x == 0


def test_the_hubs_name_each_note_with_its_path(tmp_path: Path) -> None:
    """Four READMEs in four folders are four different notes in the Hubs tab."""
    root = tmp_path / "store"
    for folder in ("api", "cli", "docs", "web"):
        (root / folder).mkdir(parents=True)
        links = [f"- links_to [[{other}/README]]" for other in ("api", "cli") if other != folder]
        (root / folder / "README.md").write_text("# README\n\n" + "\n".join(links) + "\n")
    lists = graph_lists(NoteIndex.load(root, use_cache=False))
    assert [text for _key, text in lists.hubs] == [
        "  3  README  (api/README.md)",
        "  3  README  (cli/README.md)",
        "  2  README  (docs/README.md)",
        "  2  README  (web/README.md)",
    ]


async def test_g_on_a_folder_draws_the_folders_notes(
    store_root: Path, make_app: AppFactory
) -> None:
    """`g` with a folder under the cursor opens the graph of its notes."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        main.show_path("tools")
        assert await wait_for(pilot, lambda: main.note_tree.cursor_relpath == "tools")
        await pilot.press("g")
        assert await wait_for(pilot, lambda: isinstance(app.screen, GraphScreen))
        screen = app.screen
        assert isinstance(screen, GraphScreen) and screen.centre == "tools/"
        heading = screen.query_one("#graph-title", Static)
        assert await wait_for(
            pilot, lambda: str(heading.render()) == "Graph · folder tools/ · 1 note · depth 1"
        )
        view = screen.query_one(GraphView)
        assert view.graph is not None
        assert [node.key for node in view.graph.navigation_order()] == [
            "tools/",
            "tools/textual.md",
        ]
        assert view.graph.lines == ["◆ tools/ ◆ ────── [ Textual ]"]
        await pilot.press("down", "enter")
        assert await wait_for(pilot, lambda: screen.centre == "tools/textual.md")
