"""The app as memtui's screens and widgets know it: one typed accessor instead of `Any`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:
    from textual.app import App

    from memtui.tui.app import MemtuiApp


class InApp(Protocol):
    """Anything that runs in a Textual app: a screen, a widget, a palette provider."""

    @property
    def app(self) -> App[Any]:
        """The app it runs in."""
        ...


def memtui_app(node: InApp) -> MemtuiApp:
    """The memtui app `node` runs in."""
    return cast("MemtuiApp", node.app)
