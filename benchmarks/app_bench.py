"""App benchmarks: first frame vs an empty Textual app, launch to searchable, memory, key echo,
opening a note, live update.

The first frame is timed as a user sees it: from launching the command in tmux until
`tmux capture-pane` shows the tree's folders (the empty app: its text), the two launched in
turn. Launch to searchable: on a store whose index is built, from launch until a typed query's
results are on screen. Memory: the app's peak resident size once it has searched and every
background job has finished, against the corpus on disk.

Key echo is measured while indexing, while the search index builds, while typing fast (30 ms
between keys) and while a search runs (100 ms between keys, longer than the search screen's typing
pause). The history, review and graph screens are measured on a store whose first open recorded
every note as an `external` event: time from pushing the screen to its first populated frame
(against pushing an empty screen in the same app), and key echo while the screen is open and
outside writes land.

Large notes (`--large-notes`): on a store with a 5 MB note, a 5 MB one-line note and a 1 GiB
sparse file, the time from the key that opens each in the preview (or `v` for the raw view) to
its view on screen, and the key echo p95 meanwhile (a key every 30 ms), against the same keys in
an empty Textual app in the same run; and the app's peak resident memory with the sparse file
opened in both views against the same visit to a small note.

Usage: python benchmarks/app_bench.py [--sizes 10000 50000 100000] [--runs 5] [--frames-only]
       [--screens-only] [--large-notes] [--work DIR]

Public tools only: time.perf_counter/time.time, statistics, subprocess and tmux. Corpora come
from benchmarks/gen_corpus.py (same seed, so every run measures the same notes).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, ClassVar

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from memtui.core.store import MemoryStore  # noqa: E402
from memtui.notes.index import NoteIndex  # noqa: E402

PYTHON = sys.executable
MEMTUI = str(Path(PYTHON).parent / "memtui")
EMPTY_APP = """
import os, time
from pathlib import Path
from textual.app import App
from textual.widgets import Static

class Empty(App):
    def compose(self):
        yield Static("empty app on screen")
    def on_mount(self):
        self.set_timer(120, self.exit)

Empty().run()
"""


def corpus(size: int, work: Path) -> Path:
    """A generated store of `size` notes (made once, reused)."""
    out = work / f"notes-{size}"
    if not out.exists():
        subprocess.run([PYTHON, str(HERE / "gen_corpus.py"), str(size), str(out)], check=True)
    return out


def fresh_copy(source: Path, work: Path) -> Path:
    """A copy of a corpus without memtui state, so every launch starts cold."""
    return copy_as(source, work / "run" / source.name)


def copy_as(source: Path, dest: Path) -> Path:
    """A copy of a corpus at `dest` without memtui state, written to disk before it is used."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".memtui"))
    os.sync()
    time.sleep(1.0)
    return dest


def compile_memtui() -> None:
    """Compile memtui's modules once, as an install does, so no launch pays for compiling them
    (with PYTHONDONTWRITEBYTECODE set, an editable checkout would compile them every time)."""
    import memtui

    package = Path(memtui.__file__).parent
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(package)], check=True)


def on_screen(session: str, needle: str, start: float, timeout: float = 120.0) -> float:
    """Seconds from `start` until `needle` shows in the tmux pane (captured every few ms)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        screen = subprocess.run(
            ["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True
        ).stdout
        if needle in screen:
            return time.time() - start
        time.sleep(0.002)
    raise RuntimeError(f"{needle!r} never showed on screen")


def launch(session: str, command: str, work: Path, home: str = "home") -> float:
    """Start `command` in a new tmux session of 120x40 with HOME `work/home`; the wall-clock
    time it started."""
    env = f"env -u COLUMNS -u LINES -u XDG_CONFIG_HOME HOME={work}/{home}"
    start = time.time()
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", session, "-x", "120", "-y", "40", f"{env} {command}"],
        check=True,
    )
    return start


def stop(session: str) -> None:
    """Close a tmux session and give the machine a moment."""
    subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True, check=False)
    time.sleep(0.3)


def first_frame(command: str, work: Path, needle: str, home: str = "home") -> float:
    """Seconds from starting `command` in tmux until `needle` is on the terminal's screen."""
    session = f"bench-{os.getpid()}"
    start = launch(session, command, work, home)
    try:
        return on_screen(session, needle, start)
    finally:
        stop(session)


