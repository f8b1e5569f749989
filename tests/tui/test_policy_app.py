"""The access policy in the app: marks on protected files and folders, the rule in the preview,
held changes counted in the status line and listed apart in the inbox, approved (`a`) and
rejected (`x`) there, and `p` adding a rule."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from textual.widgets import Input, RadioButton, Static

from memtui.core.config import Settings
from memtui.core.policy.loading import load_policy
from memtui.core.store import MemoryStore
from memtui.tui.app import MemtuiApp
from memtui.tui.screens.changes import ChangesScreen
from memtui.tui.screens.main import MainScreen
from memtui.tui.screens.merge import ConflictScreen
from memtui.tui.screens.protect import ProtectScreen
from tests.tui.conftest import FIXTURE_NOTES, AppFactory, wait_for, wait_idle

MEMTUI = str(Path(sys.executable).with_name("memtui"))
SIZE = (140, 40)
PREFS = "/memories/user/preferences.md"
POLICY = (
    '[[rule]]\npaths = ["user/**"]\naccess = "review"\n'
    '[[rule]]\npaths = ["tools/textual.md"]\nactors = ["agent:claude"]\naccess = "none"\n'
)


def status(app: MemtuiApp) -> str:
    """The main screen's status line."""
    main = next(screen for screen in app.screen_stack if isinstance(screen, MainScreen))
    return str(main.query_one("#status", Static).render())


def main_screen(app: MemtuiApp) -> MainScreen:
    """The main screen."""
    return next(screen for screen in app.screen_stack if isinstance(screen, MainScreen))


def header(app: MemtuiApp) -> str:
    """The preview's header line."""
    return str(main_screen(app).query_one("#preview-header", Static).render())


def propose(root: Path) -> tuple[int, int]:
    """Two changes agent:claude proposes under `user/` (held by the policy): their ids."""
    (root / ".memtui").mkdir(exist_ok=True)
    (root / ".memtui/policy.toml").write_text(POLICY)
    agent = MemoryStore(root, actor="agent:claude", settings=Settings())
    edit = agent.str_replace(PREFS, "short answers", "short, direct answers")
    add = agent.create("/memories/user/tea.md", "Prefers green tea.\n")
    assert edit.kind == add.kind == "held", (edit.content, add.content)
    assert edit.event_id is not None and add.event_id is not None
    return edit.event_id, add.event_id


async def test_marks_preview_and_status_show_the_policy(
    store_root: Path, make_app: AppFactory
) -> None:
    propose(store_root)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        assert await wait_for(pilot, lambda: "user" in app.badges)
        assert app.badges["user"] == frozenset({"review"})
        assert "review" in app.badges["user/preferences.md"]
        assert "none" in app.badges["tools/textual.md"]
        assert "tools" not in app.badges
        assert "projects/memtui.md" not in app.badges or not (
            app.badges["projects/memtui.md"] & {"review", "read", "none"}
        )
        tree = main_screen(app).note_tree
        user = tree.node_for("user")
        assert user is not None and str(tree.badge_text(user)).strip() == "◐"
        assert await wait_for(pilot, lambda: "2 changes held for approval (c)" in status(app))
        assert "to review" not in status(app)

        assert tree.select_path("user/preferences.md")
        assert await wait_for(pilot, lambda: header(app).startswith("user/preferences.md"))
        assert header(app).endswith("agents: rule 1 (user/**: review) for every agent")
        assert tree.select_path("tools/textual.md")
        assert await wait_for(pilot, lambda: header(app).startswith("tools/textual.md"))
        assert header(app).endswith("agents: rule 2 (tools/textual.md: none) for agent:claude")


async def test_the_inbox_approves_and_rejects_held_changes(
    store_root: Path, make_app: AppFactory
) -> None:
    edit_id, add_id = propose(store_root)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        await pilot.press("c")
        screen = app.screen
        assert isinstance(screen, ChangesScreen)
        assert await wait_for(pilot, lambda: screen.loaded and len(screen.page.held) == 2)
        title = str(screen.query_one("#changes-title", Static).render())
        assert title.endswith("· 2 changes held for approval")
        assert [held.id for held in screen.page.held] == [edit_id, add_id]
        assert await wait_for(pilot, lambda: screen.held_table.has_focus)
        detail = str(screen.query_one("#changes-detail", Static).render())
        assert "-- [style] Prefers short answers #style" in detail
        assert "+- [style] Prefers short, direct answers #style" in detail

        await pilot.press("a")
        assert await wait_for(pilot, lambda: len(screen.page.held) == 1)
        assert "short, direct answers" in (store_root / "user/preferences.md").read_text()
        await pilot.press("x")
        assert await wait_for(pilot, lambda: not screen.page.held)
        assert await wait_for(pilot, lambda: app.held_count == 0)
    assert not (store_root / "user/tea.md").exists()
    person = MemoryStore(store_root, settings=Settings())
    decided = [person.proposals.get(edit_id), person.proposals.get(add_id)]
    assert [(p.decision, p.decided_by) for p in decided if p is not None] == [
        ("approved", "human:tester"),
        ("rejected", "human:tester"),
    ]
    applied = person.history.event(decided[0].applied_event or 0)  # type: ignore[union-attr]
    assert applied is not None and (applied.actor, applied.flags) == (
        "agent:claude",
        ("policy:approved",),
    )


