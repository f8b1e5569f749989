"""A missing or unstartable $EDITOR in a real terminal (tmux): one message, the screen comes back
and keys work (no blank screen, no raw key echo), and the app quits cleanly."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import time
from pathlib import Path

import pytest

from tests.tui.conftest import write_fixture_store
from tests.tui.tmux import MEMTUI, tmux, wait_for_screen

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


@pytest.mark.parametrize("kind", ["missing", "unstartable"])
def test_a_bad_editor_leaves_the_app_usable(tmp_path: Path, kind: str) -> None:
    """`E` with EDITOR naming a program that is not installed (nothing is suspended), or one on
    PATH that cannot start (the app suspends, the start fails, the app must resume)."""
    root = write_fixture_store(tmp_path / "memories")
    editor = "nano-not-installed"
    if kind == "unstartable":
        script = tmp_path / "bad-editor"
        script.write_text("#!/nonexistent/interpreter\n", encoding="utf-8")
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
        editor = str(script)
    log = tmp_path / "exit.txt"
    session = f"memtui-editor-{os.getpid()}-{kind}"
    command = (
        f"env -u COLUMNS -u LINES -u VISUAL HOME={tmp_path} MEMTUI_CONFIG_FILE=/dev/null "
        f"EDITOR='{editor}' {MEMTUI} {root}; echo exit=$? > {log}; sleep 5"
    )
    tmux("new-session", "-d", "-s", session, "-x", "140", "-y", "40", command)
    try:
        tmux("resize-window", "-t", session, "-x", "140", "-y", "40")
        wait_for_screen(session, "3 notes")
        tmux("send-keys", "-t", session, "-l", "/")
        wait_for_screen(session, "Type to search")
        time.sleep(0.2)
        tmux("send-keys", "-t", session, "-l", "widgets")
        wait_for_screen(session, "tools/textual.md:12")
        tmux("send-keys", "-t", session, "Enter")
        wait_for_screen(session, "tools/textual.md  ·  Textual")
        time.sleep(0.3)
        tmux("send-keys", "-t", session, "E")
        shown = wait_for_screen(session, "Cannot edit in your editor")
        assert "Cannot edit in your editor" in shown, shown
        assert "tools/textual.md  ·  Textual" in shown
        tmux("send-keys", "-t", session, "-l", "/")
        searching = wait_for_screen(session, "Type to search")
        assert "Type to search" in searching, searching
        tmux("send-keys", "-t", session, "Escape")
        time.sleep(0.3)
        tmux("send-keys", "-t", session, "C-q")
        deadline = time.monotonic() + 10
        while not log.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert log.read_text(encoding="utf-8") == "exit=0\n"
        after = tmux("capture-pane", "-t", session, "-p")
        assert "Traceback" not in after
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True, check=False)
