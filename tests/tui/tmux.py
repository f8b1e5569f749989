"""Driving the installed `memtui` in a real terminal: tmux commands and waiting for the screen."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

MEMTUI = Path(sys.executable).parent / "memtui"


def tmux(*args: str) -> str:
    """Run a tmux command and return its output."""
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True).stdout


def wait_for_screen(session: str, needle: str, timeout: float = 20.0) -> str:
    """Capture the pane until `needle` shows up; returns the last capture."""
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = tmux("capture-pane", "-t", session, "-p")
        if needle in screen:
            return screen
        time.sleep(0.1)
    return screen
