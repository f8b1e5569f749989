"""`memtui log` and `memtui changes` take the app's filter syntax after PATH; their flags set the
same filters and win over them; a filter that cannot be used is one line and status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_cli_changes import root, run

__all__ = ["root"]

WHEN = "7d, 12h, 30m, 2 weeks, 1 month, 1y, today, yesterday or an ISO date like 2026-11-01T09:30"


def ids(*args: str) -> list[int]:
    """The event ids `memtui ARGS --json` lists (it must succeed quietly)."""
    done = run(*args, "--json")
    assert (done.returncode, done.stderr) == (0, ""), done
    return [json.loads(line)["id"] for line in done.stdout.splitlines()]


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["actor:agent"], [5, 4, 3, 2]),
        (["actor:agent:cursor"], [4]),
        (["cmd:edit"], [2]),
        (["command:read", "a.md"], [3]),
        (["path:q/b.md"], [5, 4]),
        (["since:2027-01-15", "08:03"], [5, 4, 3]),
        (["since:2027-01-15 08:03", "actor:agent:claude"], [5, 3]),
        (["CREATED successfully"], [4, 1]),
        (["created", "b.md"], [4]),
    ],
)
def test_log_takes_the_filter_syntax(root: Path, words: list[str], expected: list[int]) -> None:
    assert ids("log", str(root), *words) == expected


def test_log_flags_set_the_same_filters_and_win(root: Path) -> None:
    assert ids("log", str(root), "--actor", "agent:cursor") == [4]
    assert ids("log", str(root), "actor:agent", "--actor", "human") == [1]
    assert ids("log", str(root), "--path", "q/b.md", "--since", "2027-01-15T08:04:30") == [5]


def test_changes_takes_the_filter_syntax(root: Path) -> None:
    assert ids("changes", str(root)) == [5, 4, 2]
    assert ids("changes", str(root), "actor:agent:claude") == [5, 2]
    assert ids("changes", str(root), "path:q", "cmd:rename") == [5]
    assert ids("changes", str(root), "--path", "q/b.md", "actor:agent:cursor") == [4]


@pytest.mark.parametrize("command", ["log", "changes"])
def test_a_filter_that_cannot_be_used_is_one_line(root: Path, command: str) -> None:
    done = run(command, str(root), "since:soon", "actor:agent")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"memtui {command}: since:soon is not a time: use {WHEN}\n"
