"""`memtui log` and `memtui undo` end to end as subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest

from memtui.cli.shared import parse_when
from memtui.core.config import Settings
from memtui.core.store import MemoryStore

MEMTUI = str(Path(sys.executable).with_name("memtui"))


def run(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `memtui ARGS` with an isolated config and a wide terminal (plus `env`)."""
    full_env = {
        "PATH": "/usr/bin:/bin",
        "MEMTUI_CONFIG_FILE": os.devnull,
        "COLUMNS": "200",
        "MEMTUI_ACTOR": "ann",
        **(env or {}),
    }
    return subprocess.run([MEMTUI, *args], capture_output=True, text=True, env=full_env, timeout=60)


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    """A store with a few agent and human events at fixed times."""
    root = tmp_path / "mem"
    now = [time.time() - 3 * 86400]
    agent = MemoryStore(root, actor="agent:claude", settings=Settings(), clock=lambda: now[0])
    agent.create("/memories/a.md", "one\n")  # 1
    now[0] = time.time() - 3600
    agent.str_replace("/memories/a.md", "one", "two")  # 2
    agent.view("/memories/../x")  # 3
    agent.with_actor("human:bob").create("/memories/b.md", "b\n")  # 4
    return agent


def test_log_json_lines_with_filters(tmp_path: Path, store: MemoryStore) -> None:
    done = run(tmp_path, "log", str(store.root), "--json", "--actor", "agent", "--since", "1d")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["id"], r["command"], r["is_error"]) for r in records] == [
        (3, "view", True),
        (2, "str_replace", False),
    ]
    assert records[0]["flags"] == ["security:refused", "security:traversal"]
    assert records[1]["path"] == "/memories/a.md"
    assert records[1]["args"] == {
        "command": "str_replace",
        "path": "/memories/a.md",
        "old_str": "one",
        "new_str": "two",
    }
    by_path = run(tmp_path, "log", str(store.root), "--json", "--path", "a.md")
    assert [json.loads(line)["id"] for line in by_path.stdout.splitlines()] == [2, 1]
    by_command = run(
        tmp_path, "log", str(store.root), "--json", "--command", "create", "--limit", "1"
    )
    assert [json.loads(line)["id"] for line in by_command.stdout.splitlines()] == [4]


def test_log_table(tmp_path: Path, store: MemoryStore) -> None:
    done = run(tmp_path, "log", str(store.root))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    header = next(line for line in lines if "command" in line)
    for column in ("id", "time", "actor", "command", "path", "result", "flags"):
        assert column in header
    row = next(line for line in lines if "refused traversal" in line)
    assert "agent:claude" in row and "/memories/../x" in row and "would escape" in row
    assert any("human:bob" in line and "create" in line for line in lines)


@pytest.mark.parametrize("width", [100, 160])
def test_log_table_keeps_short_columns_whole_when_narrow(
    tmp_path: Path, store: MemoryStore, width: int
) -> None:
    done = run(tmp_path, "log", str(store.root), env={"COLUMNS": str(width)})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    rows = [line for line in lines if "human:bob" in line]
    assert len(rows) == 1
    assert rows[0].split()[0] == "4"
    assert "create" in rows[0].split()
    assert max(len(line) for line in lines) <= width


def test_undo_reverts_and_reports_conflict(tmp_path: Path, store: MemoryStore) -> None:
    root = store.root
    done = run(tmp_path, "undo", str(root), "2")
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        "Reverted event 2 (str_replace /memories/a.md)\n",
        "",
    )
    assert (root / "a.md").read_bytes() == b"one\n"
    event = store.history.event(5)
    assert event is not None and event.actor == "human:ann" and event.command == "revert"

    again = run(tmp_path, "undo", str(root), "2")
    assert again.returncode == 1
    assert again.stdout == ""
    assert again.stderr.startswith(
        "memtui undo: Conflict: event 2 was already reverted by event 5."
    )

    forced = run(tmp_path, "undo", str(root), "2", "--force", "--actor", "carol")
    assert forced.returncode == 0
    assert store.history.events(limit=1)[0].actor == "human:carol"

    events_before = len(store.history.events())
    missing = run(tmp_path, "undo", str(root), "99")
    assert (missing.returncode, missing.stdout, missing.stderr) == (
        2,
        "",
        f"memtui undo: no event 99 in {root}'s history (see memtui log)\n",
    )
    assert len(store.history.events()) == events_before


@pytest.mark.parametrize(
    ("args", "env", "reason"),
    [
        (["--actor", "agent:bot"], {}, "memtui undo: --actor: 'agent:bot' is not a human name"),
        (["--actor", ""], {}, "memtui undo: --actor: the human name is empty"),
        (
            [],
            {"MEMTUI_ACTOR": "agent:bot"},
            "memtui undo: MEMTUI_ACTOR: 'agent:bot' is not a human",
        ),
    ],
)
def test_undo_is_always_done_by_a_human(
    tmp_path: Path, store: MemoryStore, args: list[str], env: dict[str, str], reason: str
) -> None:
    """An undo is a person's action: an agent or empty actor is refused and nothing is undone."""
    root = store.root
    done = run(tmp_path, "undo", str(root), "2", *args, env=env)
    assert done.returncode == 2
    assert done.stderr.startswith(reason), done.stderr
    assert (root / "a.md").read_bytes() == b"two\n"
    assert [e.command for e in store.history.events(limit=1)] == ["create"]


