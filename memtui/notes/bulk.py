"""Building many objects at once without garbage-collector pauses that stop every thread."""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

KEEP_MIN_NOTES = 5_000
"""Stores with this many notes have their loaded index kept out of the collector's full passes,
which would otherwise stop every thread, a UI's included, for tenths of a second at 50k notes."""


@contextmanager
def collector_paused(*, keep: bool = False) -> Iterator[None]:
    """Pause the garbage collector while the block allocates; with `keep`, the objects that exist
    afterwards (a long-lived index) are frozen out of its passes before it runs again."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if keep:
            gc.freeze()
        if was_enabled:
            gc.enable()


PACE_EVERY = 0.005
"""Seconds a background loop runs before it rests for PACE_REST."""
PACE_REST = 0.002
"""Seconds a background loop rests, so the UI thread gets the interpreter lock at once."""
PACE_EVERY_INTERACTIVE = 0.002
"""Seconds a background loop runs between rests while someone is using the UI."""
PACE_REST_INTERACTIVE = 0.008
"""Seconds a background loop rests while someone is using the UI, so a key's frame is painted
without waiting for the loop's turns at the interpreter lock."""
INTERACTIVE_WINDOW = 0.5
"""Seconds after the last key or click during which the UI counts as in use."""

_last_interaction = float("-inf")


def note_interaction() -> None:
    """Record that someone pressed a key or clicked: background loops yield more for a while."""
    global _last_interaction
    _last_interaction = time.perf_counter()


def interactive(now: float | None = None) -> bool:
    """Whether a key or click came within the last INTERACTIVE_WINDOW seconds."""
    now = time.perf_counter() if now is None else now
    return now - _last_interaction < INTERACTIVE_WINDOW


class Pacer:
    """Call in a long loop: off the main thread, it rests now and then, longer and more often
    while someone is using the UI."""

    def __init__(self) -> None:
        """Start the first turn now; on the main thread calls do nothing."""
        self.active = threading.current_thread() is not threading.main_thread()
        self.turn = time.perf_counter() + PACE_EVERY

    def __call__(self) -> None:
        """Rest if this turn is over."""
        if not self.active:
            return
        now = time.perf_counter()
        if now <= self.turn:
            return
        if interactive(now):
            time.sleep(PACE_REST_INTERACTIVE)
            self.turn = time.perf_counter() + PACE_EVERY_INTERACTIVE
        else:
            time.sleep(PACE_REST)
            self.turn = time.perf_counter() + PACE_EVERY
