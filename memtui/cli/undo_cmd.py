"""`memtui undo`: not built yet."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `undo` subcommand."""
    subparsers.add_parser("undo", help="(not built yet)")


def run(args: argparse.Namespace) -> int:
    """Run `memtui undo`."""
    raise SystemExit("memtui undo: not built yet")
