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
"""Seconds a background loop rests, so the UI thread gets the interpreter lock at once and
keeps it for a whole frame instead of taking turns with every busy thread."""


class Pacer:
    """Call in a long loop: off the main thread, it sleeps PACE_REST every PACE_EVERY seconds."""

    def __init__(self) -> None:
        """Start the first turn now; on the main thread calls do nothing."""
        self.active = threading.current_thread() is not threading.main_thread()
        self.turn = time.perf_counter() + PACE_EVERY

    def __call__(self) -> None:
        """Rest if this turn is over."""
        if self.active and time.perf_counter() > self.turn:
            time.sleep(PACE_REST)
            self.turn = time.perf_counter() + PACE_EVERY
