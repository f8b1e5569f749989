"""Background refreshes of a screen: computed in a thread, one run at a time, only while visible."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from textual.message import Message
from textual.screen import Screen
from textual.worker import Worker

T = TypeVar("T")

LONGEST_WAIT = 4
"""A steady stream of requests delays a rerun by at most this many quiet periods."""


def is_visible(screen: Screen[Any]) -> bool:
    """Whether a screen is on the stack with nothing opaque above it."""
    stack = screen.app.screen_stack
    if screen not in stack:
        return False
    return all(above.styles.background.a < 1 for above in stack[stack.index(screen) + 1 :])


@dataclass
class Computed(Message, bubble=False):
    """A background run finished; the screen calls `apply(result)` on the UI thread."""

    apply: Callable[[Any], None]
    result: Any


class Refresher(Generic[T]):
    """Runs `compute` in a thread and posts its result to the screen for `apply`.

    The first request runs at once. Requests made while a run is under way become one more run,
    started once no request came for `quiet` seconds. Requests made (or runs due) while the
    screen is hidden wait until `resume`. Runs read the index through their own connection, so an
    update landing meanwhile never breaks one; its change notice asks for another run.
    """

    def __init__(
        self,
        screen: Screen[Any],
        name: str,
        compute: Callable[[], T],
        apply: Callable[[T], None],
        *,
        quiet: float = 0.0,
    ) -> None:
        """Refresh `screen` with `compute` (any thread) and `apply` (UI thread) as worker `name`."""
        self.screen = screen
        self.name = name
        self.compute = compute
        self.apply = apply
        self.quiet = quiet
        self.wanted = False
        self.missed = False
        self.last_request = 0.0
        self.worker: Worker[None] | None = None

    def request(self, *, now: bool = False) -> None:
        """Ask for a run; `now` skips the quiet wait of a rerun."""
        if not is_visible(self.screen):
            self.missed = True
            return
        self.wanted = True
        self.last_request = 0.0 if now else time.monotonic()
        if self.worker is None or self.worker.is_finished:
            self.worker = self.screen.run_worker(self._run(), group=self.name, exit_on_error=False)

    def resume(self) -> None:
        """The screen shows again: run once if something was asked for while it was hidden."""
        if self.missed:
            self.missed = False
            self.request(now=True)

    async def _run(self) -> None:
        """Compute while runs are wanted, posting each result."""
        first = True
        while self.wanted:
            if not first:
                await self._quiet_wait()
            first = False
            self.wanted = False
            if not is_visible(self.screen):
                self.missed = True
                return
            result = await asyncio.to_thread(self.compute)
            self.screen.post_message(Computed(self.apply, result))

    async def _quiet_wait(self) -> None:
        """Wait until no request came for `quiet` seconds (or the longest wait passed)."""
        deadline = time.monotonic() + self.quiet * LONGEST_WAIT
        while (wait := min(self.last_request + self.quiet, deadline) - time.monotonic()) > 0:
            await asyncio.sleep(wait)
