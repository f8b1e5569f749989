"""Building many objects at once without garbage-collector pauses that stop every thread."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

KEEP_MIN_NOTES = 5_000
"""Stores with this many notes have their loaded index kept out of the collector's full passes,
which would otherwise stop every thread, a UI's included, for tenths of a second at 50k notes."""


@contextmanager
def collector_paused(*, keep: bool = False) -> Iterator[None]:
    """Pause the garbage collector while the block allocates; with `keep`, the objects that exist
    afterwards (a long-lived index) are frozen out of its passes before it runs again."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if keep:
            gc.freeze()
        if was_enabled:
            gc.enable()