def test_log_and_undo_without_history(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    log = run(tmp_path, "log", str(tmp_path / "empty"))
    assert (log.returncode, log.stdout) == (0, "")
    assert log.stderr == f"memtui log: {tmp_path / 'empty'}: no history yet\n"
    undo = run(tmp_path, "undo", str(tmp_path / "empty"), "1")
    assert undo.returncode == 2
    assert not (tmp_path / "empty" / ".memtui").exists()


def test_parse_when() -> None:
    assert parse_when("7d", now=1_000_000.0) == 1_000_000.0 - 7 * 86400
    assert parse_when("12h", now=100_000.0) == 100_000.0 - 12 * 3600
    assert parse_when("30m", now=10_000.0) == 10_000.0 - 1800
    assert parse_when("45s", now=10_000.0) == 10_000.0 - 45
    assert parse_when("1.5d", now=1_000_000.0) == 1_000_000.0 - 1.5 * 86400
    assert parse_when("2026-11-01T00:00:00+00:00") == 1_793_491_200.0
    june_10 = datetime(2026, 6, 10, 12, 0).timestamp()
    assert parse_when("1 month", now=june_10) == datetime(2026, 5, 10, 12, 0).timestamp()
    assert parse_when("2 months", now=june_10) == datetime(2026, 4, 10, 12, 0).timestamp()
    assert parse_when("1y", now=june_10) == datetime(2025, 6, 10, 12, 0).timestamp()
    assert parse_when("1 year", now=june_10) == datetime(2025, 6, 10, 12, 0).timestamp()
    assert parse_when("1 week", now=june_10) == june_10 - 7 * 86400
    assert parse_when("today", now=june_10) == datetime(2026, 6, 10).timestamp()
    assert parse_when("yesterday", now=june_10) == datetime(2026, 6, 9).timestamp()


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        (
            "--since",
            "soon",
            "memtui log: --since: 'soon' is not a time: use 7d, 12h, 30m, 2 weeks, 1 month, 1y, "
            "today, yesterday or an ISO date like 2026-11-01T09:30\n",
        ),
        ("--limit", "ten", "memtui log: --limit: 'ten' is not a whole number\n"),
    ],
)
def test_a_bad_flag_value_is_one_line(
    tmp_path: Path, store: MemoryStore, flag: str, value: str, message: str
) -> None:
    bad = run(tmp_path, "log", str(store.root), flag, value)
    assert (bad.returncode, bad.stdout, bad.stderr) == (2, "", message)


def test_help_texts() -> None:
    for command, expected in (("log", "--since WHEN"), ("undo", "--force")):
        done = subprocess.run(
            [MEMTUI, command, "--help"], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0 and expected in done.stdout


def test_log_table_shows_markup_and_control_characters_as_plain_text(tmp_path: Path) -> None:
    """Brackets are never Rich markup, and control characters show as escapes, not raw bytes."""
    root = tmp_path / "mem"
    agent = MemoryStore(root, actor="agent:a[/b]", settings=Settings())
    agent.create("/memories/prompts.md", "hello\n")
    agent.str_replace("/memories/prompts.md", "[/INST] ", "[/INST]\n")
    agent.create("/memories/[red]note.md", "x\n")
    agent.create("/memories/[/x]", "y\n")
    agent.create("/memories/esc\x1b[2Jname.md", "z\n")
    agent.create("/memories/new\nline.md", "w\n")
    agent.view("/memories/nul\x00.md")
    done = run(tmp_path, "log", str(root))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "agent:a[/b]" in out
    assert "No replacement was performed, old_str `[/INST] ` did not appear" in out
    assert "/memories/[red]note.md" in out
    assert "/memories/[/x]" in out
    assert "/memories/esc␛[2Jname.md" in out
    assert "/memories/new␊line.md" in out
    assert "/memories/nul␀.md" in out
    assert not any(char in out for char in "\x1b\x00")
    assert len([line for line in out.splitlines() if "agent:a[/b]" in line]) == 7


def test_a_corrupt_history_stops_log_and_undo_with_status_2(
    tmp_path: Path, store: MemoryStore
) -> None:
    """log reports a corrupt database as undo and tool do: one line, status 2."""
    store.history.close()
    database = store.root / ".memtui" / "history.db"
    for companion in (Path(f"{database}-wal"), Path(f"{database}-shm")):
        companion.unlink(missing_ok=True)
    database.write_bytes(b"not a database " * 100)
    for args in (("log", str(store.root)), ("undo", str(store.root), "1")):
        done = run(tmp_path, *args)
        assert done.returncode == 2, args
        assert done.stderr.startswith(f"memtui {args[0]}: ") and "history.db" in done.stderr
        assert len(done.stderr.splitlines()) == 1
