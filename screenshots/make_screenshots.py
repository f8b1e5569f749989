"""Regenerate the SVG screenshots of every memtui screen on the demo store at 120x40.

Run from the repository root: `python screenshots/make_screenshots.py` (uses the installed
memtui). The demo store is rebuilt at `<tmp>/memtui-demo/memories`, its history is
backdated to fixed times, and screens that show ages are given the demo's fixed present, so the
images only change when the app does.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input

from memtui.demo import DEMO_NOW, create_demo_store
from memtui.tui.app import MemtuiApp

OUT = Path(__file__).resolve().parent
SIZE = (120, 40)
DEMO_BASE = Path(tempfile.gettempdir()) / "memtui-demo"
NOTE = "projects/memtui.md"
GRAPH_CENTRE = "projects/memtui.md"

Step = Callable[[Pilot[None]], Awaitable[None]]


def demo_clock() -> float:
    """The demo store's fixed present."""
    return DEMO_NOW


async def settle(pilot: Pilot[None], delay: float = 0.6, *, workers: bool = True) -> None:
    """Wait for finite workers (unless one waits on the screen shown), timers and messages."""
    for _ in range(200 if workers else 0):
        busy = [w for w in pilot.app.workers if w.group != "watch" and not w.is_finished]
        if not busy:
            break
        await pilot.pause(0.05)
    await pilot.pause(delay)
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False
    await pilot.pause()


async def open_note(pilot: Pilot[None]) -> None:
    """Wait for the index and show the memtui project note."""
    app: MemtuiApp = pilot.app  # type: ignore[assignment]
    for _ in range(100):
        if app.ctx.index is not None:
            break
        await pilot.pause(0.1)
    app.open_note(NOTE)
    await settle(pilot, 1.0)


async def main_screen(pilot: Pilot[None]) -> None:
    """The main screen on a note."""
    await open_note(pilot)


async def raw_view(pilot: Pilot[None]) -> None:
    """The raw view: exactly what the agent's `view` returns."""
    await open_note(pilot)
    await pilot.press("v")
    await settle(pilot)


async def search(pilot: Pilot[None]) -> None:
    """Search with results for a query."""
    await open_note(pilot)
    await pilot.press("slash")
    await pilot.press(*"retry")
    await settle(pilot, 1.0)


async def graph(pilot: Pilot[None]) -> None:
    """The graph around the memtui note at depth 2."""
    from memtui.tui.screens.graph import GraphScreen

    await open_note(pilot)
    await pilot.app.push_screen(GraphScreen(GRAPH_CENTRE, depth=2))
    await settle(pilot)
    await pilot.press("right")
    await settle(pilot)


async def history(pilot: Pilot[None]) -> None:
    """The history with the diff of an agent edit selected."""
    from memtui.tui.screens.history import HistoryScreen

    await open_note(pilot)
    await pilot.app.push_screen(HistoryScreen())
    await settle(pilot)
    await pilot.press("down", "down")
    await settle(pilot)


async def review(pilot: Pilot[None]) -> None:
    """The review queue with two notes selected."""
    from memtui.tui.screens.review import ReviewScreen

    await open_note(pilot)
    await pilot.app.push_screen(ReviewScreen(clock=demo_clock))
    await settle(pilot)
    await pilot.press("space", "space")
    await settle(pilot)


async def editor(pilot: Pilot[None]) -> None:
    """The in-app editor on the note."""
    await open_note(pilot)
    await pilot.press("e")
    await settle(pilot, 1.0, workers=False)


async def help_screen(pilot: Pilot[None]) -> None:
    """The keys of the main screen."""
    await open_note(pilot)
    await pilot.press("f1")
    await settle(pilot)


SHOTS: dict[str, tuple[str, Step]] = {
    "main": ("Main screen: tree, preview, links and history", main_screen),
    "raw": ("Raw view: what the agent's view returns", raw_view),
    "search": ("Search as you type, matches highlighted", search),
    "graph": ("Graph: the memtui note's neighbourhood at depth 2", graph),
    "history": ("History with the diff of an agent edit", history),
    "review": ("Review: stale notes with reasons", review),
    "editor": ("In-app editor", editor),
    "help": ("Keys of the current screen (F1)", help_screen),
}


async def shoot(root: Path, name: str, step: Step) -> Path:
    """Run the app on `root`, drive it with `step` and save `<name>.svg`."""
    app = MemtuiApp(root, actor="human:dana", watch=False, clock=demo_clock)
    async with app.run_test(size=SIZE) as pilot:
        await step(pilot)
        svg = app.export_screenshot(title=f"memtui · {name}")
    target = OUT / f"{name}.svg"
    target.write_text(svg, encoding="utf-8")
    return target


async def make_all(names: list[str]) -> None:
    """Build a fresh demo store (at a fixed path, shown in the status line) per screenshot."""
    for name in names:
        if DEMO_BASE.exists():
            shutil.rmtree(DEMO_BASE)
        root = create_demo_store(DEMO_BASE / "memories")
        target = await shoot(root, name, SHOTS[name][1])
        print(f"{target.relative_to(OUT.parent)}  {SHOTS[name][0]}")
    shutil.rmtree(DEMO_BASE, ignore_errors=True)


def main(argv: list[str]) -> int:
    """Make every screenshot, or only those named on the command line."""
    names = argv or list(SHOTS)
    unknown = [n for n in names if n not in SHOTS]
    if unknown:
        print(f"unknown screenshot(s): {', '.join(unknown)}; choose from {', '.join(SHOTS)}")
        return 2
    asyncio.run(make_all(names))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
