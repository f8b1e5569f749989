"""The preview splits frontmatter where the parser does: a note opening with a blank line shows
its frontmatter once, in the frontmatter panel, and its body without the YAML."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from memtui.tui.app import MemtuiApp
from tests.tui.conftest import AppFactory, wait_idle
from tests.tui.test_preview_kinds import kinds_root, open_file, region_lines

__all__ = ["kinds_root"]


@pytest.fixture
def blank_first_root(kinds_root: Path) -> Path:
    """The preview kinds' store plus a note whose frontmatter follows a blank line and one with
    bad YAML."""
    (kinds_root / "a.md").write_text("\n---\ntitle: Alpha\n---\nThe body line\n", encoding="utf-8")
    (kinds_root / "b.md").write_text("---\ntitle: [unclosed\n---\nBeta body\n", encoding="utf-8")
    return kinds_root


async def shown(pilot: Pilot[None], relpath: str) -> tuple[Static, list[str]]:
    """Open `relpath`; its frontmatter panel and the non-blank lines of its rendered body."""
    main = await open_file(pilot, relpath)
    assert main.preview.mode == "rendered"
    app = pilot.app
    assert isinstance(app, MemtuiApp)
    body = [line.strip() for line in region_lines(app, main.query_one("#preview-body"))]
    return main.query_one("#preview-frontmatter", Static), [line for line in body if line]


async def test_frontmatter_after_a_blank_line_is_shown_once(
    blank_first_root: Path, make_app: AppFactory
) -> None:
    app = make_app(blank_first_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_idle(pilot)
        panel, body = await shown(pilot, "a.md")
        assert panel.display
        assert str(panel.render()).splitlines() == ["title  Alpha", " type  note"]
        assert body == ["The body line"]


async def test_malformed_frontmatter_is_shown_as_body(
    blank_first_root: Path, make_app: AppFactory
) -> None:
    app = make_app(blank_first_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_idle(pilot)
        panel, body = await shown(pilot, "b.md")
        assert not panel.display
        assert "title: [unclosed" in " ".join(body)
