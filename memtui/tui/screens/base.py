"""The base of the full screens opened over the main one: context, clock, index updates, back."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from textual.screen import Screen

from memtui.tui.background import Computed, Refresher

if TYPE_CHECKING:
    from memtui.tui.context import AppContext

T = TypeVar("T")


class StoreScreen(Screen[None]):
    """A screen over the open store that `escape` (the `close` action) leaves."""

    _clock: Callable[[], float] | None = None
    _refreshers: list[Refresher[Any]] | None = None

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

    def refresher(
        self, name: str, compute: Callable[[], T], apply: Callable[[T], None], *, quiet: float = 0.0
    ) -> Refresher[T]:
        """A background refresh of this screen (see `Refresher`), resumed when the screen shows."""
        refresher = Refresher(self, name, compute, apply, quiet=quiet)
        self._refreshers = [*(self._refreshers or []), refresher]
        return refresher

    def on_computed(self, message: Computed) -> None:
        """Apply a background result on the UI thread."""
        message.apply(message.result)

    def on_screen_resume(self) -> None:
        """Run the refreshes asked for while the screen was hidden."""
        for refresher in self._refreshers or []:
            refresher.resume()

    def action_close(self) -> None:
        """Go back to the previous screen."""
        self.dismiss(None)
