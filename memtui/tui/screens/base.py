"""The base of the full screens opened over the main one: the store's context, a clock, and back."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.screen import Screen

if TYPE_CHECKING:
    from memtui.tui.context import AppContext


class StoreScreen(Screen[None]):
    """A screen over the open store that `escape` (the `close` action) leaves."""

    _clock: Callable[[], float] | None = None

    @property
    def ctx(self) -> AppContext:
        """The app's shared context."""
        app: Any = self.app
        return app.ctx

    def now(self) -> float:
        """The current time: the given clock, else the app's clock, else the wall clock."""
        clock = self._clock or getattr(self.app, "clock", None) or time.time
        return float(clock())

    def action_close(self) -> None:
        """Go back to the previous screen."""
        self.dismiss(None)
