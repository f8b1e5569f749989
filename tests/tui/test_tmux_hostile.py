"""In a real terminal (tmux), a store of hostile names, notes and history changes neither the
terminal's title nor its clipboard, whatever screen shows them."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tui.hostile_terminal import build_hostile_terminal_store
from tests.tui.tmux import MEMTUI

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

CONTROL_TITLE = "control-title"
CONTROL_CLIP = "control-clip"


class Terminal:
    """A tmux server of its own (so its options and buffers are the test's), one pane each."""

    def __init__(self, socket: str) -> None:
        """Name the server's socket."""
        self.socket = socket

    def run(self, *args: str) -> str:
        """Run a tmux command on this server and return its output."""
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=True
        ).stdout

    def title(self, target: str) -> str:
        """The pane's title, as an OSC 0 or 2 sequence would set it."""
        return self.run("display-message", "-p", "-t", target, "#{pane_title}").strip()

    def buffers(self) -> str:
        """Every paste buffer, as OSC 52 would add one."""
        return self.run("list-buffers", "-F", "#{buffer_name}: #{buffer_sample}")

    def screen(self, target: str) -> str:
        """What the pane shows now."""
        return self.run("capture-pane", "-p", "-t", target)

    def wait_for(self, target: str, needle: str, timeout: float = 20.0) -> str:
        """Capture the pane until `needle` shows; returns the last capture."""
        deadline = time.monotonic() + timeout
        shown = ""
        while time.monotonic() < deadline:
            shown = self.screen(target)
            if needle in shown:
                return shown
            time.sleep(0.1)
        raise AssertionError(f"{needle!r} never showed; the pane shows:\n{shown}")

    def keys(self, target: str, *keys: str, rest: float = 0.4) -> None:
        """Send keys one at a time, resting after each so views follow the cursor."""
        for key in keys:
            self.run("send-keys", "-t", target, key)
            time.sleep(rest)


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    """A private tmux server that honours OSC 52 (set-clipboard on), killed afterwards."""
    term = Terminal(f"memtui-hostile-{os.getpid()}-{tmp_path.name}")
    term.run("new-session", "-d", "-s", "control", "-x", "160", "-y", "45", "sleep 600")
    term.run("set-option", "-g", "set-clipboard", "on")
    try:
        yield term
    finally:
        subprocess.run(["tmux", "-L", term.socket, "kill-server"], capture_output=True, check=False)


def test_the_terminal_obeys_the_attacks_when_printed_raw(terminal: Terminal) -> None:
    """The control: the same kinds of sequences printed raw do retitle this terminal and fill
    its clipboard, so the test below would see an app that let one through."""
    terminal.run(
        "new-window",
        "-t",
        "control",
        "-n",
        "raw",
        f"printf '\\033]0;{CONTROL_TITLE}\\007\\033]52;c;Y29udHJvbC1jbGlw\\033\\\\'; sleep 30",
    )
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and terminal.title("control:raw") != CONTROL_TITLE:
        time.sleep(0.1)
    assert terminal.title("control:raw") == CONTROL_TITLE
    assert CONTROL_CLIP in terminal.buffers()


def test_every_screen_of_a_hostile_store_leaves_title_and_clipboard_alone(
    terminal: Terminal, tmp_path: Path
) -> None:
    """Open the hostile store in the installed memtui and visit the tree, every file's preview,
    the raw view, history with its diffs, graph, review, the changes inbox with its diffs,
    search, palette, rename, delete and the editor: the pane's title and the clipboard buffers
    stay as they were."""
    root = build_hostile_terminal_store(tmp_path / "memories")
    command = (
        f"env -u COLUMNS -u LINES HOME={tmp_path} XDG_CONFIG_HOME={tmp_path}/config {MEMTUI} {root}"
    )
    terminal.run("new-window", "-t", "control", "-n", "app", command)
    app = "control:app"
    title = terminal.title(app)
    first = terminal.wait_for(app, "to review (c)", timeout=90.0)
    assert "Traceback" not in first
    terminal.keys(app, "Right", *["Down"] * 8)
    terminal.keys(app, *["Up"] * 3)
    terminal.wait_for(app, "Heading ␛]0;pwned-title␇")
    terminal.keys(app, "v")
    terminal.wait_for(app, "hostile.md  ·  raw view  ·  ≈")
    terminal.keys(app, "v", "h")
    terminal.wait_for(app, "newest first")
    terminal.keys(app, *["Down"] * 8, "Escape", "g")
    terminal.wait_for(app, "Graph ·")
    terminal.keys(app, "Escape", "r")
    terminal.wait_for(app, "Review ·")
    terminal.keys(app, "Escape", "c")
    terminal.wait_for(app, "Changes to review ·")
    terminal.keys(app, "Down", "Up", "Down")
    terminal.keys(app, "Escape", "/")
    terminal.run("send-keys", "-t", app, "-l", "observed")
    terminal.wait_for(app, "observed ␛]0;pwned-title␇")
    terminal.keys(app, "Escape", "C-p")
    terminal.run("send-keys", "-t", app, "-l", "inner")
    terminal.wait_for(app, "open: inner")
    terminal.keys(app, "Escape", "m")
    terminal.wait_for(app, "Rename or move")
    terminal.keys(app, "Escape", "d")
    terminal.wait_for(app, "Delete ")
    terminal.keys(app, "Escape", "e")
    terminal.wait_for(app, "editing hostile.md")
    terminal.keys(app, "Escape")
    assert "Traceback" not in terminal.screen(app)
    assert terminal.title(app) == title
    terminal.keys(app, "C-q")
    assert terminal.buffers() == ""
