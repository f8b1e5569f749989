"""Where the cursor goes: approving a row of the inbox leaves the cursor on the next row, and
`space` in the review queue says that it selects and moves down."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Footer, Static

from memtui.core.store import MemoryStore
from memtui.tui.screens.changes import ChangesScreen
from memtui.tui.screens.review import ReviewScreen
from tests.tui.conftest import AppFactory, wait_for, wait_idle
from tests.tui.screens_harness import HUMAN


def agent_creates(root: Path, *names: str) -> None:
    """An agent creates one note per name (each an inbox row), the last newest."""
    store = MemoryStore(root, actor="agent:claude")
    for name in names:
        result = store.create(f"/memories/{name}.md", f"# {name}\n")
        assert not result.is_error, result.content
    store.close()


async def test_approving_a_row_leaves_the_cursor_on_the_next_row(
    store_root: Path, make_app: AppFactory
) -> None:
    """Rows newest first: c, b, a. Approving b (row 2) leaves the cursor on a (now row 2), not
    on c at the top; approving the last row leaves it on the new last row."""
    agent_creates(store_root, "a", "b", "c")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        await pilot.press("c")
        screen = app.screen
        assert isinstance(screen, ChangesScreen)
        assert await wait_for(pilot, lambda: screen.loaded and len(screen.page.rows) == 3)
        assert [row.path for row in screen.page.rows] == [
            "/memories/c.md",
            "/memories/b.md",
            "/memories/a.md",
        ]
        await pilot.press("down")
        assert screen.table.selected_key() == "/memories/b.md"
        await pilot.press("a")
        assert await wait_for(pilot, lambda: len(screen.page.rows) == 2)
        assert await wait_for(pilot, lambda: screen.table.selected_key() == "/memories/a.md")
        assert screen.table.cursor_row == 1
        await pilot.press("a")
        assert await wait_for(pilot, lambda: len(screen.page.rows) == 1)
        assert await wait_for(pilot, lambda: screen.table.selected_key() == "/memories/c.md")
    history = MemoryStore(store_root, actor=HUMAN).history
    creates = {event.path: event.id for event in history.events(command="create")}
    marks = history.reviews(creates.values())
    assert {path for path, event_id in creates.items() if event_id in marks} == {
        "/memories/a.md",
        "/memories/b.md",
    }


def footer_text(screen: ReviewScreen) -> str:
    """The footer's keys as shown."""
    footer = screen.query_one(Footer)
    return " ".join(str(key.render()) for key in footer.children)


async def test_space_in_the_review_queue_says_it_selects_and_moves_down(
    store_root: Path, make_app: AppFactory
) -> None:
    """The footer and the title name what `space` does; it marks the row and moves down."""
    for number in range(3):
        (store_root / f"big-{number}.md").write_text("# Big\n" + "word " * 40_000)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        await pilot.press("r")
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        assert await wait_for(pilot, lambda: screen.table.row_count >= 2)
        await pilot.pause()
        first = screen.table.selected_key()
        await pilot.press("space")
        assert screen.selected == {first}
        assert screen.table.cursor_row == 1
        title = str(screen.query_one("#review-title", Static).render())
        assert "space selects and moves down" in title
        assert await wait_for(pilot, lambda: "Select ↓" in footer_text(screen))
