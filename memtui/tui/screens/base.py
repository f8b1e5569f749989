"""The base of the full screens opened over the main one: context, clock, index updates, back."""

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

    def follow_index(self, callback: Callable[..., None]) -> None:
        """Call `callback` when the index has loaded and whenever notes change."""
        app: Any = self.app
        for name in ("index_ready_signal", "notes_changed_signal"):
            signal = getattr(app, name, None)
            if signal is not None:
                signal.subscribe(self, callback)

    def action_close(self) -> None:
        """Go back to the previous screen."""
        self.dismiss(None)
