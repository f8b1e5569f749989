"""`memtui resolve PATH ID` without a choice prints a whole-note clash line by line."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.cli import main
from memtui.core.config import Settings
from memtui.core.store import MemoryStore


def test_a_note_deleted_there_and_changed_here_is_shown_line_by_line(
    tmp_path: Path, remote: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    (one / "prefs.md").write_text("# Prefs\n- editor: vim\n")
    assert main(["sync", str(one), "--remote", str(remote), "--machine", "one"]) == 0
    assert main(["sync", str(two), "--remote", str(remote), "--machine", "two"]) == 0
    MemoryStore(one, actor="agent:claude", settings=Settings()).delete("/memories/prefs.md")
    here = MemoryStore(two, actor="agent:claude", settings=Settings())
    here.insert("/memories/prefs.md", 2, "- shell: fish\x1b[2J")
    assert main(["sync", str(one), "--machine", "one"]) == 0
    assert main(["sync", str(two), "--machine", "two"]) == 1
    capsys.readouterr()
    assert main(["resolve", str(two), "1"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "clash 1: /memories/prefs.md: changed here, deleted by agent:claude on one; the note is "
        "kept",
        "--- yours",
        "# Prefs",
        "- editor: vim",
        "- shell: fish␛[2J",
        "--- theirs",
        "(deleted)",
    ]
