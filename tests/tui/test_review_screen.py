"""The review screen: the stale queue with reasons, selection, archive and delete, and
their undo."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from memtui.demo import DEMO_NOTES_DIR
from memtui.tui.screens.history import HistoryScreen
from memtui.tui.screens.review import ReviewScreen
from memtui.tui.widgets.confirm import ConfirmScreen
from memtui.tui.widgets.history_events import EventTable
from tests.tui.screens_harness import ScreenHarness, demo_clock, demo_context, demo_copy
from tests.tui.settle import wait_idle

SIZE = (120, 40)
FIRST_TWO = ["projects/website-redesign.md", "user/schedule.md"]


@pytest.fixture
def store_root(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_copy(tmp_path, tmp_path_factory.getbasetemp())


def review_app(root: Path) -> ScreenHarness:
    return ScreenHarness(demo_context(root), lambda: ReviewScreen(clock=demo_clock))


def screen_of(app: ScreenHarness) -> ReviewScreen:
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    return screen


async def settle(pilot: Pilot[None]) -> None:
    """Wait until the screen's background work (and any work it started) is done and shown."""
    await wait_idle(pilot)


def title(app: ScreenHarness) -> str:
    return str(app.screen.query_one("#review-title", Static).render())


DEMO_QUEUE = [
    (
        "projects/website-redesign.md",
        ["never-read", "unchanged", "expired", "unverified", "orphan"],
    ),
    ("user/schedule.md", ["never-read", "unchanged", "expired", "orphan"]),
    ("patterns/prompt-formats.md", ["never-read", "unchanged", "unverified", "orphan"]),
    ("patterns/retry-backoff.md", ["never-read", "superseded", "orphan"]),
    ("claude/billing_context.md", ["never-read", "superseded", "orphan"]),
    ("projects/billing/ledger-migration.md", ["never-read", "unverified", "unresolved"]),
    ("user/team.md", ["never-read", "unchanged", "unresolved"]),
    ("projects/mobile-app.md", ["never-read", "unchanged", "unresolved"]),
    ("user/communication-style.md", ["never-read", "unchanged"]),
    ("sessions/2026-08-19-onboarding.md", ["never-read", "unchanged"]),
    ("sessions/2026-09-02-scratch.md", ["never-read", "orphan"]),
    ("claude/prefs.json", ["never-read"]),
    ("projects/billing/api-design.md", ["never-read"]),
    ("projects/data-pipeline.md", ["never-read"]),
]
"""The demo store's whole queue at its fixed present: path and reason kinds, in rank order."""


