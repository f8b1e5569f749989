"""`memtui stale`: not built yet."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `stale` subcommand."""
    subparsers.add_parser("stale", help="(not built yet)")


def run(args: argparse.Namespace) -> int:
    """Run `memtui stale`."""
    raise SystemExit("memtui stale: not built yet")
