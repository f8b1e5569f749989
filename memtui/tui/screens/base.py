"""The base of the full screens opened over the main one: context, clock, index updates, back."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from textual.screen import Screen

from memtui.tui.background import Computed, Refresher
from memtui.tui.typed_app import memtui_app

if TYPE_CHECKING:
    from memtui.tui.app import MemtuiApp
    from memtui.tui.context import AppContext

T = TypeVar("T")
ResultT = TypeVar("ResultT")


class MemtuiScreen(Screen[ResultT]):
    """A screen of memtui's app: the app and its shared context, typed."""

    @property
    def memtui(self) -> MemtuiApp:
        """The app, typed."""
        return memtui_app(self)

    @property
    def ctx(self) -> AppContext:
        """The shared context of the open store."""
        return self.memtui.ctx


class StoreScreen(MemtuiScreen[None]):
    """A screen over the open store that `escape` (the `close` action) leaves."""

    _clock: Callable[[], float] | None = None
    _refreshers: list[Refresher[Any]] | None = None

    def now(self) -> float:
        """The current time: the given clock, else the app's clock."""
        clock = self._clock or self.memtui.clock
        return float(clock())

    def follow_index(self, callback: Callable[..., None]) -> None:
        """Call `callback` when the index has loaded and whenever notes change."""
        self.memtui.index_ready_signal.subscribe(self, callback)
        self.memtui.notes_changed_signal.subscribe(self, callback)

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
