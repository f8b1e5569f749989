"""Background loops that rest now and then, so a UI thread gets the interpreter lock at once."""

from __future__ import annotations

import threading
import time

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
