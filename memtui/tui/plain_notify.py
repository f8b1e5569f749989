"""Notifications as plain text: paths, titles, actors and results may hold `[brackets]`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import App

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel


class PlainNotifyApp(App[None]):
    """An app whose every notification, from any widget, is shown as plain text, never markup."""

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Show a notification as plain text (`markup` is ignored)."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)
