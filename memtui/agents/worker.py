"""Runs blocking store calls from async code on one dedicated thread, so the event loop
stays free."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class SerialWorker:
    """One worker thread for a store: calls run in order on the same thread (SQLite wants that)."""

    def __init__(self, name: str = "memtui-store") -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)

    async def run(self, function: Callable[..., T], *args: object) -> T:
        """Run `function(*args)` on the worker thread and await its result."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, function, *args)

    def close(self) -> None:
        """Stop the worker thread once queued calls have finished."""
        self._executor.shutdown(wait=True)
