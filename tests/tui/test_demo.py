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
    assert 30 <= len(paths) <= 40
    assert {p.split("/")[0] for p in paths} == {"patterns", "projects", "sessions", "user"}
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