def launch_to_searchable(root: Path, work: Path, query: str, home: str = "home") -> float:
    """Seconds from starting memtui in tmux on a built index until `query`'s results show: the
    search screen is opened once the tree is on screen, and `query` typed once it is open."""
    session = f"bench-search-{os.getpid()}"
    start = launch(session, f"{MEMTUI} {root}", work, home)
    try:
        on_screen(session, "patterns", start)
        subprocess.run(["tmux", "send-keys", "-t", session, "-l", "/"], check=True)
        on_screen(session, "search… (F1", start)
        subprocess.run(["tmux", "send-keys", "-t", session, "-l", query], check=True)
        return on_screen(session, " results", start)
    finally:
        stop(session)


APP_MEMORY = """
import asyncio, sys
from memtui.tui.app import MemtuiApp
from memtui.tui.screens.search import SearchScreen

async def main():
    app = MemtuiApp(sys.argv[1], actor="human:bench")
    async with app.run_test(size=(120, 40)) as pilot:
        while app.ctx.searcher is None or not app.history_ready:
            await pilot.pause(0.1)
        await pilot.press("slash")
        for query in sys.argv[2:]:
            await pilot.press("ctrl+l", *("space" if c == " " else c for c in query))
            while not isinstance(app.screen, SearchScreen) or app.screen.shown_query != query:
                await pilot.pause(0.05)
        await pilot.press("escape")
        while any(w.group != "watch" and not w.is_finished for w in app.workers):
            await pilot.pause(0.1)
        await pilot.pause(1)
    with open("/proc/self/status") as status:
        print(next(int(l.split()[1]) for l in status if l.startswith("VmHWM:")))

asyncio.run(main())
"""
"""A child running the app headless: searches, lets every background job finish, prints VmHWM."""


