"""`memtui [PATH] [--demo]`: open the Textual app on a memory directory."""

from __future__ import annotations

from collections.abc import Sequence


def main(argv: Sequence[str]) -> int:
    """Parse app options and run the app."""
    raise SystemExit("memtui app: not built yet")