async def test_queue_shows_scores_paths_and_every_reason(store_root: Path) -> None:
    app = review_app(store_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = screen_of(app)
        assert title(app).startswith("Review · 14 notes proposed · 0 selected")
        assert [(c.path, [r.kind for r in c.reasons]) for c in screen.candidates] == DEMO_QUEUE
        row = screen.query_one(DataTable).get_row("patterns/retry-backoff.md")
        assert [str(cell) for cell in row] == [
            " ",
            "3.80",
            "patterns/retry-backoff.md",
            "superseded by patterns/retry-with-backoff.md, changed 31 days later…",
        ]
        detail = str(screen.query_one("#review-detail", Static).render()).splitlines()
        assert detail == [
            "projects/website-redesign.md  score 7.08",
            "  3.00  expired      expired on 2026-08-31",
            "  1.53  never-read   written 92 days ago, never read back by an agent",
            "  1.53  unverified   last verified 194 days ago (2026-05-10)",
            "  0.51  unchanged    unchanged for 92 days",
            "  0.50  orphan       no links in or out, in a store where most notes link",
        ]


async def test_long_paths_are_shortened_in_the_middle_and_stay_apart(tmp_path: Path) -> None:
    """On a narrow terminal, deep paths keep their start and their file name, so rows that
    share a long folder never look the same; the detail shows the whole path."""
    folder = "test-int/fixtures/schema/inference/people"
    for name in ("grace-hopper", "alan-turing", "ada-lovelace"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / f"{name}.md").write_text(
            f"---\ntitle: {name}\nexpires: 2020-01-01\n---\n\n# {name}\n", encoding="utf-8"
        )
    app = review_app(tmp_path)
    async with app.run_test(size=(72, 30)) as pilot:
        await settle(pilot)
        table = screen_of(app).query_one(DataTable)
        paths = [str(table.get_row(key)[2]) for key in table.rows]
        assert paths == [
            "test-int/…le/ada-lovelace.md",
            "test-int/…ple/alan-turing.md",
            "test-int/…le/grace-hopper.md",
        ]
        detail = str(app.screen.query_one("#review-detail", Static).render()).splitlines()
        assert detail[0] == f"{folder}/ada-lovelace.md  score 3.00"
        await pilot.resize_terminal(140, 30)
        await settle(pilot)
        assert [str(table.get_row(key)[2]) for key in table.rows] == [
            f"{folder}/{name}.md" for name in ("ada-lovelace", "alan-turing", "grace-hopper")
        ]


async def test_space_selects_and_asterisk_toggles_all(store_root: Path) -> None:
    app = review_app(store_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("space", "space")
        screen = screen_of(app)
        assert screen.selected == set(FIRST_TWO)
        assert screen.current_path() == "patterns/prompt-formats.md"
        assert str(screen.query_one(DataTable).get_row(FIRST_TWO[0])[0]) == "●"
        assert "· 2 selected ·" in title(app)
        await pilot.press("asterisk")
        assert len(screen.selected) == 14
        await pilot.press("asterisk")
        assert screen.selected == set()


async def test_archive_moves_the_selected_notes_as_one_operation_undone_as_one(
    store_root: Path,
) -> None:
    app = review_app(store_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("space", "space", "a")
        await wait_idle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.title_text == "Archive 2 notes?"
        await pilot.press("y")
        await settle(pilot)
        for path in FIRST_TWO:
            assert not (store_root / path).exists()
            assert (store_root / "archive" / path).read_bytes() == (
                DEMO_NOTES_DIR / path
            ).read_bytes()
        renames = app.ctx.history.events(command="rename", actor="human")
        assert [(e.path, e.new_path) for e in renames] == [
            ("/memories/user/schedule.md", "/memories/archive/user/schedule.md"),
            (
                "/memories/projects/website-redesign.md",
                "/memories/archive/projects/website-redesign.md",
            ),
        ]
        screen = screen_of(app)
        assert screen.selected == set()
        archived = [f"archive/{path}" for path in FIRST_TWO]
        assert app.ctx.index is not None and set(archived) <= set(app.ctx.index.notes)
        proposed = [c.path for c in screen.candidates]
        assert not set(FIRST_TWO + archived) & set(proposed)
        assert len(proposed) == 12 and title(app).startswith("Review · 12 notes proposed")
        table = screen.query_one(DataTable)
        assert not any(str(key.value).startswith("archive/") for key in table.rows)
        screen.reload()
        await settle(pilot)
        assert [c.path for c in screen.candidates] == proposed

        await app.push_screen(HistoryScreen(clock=demo_clock))
        await pilot.pause()
        table = app.screen.query_one(EventTable)
        assert len({event.group_id for event in renames} - {None}) == 1
        operation = str(max(event.id for event in renames))
        table.move_cursor(row=table.get_row_index(operation), animate=False)
        await pilot.press("u")
        await wait_idle(pilot)
        await pilot.press("y")
        await wait_idle(pilot)
        for path in FIRST_TWO:
            assert (store_root / path).read_bytes() == (DEMO_NOTES_DIR / path).read_bytes()
            assert not (store_root / "archive" / path).exists()


async def test_delete_without_selection_removes_the_cursor_note(store_root: Path) -> None:
    app = review_app(store_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "down", "d")
        await wait_idle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.title_text == "Delete 1 note?"
        await pilot.press("n")
        await pilot.pause()
        assert (store_root / "patterns/prompt-formats.md").exists()
        await pilot.press("d")
        await wait_idle(pilot)
        await pilot.press("y")
        await wait_idle(pilot)
        assert not (store_root / "patterns/prompt-formats.md").exists()
        deleted = app.ctx.history.events(command="delete", actor="human")
        assert [e.path for e in deleted] == ["/memories/patterns/prompt-formats.md"]
        result = app.ctx.store.revert(deleted[0].id)
        assert not result.is_error
        assert (store_root / "patterns/prompt-formats.md").read_bytes() == (
            DEMO_NOTES_DIR / "patterns/prompt-formats.md"
        ).read_bytes()


async def test_many_removals_show_progress_and_a_count(store_root: Path) -> None:
    app = review_app(store_root)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("A")
        await wait_idle(pilot)
        await pilot.press("y")
        await wait_idle(pilot)
        messages = [n.message for n in app._notifications]
        assert messages[:2] == [
            "Archiving 14 notes…",
            "Archived 14 notes (u to undo).",
        ]
        archived = {
            p.relative_to(store_root / "archive").as_posix()
            for p in (store_root / "archive").rglob("*")
            if p.is_file()
        }
        assert archived == {path for path, _kinds in DEMO_QUEUE}
