"""`memtui export`: not built yet."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `export` subcommand."""
    subparsers.add_parser("export", help="(not built yet)")


def run(args: argparse.Namespace) -> int:
    """Run `memtui export`."""
    raise SystemExit("memtui export: not built yet")
