"""Notifications as plain text: paths, titles, actors and results may hold `[brackets]`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import App

from memtui.core.display import visible, visible_text

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel


class PlainNotifyApp(App[None]):
    """An app whose every notification, from any widget, is shown as display-safe plain text,
    never markup."""

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Show a notification as display-safe plain text (`markup` is ignored)."""
        super().notify(
            visible_text(message),
            title=visible(title),
            severity=severity,
            timeout=timeout,
            markup=False,
        )
