"""Monotonic time and one-shot timers for the app's debounces, replaceable so tests step them."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from textual.message import Message
from textual.message_pump import MessagePump


class Stoppable(Protocol):
    """A pending timer: `stop()` drops its action if it has not run yet."""

    def stop(self) -> None:
        """Drop the action."""


class Timers:
    """The system's monotonic clock and Textual's timers: what every debounce in the app waits
    on (a test gives the app a subclass whose time moves only when told)."""

    def now(self) -> float:
        """Monotonic seconds."""
        return time.monotonic()

    def sent_at(self, message: Message) -> float:
        """When `message` was sent, on this clock (a burst of moves handled late stays a burst)."""
        return message.time

    def later(self, owner: MessagePump, delay: float, action: Callable[[], object]) -> Stoppable:
        """Run `action` on `owner`'s thread after `delay` seconds, unless stopped before."""
        return owner.set_timer(delay, action)


SYSTEM_TIMERS = Timers()
"""The timers of an app that was given none, and of widgets outside memtui's app."""


def timers_of(node: MessagePump) -> Timers:
    """The timers of the app `node` runs in: what that app was given, else the system's."""
    timers = getattr(node.app, "timers", None)
    return timers if isinstance(timers, Timers) else SYSTEM_TIMERS