def app_memory_mb(root: Path) -> float:
    """Peak resident memory (MB) of the app on `root` after searching and settling."""
    out = subprocess.run(
        [PYTHON, "-c", APP_MEMORY, str(root), "deploy", "pyhton", "render api database"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(out.stdout.strip().splitlines()[-1]) * 1024 / 1e6


def corpus_mb(root: Path) -> float:
    """The corpus's files on disk (MB), memtui's own folder left out."""
    return (
        sum(
            path.stat().st_size
            for path in root.rglob("*")
            if path.is_file() and ".memtui" not in path.parts
        )
        / 1e6
    )


def p95(values: list[float]) -> float:
    """The 95th percentile."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


async def echo(app: object, field: object, key: str, character: str | None) -> float:
    """Seconds from a key event reaching the app to the search field showing it, painted."""
    from textual import events

    before = field.value  # type: ignore[attr-defined]
    start = time.perf_counter()
    app.post_message(events.Key(key, character))  # type: ignore[attr-defined]
    while field.value == before:  # type: ignore[attr-defined]
        await asyncio.sleep(0)
    await next_frame(app)
    return time.perf_counter() - start


async def open_by_key(app: Any, screen: Any, key: str, text: str) -> float:
    """Seconds from a cursor key reaching the app to the next note's text painted on screen."""
    from textual import events

    painted = asyncio.Event()
    start = time.perf_counter()
    app.post_message(events.Key(key, None))
    while not shown(screen, "bench/ten-kb.md", text):
        await asyncio.sleep(0)
    screen.call_after_refresh(painted.set)
    await painted.wait()
    return time.perf_counter() - start


def shown(screen: Any, relpath: str, text: str) -> bool:
    """Whether the preview shows `text` of `relpath` (rendered, or as plain text)."""
    preview = screen.preview
    if preview.relpath != relpath:
        return False
    if preview.mode == "plain":
        return bool(preview.query_one("#preview-plain").text == text)
    return bool(preview.mode == "rendered")


async def in_app(root: Path, runs: int) -> dict[str, list[float]]:  # noqa: C901
    """Key echo while indexing and searching, opening a 10 KB note, outside write to screen."""
    from textual.widgets import Input, Static

    from memtui.tui.app import MemtuiApp
    from memtui.tui.screens.main import MainScreen

    results: dict[str, list[float]] = {
        "echo_indexing": [],
        "echo_building": [],
        "echo_search": [],
        "echo_running": [],
        "open": [],
        "live": [],
    }
    note = root / "bench" / "ten-kb.md"
    note.parent.mkdir(exist_ok=True)
    body = "".join(f"- [fact] benchmark line {n} with some words #bench\n" for n in range(220))
    note.write_text(f"---\ntitle: Ten KB\n---\n\n{body}"[:10_240], encoding="utf-8")
    (root / "bench" / "ten-ka.md").write_text("---\ntitle: Ten KA\n---\n\nA neighbour.\n")
    ten_kb = note.read_text(encoding="utf-8")
    app = MemtuiApp(root, actor="human:bench")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("slash")
        search_input = app.screen.query_one(Input)
        await pilot.pause()
        for char in "indexing echo test":
            key = "space" if char == " " else char
            results["echo_indexing"].append(await echo(app, search_input, key, char))
        indexing_seen = app.ctx.index is None
        while app.ctx.index is None:
            await pilot.pause(0.05)
        await pilot.press("ctrl+l")
        await pilot.pause()
        building_seen = app.ctx.searcher is None
        for char in "search index build":
            if app.ctx.searcher is not None:
                break
            key = "space" if char == " " else char
            results["echo_building"].append(await echo(app, search_input, key, char))
            await asyncio.sleep(0.03)
        while app.ctx.searcher is None:
            await pilot.pause(0.05)
        await pilot.press("ctrl+l")
        await pilot.pause()
        for char in "benchmark words fact":
            key = "space" if char == " " else char
            results["echo_search"].append(await echo(app, search_input, key, char))
            await asyncio.sleep(0.03)
        assert search_input.value == "benchmark words fact"
        await pilot.press("ctrl+l")
        await pilot.pause()
        for char in "benchmark words fact":
            key = "space" if char == " " else char
            results["echo_running"].append(await echo(app, search_input, key, char))
            await asyncio.sleep(0.1)
        await pilot.press("escape")
        while not app.history_ready or any(
            w.group != "watch" and not w.is_finished for w in app.workers
        ):
            await pilot.pause(0.1)
        await pilot.pause(0.5)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.note_tree.focus()
        for _ in range(runs):
            screen.show_path("bench/ten-ka.md")
            while screen.preview.relpath != "bench/ten-ka.md":
                await pilot.pause(0.01)
            await pilot.pause(0.2)
            results["open"].append(await open_by_key(app, screen, "down", ten_kb))
        screen.show_path("bench/ten-kb.md")
        await pilot.pause(0.3)
        header = screen.query_one("#preview-header", Static)
        for n in range(runs):
            marker = f"{n} B"
            start = time.perf_counter()
            note.write_text(note.read_text(encoding="utf-8") + "x" * (n + 1), encoding="utf-8")
            expected = f"{note.stat().st_size:,} B"
            while expected not in str(header.render()) and time.perf_counter() - start < 5:
                await pilot.pause(0.002)
            results["live"].append(time.perf_counter() - start)
            del marker
            await pilot.pause(0.3)
    print(f"  (index was still loading while typing: {indexing_seen})")
    print(f"  (search index was still building while typing: {building_seen})")
    return results


SCREEN_KEYS = 40
"""Keys sent per screen while outside writes land (30 ms apart)."""
WRITES_AT = (2, 20)
"""The keys before which a note is changed outside the app."""
FILTER_TEXT = "outside memtui"
"""Typed into the history filter: every prefix still matches the recorded outside changes."""


async def key_echo(app: object, key: str, probe: object, timeout: float = 60.0) -> float:
    """Seconds from a key event reaching the app to `probe()` returning something new, painted."""
    from textual import events

    before = probe()  # type: ignore[operator]
    start = time.perf_counter()
    app.post_message(events.Key(key, None))  # type: ignore[attr-defined]
    while probe() == before and time.perf_counter() - start < timeout:  # type: ignore[operator]
        await asyncio.sleep(0)
    await next_frame(app)
    return time.perf_counter() - start


async def next_frame(app: object) -> None:
    """Wait until the app has refreshed the screen once more."""
    drawn = asyncio.Event()
    app.call_after_refresh(drawn.set)  # type: ignore[attr-defined]
    await drawn.wait()


async def settle(app: object, pilot: object) -> None:
    """Wait until every worker but the file watcher has finished and messages are handled."""
    while any(w.group != "watch" and not w.is_finished for w in app.workers):  # type: ignore[attr-defined]
        await pilot.pause(0.05)  # type: ignore[attr-defined]
    await pilot.pause(0.3)  # type: ignore[attr-defined]


def screen_kinds(centre: str) -> dict[str, tuple[object, object, str]]:
    """Screen name -> (factory, populated(screen) predicate, key pair to move a cursor).

    A table is populated once it has rows, the graph once its neighbourhood is drawn.
    """
    from textual.widgets import DataTable

    from memtui.tui.screens.graph import GraphScreen
    from memtui.tui.screens.history import HistoryScreen
    from memtui.tui.screens.review import ReviewScreen
    from memtui.tui.widgets.graph_view import GraphView

    def graph_ready(screen: object) -> bool:
        return screen.query_one(GraphView).graph is not None  # type: ignore[attr-defined]

    return {
        "history": (
            HistoryScreen,
            lambda screen: screen.query_one(DataTable).row_count > 0,
            "down up",
        ),
        "review": (
            ReviewScreen,
            lambda screen: screen.query_one(DataTable).row_count > 0,
            "down up",
        ),
        "graph": (lambda: GraphScreen(centre), graph_ready, "tab shift+tab"),
    }


def cursor_probe(screen: object) -> object:
    """What a cursor key changes on `screen`: the table's cursor row or the graph's node cursor."""
    from textual.widgets import DataTable

    from memtui.tui.widgets.graph_view import GraphView

    tables = list(screen.query(DataTable))  # type: ignore[attr-defined]
    if tables:
        return lambda: tables[0].cursor_row
    canvas = screen.query_one(GraphView)  # type: ignore[attr-defined]
    return lambda: canvas.cursor_key


async def open_screen(app: object, make: object, populated: object) -> float:
    """Seconds from pushing a screen to its first frame with content."""
    start = time.perf_counter()
    app.push_screen(make())  # type: ignore[attr-defined,operator]
    while True:
        screen = app.screen  # type: ignore[attr-defined]
        try:
            if screen.is_mounted and populated(screen):  # type: ignore[operator]
                break
        except Exception:
            pass
        if time.perf_counter() - start > 120:
            raise RuntimeError(f"{screen} never showed content")
        await asyncio.sleep(0.001)
    await next_frame(app)
    return time.perf_counter() - start


async def echo_with_writes(app: object, keys: list[str], probe: object, note: Path) -> list[float]:
    """Key echo for `keys` (30 ms apart) while `note` is changed outside the app twice."""
    times = []
    for n, key in enumerate(keys):
        if n in WRITES_AT:
            note.write_text(note.read_text(encoding="utf-8") + f"\n- [bench] write {n}\n")
        times.append(await key_echo(app, key, probe))
        await asyncio.sleep(0.03)
    return times


async def screens_in_app(root: Path, runs: int) -> dict[str, list[float]]:
    """Open time and key echo during outside writes for the history, review and graph screens."""
    from textual.screen import Screen
    from textual.widgets import DataTable, Input

    from memtui.tui.app import MemtuiApp

    class EmptyScreen(Screen[None]):
        def compose(self) -> object:
            yield DataTable()

        def on_mount(self) -> None:
            table = self.query_one(DataTable)
            table.add_column("row")
            table.add_rows([(f"row {n}",) for n in range(100)])
            table.focus()

    results: dict[str, list[float]] = {}
    note = next(iter(sorted((root / "sessions").glob("*.md"))))
    app = MemtuiApp(root, actor="human:bench")
    async with app.run_test(size=(120, 40)) as pilot:
        while not app.history_ready or app.ctx.searcher is None:
            await pilot.pause(0.1)
        await settle(app, pilot)
        print(f"  ({len(app.ctx.history.events())} events in the history)")
        results["open_empty"] = []
        for _ in range(runs):
            results["open_empty"].append(await open_screen(app, EmptyScreen, lambda screen: True))
            app.pop_screen()
            await settle(app, pilot)
        await open_screen(app, EmptyScreen, lambda screen: True)
        await settle(app, pilot)
        sequence = ["down" if n % 2 == 0 else "up" for n in range(SCREEN_KEYS)]
        probe = cursor_probe(app.screen)
        results["echo_empty"] = await echo_with_writes(app, sequence, probe, note)
        app.pop_screen()
        await settle(app, pilot)
        centre = app.ctx.index.hubs(1)[0][0]  # type: ignore[union-attr]
        for name, (make, populated, keys) in screen_kinds(centre).items():
            results[f"open_{name}"] = []
            for _ in range(runs):
                results[f"open_{name}"].append(await open_screen(app, make, populated))
                app.pop_screen()
                await settle(app, pilot)
            await open_screen(app, make, populated)
            await settle(app, pilot)
            pair = keys.split()
            sequence = [pair[n % 2] for n in range(SCREEN_KEYS)]
            probe = cursor_probe(app.screen)
            results[f"echo_{name}"] = await echo_with_writes(app, sequence, probe, note)
            await settle(app, pilot)
            if name == "history":
                field = app.screen.query_one("#history-filter", Input)
                field.focus()
                await pilot.pause()
                typed = [("space" if c == " " else c) for c in FILTER_TEXT]
                results["echo_history_filter"] = []
                for n, key in enumerate(typed):
                    if n in WRITES_AT:
                        note.write_text(note.read_text(encoding="utf-8") + f"\n- [bench] f{n}\n")
                    char = " " if key == "space" else key
                    results["echo_history_filter"].append(await echo(app, field, key, char))
                    await asyncio.sleep(0.03)
                await settle(app, pilot)
            app.pop_screen()
            await settle(app, pilot)
    return results


def report_screens(size: int, measured: dict[str, list[float]]) -> None:
    """Print the screens' open times and key echo."""
    base = statistics.median(measured["open_empty"])
    print(f"{size:>6} notes, push an empty screen: median {base * 1000:.0f} ms")
    for name in ("history", "review", "graph"):
        opened = statistics.median(measured[f"open_{name}"])
        print(
            f"{size:>6} notes, open {name}: median {opened * 1000:.0f} ms"
            f" = {opened / base:.1f}x an empty screen"
        )
    for key in ("empty", "history", "history_filter", "review", "graph"):
        values = measured[f"echo_{key}"]
        where = "an empty screen (a table)" if key == "empty" else key.replace("_", " ")
        print(
            f"{size:>6} notes, key echo in {where} during outside writes:"
            f" p95 {p95(values) * 1000:.1f} ms, max {max(values) * 1000:.0f} ms"
            f" ({len(values)} keys, goal p95 <= 25 ms)"
        )


TICK_KEY = "f12"
"""A key bound, in both benchmark apps, to a one-line change on screen: its echo is how long
the app takes to answer a key."""
LARGE_NOTES = {
    "five-mb.md": "preview",
    "five-mb-line.md": "preview",
    "huge.txt": "preview",
}
GIB = 1 << 30


def tick_apps() -> tuple[type, type]:
    """An empty Textual app and memtui, each with `TICK_KEY` bound to counting on screen."""
    from textual.app import App
    from textual.binding import Binding
    from textual.widgets import Static

    import memtui.tui as memtui_tui
    from memtui.tui.app import MemtuiApp

    class EmptyTicks(App[None]):
        BINDINGS: ClassVar[list[Any]] = [Binding(TICK_KEY, "tick")]
        ticks = 0

        def compose(self) -> Any:
            yield Static("0", id="status")

        def action_tick(self) -> None:
            self.ticks += 1
            self.screen.query_one("#status", Static).update(str(self.ticks))

    class MemtuiTicks(MemtuiApp):
        CSS_PATH = Path(memtui_tui.__file__).parent / "memtui.tcss"
        BINDINGS: ClassVar[list[Any]] = [*MemtuiApp.BINDINGS, Binding(TICK_KEY, "tick")]
        ticks = 0

        def action_tick(self) -> None:
            self.ticks += 1
            self.screen.query_one("#status", Static).update(str(self.ticks))

    return EmptyTicks, MemtuiTicks


def write_large_notes(root: Path) -> None:
    """A 5 MB note of ordinary lines, a 5 MB note on one line, and a 1 GiB sparse file."""
    line = "- [fact] an ordinary line of a long note, with a few words #bulk\n"
    (root / "five-mb.md").write_text(line * (5_000_000 // len(line)), encoding="utf-8")
    (root / "five-mb-line.md").write_text("word " * 1_000_000, encoding="utf-8")
    with (root / "huge.txt").open("wb") as handle:
        handle.write(b"# Huge\nfirst line\n")
        handle.truncate(GIB)
    (root / "a-small.md").write_text("# Small\n\nA small note.\n", encoding="utf-8")


async def ticks_until(app: Any, done: Any, extra: int = 5, limit: float = 120) -> list[float]:
    """Echo of `TICK_KEY` every 30 ms until `done()` and `extra` keys more."""
    from textual.widgets import Static

    status = app.screen.query_one("#status", Static)
    times: list[float] = []
    after = 0
    start = time.perf_counter()
    while after < extra:
        if time.perf_counter() - start > limit:
            raise RuntimeError("the view never showed")
        times.append(await key_echo(app, TICK_KEY, lambda: str(status.render())))
        after += 1 if done() else 0
        await asyncio.sleep(0.03)
    return times


async def empty_ticks(keys: int) -> list[float]:
    """Echo of `keys` ticks, 30 ms apart, in the empty app."""
    empty_app, _memtui = tick_apps()
    app = empty_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.3)
        return await ticks_until(app, lambda: True, keys)


async def open_large_notes(root: Path) -> dict[str, Any]:
    """For each large note and view: seconds from the opening key to its view on screen, and
    the tick echo meanwhile."""
    _empty, memtui_app = tick_apps()
    app = memtui_app(root, actor="human:bench", watch=False)
    results: dict[str, Any] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        while app.ctx.index is None or app.ctx.searcher is None:
            await pilot.pause(0.1)
        await settle(app, pilot)
        screen = app.screen
        results["idle"] = await ticks_until(app, lambda: True, 30)
        for name in LARGE_NOTES:
            for view in ("preview", "raw"):
                screen.raw = False
                names = sorted(["a-small.md", *LARGE_NOTES], key=str.casefold)
                screen.show_path(names[names.index(name) - 1])
                await settle(app, pilot)
                if view == "raw":
                    screen.show_path(name)
                    await settle(app, pilot)
                mode = "raw" if view == "raw" else "plain"
                ready: list[float] = []
                start = time.perf_counter()

                def done(
                    name: str = name,
                    mode: str = mode,
                    ready: list[float] = ready,
                    start: float = start,
                ) -> bool:
                    preview = screen.preview
                    if not ready and preview.relpath == name and preview.mode == mode:
                        ready.append(time.perf_counter() - start)
                    return bool(ready)

                from textual import events

                app.post_message(events.Key("v" if view == "raw" else "down", None))
                echo = await ticks_until(app, done)
                results[f"{name} {view}"] = (ready[0], echo)
                await settle(app, pilot)
    return results


def peak_rss_kib(root: Path, note: str) -> int:
    """The peak resident memory (KiB, VmHWM) of a fresh process running the app on `root`,
    opening `note` in the preview and the raw view."""
    code = f"""
import asyncio, sys
from memtui.tui.app import MemtuiApp
async def main():
    app = MemtuiApp({str(root)!r}, actor="human:bench", watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        while app.ctx.index is None or app.ctx.searcher is None:
            await pilot.pause(0.1)
        screen = app.screen
        screen.show_path({note!r})
        for _ in range(1200):
            if screen.preview.relpath == {note!r}:
                break
            await pilot.pause(0.05)
        await pilot.press("v")
        for _ in range(1200):
            if screen.preview.mode == "raw":
                break
            await pilot.pause(0.05)
        if (screen.preview.relpath, screen.preview.mode) != ({note!r}, "raw"):
            sys.exit("the note never showed in the raw view")
        await pilot.pause(0.5)
asyncio.run(main())
status = open("/proc/self/status").read()
print(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:")))
"""
    out = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, check=True)
    return int(out.stdout.strip().splitlines()[-1])


def report_large_notes(work: Path, runs: int) -> None:
    """Open times, key echo against the empty app, and peak memory with the sparse file."""
    source = corpus(1_000, work)
    root = copy_as(source, work / "run" / "with-large-notes")
    write_large_notes(root)
    measured = asyncio.run(open_large_notes(root))
    baseline = asyncio.run(empty_ticks(30))
    base = p95(baseline)
    idle = p95(measured["idle"])
    print(
        f"key echo p95: empty app {base * 1000:.1f} ms, memtui idle {idle * 1000:.1f} ms"
        f" ({idle / base:.2f}x)"
    )
    for name in LARGE_NOTES:
        for view in ("preview", "raw"):
            ready, echo = measured[f"{name} {view}"]
            print(
                f"{name} ({(root / name).stat().st_size:,} B), {view}: on screen in"
                f" {ready * 1000:.0f} ms (goal <= 1 s for 5 MB); key echo meanwhile p95"
                f" {p95(echo) * 1000:.1f} ms = {p95(echo) / base:.2f}x the empty app,"
                f" max {max(echo) * 1000:.0f} ms ({len(echo)} keys, goal p95 <= 100 ms)"
            )
    small_note = "# Small\n\nA small note.\n"
    without = copy_as(source, work / "run" / "without-sparse")
    (without / "a-small.md").write_text(small_note, encoding="utf-8")
    sparse = copy_as(source, work / "run" / "with-sparse")
    (sparse / "a-small.md").write_text(small_note, encoding="utf-8")
    with (sparse / "huge.txt").open("wb") as handle:
        handle.write(b"# Huge\nfirst line\n")
        handle.truncate(GIB)
    first_small = peak_rss_kib(without, "a-small.md")
    first_huge = peak_rss_kib(sparse, "huge.txt")
    print(
        f"peak RSS of the first open (start-up recovery records every file as an outside change):"
        f" {first_small / 1024:.0f} MiB without the sparse file, {first_huge / 1024:.0f} MiB with"
        f" it ({first_huge / first_small:.2f}x)"
    )
    small = [peak_rss_kib(without, "a-small.md") for _ in range(runs)]
    huge = [peak_rss_kib(sparse, "huge.txt") for _ in range(runs)]
    print(
        f"peak RSS, 1,000 notes, store opened before: a small note opened in both views"
        f" {statistics.median(small) / 1024:.0f} MiB; with a 1 GiB sparse file, it opened in both"
        f" views {statistics.median(huge) / 1024:.0f} MiB"
        f" ({statistics.median(huge) / statistics.median(small):.2f}x; {runs} runs each)"
    )


def report_with_model(size: int, source: Path, work: Path, model: str, runs: int) -> None:
    """First frame (new store and index built), launch to a query's results and key echo (in
    the app, as `in_app` measures it; with a model the store's first embedding runs meanwhile),
    memtui with a model configured against memtui without one and the empty app, in turn."""
    config = work / "home-model" / ".config" / "memtui" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"[search]\nmodel = {json.dumps(model)}\n", encoding="utf-8")
    empty = f"{PYTHON} {work / 'empty_app.py'}"
    frames: dict[str, list[float]] = {"empty app": [], "no model": [], "model": []}
    for _ in range(runs):
        frames["empty app"].append(first_frame(empty, work, "empty app on screen"))
        for name, home in (("no model", "home"), ("model", "home-model")):
            frames[name].append(
                first_frame(f"{MEMTUI} {fresh_copy(source, work)}", work, "patterns", home)
            )
    warm = fresh_copy(source, work)
    NoteIndex.load(warm).close()
    searchable: dict[str, list[float]] = {"no model": [], "model": []}
    warm_frames: dict[str, list[float]] = {"no model": [], "model": []}
    for _ in range(runs):
        for name, home in (("no model", "home"), ("model", "home-model")):
            warm_frames[name].append(first_frame(f"{MEMTUI} {warm}", work, "patterns", home))
            searchable[name].append(launch_to_searchable(warm, work, "deploy", home))
    echoes: dict[str, dict[str, list[float]]] = {}
    for name, config_home in (("no model", None), ("model", config.parent.parent)):
        before = os.environ.get("XDG_CONFIG_HOME")
        os.environ["XDG_CONFIG_HOME"] = str(config_home or work / "home" / ".config")
        try:
            echoes[name] = asyncio.run(in_app(fresh_copy(source, work), runs))
        finally:
            if before is None:
                os.environ.pop("XDG_CONFIG_HOME", None)
            else:
                os.environ["XDG_CONFIG_HOME"] = before
    base = statistics.median(frames["empty app"])
    for name in ("no model", "model"):
        shown = ", ".join(
            f"{key[5:]} p95 {p95(echoes[name][key]) * 1000:.1f} ms"
            for key in ("echo_indexing", "echo_building", "echo_search", "echo_running")
            if echoes[name][key]
        )
        print(f"{size:>6} notes, {name}: key echo {shown}")
        print(
            f"{size:>6} notes, {name}: first frame (new store) "
            f"{statistics.median(frames[name]) * 1000:.0f} ms = "
            f"{statistics.median(frames[name]) / base:.2f}x the empty app's {base * 1000:.0f} ms; "
            f"index built: first frame {statistics.median(warm_frames[name]) * 1000:.0f} ms, "
            f"launch to a query's results {statistics.median(searchable[name]) * 1000:.0f} ms "
            f"({runs} runs each, in turn)"
        )


def main() -> None:
    """Run every measurement and print medians (and p95 for key echo)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000, 100_000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--frames-only", action="store_true", help="measure only the first frame (quick)"
    )
    parser.add_argument(
        "--screens-only",
        action="store_true",
        help="measure only the history, review and graph screens",
    )
    parser.add_argument(
        "--large-notes",
        action="store_true",
        help="measure only opening huge and sparse notes (views, key echo, peak memory)",
    )
    parser.add_argument(
        "--work", type=Path, default=Path(tempfile.gettempdir()) / "memtui-app-bench"
    )
    parser.add_argument(
        "--model",
        help="measure memtui with `[search] model = MODEL` configured (search by meaning on) "
        "in turn with memtui without it: first frame, launch to searchable, key echo",
    )
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        sys.exit("app_bench needs tmux")
    work: Path = args.work
    (work / "home").mkdir(parents=True, exist_ok=True)
    compile_memtui()
    empty = work / "empty_app.py"
    empty.write_text(EMPTY_APP, encoding="utf-8")
    if args.large_notes:
        report_large_notes(work, args.runs)
        return
    for size in args.sizes:
        source = corpus(size, work)
        if args.model:
            report_with_model(size, source, work, args.model, args.runs)
            continue
        if args.screens_only:
            report_screens(size, asyncio.run(screens_in_app(fresh_copy(source, work), args.runs)))
            continue
        baseline, frames = [], []
        for _ in range(args.runs):
            root = fresh_copy(source, work)
            baseline.append(first_frame(f"{PYTHON} {empty}", work, "empty app on screen"))
            frames.append(first_frame(f"{MEMTUI} {root}", work, "patterns"))
        base = statistics.median(baseline)
        median = statistics.median(frames)
        print(
            f"{size:>6} notes, first frame on screen (new store): median {median * 1000:.0f} ms"
            f" = {median / base:.2f}x the empty app's {base * 1000:.0f} ms, launched in turn"
            f" with it ({args.runs} runs each; goal <= 1.3x)"
        )
        warm = fresh_copy(source, work)
        NoteIndex.load(warm).close()
        try:
            MemoryStore(warm).history.events(limit=1)
        except OSError as error:
            print(f"{size:>6} notes, the history's first open failed ({error}); measuring on")
        warm_base, warm_frames, searchable = [], [], []
        for _ in range(args.runs):
            warm_base.append(first_frame(f"{PYTHON} {empty}", work, "empty app on screen"))
            warm_frames.append(first_frame(f"{MEMTUI} {warm}", work, "patterns"))
            searchable.append(launch_to_searchable(warm, work, "deploy"))
        base = statistics.median(warm_base)
        median = statistics.median(warm_frames)
        print(
            f"{size:>6} notes, first frame on screen (index built): median {median * 1000:.0f} ms"
            f" = {median / base:.2f}x the empty app's {base * 1000:.0f} ms (goal <= 1.3x)"
        )
        print(
            f"{size:>6} notes, launch to a query's results on screen (index built): median "
            f"{statistics.median(searchable) * 1000:.0f} ms (goal <= 2 s)"
        )
        peak = app_memory_mb(warm)
        print(
            f"{size:>6} notes, app peak memory after searching and settling: {peak:.0f} MB ="
            f" {peak / corpus_mb(warm):.2f}x the corpus on disk (goal <= 1x)"
        )
        if args.frames_only:
            continue
        root = fresh_copy(source, work)
        measured = asyncio.run(in_app(root, args.runs))
        for key, goal in (
            ("echo_indexing", 25),
            ("echo_building", 25),
            ("echo_search", 25),
            ("echo_running", 25),
        ):
            values = measured[key]
            if not values:
                print(f"{size:>6} notes, key echo {key[5:]}: not measured (it was already done)")
                continue
            print(
                f"{size:>6} notes, key echo {key[5:]}: p95 {p95(values) * 1000:.1f} ms, "
                f"median {statistics.median(values) * 1000:.1f} ms ({len(values)} keys, goal "
                f"p95 <= {goal} ms)"
            )
        print(
            f"{size:>6} notes, open a 10 KB note: median "
            f"{statistics.median(measured['open']) * 1000:.1f} ms"
            " (goal <= 50 ms)"
        )
        print(
            f"{size:>6} notes, outside write to screen: p50 "
            f"{statistics.median(measured['live']) * 1000:.0f} ms"
            " (goal <= 150 ms)"
        )
        report_screens(size, asyncio.run(screens_in_app(fresh_copy(source, work), args.runs)))


if __name__ == "__main__":
    main()
