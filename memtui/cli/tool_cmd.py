"""`memtui tool`: not built yet."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `tool` subcommand."""
    subparsers.add_parser("tool", help="(not built yet)")


def run(args: argparse.Namespace) -> int:
    """Run `memtui tool`."""
    raise SystemExit("memtui tool: not built yet")
