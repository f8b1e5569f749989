"""Timers whose time moves only when a test says so: debounces are stepped, never waited on."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual.message import Message
from textual.message_pump import MessagePump

from memtui.tui.timers import Timers


@dataclass
class ManualTimer:
    """One pending action: due at `due` on the manual clock, run on `owner`'s message queue."""

    due: float
    owner: MessagePump
    action: Callable[[], object]
    stopped: bool = False

    def stop(self) -> None:
        """Drop the action if it has not run yet."""
        self.stopped = True


class ManualTimers(Timers):
    """A clock that stands still until `advance`, which runs (in order) the timers that fell
    due, each posted to its owner as a Textual timer's would be: await a pause after it."""

    def __init__(self, start: float = 1000.0) -> None:
        """Start the clock at `start` seconds with nothing pending."""
        self.time = start
        self.pending: list[ManualTimer] = []

    def now(self) -> float:
        """The manual time."""
        return self.time

    def sent_at(self, message: Message) -> float:
        """Every message is sent at the manual time."""
        return self.time

    def later(self, owner: MessagePump, delay: float, action: Callable[[], object]) -> ManualTimer:
        """Keep `action` until the clock passes `delay` seconds from now."""
        timer = ManualTimer(self.time + delay, owner, action)
        self.pending.append(timer)
        return timer

    def advance(self, seconds: float) -> int:
        """Move the clock on by `seconds`; post the actions that fell due; return how many."""
        self.time += seconds
        self.pending = [timer for timer in self.pending if not timer.stopped]
        due = sorted((t for t in self.pending if t.due <= self.time), key=lambda t: t.due)
        self.pending = [timer for timer in self.pending if timer not in due]
        for timer in due:
            timer.owner.call_later(timer.action)
        return len(due)
