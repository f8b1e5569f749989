"""No ignore rule hides a memory file from sync: a `.gitignore` an agent writes in the store (or
one pulled from another machine), nor the person's global git ignore file."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.sync.conftest import Machine, remote_files, tree_files


def test_an_agents_gitignore_hides_nothing_from_the_remote(
    machine: Callable[..., Machine],
) -> None:
    one = machine("one", files={"a.md": "# a\n"})
    agent = one.agent()
    agent.create("/memories/.gitignore", "*.md\ndocs/\n*.txt\n")
    agent.create("/memories/b.md", "- [plan] ship on Friday\n")
    agent.create("/memories/docs/c.md", "# c\n")
    agent.create("/memories/log.txt", "2026-11-28 worked on sync\n")
    report = one.sync()
    assert (report.committed, report.pushed) == (4, True)
    assert set(remote_files(one.remote)) == {".gitignore", "a.md", "b.md", "docs/c.md", "log.txt"}
    two = machine("two")
    assert tree_files(two.root) == tree_files(one.root)
    two.agent().str_replace("/memories/b.md", "Friday", "Monday")
    assert two.sync().pushed
    assert one.sync().pulled == 1
    assert one.text("b.md") == "- [plan] ship on Monday\n"


def test_the_persons_global_ignore_file_hides_nothing(
    machine: Callable[..., Machine], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ignore = Path(os.environ["HOME"]) / ".config" / "git" / "ignore"
    ignore.parent.mkdir(parents=True)
    ignore.write_text("*.txt\n*.xml\n")
    config = tmp_path / "gitconfig"
    config.write_text(f"[core]\n\texcludesFile = {ignore}\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    one = machine("one", files={"notes.md": "# n\n"})
    one.agent().create("/memories/session.txt", "2026-11-28 a log line\n")
    one.agent().create("/memories/prefs.xml", "<prefs><theme>dark</theme></prefs>\n")
    assert one.sync().committed == 2
    assert set(remote_files(one.remote)) == {"notes.md", "session.txt", "prefs.xml"}
