"""`memtui changes`, `memtui approve`, and what `undo`, `log` say about reviews, as processes."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from memtui.core.config import Settings
from memtui.core.store import MemoryStore

MEMTUI = str(Path(sys.executable).with_name("memtui"))
T0 = 1_800_000_000.0
"""2027-01-15 08:00:00 UTC."""


def run(*args: str, columns: int = 200) -> subprocess.CompletedProcess[str]:
    """`memtui ARGS` with no config file, UTC times, a fixed width and a fixed person."""
    env = {
        "PATH": "/usr/bin:/bin",
        "MEMTUI_CONFIG_FILE": os.devnull,
        "COLUMNS": str(columns),
        "MEMTUI_ACTOR": "ann",
        "TZ": "UTC",
    }
    return subprocess.run([MEMTUI, *args], capture_output=True, text=True, env=env, timeout=60)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A store whose agents made four changes (ids 2-5) after a person's note (1) and a read (3)."""
    folder = tmp_path / "mem"
    now = [T0]

    def clock() -> float:
        now[0] += 60
        return now[0]

    person = MemoryStore(folder, actor="human:bob", settings=Settings(), clock=clock)
    claude = person.with_actor("agent:claude")
    cursor = person.with_actor("agent:cursor")
    person.create("/memories/a.md", "one\n")  # 1 at 08:01
    claude.str_replace("/memories/a.md", "one", "two\nthree")  # 2 at 08:02
    claude.view("/memories/a.md")  # 3 at 08:03
    cursor.create("/memories/p/b.md", "bee\n")  # 4 at 08:04
    claude.rename("/memories/p", "/memories/q")  # 5 at 08:05
    person.close()
    return folder


def test_changes_lists_what_waits_newest_first(root: Path) -> None:
    done = run("changes", str(root))
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        "id   time                  actor          command       path                         lines\n"  # noqa: E501
        "──────────────────────────────────────────────────────────────────────────────────────────\n"
        "5    2027-01-15 08:05:00   agent:claude   rename        /memories/p -> /memories/q   +0 -0\n"  # noqa: E501
        "4    2027-01-15 08:04:00   agent:cursor   create        /memories/p/b.md             +1 -0\n"  # noqa: E501
        "2    2027-01-15 08:02:00   agent:claude   str_replace   /memories/a.md               +2 -1\n"  # noqa: E501
    )


def test_changes_filters_and_fits_a_narrow_terminal(root: Path) -> None:
    by_actor = run("changes", str(root), "--actor", "agent:cursor", columns=66)
    assert by_actor.stdout == (
        "id   time          actor        command   path               lines\n"
        "──────────────────────────────────────────────────────────────────\n"
        "4    01-15 08:04   agent:cur…   create    /memories/p/b.md   +1 -0\n"
    )
    by_path = run("changes", str(root), "--path", "q/b.md", "--since", "2027-01-15T08:03")
    assert [line.split()[0] for line in by_path.stdout.splitlines()[2:]] == ["5", "4"]


def test_changes_as_json_lines(root: Path) -> None:
    done = run("changes", str(root), "--json")
    assert done.returncode == 0
    first = json.loads(done.stdout.splitlines()[0])
    assert first == {
        "id": 5,
        "time": T0 + 300,
        "actor": "agent:claude",
        "session": None,
        "command": "rename",
        "path": "/memories/p",
        "new_path": "/memories/q",
        "added": 0,
        "removed": 0,
        "flags": [],
        "reviewed": False,
        "reviewed_by": None,
        "reviewed_at": None,
    }
    assert [json.loads(line)["id"] for line in done.stdout.splitlines()] == [5, 4, 2]


def test_approve_marks_changes_and_changes_all_shows_the_marks(root: Path) -> None:
    approved = run("approve", str(root), "2", "5", "--actor", "dana")
    assert (approved.returncode, approved.stdout, approved.stderr) == (
        0,
        "Approved 2 changes as human:dana: 2, 5\n",
        "",
    )
    waiting = run("changes", str(root))
    assert [line.split()[0] for line in waiting.stdout.splitlines()[2:]] == ["4"]

    every = run("changes", str(root), "--all")
    assert every.stdout.splitlines()[0].endswith("lines   reviewed by")
    rows = every.stdout.splitlines()[2:]
    assert [row.split()[0] for row in rows] == ["5", "4", "2"]
    assert rows[0].endswith("+0 -0   human:dana")
    assert rows[1].endswith("+1 -0")
    assert json.loads(run("changes", str(root), "--all", "--json").stdout.splitlines()[0])[
        "reviewed_by"
    ] == ("human:dana")

    again = run("approve", str(root), "2", "4")
    assert again.stdout.splitlines() == [
        "Approved 1 change as human:ann: 4",
        "Event 2 was already reviewed by human:dana on " + again.stdout.split(" on ")[-1].strip(),
    ]
    assert run("changes", str(root)).stdout == "Nothing waits for review.\n"
    assert run("approve", str(root), "--all").stdout == "Nothing waits for review.\n"


