"""When someone last used the app: the app notes each key and click, its background work yields."""

from __future__ import annotations

import time

INTERACTIVE_WINDOW = 0.5
"""Seconds after the last key or click during which the app counts as in use."""


class Interaction:
    """When someone last pressed a key or clicked in the app that owns this: the app notes each
    key and click, and hands this to the background work it starts (an `InteractionSignal` for
    the notes layer's paced loops), which yields more to the UI while one is recent."""

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
