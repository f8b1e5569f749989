"""Waiting on a running app for a condition, never for a fixed time: the index in, the file
watcher set up, workers done, every message handled, no debounce pending, the screen repainted."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.dom import DOMNode
from textual.message_pump import MessagePump
from textual.pilot import Pilot
from textual.screen import Screen
from textual.worker import Worker, WorkerCancelled

from memtui.core.watcher import StoreWatcher

SETTLE_TIMEOUT = 30.0
"""How long `wait_idle` waits before it fails, naming what is still pending (a hang, not a
slow machine: each step it waits on is a few milliseconds of work)."""

DEBOUNCE_LIMIT = 0.25
"""One-shot timers this short are debounces (preview, search, counts, cursor rests) whose
action is part of settling; longer ones (toasts, the badge delay) are not waited for."""

POLL = 0.05
"""Seconds between two looks at a condition in `wait_for` (each look also repaints the screen,
so a shorter one takes the app's time on a loaded machine)."""

WATCHERS: list[StoreWatcher] = []
"""The store watchers started during the current test (see `record_watchers`)."""


def record_watchers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep every `StoreWatcher` started from now on in `WATCHERS`, so `wait_idle` can wait
    until the app's watch is set up (a write before that would go unseen)."""
    WATCHERS.clear()
    start = StoreWatcher.start

    def recording_start(self: StoreWatcher) -> None:
        """Record the watcher, then start it."""
        WATCHERS.append(self)
        start(self)

    monkeypatch.setattr(StoreWatcher, "start", recording_start)


def watch_pending(app: App[Any]) -> bool:
    """Whether the app watches its store and its watcher is not set up yet."""
    if not any(w.group == "watch" and not w.is_finished for w in app.workers):
        return False
    root = Path(os.path.realpath(app.ctx.root))  # type: ignore[attr-defined]
    return not any(watcher.root == root and watcher.ready for watcher in WATCHERS)


def finite_workers(app: App[Any]) -> list[Worker[Any]]:
    """The app's workers still running, except the file watcher (it runs until the app exits)
    and those waiting for the answer to a dialog (they finish once it is answered)."""
    return [
        w
        for w in app.workers
        if w.group != "watch" and not w.is_finished and not awaits_answer(app, w)
    ]


def awaits_answer(app: App[Any], worker: Worker[Any]) -> bool:
    """Whether `worker` may be waiting for the screen on top to be dismissed: a dialog awaits
    an answer and the worker is a coroutine started beneath that dialog."""
    asking = any(
        callback.future is not None and not callback.future.done()
        for screen in app.screen_stack
        for callback in screen._result_callbacks
    )
    if not asking or worker._thread_worker:
        return False
    node = worker.node
    return node is not app.screen and app.screen not in node.ancestors


def pumps(app: App[Any]) -> Iterator[MessagePump]:
    """The app and every node of every screen on its stack."""
    yield app
    for screen in app.screen_stack:
        yield from screen.walk_children(with_self=True)


def debouncing(pump: MessagePump) -> bool:
    """Whether `pump` has a short one-shot timer still to fire."""
    return any(
        timer._repeat == 0
        and timer._interval <= DEBOUNCE_LIMIT
        and timer._task is not None
        and not timer._task.done()
        for timer in list(pump._timers)
    )


def repaint_pending(screen: Screen[Any]) -> bool:
    """Whether `screen` has layout, repaint or after-refresh callbacks left to run."""
    return bool(
        screen._layout_required
        or screen._scroll_required
        or screen._repaint_required
        or screen._recompose_required
        or screen._dirty_widgets
        or screen._callbacks
    )


def pending(app: App[Any], index: bool = True) -> list[str]:
    """What keeps the app from being settled, one entry per kind (empty: settled); with
    `index`, an app with a context and no index yet is not settled."""
    reasons: list[str] = []
    loaded = getattr(getattr(app, "ctx", None), "index", None)
    if index and hasattr(app, "ctx") and loaded is None:
        reasons.append("the index is not installed")
    if watch_pending(app):
        reasons.append("the file watcher is not set up")
    workers = finite_workers(app)
    if workers:
        reasons.append("workers " + ", ".join(sorted({str(w.group) for w in workers})))
    nodes = list(pumps(app))
    queued = [n for n in nodes if n.message_queue_size or n._next_callbacks]
    if queued:
        reasons.append("messages for " + ", ".join(sorted({describe(n) for n in queued})))
    timed = [n for n in nodes if debouncing(n)]
    if timed:
        reasons.append("timers of " + ", ".join(sorted({describe(n) for n in timed})))
    if repaint_pending(app.screen):
        reasons.append("a repaint")
    if app.animator._animations or app.animator._scheduled:
        reasons.append("an animation")
    return reasons


def describe(pump: MessagePump) -> str:
    """A short name for a message pump in a failure message."""
    if isinstance(pump, DOMNode) and pump.id:
        return f"{type(pump).__name__}#{pump.id}"
    return type(pump).__name__


async def wait_idle(
    pilot: Pilot[Any], timeout: float = SETTLE_TIMEOUT, *, index: bool = True
) -> None:
    """Wait until the index is installed, the file watcher (if any) is set up, every finite
    worker has finished, every queued message and callback is handled, no debounce is pending
    and the screen is repainted; fail naming what is pending after `timeout` seconds.

    `index=False` for an app held at a start-up question (an unreadable history), which starts
    indexing only once it is answered.
    """
    app = pilot.app
    deadline = time.monotonic() + timeout
    while True:
        workers = finite_workers(app)
        if workers:
            with contextlib.suppress(WorkerCancelled, TimeoutError):
                remaining = max(deadline - time.monotonic(), 0.0)
                await asyncio.wait_for(app.workers.wait_for_complete(workers), remaining)
        await pilot.pause()
        reasons = pending(app, index)
        if not reasons:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"the app did not settle in {timeout} s: " + "; ".join(reasons))


async def wait_for(
    pilot: Pilot[Any], condition: Callable[[], object], timeout: float = 5.0
) -> bool:
    """Pause until `condition()` is true or `timeout` seconds passed; returns the last value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        await pilot.pause(POLL)
    return bool(condition())
