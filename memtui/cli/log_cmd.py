"""`memtui log`: not built yet."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `log` subcommand."""
    subparsers.add_parser("log", help="(not built yet)")


def run(args: argparse.Namespace) -> int:
    """Run `memtui log`."""
    raise SystemExit("memtui log: not built yet")
