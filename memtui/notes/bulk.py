"""Background loops that rest now and then, so a UI thread gets the interpreter lock at once.

Nothing here is process-wide: an app that wants its loops to yield more while it is in use owns
an `Interaction` and passes it to the work it starts."""

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


class Interaction:
    """When someone last pressed a key or clicked in the app that owns this: the app notes each
    key and click, and hands this to the background work it starts, which yields more to the UI
    while one is recent."""

    def __init__(self) -> None:
        """No key or click yet."""
        self.last = float("-inf")

    def note(self) -> None:
        """Record that someone pressed a key or clicked: background loops yield more for a while."""
        self.last = time.perf_counter()

    def recent(self, now: float | None = None) -> bool:
        """Whether a key or click came within the last INTERACTIVE_WINDOW seconds."""
        now = time.perf_counter() if now is None else now
        return now - self.last < INTERACTIVE_WINDOW


class Pacer:
    """Call in a long loop: off the main thread, it rests now and then, longer and more often
    while someone is using the UI."""

    def __init__(self, interaction: Interaction | None = None) -> None:
        """Start the first turn now; on the main thread calls do nothing. Without an
        `interaction` (a library user, the command line) nobody is taken to be using a UI."""
        self.active = threading.current_thread() is not threading.main_thread()
        self.interaction = interaction
        self.turn = time.perf_counter() + PACE_EVERY

    def __call__(self) -> None:
        """Rest if this turn is over."""
        if not self.active:
            return
        now = time.perf_counter()
        if now <= self.turn:
            return
        if self.interaction is not None and self.interaction.recent(now):
            time.sleep(PACE_REST_INTERACTIVE)
            self.turn = time.perf_counter() + PACE_EVERY_INTERACTIVE
        else:
            time.sleep(PACE_REST)
            self.turn = time.perf_counter() + PACE_EVERY
