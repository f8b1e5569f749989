"""`memtui mcp`: not built yet."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `mcp` subcommand."""
    subparsers.add_parser("mcp", help="(not built yet)")


def run(args: argparse.Namespace) -> int:
    """Run `memtui mcp`."""
    raise SystemExit("memtui mcp: not built yet")
