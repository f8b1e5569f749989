"""`t` switches the tree between file names and titles, and the choice is kept in the config."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from memtui.core.config import load_settings
from memtui.tui.screens.main import MainScreen
from tests.tui.conftest import AppFactory, wait_for, wait_idle


@pytest.fixture
def titled_root(store_root: Path) -> Path:
    """The fixture store plus a note titled only by its heading, a log and a hostile title."""
    (store_root / "user" / "prefs.md").write_text("# User preferences\n\n- tabs\n")
    (store_root / "user" / "decisions.txt").write_text("# Decision log\nNATS\n")
    (store_root / "user" / "evil.md").write_text("# Evil \x1b]0;pwned\x07 title\n")
    return store_root


def tree_lines(main: MainScreen) -> list[str]:
    """Every visible line of the tree, as drawn, without its guide lines."""
    tree = main.note_tree
    return [tree.render_line(y).text.strip(" ├└─│") for y in range(tree.last_line + 1)]


async def open_user_folder(pilot: Pilot[None]) -> MainScreen:
    """Open the app's `user` folder in the tree and wait until it settles."""
    main = pilot.app.screen
    assert isinstance(main, MainScreen)
    main.note_tree.select_path("user/preferences.md")
    await wait_idle(pilot)
    return main


async def test_t_shows_titles_saves_the_choice_and_t_again_shows_names(
    titled_root: Path,
    make_app: AppFactory,
) -> None:
    """Titles come from the frontmatter, else the first heading; the config file gets
    `tree_labels`; a restarted app starts with titles; `t` goes back to names."""
    assert load_settings().source is None
    app = make_app(titled_root)
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await wait_idle(pilot)
        main = await open_user_folder(pilot)
        names = tree_lines(main)
        assert names == [
            "▶ projects",
            "▶ tools",
            "▼ user",
            "decisions.txt",
            "evil",
            "preferences",
            "prefs",
        ]
        await pilot.press("t")
        assert await wait_for(pilot, lambda: "User preferences" in "".join(tree_lines(main)))
        await wait_idle(pilot)
        assert tree_lines(main)[3:] == [
            "Decision log",
            "Evil ␛]0;pwned␇ title",
            "Preferences",
            "User preferences",
        ]
    settings = load_settings()
    assert settings.tree_labels == "titles"
    assert settings.source is not None
    assert settings.source.read_text() == 'tree_labels = "titles"\n'
    app = make_app(titled_root, settings=settings)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_idle(pilot)
        main = await open_user_folder(pilot)
        assert await wait_for(pilot, lambda: "User preferences" in "".join(tree_lines(main)))
        await pilot.press("t")
        assert await wait_for(pilot, lambda: "prefs" in tree_lines(main))
        await wait_idle(pilot)
    assert load_settings().source.read_text() == 'tree_labels = "names"\n'  # type: ignore[union-attr]


async def test_a_changed_heading_relabels_its_note(titled_root: Path, make_app: AppFactory) -> None:
    """In titles mode, an outside edit of a note's heading shows its new title."""
    app = make_app(titled_root)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_idle(pilot)
        main = await open_user_folder(pilot)
        await pilot.press("t")
        assert await wait_for(pilot, lambda: "User preferences" in "".join(tree_lines(main)))
        (titled_root / "user" / "prefs.md").write_text("# Settings I like\n")
        await app.apply_changes(frozenset({"user/prefs.md"}))
        assert await wait_for(pilot, lambda: "Settings I like" in "".join(tree_lines(main)))
