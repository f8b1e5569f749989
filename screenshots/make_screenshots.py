"""Regenerate the SVG screenshots of every memtui screen on the demo store at 120x40.

Run from the repository root: `python screenshots/make_screenshots.py` (uses the installed
memtui). The demo store is rebuilt at `/tmp/memtui-demo/memories`, its history is
backdated to fixed times, and screens that show ages are given the demo's fixed present, so the
images only change when the app does.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input

from memtui.demo import DEMO_NOW, create_demo_store
from memtui.tui.app import MemtuiApp

OUT = Path(__file__).resolve().parent
SIZE = (120, 40)
DEMO_BASE = Path("/tmp/memtui-demo")
"""Where the demo store is built: a fixed path, since the status line shows it."""
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


async def open_file(pilot: Pilot[None], relpath: str) -> None:
    """Wait for the index and show one file of the demo store."""
    app: MemtuiApp = pilot.app  # type: ignore[assignment]
    for _ in range(100):
        if app.ctx.index is not None:
            break
        await pilot.pause(0.1)
    app.open_note(relpath)
    await settle(pilot, 1.0)


async def open_note(pilot: Pilot[None]) -> None:
    """Wait for the index and show the memtui project note."""
    await open_file(pilot, NOTE)


async def main_screen(pilot: Pilot[None]) -> None:
    """The main screen on a note."""
    await open_note(pilot)


async def memory_tool(pilot: Pilot[None]) -> None:
    """A markdown file the agent wrote with the memory tool: `<important>` blocks as written."""
    await open_file(pilot, "claude/project_context.md")


async def memory_tool_xml(pilot: Pilot[None]) -> None:
    """The agent's XML preference file, syntax-coloured."""
    await open_file(pilot, "claude/user_preferences.xml")


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


async def search_text_files(pilot: Pilot[None]) -> None:
    """Search finds the agent's `.txt` logs and tagged files like notes."""
    await open_note(pilot)
    await pilot.press("slash")
    await pilot.press(*"NATS")
    await settle(pilot, 1.0)


async def graph(pilot: Pilot[None]) -> None:
    """The graph around the memtui note at depth 2."""
    from memtui.tui.screens.graph import GraphScreen

    await open_note(pilot)
    await pilot.app.push_screen(GraphScreen(GRAPH_CENTRE, depth=2))
    await settle(pilot)
    await pilot.press("right")
    await settle(pilot)


async def graph_tab(pilot: Pilot[None], key: str) -> None:
    """The graph screen around the memtui note, switched to the list under `key`."""
    from memtui.tui.screens.graph import GraphScreen

    await open_note(pilot)
    await pilot.app.push_screen(GraphScreen(GRAPH_CENTRE))
    await settle(pilot)
    await pilot.press(key)
    await settle(pilot)


async def graph_hubs(pilot: Pilot[None]) -> None:
    """The hubs list: the most linked notes."""
    await graph_tab(pilot, "2")


async def graph_unresolved(pilot: Pilot[None]) -> None:
    """The unresolved list: link targets no note answers to."""
    await graph_tab(pilot, "4")


async def history(pilot: Pilot[None]) -> None:
    """The history with the diff of an agent edit selected."""
    from memtui.tui.screens.history import HistoryScreen

    await open_note(pilot)
    await pilot.app.push_screen(HistoryScreen())
    await settle(pilot)
    await pilot.press("down", "down")
    await settle(pilot)


async def changes(pilot: Pilot[None]) -> None:
    """The changes inbox with the agent's edit of the memtui note selected."""
    from memtui.tui.screens.changes import ChangesScreen

    await open_note(pilot)
    await pilot.app.push_screen(ChangesScreen())
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


