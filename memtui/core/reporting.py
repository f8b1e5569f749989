"""One-line failure reports on stderr, `memtui <command>: <message>`, for commands and examples."""

from __future__ import annotations

import sys

from memtui.core.display import visible


def fail(command: str, message: object, status: int = 2) -> int:
    """Print `memtui <command>: <message>` on stderr (display-safe); returns `status`.

    The message may hold file names, actor names or history text, so control characters in
    it are shown as visible symbols, never sent to the terminal.
    """
    print(f"memtui {command}: {visible(str(message))}", file=sys.stderr)
    return status


def open_failure(command: str, path: str, error: Exception) -> int:
    """Report a store that would not open: an OS error names the folder, others speak alone."""
    if isinstance(error, OSError):
        return fail(command, f"{path}: {error.strerror or error}")
    return fail(command, error)
