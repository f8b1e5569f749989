"""Hostile files in a store: every entry point opens it in bounded time, changes nothing, leaks
nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.reliability.hostile import (
    OUTSIDE_MARKER,
    WARNED,
    HostileStore,
    build_hostile_store,
    skipped_lines,
    snapshot,
)
from tests.reliability.probes import OPENED, run_probe

REPO = Path(__file__).resolve().parents[2]

NORMAL_BOUND = 20.0
"""Seconds any entry point may take on the normal-suite hostile store (2 MB note, 100k lines)."""


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> HostileStore:
    """A hostile store with the big files scaled down so the normal suite stays fast."""
    return build_hostile_store(
        tmp_path_factory.mktemp("hostile"), big_mb=2, million_lines=100_000, long_line_mb=1
    )


@pytest.fixture(scope="module")
def baseline(hostile: HostileStore) -> tuple[dict[bytes, object], dict[bytes, object]]:
    """The store's and the outside folder's exact state before any entry point ran."""
    return snapshot(hostile.root), snapshot(hostile.outside)


def assert_untouched(
    hostile: HostileStore, baseline: tuple[dict[bytes, object], dict[bytes, object]]
) -> None:
    """Not a byte of the store (outside `.memtui`) nor of the outside folder changed."""
    assert snapshot(hostile.root) == baseline[0]
    assert snapshot(hostile.outside) == baseline[1]


def run_memtui(*args: str, timeout: float) -> tuple[subprocess.CompletedProcess[bytes], float]:
    """Run the `memtui` CLI with this interpreter; (process, seconds). Fails the test on a hang."""
    started = time.perf_counter()
    try:
        process = subprocess.run(
            [sys.executable, "-m", "memtui", *args],
            cwd=REPO,
            capture_output=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"memtui {' '.join(args)} did not finish within {timeout} s")
    return process, time.perf_counter() - started


def check_export(hostile: HostileStore, bound: float) -> float:
    """`memtui export --warnings` on the store: exit 0, no traceback, every bad note flagged."""
    process, seconds = run_memtui("export", "--warnings", str(hostile.root), timeout=bound)
    out = process.stdout.decode("utf-8")
    err = process.stderr.decode("utf-8", "replace")
    assert process.returncode == 0, err
    assert "Traceback" not in err
    assert "Warning" not in err, err
    assert OUTSIDE_MARKER not in out
    assert '"path": "good.md", "title": "Good Note"' in out
    assert '"path": "notes/other-good.md", "title": "Other Good"' in out
    assert (
        '{"path": "invalid-utf8.md", "error": "not valid UTF-8 (byte 10); '
        'Basic Memory does not index this file"}'
    ) in out
    records = {json.loads(line)["path"]: line for line in out.splitlines()}
    for name, fragment in WARNED.items():
        if name == "invalid-utf8.md":
            continue
        line = records[name]
        assert '"warnings": [' in line and fragment in line, (name, line[-300:])
    for problem in skipped_lines():
        assert f"memtui export: skipped {problem}\n" in err, problem
    for name in [*hostile.links_out, *hostile.loops, "fifo.md"]:
        assert f'"path": "{name}"' not in out
    assert hostile.deep_note in out
    return seconds


def test_export_opens_the_hostile_store(hostile: HostileStore, baseline: tuple) -> None:
    check_export(hostile, NORMAL_BOUND)
    assert_untouched(hostile, baseline)


def check_index(hostile: HostileStore, bound: float) -> float:
    """NoteIndex.load (what the app, search and the MCP tools build on), killed after `bound` s."""
    report = run_probe("index", hostile.root, bound)
    assert report["problems"] == skipped_lines()
    assert report["notes"] == sorted(
        hostile.good
        + hostile.bad_text
        + hostile.big
        + hostile.bad_yaml
        + ["unreadable.md", hostile.deep_note]
        + [os.fsdecode(name) for name in hostile.odd_names]
    )
    warnings = report["warnings"]
    for name, fragment in WARNED.items():
        assert any(fragment in warning for warning in warnings[name]), (name, warnings[name])
    unwarned = set(report["notes"]) - set(WARNED)
    assert {name: warnings[name] for name in unwarned if warnings[name]} == {}
    assert report["leak"] is False
    assert "Traceback" not in report["stderr"] and "Warning" not in report["stderr"]
    return float(report["seconds"])


def test_note_index_loads_the_hostile_store(hostile: HostileStore, baseline: tuple) -> None:
    check_index(hostile, NORMAL_BOUND)
    assert_untouched(hostile, baseline)


def check_search_cli(hostile: HostileStore, bound: float) -> float:
    """`memtui search` on the store: exit 0, the good notes found, each skipped entry named."""
    process, seconds = run_memtui("search", str(hostile.root), "well-formed note", timeout=bound)
    out = process.stdout.decode("utf-8", "replace")
    err = process.stderr.decode("utf-8", "replace")
    assert process.returncode == 0, err
    assert "Traceback" not in err + out and "Warning" not in err, err
    assert OUTSIDE_MARKER not in out + err
    assert "good.md:9  observation - [fact] this store still has one well-formed note #ok" in out
    for problem in skipped_lines():
        assert f"memtui search: skipped {problem}\n" in err, problem
    return seconds


def test_search_cli_opens_the_hostile_store(hostile: HostileStore, baseline: tuple) -> None:
    check_search_cli(hostile, NORMAL_BOUND)
    assert_untouched(hostile, baseline)


def mcp_calls(hostile: HostileStore) -> list[tuple[str, dict[str, object]]]:
    """Every MCP tool on the store, the memory tool on each hostile entry."""
    names = [
        *hostile.bad_text,
        *hostile.big,
        *hostile.bad_yaml,
        *hostile.links_out,
        *hostile.loops,
        *hostile.special,
        "new\nline.md",
    ]
    calls: list[tuple[str, dict[str, object]]] = [
        ("memory", {"command": "view", "path": "/memories"}),
        ("memory", {"command": "view", "path": "/memories/notes"}),
        ("memory", {"command": "view", "path": "/memories/" + hostile.deep_note}),
    ]
    calls += [("memory", {"command": "view", "path": "/memories/" + name}) for name in names]
    calls += [
        ("search_memories", {"query": "well-formed note"}),
        ("build_context", {"target": "good"}),
        ("recent_activity", {"timeframe": "30d"}),
    ]
    return calls


def check_mcp(hostile: HostileStore, bound: float) -> tuple[float, dict[str, str]]:
    """Every MCP tool on the store, in a child process killed after `bound` s; answers clean."""
    report = run_probe("mcp", hostile.root, bound, mcp_calls(hostile))
    answers: dict[str, str] = report["answers"]
    joined = "\n".join(answers.values())
    assert "Traceback" not in joined + report["stderr"]
    assert "Warning" not in report["stderr"], report["stderr"]
    assert OUTSIDE_MARKER not in joined
    assert answers["memory /memories/link-out.md"] == (
        "Path /memories/link-out.md would escape /memories directory"
    )
    assert answers["memory /memories/fifo.md"] == "Unsupported file type for /memories/fifo.md"
    assert answers["memory /memories/invalid-utf8.md"] == (
        "The file /memories/invalid-utf8.md is not valid UTF-8 text"
    )
    assert "good.md" in answers["search_memories"]
    return float(report["seconds"]), answers


def test_mcp_tools_open_the_hostile_store(hostile: HostileStore, baseline: tuple) -> None:
    check_mcp(hostile, NORMAL_BOUND)
    assert_untouched(hostile, baseline)


def check_app(hostile: HostileStore, bound: float) -> dict[str, float]:
    """The app on the store, killed after `bound` s: index, bad notes opened, a search."""
    report = run_probe("app", hostile.root, bound)
    assert report["index_ready"] and report["search_done"]
    assert "Traceback" not in report["stderr"] and "Warning" not in report["stderr"]
    messages = "\n".join(report["notifications"])
    assert "Could not" not in messages
    assert OUTSIDE_MARKER not in messages + json.dumps(report["opened"], ensure_ascii=False)
    assert f"Skipped {len(skipped_lines())} entries:\n" + "\n".join(skipped_lines()) in messages
    for name in WARNED:
        assert "warning" in report["badges"].get(name, []), name
    opened = report["opened"]
    assert set(opened) == set(OPENED) and all(note["shown"] for note in opened.values())
    assert all(note["in_tree"] for note in opened.values()), opened
    assert opened["invalid-utf8.md"]["header"] == (
        "Cannot read invalid-utf8.md: The file /memories/invalid-utf8.md is not valid UTF-8 text"
    )
    fifo = "The path /memories/fifo.md is a FIFO (named pipe), not a regular file"
    assert opened["fifo.md"]["header"] == f"Cannot read fifo.md: {fifo}"
    unreadable = opened["unreadable.md"]
    if os.access(hostile.root / "unreadable.md", os.R_OK):
        assert unreadable["mode"] != "empty" and unreadable["warnings"] == "", unreadable
    else:
        assert unreadable["header"] == (
            "Cannot read unreadable.md: Cannot read /memories/unreadable.md: Permission denied"
        )
    for name in set(OPENED) - {"invalid-utf8.md", "fifo.md", "unreadable.md"}:
        assert WARNED[name] in opened[name]["warnings"], (name, opened[name])
    for name in hostile.big:
        size = (hostile.root / name).stat().st_size
        assert f"of {size:,} B" in opened[name]["header"], opened[name]
        assert opened[name]["mode"] == "plain"
    assert "good.md" in report["search_hits"]
    return {
        "index": report["index_seconds"],
        "open": max(note["seconds"] for note in opened.values()),
        "search": report["search_seconds"],
        "total": report["seconds"],
    }


def test_app_opens_the_hostile_store(hostile: HostileStore, baseline: tuple) -> None:
    check_app(hostile, NORMAL_BOUND)
    assert_untouched(hostile, baseline)


@pytest.mark.slow
def test_full_size_hostile_store(tmp_path: Path) -> None:
    """The issue's sizes: a 20 MB note, a million lines, a 5 MB line; bounded, untouched."""
    store = build_hostile_store(tmp_path)
    before = snapshot(store.root), snapshot(store.outside)
    bound = 120.0
    index_seconds = check_index(store, bound)
    export_seconds = check_export(store, bound)
    search_seconds = check_search_cli(store, bound)
    mcp_seconds, _answers = check_mcp(store, bound)
    app = check_app(store, bound)
    assert_untouched(store, before)
    print(
        f"\nhostile store (20 MB note, 1M lines, 5 MB line, 200-deep folders, links, FIFO): "
        f"index load {index_seconds:.1f} s, export {export_seconds:.1f} s, "
        f"search {search_seconds:.1f} s, MCP tools {mcp_seconds:.1f} s, app {app['total']:.1f} s "
        f"(index {app['index']:.1f} s, slowest bad note {app['open']:.1f} s, "
        f"search {app['search']:.1f} s) (bound {bound:.0f} s each), 0 bytes changed"
    )


def test_start_up_recovery_records_only_regular_files_and_changes_nothing(
    hostile: HostileStore, baseline: tuple
) -> None:
    from memtui.core.opening.recovery import recover
    from memtui.core.store import MemoryStore

    store = MemoryStore(hostile.root, actor="human:t")
    history = store.history
    baseline_event = history.baseline()
    assert baseline_event is not None and baseline_event.after_hash is not None
    manifest = history.manifest(baseline_event.after_hash)
    assert manifest is not None
    assert sorted(manifest.files) == sorted(
        [
            *hostile.good,
            *hostile.bad_text,
            *hostile.big,
            *hostile.bad_yaml,
            "unreadable.md",
            hostile.deep_note,
            "new\nline.md",
            "tab\there.md",
            os.fsdecode(b"bad-\xff\xfe-name.md"),
        ]
    )
    assert history.events(command="external") == []
    assert recover(store).external_event_ids == []
    assert_untouched(hostile, baseline)
