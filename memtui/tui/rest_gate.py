"""Follow a moving cursor: act at once after a rest, else only where the cursor stops."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from memtui.tui.timers import Stoppable, Timers, timers_of

if TYPE_CHECKING:
    from textual.message_pump import MessagePump


class RestGate:
    """Runs the action for a cursor move at once when the cursor had rested `rest` seconds,
    else once it stays put that long: a key held down acts only where it stops."""

    def __init__(self, owner: MessagePump, rest: float, timers: Timers | None = None) -> None:
        """Gate moves of a cursor in `owner` (whose timers run the late actions); time and
        timers come from `timers`, by default the app's."""
        self.owner = owner
        self.rest = rest
        self._timers = timers
        self._timer: Stoppable | None = None
        self._moved_at = float("-inf")

    @property
    def timers(self) -> Timers:
        """The clock and timers the gate waits on."""
        return self._timers if self._timers is not None else timers_of(self.owner)

    def moved(self, action: Callable[[], object], *, at: float | None = None) -> None:
        """The cursor moved (at time `at` on the gate's clock, default now): run `action` now
        after a rest, else when no further move comes within `rest` seconds."""
        self.cancel()
        timers = self.timers
        now = timers.now() if at is None else at
        rested = now - self._moved_at >= self.rest
        self._moved_at = now
        if rested:
            action()
        else:
            self._timer = timers.later(self.owner, self.rest, lambda: self._fire(action))

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
