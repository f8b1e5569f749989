"""Shared fixtures for the graph, history, review and demo tests: a demo store copy and a
small app."""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from textual.screen import Screen
from textual.signal import Signal

import memtui.tui
from memtui.demo import DEMO_NOTES_DIR, DEMO_NOW, create_demo_store
from memtui.notes.index import NoteIndex
from memtui.tui.context import AppContext, default_settings
from memtui.tui.indexing import apply_changes
from memtui.tui.messages import OpenNote
from memtui.tui.plain_notify import PlainNotifyApp
from memtui.tui.timers import SYSTEM_TIMERS, Timers

HUMAN = "human:tester"
_TEMPLATE: dict[str, Path] = {}


def demo_copy(tmp_path: Path, template_dir: Path) -> Path:
    """A fresh copy of the demo store (built once per session under `template_dir`)."""
    if "store" not in _TEMPLATE:
        _TEMPLATE["store"] = create_demo_store(template_dir / "template")
    dest = tmp_path / "demo"
    shutil.copytree(_TEMPLATE["store"], dest, symlinks=True)
    return dest


def notes_copy(tmp_path: Path) -> Path:
    """A copy of the bundled demo notes alone (no history), for screens that only read the index."""
    dest = tmp_path / "demo"
    shutil.copytree(DEMO_NOTES_DIR, dest)
    return dest


def demo_context(root: Path) -> AppContext:
    """An app context on `root` with a loaded index and the human actor."""
    from memtui.core.store import MemoryStore

    store = MemoryStore(root, actor=HUMAN)
    index = NoteIndex.load(root, use_cache=False)
    return AppContext(root=root, settings=default_settings(), store=store, index=index)


class ScreenHarness(PlainNotifyApp):
    """A minimal app that holds a context and shows one screen: the part of the app's contract
    the store screens use (context, clock, signals), recording the notes they ask to open."""

    CSS_PATH = Path(memtui.tui.__file__).parent / "memtui.tcss"

    def __init__(
        self,
        ctx: AppContext,
        make_screen: Callable[[], Screen[None]],
        timers: Timers = SYSTEM_TIMERS,
    ) -> None:
        super().__init__()
        self.ctx = ctx
        self.timers = timers
        self.make_screen = make_screen
        self.opened: list[str] = []
        self.clock = time.time
        self.notes_changed_signal: Signal[frozenset[str]] = Signal(self, "notes-changed")
        self.index_ready_signal: Signal[None] = Signal(self, "index-ready")
        self.review_count_signal: Signal[int] = Signal(self, "review-count")

    def on_mount(self) -> None:
        """Show the screen under test."""
        self.push_screen(self.make_screen())

    async def apply_changes(self, paths: frozenset[str]) -> None:
        """Bring the index up to date for `paths` in a thread and tell the screens, as the app
        does."""
        await asyncio.to_thread(apply_changes, self.ctx, paths)
        self.notes_changed_signal.publish(paths)

    def on_open_note(self, message: OpenNote) -> None:
        """Record which note the screen asked to open."""
        self.opened.append(message.relpath)


def demo_clock() -> float:
    """The demo store's fixed present, for screens that show ages."""
    return DEMO_NOW
