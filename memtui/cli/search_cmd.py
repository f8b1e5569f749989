"""`memtui search`: not built yet."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `search` subcommand."""
    subparsers.add_parser("search", help="(not built yet)")


def run(args: argparse.Namespace) -> int:
    """Run `memtui search`."""
    raise SystemExit("memtui search: not built yet")
