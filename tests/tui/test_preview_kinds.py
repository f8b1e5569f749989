"""The preview shows what is there: tagged Markdown, plain text with its line breaks, data and
code with syntax colours, and big notes as wrapped plain text."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widget import Widget

from memtui.tui.app import MemtuiApp
from memtui.tui.screens.main import MainScreen
from memtui.tui.widgets.text_view import TextView
from tests.tui.conftest import AppFactory, wait_for, wait_idle
from tests.tui.hostile_terminal import drawn_lines

TAGGED = (
    "# Preferences\n"
    "\n"
    "<important>\n"
    "Always run the tests before pushing\n"
    "Never force-push to main\n"
    "</important>\n"
    "\n"
    "Text after the tags.\n"
    "\n"
    "Inline <user_pref>tabs</user_pref> stay.\n"
)
FILES = {
    "prefs.md": TAGGED,
    "decisions.txt": "decisions\nWe chose NATS over Kafka.\n\tindented\nlast line\n",
    "prefs.json": '{\n  "theme": "dark",\n  "count": 3\n}\n',
    "context.xml": '<context>\n  <project name="memtui">TUI</project>\n</context>\n',
    "config.yaml": "theme: dark\ncount: 3\n",
    "settings.toml": '[ui]\ntheme = "dark"\n',
}


@pytest.fixture
def kinds_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A store written the way the memory tool writes: tagged Markdown, text and data files."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    root = tmp_path / "memories"
    root.mkdir()
    for name, text in FILES.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def region_lines(app: MemtuiApp, widget: Widget) -> list[str]:
    """The drawn text inside `widget`'s region, trailing spaces dropped."""
    region = widget.region
    lines = drawn_lines(app)[region.y : region.bottom]
    return [line[region.x : region.right].rstrip() for line in lines]


async def open_file(pilot: Pilot[None], relpath: str) -> MainScreen:
    """Show `relpath` in the preview and wait until it is drawn."""
    main = pilot.app.screen
    assert isinstance(main, MainScreen)
    main.show_path(relpath)
    assert await wait_for(pilot, lambda: main.preview.relpath == relpath)
    await wait_idle(pilot)
    return main


async def test_tagged_markdown_shows_every_tagged_line_and_the_text_after(
    kinds_root: Path,
    make_app: AppFactory,
) -> None:
    """An `<important>` block keeps its tags and each line; the text after it shows too."""
    app = make_app(kinds_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        main = await open_file(pilot, "prefs.md")
        assert main.preview.mode == "rendered"
        body = [line.strip() for line in region_lines(app, main.query_one("#preview-body"))]
        shown = [line for line in body if line]
        assert shown[1:] == [
            "<important>",
            "Always run the tests before pushing",
            "Never force-push to main",
            "</important>",
            "Text after the tags.",
            "Inline <user_pref>tabs</user_pref> stay.",
        ]


async def test_a_text_file_keeps_its_line_breaks(kinds_root: Path, make_app: AppFactory) -> None:
    """A `.txt` file is plain text, one line per line, tabs expanded."""
    app = make_app(kinds_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        main = await open_file(pilot, "decisions.txt")
        assert main.preview.mode == "plain"
        view = main.query_one("#preview-plain", TextView)
        assert region_lines(app, view)[:5] == [
            " decisions",
            " We chose NATS over Kafka.",
            "         indented",
            " last line",
            "",
        ]
        assert view.shown is not None and view.shown.spans == {}


@pytest.mark.parametrize(
    ("relpath", "token", "role"),
    [
        ("prefs.json", '"theme"', "$text-accent"),
        ("context.xml", "<project", "$text-accent"),
        ("config.yaml", "theme", "$text-accent"),
        ("settings.toml", "dark", "$text-success"),
    ],
)
async def test_data_files_are_syntax_coloured(
    kinds_root: Path, relpath: str, token: str, role: str, make_app: AppFactory
) -> None:
    """JSON, XML, YAML and TOML are drawn with the theme's syntax colours."""
    app = make_app(kinds_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        main = await open_file(pilot, relpath)
        view = main.query_one("#preview-plain", TextView)
        assert view.shown is not None
        styled = {
            view.shown.lines[line][start:end]: style
            for line, spans in view.shown.spans.items()
            for start, end, style in spans
        }
        assert styled[token] == role
        expected = app.stylesheet.parse_style(role).rich_style.color
        colours = {
            segment.text: segment.style.color
            for strip in app.screen._compositor.render_strips()
            for segment in strip
            if segment.style is not None
        }
        assert colours[token] == expected
        assert expected != view.rich_style.color


async def test_a_big_note_is_plain_text_with_long_lines_wrapped(
    kinds_root: Path, make_app: AppFactory
) -> None:
    """Over the rendered limit, a note is plain text whose long lines wrap inside the pane:
    every character shows, none is cut at the edge."""
    long_line = " ".join(f"word{n:03d}" for n in range(60))
    big = "# Big\n\n" + long_line + "\n" + "".join(f"- [fact] line {n}\n\n" for n in range(600))
    (kinds_root / "big.md").write_text(big, encoding="utf-8")
    app = make_app(kinds_root)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_idle(pilot)
        main = await open_file(pilot, "big.md")
        assert main.preview.mode == "plain"
        view = main.query_one("#preview-plain", TextView)
        drawn = [row.strip() for row in region_lines(app, view)[2:]]
        rows = drawn[: drawn.index("- [fact] line 0")]
        assert len(rows) > 4
        assert " ".join(rows).startswith(long_line)
        assert all(len(row) <= view.wrap_width for row in rows)