async def edit_while_the_agent_writes(pilot: Pilot[None], heading_too: bool) -> None:
    """Edit the note's heading while an agent changes its status (and, with `heading_too`, the
    heading as well), then save."""
    from textual.widgets import TextArea

    await editor(pilot)
    app: MemtuiApp = pilot.app  # type: ignore[assignment]
    agent = app.ctx.store.with_actor("agent:claude")
    agent.str_replace(f"/memories/{NOTE}", "status: active", "status: in review")
    if heading_too:
        agent.str_replace(f"/memories/{NOTE}", "# memtui\n", "# memtui (agent memory TUI)\n")
    area = app.screen.query_one(TextArea)
    area.text = area.text.replace("# memtui\n", "# memtui, the memory browser\n", 1)
    await pilot.press("ctrl+s")
    await settle(pilot, workers=False)


async def merge(pilot: Pilot[None]) -> None:
    """Both changed the heading: the overlapping change side by side, the status combined."""
    await edit_while_the_agent_writes(pilot, heading_too=True)


async def merged(pilot: Pilot[None]) -> None:
    """Changes to different lines: the merged note to confirm, as a diff."""
    await edit_while_the_agent_writes(pilot, heading_too=False)


async def new_note(pilot: Pilot[None]) -> None:
    """The new-note dialog, folder prefilled from the selected note, a title typed."""
    await open_note(pilot)
    await pilot.press("n")
    await settle(pilot, 0.3, workers=False)
    await pilot.press(*"Rate limits")
    await settle(pilot, 0.3, workers=False)


async def rename(pilot: Pilot[None]) -> None:
    """The rename dialog with a new folder typed: the notes linking here name it by title, so no
    link needs rewriting."""
    await open_note(pilot)
    await pilot.press("m")
    await settle(pilot, 0.3, workers=False)
    pilot.app.screen.query_one("#rename-path", Input).value = "projects/active/memtui.md"
    await settle(pilot, 0.3, workers=False)


async def help_screen(pilot: Pilot[None]) -> None:
    """The keys of the main screen."""
    await open_note(pilot)
    await pilot.press("f1")
    await settle(pilot)


async def budget(pilot: Pilot[None]) -> None:
    """What the agent loads: every file's tokens, how it is loaded, what it read."""
    await open_note(pilot)
    await pilot.press("b")
    await settle(pilot)


async def as_of(pilot: Pilot[None]) -> None:
    """The store as it was at an event of the history: read-only, clearly marked."""
    from memtui.tui.screens.history import HistoryScreen

    await open_note(pilot)
    await pilot.app.push_screen(HistoryScreen())
    await settle(pilot)
    await pilot.press("down", "down", "down", "a")
    await settle(pilot)


SHOTS: dict[str, tuple[str, Step]] = {
    "main": ("Main screen: tree, preview, links and history", main_screen),
    "raw": ("Raw view: what the agent's view returns", raw_view),
    "memory-tool": ("A memory-tool file with <important> tags", memory_tool),
    "memory-tool-xml": ("The memory tool's XML preferences, syntax-coloured", memory_tool_xml),
    "search": ("Search as you type, matches highlighted", search),
    "search-text-files": ("Search finds .txt logs of the memory tool", search_text_files),
    "graph": ("Graph: the memtui note's neighbourhood at depth 2", graph),
    "graph-hubs": ("Graph: the most linked notes", graph_hubs),
    "graph-unresolved": ("Graph: link targets with no note", graph_unresolved),
    "history": ("History with the diff of an agent edit", history),
    "changes": ("Changes inbox: what agents changed since the last review", changes),
    "review": ("Review: stale notes with reasons", review),
    "editor": ("In-app editor", editor),
    "merge": ("Merge: the agent changed the same line meanwhile", merge),
    "merged": ("Merged: the agent changed another line meanwhile", merged),
    "new-note": ("New note from the template", new_note),
    "rename": ("Rename or move, rewriting links", rename),
    "help": ("Keys of the current screen (F1)", help_screen),
    "budget": ("Budget: what the agent loads and reads", budget),
    "as-of": ("The store as of an event of the history, read-only", as_of),
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
