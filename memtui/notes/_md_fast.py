"""Line-based fast path giving markdown-it's inline blocks for common notes, or None to fall back."""

from __future__ import annotations

from memtui.notes._md_reference import InlineBlock


def fast_blocks(body: str) -> list[InlineBlock] | None:
    """The inline blocks of `body`, or None when the reference parser must decide."""
    return None
