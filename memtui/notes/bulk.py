"""Background loops that rest now and then, so a UI thread gets the interpreter lock at once.

Nothing here is process-wide: an app that wants its loops to yield more while it is in use owns
an `InteractionSignal` (memtui's app: `tui.interaction.Interaction`) and passes it to the work it
starts."""

from __future__ import annotations

import threading
import time
from typing import Protocol

PACE_EVERY = 0.005
"""Seconds a background loop runs before it rests for PACE_REST."""
PACE_REST = 0.002
"""Seconds a background loop rests, so the UI thread gets the interpreter lock at once."""
PACE_EVERY_INTERACTIVE = 0.002
"""Seconds a background loop runs between rests while someone is using the UI."""
PACE_REST_INTERACTIVE = 0.008
"""Seconds a background loop rests while someone is using the UI, so a key's frame is painted
without waiting for the loop's turns at the interpreter lock."""


class InteractionSignal(Protocol):
    """What a paced loop asks the app that started it: whether someone used it just now (the
    app's own `Interaction` answers; the notes layer keeps no such state itself)."""

    def recent(self, now: float | None = None) -> bool:
        """Whether someone pressed a key or clicked in the app a moment ago."""
        ...


class Pacer:
    """Call in a long loop: off the main thread, it rests now and then, longer and more often
    while someone is using the UI."""

    def __init__(self, interaction: InteractionSignal | None = None) -> None:
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
