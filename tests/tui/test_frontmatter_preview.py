"""The preview splits frontmatter where the parser does: a note opening with a blank line shows
its frontmatter once, in the frontmatter panel, and its body without the YAML."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from memtui.tui.app import MemtuiApp
from memtui.tui.screens.main import MainScreen
from tests.tui.conftest import wait_for, wait_idle
from tests.tui.hostile_terminal import drawn_lines


@pytest.fixture
def blank_first_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A store with one note whose frontmatter follows a blank line."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    root = tmp_path / "memories"
    root.mkdir()
    (root / "a.md").write_text("\n---\ntitle: Alpha\n---\nThe body line\n", encoding="utf-8")
    (root / "b.md").write_text("---\ntitle: [unclosed\n---\nBeta body\n", encoding="utf-8")
    return root


async def test_frontmatter_after_a_blank_line_is_shown_once(blank_first_root: Path) -> None:
    app = MemtuiApp(blank_first_root, actor="human:tester", watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_idle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        main.show_path("a.md")
        assert await wait_for(pilot, lambda: main.preview.relpath == "a.md")
        await wait_idle(pilot)
        panel = main.query_one("#preview-frontmatter", Static)
        assert panel.display
        assert str(panel.render()).splitlines() == ["title  Alpha", " type  note"]
        body = main.query_one("#preview-body")
        region = body.region
        shown = [
            line[region.x : region.right].strip()
            for line in drawn_lines(app)[region.y : region.bottom]
        ]
        assert [line for line in shown if line] == ["The body line"]


async def test_malformed_frontmatter_is_shown_as_body(blank_first_root: Path) -> None:
    app = MemtuiApp(blank_first_root, actor="human:tester", watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_idle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        main.show_path("b.md")
        assert await wait_for(pilot, lambda: main.preview.relpath == "b.md")
        await wait_idle(pilot)
        assert not main.query_one("#preview-frontmatter", Static).display
        body = main.query_one("#preview-body")
        region = body.region
        shown = [
            line[region.x : region.right].strip()
            for line in drawn_lines(app)[region.y : region.bottom]
        ]
        assert "title: [unclosed" in " ".join(shown)
