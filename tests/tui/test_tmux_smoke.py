"""Smoke test: the installed `memtui` in a real terminal (tmux): open, search, quit, no
traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.tui.conftest import write_fixture_store
from tests.tui.tmux import MEMTUI, tmux, wait_for_screen

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def test_search_and_external_editor_in_a_real_terminal(tmp_path: Path) -> None:
    """Type a search, open the hit, edit it with $EDITOR (the app suspends), quit cleanly."""
    root = write_fixture_store(tmp_path / "memories")
    log = tmp_path / "exit.txt"
    session = f"memtui-smoke-{os.getpid()}-{tmp_path.name}"
    editor = "sed -i s/Workers/Threads/"
    command = (
        f"env -u COLUMNS -u LINES -u VISUAL HOME={tmp_path} EDITOR='{editor}' {MEMTUI} {root};"
        f" echo exit=$? > {log}; sleep 5"
    )
    tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40", command)
    try:
        tmux("resize-window", "-t", session, "-x", "120", "-y", "40")
        first = wait_for_screen(session, "3 notes")
        assert "projects" in first and "3 notes" in first
        tmux("send-keys", "-t", session, "-l", "/")
        wait_for_screen(session, "Type to search")
        time.sleep(0.2)
        tmux("send-keys", "-t", session, "-l", "widgets")
        screen = wait_for_screen(session, "tools/textual.md:12")
        assert "Workers never touch widgets #workers" in screen
        tmux("send-keys", "-t", session, "Enter")
        opened = wait_for_screen(session, "tools/textual.md  ·  Textual")
        assert "tools/textual.md  ·  Textual" in opened, opened
        time.sleep(0.3)
        tmux("send-keys", "-t", session, "E")
        wait_for_screen(session, "Threads never touch widgets")
        note = (root / "tools" / "textual.md").read_text(encoding="utf-8")
        assert "- [tip] Threads never touch widgets #workers\n" in note
        tmux("send-keys", "-t", session, "C-q")
        deadline = time.monotonic() + 10
        while not log.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert log.read_text(encoding="utf-8") == "exit=0\n"
        after = tmux("capture-pane", "-t", session, "-p")
        assert "Traceback" not in after and "Traceback" not in screen
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True, check=False)
