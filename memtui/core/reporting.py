"""One-line failure reports on stderr, `memtui <command>: <message>`, for commands and examples."""

from __future__ import annotations

import sys

from memtui.core.display import visible


def fail(command: str, message: object, status: int = 2) -> int:
    """Print `memtui <command>: <message>` on stderr, display-safe on one line (a path or an
    actor in it cannot drive the terminal); returns `status` as the exit status."""
    print(f"memtui {command}: {visible(str(message))}", file=sys.stderr)
    return status


def open_failure(command: str, path: str, error: Exception) -> int:
    """Report a store that would not open: an OS error names the folder, others speak alone."""
    if isinstance(error, OSError):
        return fail(command, f"{path}: {error.strerror or error}")
    return fail(command, error)