def test_approve_all_marks_every_waiting_change(root: Path) -> None:
    done = run("approve", str(root), "--all")
    assert (done.returncode, done.stdout) == (0, "Approved 3 changes as human:ann\n")
    assert run("changes", str(root), "--all", "--json").stdout.count('"reviewed": true') == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["99"], "no event 99 in {root}'s history (see memtui changes); nothing approved"),
        (
            ["2", "98", "99"],
            "no events 98, 99 in {root}'s history (see memtui changes); nothing approved",
        ),
        (
            ["2", "3"],
            "event 3 (view by agent:claude) is not an agent's or outside change to review; "
            "nothing approved",
        ),
        (
            ["1"],
            "event 1 (create by human:bob) is not an agent's or outside change to review; "
            "nothing approved",
        ),
        ([], "give the EVENT_IDs to approve, or --all (not both)"),
        (["2", "--all"], "give the EVENT_IDs to approve, or --all (not both)"),
        (["x"], "EVENT_ID: 'x' is not a whole number"),
    ],
)
def test_approve_refuses_in_one_line_and_marks_nothing(
    root: Path, args: list[str], message: str
) -> None:
    done = run("approve", str(root), *args)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"memtui approve: {message.format(root=root)}\n"
    assert run("changes", str(root), "--all", "--json").stdout.count('"reviewed": true') == 0


def test_undo_marks_the_undone_change_reviewed_and_log_says_so(root: Path) -> None:
    undone = run("undo", str(root), "2")
    assert (undone.returncode, undone.stdout) == (
        0,
        "Reverted event 2 (str_replace /memories/a.md)\n",
    )
    assert [line.split()[0] for line in run("changes", str(root)).stdout.splitlines()[2:]] == [
        "5",
        "4",
    ]
    log = run("log", str(root), "--json")
    by_id = {record["id"]: record for record in map(json.loads, log.stdout.splitlines())}
    assert (by_id[2]["reviewed"], by_id[2]["reviewed_by"]) == (True, "human:ann")
    assert (by_id[4]["reviewed"], by_id[4]["reviewed_by"]) == (False, None)
    assert (by_id[3]["reviewed"], by_id[1]["reviewed"], by_id[6]["reviewed"]) == (None, None, None)
    table = run("log", str(root)).stdout.splitlines()
    row = next(line for line in table if line.startswith("2 "))
    assert row.endswith("undone by 6 reviewed")


def test_log_path_follows_a_note_across_a_folder_rename(root: Path) -> None:
    done = run("log", str(root), "--path", "q/b.md", "--json")
    assert [json.loads(line)["id"] for line in done.stdout.splitlines()] == [5, 4]


