"""Follow a moving cursor: act at once after a rest, else only where the cursor stops."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.message_pump import MessagePump
    from textual.timer import Timer


class RestGate:
    """Runs the action for a cursor move at once when the cursor had rested `rest` seconds,
    else once it stays put that long: a key held down acts only where it stops."""

    def __init__(self, owner: MessagePump, rest: float) -> None:
        """Gate moves of a cursor in `owner` (whose timers run the late actions)."""
        self.owner = owner
        self.rest = rest
        self._timer: Timer | None = None
        self._moved_at = float("-inf")

    def moved(self, action: Callable[[], object], *, at: float | None = None) -> None:
        """The cursor moved (at monotonic time `at`, default now): run `action` now after a
        rest, else when no further move comes within `rest` seconds."""
        self.cancel()
        now = time.monotonic() if at is None else at
        rested = now - self._moved_at >= self.rest
        self._moved_at = now
        if rested:
            action()
        else:
            self._timer = self.owner.set_timer(self.rest, lambda: self._fire(action))

    def cancel(self) -> None:
        """Drop a late action that has not run yet."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    @property
    def pending(self) -> bool:
        """Whether a late action waits for the cursor to rest."""
        return self._timer is not None

    def _fire(self, action: Callable[[], object]) -> None:
        """The cursor rested: run the late action."""
        self._timer = None
        action()
