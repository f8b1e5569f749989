"""The demo store: bundled notes written through the core with a deterministic backdated history."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.core.store import MemoryStore
from memtui.demo import DEMO_NOTES_DIR, DEMO_NOW, create_demo_store, demo_note_paths

DAY = 86_400.0


def files_on_disk(root: Path) -> dict[str, bytes]:
    """Every file under root except memtui's own folder, as relpath -> bytes."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".memtui" not in p.relative_to(root).parts
    }


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return create_demo_store(tmp_path_factory.mktemp("demo") / "store")


def test_bundle_has_the_promised_shape() -> None:
    paths = demo_note_paths()
    assert 35 <= len(paths) <= 45
    assert {p.split("/")[0] for p in paths} == {
        "claude",
        "patterns",
        "projects",
        "sessions",
        "user",
    }
    assert [p for p in paths if p.startswith("claude/")] == [
        "claude/billing_context.md",
        "claude/decisions.txt",
        "claude/prefs.json",
        "claude/project_context.md",
        "claude/session_log.txt",
        "claude/user_preferences.xml",
    ]
    runbook = (DEMO_NOTES_DIR / "projects/data-pipeline/runbook.md").stat().st_size
    assert 11_000 < runbook < 14_000


def test_store_ends_with_exactly_the_bundled_notes(demo: Path) -> None:
    expected = {p: (DEMO_NOTES_DIR / p).read_bytes() for p in demo_note_paths()}
    assert files_on_disk(demo) == expected


def test_file_times_match_the_last_change_in_the_history(demo: Path) -> None:
    assert (demo / "user/profile.md").stat().st_mtime == DEMO_NOW - 1 * DAY
    assert (demo / "user/preferences.md").stat().st_mtime == DEMO_NOW - 8 * DAY + 3600
    assert (demo / "projects/billing-service.md").stat().st_mtime == DEMO_NOW - 31 * DAY
    assert (demo / "user/team.md").stat().st_mtime == DEMO_NOW - 93 * DAY
    assert (demo / "claude/decisions.txt").stat().st_mtime == DEMO_NOW - 4 * DAY
    assert (demo / "claude/prefs.json").stat().st_mtime == DEMO_NOW - 70 * DAY


def test_the_memory_tool_folder_is_written_and_read_by_the_agent_in_time_order(
    demo: Path,
) -> None:
    """The `claude/` files are created, appended to and read back through the core by the
    agent, interleaved by time with the Basic Memory notes' history."""
    history = MemoryStore(demo, actor="human:tester").history
    events = history.events(newest_first=False)
    assert [e.time for e in events] == sorted(e.time for e in events)
    claude = [
        (round((DEMO_NOW - e.time) / DAY, 2), e.command, e.path)
        for e in events
        if e.path is not None and e.path.startswith("/memories/claude")
    ]
    assert claude == [
        (70, "create", "/memories/claude/prefs.json"),
        (53, "create", "/memories/claude/decisions.txt"),
        (47, "insert", "/memories/claude/decisions.txt"),
        (45, "create", "/memories/claude/billing_context.md"),
        (40, "create", "/memories/claude/user_preferences.xml"),
        (36, "insert", "/memories/claude/decisions.txt"),
        (30, "view", "/memories/claude"),
        (18, "insert", "/memories/claude/decisions.txt"),
        (14, "create", "/memories/claude/session_log.txt"),
        (12, "create", "/memories/claude/project_context.md"),
        (11.96, "view", "/memories/claude/decisions.txt"),
        (9, "str_replace", "/memories/claude/user_preferences.xml"),
        (8, "insert", "/memories/claude/session_log.txt"),
        (4, "insert", "/memories/claude/decisions.txt"),
        (3, "str_replace", "/memories/claude/project_context.md"),
        (2, "insert", "/memories/claude/session_log.txt"),
        (1.96, "view", "/memories/claude"),
        (1.96, "view", "/memories/claude/user_preferences.xml"),
        (1.96, "view", "/memories/claude/project_context.md"),
        (0.92, "view", "/memories/claude/decisions.txt"),
    ]
    assert {e.actor for e in events if e.path and e.path.startswith("/memories/claude")} == {
        "agent:claude"
    }


def test_a_store_written_only_through_the_memory_tool(tmp_path: Path) -> None:
    """`create_demo_store(..., basic_memory=False)` replays only the memory tool's folder."""
    root = create_demo_store(tmp_path / "mt", basic_memory=False)
    expected = {p: (DEMO_NOTES_DIR / p).read_bytes() for p in demo_note_paths()}
    assert files_on_disk(root) == {p: b for p, b in expected.items() if p.startswith("claude/")}
    events = MemoryStore(root, actor="human:tester").history.events(newest_first=False)
    assert len(events) == 20 and {e.actor for e in events} == {"agent:claude"}


def test_history_has_agents_humans_rename_folder_delete_and_a_refusal(demo: Path) -> None:
    history = MemoryStore(demo, actor="human:tester").history
    events = history.events(newest_first=False)
    assert events[0].time == DEMO_NOW - 93 * DAY
    assert events[-1].time == DEMO_NOW - 2 * 3600
    assert {e.actor for e in events} == {"agent:claude", "agent:cursor", "human:dana"}
    renames = [e for e in events if e.command == "rename"]
    assert [(e.path, e.new_path) for e in renames] == [
        ("/memories/projects/billing.md", "/memories/projects/billing-service.md")
    ]
    deletes = [(e.path, e.is_error) for e in events if e.command == "delete"]
    assert deletes == [("/memories/sessions/draft.md", False), ("/memories/scratch", False)]
    refused = [e for e in events if e.is_error and e.command == "view"]
    assert len(refused) == 1
    assert refused[0].actor == "agent:cursor"
    assert any(flag.startswith("security") for flag in refused[0].flags)
    human = [e.command for e in events if e.actor == "human:dana"]
    assert human == ["view", "write"]
    failed_edit = [e for e in events if e.is_error and e.command == "str_replace"]
    assert [e.path for e in failed_edit] == ["/memories/projects/memtui.md"]


def test_demo_is_deterministic(tmp_path: Path, demo: Path) -> None:
    again = create_demo_store(tmp_path / "again")
    assert files_on_disk(again) == files_on_disk(demo)

    def summary(root: Path) -> list[tuple[float, str, str, str | None, bool]]:
        history = MemoryStore(root, actor="human:tester").history
        return [
            (e.time, e.actor, e.command, e.path, e.is_error)
            for e in history.events(newest_first=False)
        ]

    assert summary(again) == summary(demo)


def test_refuses_a_folder_that_is_not_empty(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("mine\n")
    with pytest.raises(FileExistsError, match="not empty"):
        create_demo_store(tmp_path)
    assert files_on_disk(tmp_path) == {"notes.md": b"mine\n"}
