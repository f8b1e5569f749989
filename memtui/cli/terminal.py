"""Printing to a terminal or a pipe: a Rich console whose closed pipe ends the command with 141."""

from __future__ import annotations

from typing import Any


def console(**options: Any) -> Any:
    """A Rich `Console` that raises `BrokenPipeError` when the reader has gone (Rich exits with 1)."""
    from rich.console import Console

    class _PipeConsole(Console):
        """Leaves a closed pipe to `memtui.cli.main`, which ends with the SIGPIPE status."""

        def on_broken_pipe(self) -> None:
            """Stop printing and let the caller end the command."""
            self.quiet = True
            raise BrokenPipeError

    return _PipeConsole(**options)