def test_changes_without_a_history_or_folder(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    none_yet = run("changes", str(tmp_path / "empty"))
    assert (none_yet.returncode, none_yet.stdout, none_yet.stderr) == (
        0,
        "",
        f"memtui changes: {tmp_path / 'empty'}: no history yet\n",
    )
    missing = run("changes", str(tmp_path / "nope"))
    assert (missing.returncode, missing.stderr) == (
        2,
        f"memtui changes: {tmp_path / 'nope'} is not a folder\n",
    )
    bad_time = run("changes", str(tmp_path / "empty"), "--since", "soon")
    assert (bad_time.returncode, bad_time.stderr) == (
        2,
        "memtui changes: --since: 'soon' is not a time: use 7d, 12h, 30m, 2 weeks, 1 month, 1y,"
        " today, yesterday or an ISO date like 2026-11-01T09:30\n",
    )
    no_history = run("approve", str(tmp_path / "empty"), "1")
    assert (no_history.returncode, no_history.stderr) == (
        2,
        f"memtui approve: {tmp_path / 'empty'}: no memtui history here\n",
    )


def test_changes_diff_shows_each_change_before_it_is_approved_plain_in_a_pipe(
    root: Path,
) -> None:
    done = run("changes", str(root), "--diff")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        "#5 2027-01-15 08:05:00 agent:claude rename /memories/p -> /memories/q (+0 -0)\n"
        "(no content change: moved or identical)\n"
        "\n"
        "#4 2027-01-15 08:04:00 agent:cursor create /memories/p/b.md (+1 -0)\n"
        "--- /dev/null\n+++ p/b.md\n@@ -0,0 +1 @@\n+bee\n"
        "\n"
        "#2 2027-01-15 08:02:00 agent:claude str_replace /memories/a.md (+2 -1)\n"
        "--- a.md\n+++ a.md\n@@ -1 +1,2 @@\n-one\n+two\n+three\n"
    )
    assert "\x1b" not in done.stdout
    lines = run("changes", str(root), "--diff", "--json").stdout.splitlines()
    assert json.loads(lines[2])["diff"] == [
        "--- a.md",
        "+++ a.md",
        "@@ -1 +1,2 @@",
        "-one",
        "+two",
        "+three",
    ]
    assert (
        run("changes", str(root), "--diff", "--actor", "nobody").stdout
        == "Nothing waits for review.\n"
    )


def test_show_one_event_and_its_diff(root: Path) -> None:
    shown = run("show", str(root), "2")
    assert (shown.returncode, shown.stderr) == (0, "")
    assert shown.stdout == (
        "#2 2027-01-15 08:02:00 agent:claude str_replace /memories/a.md (+2 -1)\n"
        "--- a.md\n+++ a.md\n@@ -1 +1,2 @@\n-one\n+two\n+three\n"
    )
    read = run("show", str(root), "3")
    assert read.stdout == (
        "#3 2027-01-15 08:03:00 agent:claude view /memories/a.md\n"
        "Here's the content of /memories/a.md with line numbers:\n"
        "     1\ttwo\n     2\tthree\n     3\t\n"
    )
    missing = run("show", str(root), "99")
    assert (missing.returncode, missing.stdout, missing.stderr) == (
        1,
        "",
        f"memtui show: no event 99 in {root}'s history (see memtui log)\n",
    )


def test_show_colours_on_a_terminal_and_never_passes_an_agents_escapes(root: Path) -> None:
    agent = MemoryStore(root, actor="agent:claude", settings=Settings())
    agent.create("/memories/trap.md", "clear\x1b[2J\x1b]0;owned\x07\n")
    event_id = agent.history.events(newest_first=True, changes_only=True)[0].id
    agent.close()
    piped = run("show", str(root), str(event_id))
    assert piped.stdout.splitlines()[1:] == [
        "--- /dev/null",
        "+++ trap.md",
        "@@ -0,0 +1 @@",
        "+clear␛[2J␛]0;owned␇",
    ]
    shown = run("show", str(root), "2")
    env = {"PATH": "/usr/bin:/bin", "MEMTUI_CONFIG_FILE": os.devnull, "TZ": "UTC"}
    assert on_a_terminal(["show", str(root), "2"], env) == (
        "\x1b[1m#2 2027-01-15 08:02:00 agent:claude str_replace /memories/a.md (+2 -1)\x1b[0m\n"
        "\x1b[1m--- a.md\x1b[0m\n\x1b[1m+++ a.md\x1b[0m\n\x1b[36m@@ -1 +1,2 @@\x1b[0m\n"
        "\x1b[31m-one\x1b[0m\n\x1b[32m+two\x1b[0m\n\x1b[32m+three\x1b[0m\n"
    )
    assert on_a_terminal(["show", str(root), "2"], {**env, "NO_COLOR": "1"}) == shown.stdout


def on_a_terminal(args: list[str], env: dict[str, str]) -> str:
    """Everything `memtui ARGS` writes to a pseudo-terminal, line ends as `\\n`."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [MEMTUI, *args], stdin=follower, stdout=follower, stderr=follower, env=env
    )
    os.close(follower)
    shown = b""
    while chunk := _read(leader):
        shown += chunk
    assert process.wait(timeout=60) == 0
    os.close(leader)
    return shown.decode().replace("\r\n", "\n")


def _read(leader: int) -> bytes:
    """The next output from a pseudo-terminal, b"" once the other side closed it."""
    try:
        return os.read(leader, 4096)
    except OSError:
        return b""
