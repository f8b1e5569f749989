"""`memtui search --actor`, `memtui stale` and `memtui log` see outside edits and renames."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from memtui.core.recording.history import History

MEMTUI = str(Path(sys.executable).with_name("memtui"))


def memtui(tmp_path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """Run `memtui ARGS` with an isolated config."""
    env = {
        "PATH": "/usr/bin:/bin",
        "MEMTUI_CONFIG_FILE": os.devnull,
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    return subprocess.run(
        [MEMTUI, *args], input=stdin, capture_output=True, text=True, env=env, timeout=60
    )


def tool(tmp_path: Path, store: Path, *inputs: dict[str, str]) -> None:
    """Run memory-tool inputs as agent:claude; every one must succeed."""
    done = memtui(
        tmp_path,
        "tool",
        str(store),
        "--actor",
        "claude",
        stdin="\n".join(json.dumps(i) for i in inputs),
    )
    assert done.returncode == 0, done.stderr
    assert not any(json.loads(line)["is_error"] for line in done.stdout.splitlines())


def test_a_note_edited_by_hand_is_credited_to_external(tmp_path: Path) -> None:
    store = tmp_path / "st"
    tool(
        tmp_path,
        store,
        {"command": "create", "path": "/memories/b.md", "file_text": "# B\n\nhello\n"},
    )
    assert memtui(tmp_path, "search", str(store), "hello", "--actor", "agent").returncode == 0
    (store / "b.md").write_text("# B\n\nhello edited\n")

    as_agent = memtui(tmp_path, "search", str(store), "hello", "--actor", "agent")
    assert as_agent.returncode == 1, as_agent.stdout
    as_external = memtui(tmp_path, "search", str(store), "hello", "--actor", "external", "--json")
    assert as_external.returncode == 0, as_external.stderr
    assert [json.loads(line)["path"] for line in as_external.stdout.splitlines()] == ["b.md"]
    assert (store / "b.md").read_text() == "# B\n\nhello edited\n"


def test_log_records_an_outside_edit_once(tmp_path: Path) -> None:
    store = tmp_path / "st"
    tool(
        tmp_path,
        store,
        {"command": "create", "path": "/memories/b.md", "file_text": "# B\n\nhello\n"},
    )
    (store / "b.md").write_text("# B\n\nhello edited\n")
    logged = memtui(tmp_path, "log", str(store), "--json", "--command", "external")
    assert [json.loads(line)["path"] for line in logged.stdout.splitlines()] == ["/memories/b.md"]
    again = memtui(tmp_path, "log", str(store), "--json", "--command", "external")
    assert len(again.stdout.splitlines()) == 1


def test_stale_remembers_a_read_across_renames(tmp_path: Path) -> None:
    store = tmp_path / "st"
    tool(
        tmp_path,
        store,
        {"command": "create", "path": "/memories/a.md", "file_text": "# A\n\nalpha\n"},
        {"command": "create", "path": "/memories/d/x.md", "file_text": "# X\n\nex\n"},
        {"command": "view", "path": "/memories/a.md"},
        {"command": "view", "path": "/memories/d/x.md"},
        {"command": "rename", "old_path": "/memories/a.md", "new_path": "/memories/c.md"},
        {"command": "rename", "old_path": "/memories/d", "new_path": "/memories/e"},
    )
    done = memtui(tmp_path, "stale", str(store), "--json", "--limit", "0")
    assert done.returncode == 0, done.stderr
    kinds = {
        entry["path"]: {reason["kind"] for reason in entry["reasons"]}
        for entry in map(json.loads, done.stdout.splitlines())
    }
    assert set(kinds) <= {"c.md", "e/x.md"}
    assert all("never-read" not in reasons for reasons in kinds.values())


def test_stale_records_an_outside_edit(tmp_path: Path) -> None:
    store = tmp_path / "st"
    tool(
        tmp_path,
        store,
        {"command": "create", "path": "/memories/a.md", "file_text": "# A\n\nalpha\n"},
    )
    (store / "a.md").write_text("# A\n\nalpha by hand\n")
    done = memtui(tmp_path, "stale", str(store), "--json", "--limit", "0")
    assert done.returncode == 0, done.stderr
    recorded = History(store).events(actor="external")
    assert [(e.command, e.path) for e in recorded] == [("external", "/memories/a.md")]
    assert (store / "a.md").read_text() == "# A\n\nalpha by hand\n"
