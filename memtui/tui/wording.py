"""Small wording helpers shared by the screens (one implementation, in the core)."""

from __future__ import annotations

from memtui.core.wording import count

__all__ = ["count"]