async def test_p_adds_a_rule_for_the_selected_folder(
    store_root: Path, make_app: AppFactory
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        tree = main_screen(app).note_tree
        assert tree.select_path("tools")
        await wait_idle(pilot)
        await pilot.press("p")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ProtectScreen))
        dialog = app.screen
        assert dialog.query_one("#protect-glob", Input).value == "tools/**"
        hidden = next(button for button in dialog.query(RadioButton) if button.name == "none")
        hidden.value = True
        dialog.query_one("#protect-actor", Input).value = "claude"
        await pilot.click("#protect")
        assert await wait_for(pilot, lambda: not isinstance(app.screen, ProtectScreen))
        assert await wait_for(pilot, lambda: "none" in app.badges.get("tools", frozenset()))
    policy = load_policy(store_root)
    assert [(rule.paths, rule.actors, rule.access) for rule in policy.rules] == [
        (("tools/**",), ("agent:claude",), "none")
    ]
    agent = MemoryStore(store_root, actor="agent:claude", settings=Settings())
    result = agent.view("/memories/tools/textual.md")
    assert (result.content, result.is_error) == (
        "The path /memories/tools/textual.md does not exist. Please provide a valid path.",
        True,
    )
    assert (store_root / "tools/textual.md").read_text() == FIXTURE_NOTES["tools/textual.md"]


async def test_approving_after_a_clashing_change_asks_and_never_overwrites(
    store_root: Path, make_app: AppFactory
) -> None:
    edit_id, _add_id = propose(store_root)
    person = MemoryStore(store_root, actor="human:tester", settings=Settings())
    assert not person.str_replace(PREFS, "short answers", "long answers").is_error
    later = (store_root / "user/preferences.md").read_text()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        await pilot.press("c")
        screen = app.screen
        assert isinstance(screen, ChangesScreen)
        assert await wait_for(pilot, lambda: screen.loaded and len(screen.page.held) == 2)
        assert await wait_for(pilot, lambda: screen.held_table.has_focus)
        await pilot.press("a")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen))
        await pilot.press("ctrl+t")
        assert await wait_for(pilot, lambda: app.screen is screen)
        await wait_idle(pilot)
        assert (store_root / "user/preferences.md").read_text() == later
        assert [held.id for held in screen.page.held][:1] == [edit_id]
        await pilot.press("a")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen))
        await pilot.press("ctrl+k")
        assert await wait_for(pilot, lambda: len(screen.page.held) == 1)
    assert "short, direct answers" in (store_root / "user/preferences.md").read_text()
    decided = MemoryStore(store_root, settings=Settings()).proposals.get(edit_id)
    assert decided is not None and decided.decision == "approved"


def test_a_protected_folder_is_marked_even_when_no_note_is_in_it() -> None:
    from memtui.core.policy.loading import parse_policy
    from memtui.tui.policy_marks import policy_marks

    policy = parse_policy(
        b'[[rule]]\npaths = ["private/**", "a/b*/c", "user/drafts/x.md"]\naccess = "none"\n'
        b'[[rule]]\npaths = ["user/drafts/**"]\naccess = "review"\n'
    )
    assert policy_marks(policy, [], []) == {
        "private": "none",
        "user/drafts": "review",
        "user/drafts/x.md": "review",
    }


async def test_a_change_held_while_the_app_is_open_is_counted(
    store_root: Path, make_app: AppFactory
) -> None:
    (store_root / ".memtui").mkdir(exist_ok=True)
    (store_root / ".memtui/policy.toml").write_text(POLICY)
    app = make_app(watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        assert "held for approval" not in status(app)
        done = subprocess.run(
            [MEMTUI, "tool", str(store_root), "--actor", "claude"],
            input=json.dumps(
                {"command": "str_replace", "path": PREFS, "old_str": "short", "new_str": "brief"}
            ),
            capture_output=True,
            text=True,
            env={**os.environ, "MEMTUI_CONFIG_FILE": os.devnull},
            timeout=60,
            check=True,
        )
        assert json.loads(done.stdout)["content"].startswith("Held for review")
        assert await wait_for(pilot, lambda: "1 change held for approval (c)" in status(app))
