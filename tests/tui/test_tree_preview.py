"""The tree and the preview: rendered note, raw view, links, backlinks, big notes, badges."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest
from rich.style import Style
from textual.widgets import OptionList, Static
from textual.worker import WorkerCancelled, WorkerState

from memtui.core.store import MemoryStore
from memtui.tui.app import MemtuiApp
from memtui.tui.preview_source import estimate_tokens
from memtui.tui.screens.main import PREVIEW_DELAY, MainScreen
from memtui.tui.widgets.note_tree import NoteTree
from memtui.tui.widgets.text_view import TextView
from tests.tui.conftest import AppFactory, wait_for, wait_idle
from tests.tui.manual_timers import ManualTimers


def rendered(widget: Static) -> str:
    """The plain text a Static shows."""
    return str(widget.render())


async def test_preview_shows_frontmatter_observations_and_links(
    store_root: Path, make_app: AppFactory
) -> None:
    """Selecting a note shows its frontmatter, observations by category and relations."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path("projects/memtui.md")
        await wait_for(pilot, lambda: screen.preview.relpath == "projects/memtui.md")
        await wait_idle(pilot)
        frontmatter = rendered(screen.query_one("#preview-frontmatter", Static))
        assert frontmatter.splitlines()[:2] == ["    title  memtui", "     type  project"]
        observations = rendered(screen.query_one("#preview-observations", Static))
        assert observations.splitlines() == [
            "[goal]",
            "  • Show what agents remember #memory",
            "[decision]",
            "  • Build the tree from a folder walk #performance",
        ]
        relations = screen.query_one("#preview-relations", OptionList)
        prompts = [
            str(relations.get_option_at_index(i).prompt) for i in range(relations.option_count)
        ]
        assert prompts == ["uses → Textual", "depends_on → Ghost Note  (unresolved)"]
        side = screen.side
        side_lines = [str(side.get_option_at_index(i).prompt) for i in range(side.option_count)]
        assert side_lines[:6] == [
            "Links out (1)",
            "  uses → Textual",
            "Backlinks (1)",
            "  ← Preferences (likes)",
            "Unresolved (1)",
            "  ? Ghost Note",
        ]


async def test_following_a_relation_opens_its_note(store_root: Path, make_app: AppFactory) -> None:
    """Enter on a relation in the preview moves the tree and preview to the target."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path("projects/memtui.md")
        await wait_for(pilot, lambda: screen.preview.relpath == "projects/memtui.md")
        relations = screen.query_one("#preview-relations", OptionList)
        relations.focus()
        await pilot.pause()
        relations.highlighted = 0
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: screen.preview.relpath == "tools/textual.md")
        assert screen.note_tree.cursor_relpath == "tools/textual.md"


async def test_the_relation_list_starts_on_its_first_link_when_focused(
    store_root: Path, make_app: AppFactory
) -> None:
    """Tab from the tree into the preview's relations: the first is highlighted, Down then Enter
    follows the second."""
    (store_root / "tools" / "rich.md").write_text("---\ntitle: Rich\n---\n# Rich\n")
    note = (store_root / "projects" / "memtui.md").read_text()
    (store_root / "projects" / "memtui.md").write_text(
        note.replace("- uses [[Textual]]\n", "- uses [[Textual]]\n- uses [[Rich]]\n")
    )
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path("projects/memtui.md")
        await wait_for(pilot, lambda: screen.preview.relpath == "projects/memtui.md")
        await wait_idle(pilot)
        relations = screen.query_one("#preview-relations", OptionList)
        for _ in range(4):
            if not relations.has_focus:
                await pilot.press("tab")
        assert relations.has_focus and relations.highlighted == 0
        await pilot.press("tab")
        side = screen.side
        assert side.has_focus and side.highlighted is not None
        assert str(side.get_option_at_index(side.highlighted).prompt) == "  uses → Textual"
        relations.focus()
        await pilot.press("down", "enter")
        assert await wait_for(pilot, lambda: screen.preview.relpath == "tools/rich.md")


async def test_raw_view_is_the_agent_view_and_records_one_human_view(
    store_root: Path, make_app: AppFactory
) -> None:
    """`v` shows exactly `view`'s output with its token estimate; browsing records nothing."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path("tools/textual.md")
        await wait_for(pilot, lambda: screen.preview.relpath == "tools/textual.md")
        await pilot.press("down", "up", "down")
        await wait_idle(pilot)
        assert app.ctx.history.events(command="view") == []
        screen.show_path("tools/textual.md")
        assert await wait_for(pilot, lambda: screen.preview.relpath == "tools/textual.md")
        await wait_idle(pilot)
        await pilot.press("v")
        assert await wait_for(pilot, lambda: screen.preview.mode == "raw")
        expected = (
            app.ctx.store.with_actor("agent:probe").view("/memories/tools/textual.md").content
        )
        plain = screen.query_one("#preview-plain", TextView)
        assert plain.text == expected
        assert plain.text.splitlines()[1] == "     1\t---"
        header = rendered(screen.query_one("#preview-header", Static))
        assert header == f"tools/textual.md  ·  raw view  ·  ≈ {estimate_tokens(expected):,} tokens"
        views = app.ctx.history.events(command="view", actor="human")
        assert [(e.actor, e.path) for e in views] == [
            ("human:tester", "/memories/tools/textual.md")
        ]
        await pilot.press("v")
        assert await wait_for(pilot, lambda: screen.preview.mode == "rendered")


async def test_a_big_note_is_shown_as_plain_text(store_root: Path, make_app: AppFactory) -> None:
    """Notes over the Markdown limit go to the read-only text area, not the Markdown widget."""
    big = "---\ntitle: Big\n---\n\n" + "".join(f"- [fact] line {n} #bulk\n" for n in range(600))
    (store_root / "tools" / "big.md").write_text(big, encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path("tools/big.md")
        assert await wait_for(pilot, lambda: screen.preview.mode == "plain")
        assert screen.preview.relpath == "tools/big.md"
        assert screen.query_one("#preview-plain", TextView).text == big
        assert screen.query_one("#preview-rendered").display is False
        assert not screen.query("#preview-body")


async def test_tree_keeps_cursor_and_expansion_across_changes(
    store_root: Path, make_app: AppFactory
) -> None:
    """Adding a note above the cursor keeps the cursor on the same note and folders open."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        tree = screen.query_one(NoteTree)
        screen.show_path("projects/memtui.md")
        screen.show_path("tools/textual.md")
        assert await wait_for(pilot, lambda: tree.cursor_relpath == "tools/textual.md")
        (store_root / "projects" / "alpha.md").write_text("# Alpha\n", encoding="utf-8")
        tree.refresh_paths(frozenset({"projects/alpha.md"}))
        assert await wait_for(pilot, lambda: tree.node_for("projects/alpha.md") is not None)
        await pilot.pause()
        assert tree.cursor_relpath == "tools/textual.md"
        projects = tree.node_for("projects")
        assert projects is not None
        assert [c.label.plain for c in projects.children] == ["alpha", "memtui"]
        assert tree.node_for("tools") is not None and tree.node_for("tools").is_expanded  # type: ignore[union-attr]


async def test_only_strong_stale_candidates_get_the_badge(
    store_root: Path, make_app: AppFactory
) -> None:
    """An expired note is badged stale; a merely never-read note (70 days on) stays in review
    but unbadged."""
    import time

    from memtui.notes.stale import review

    (store_root / "tools" / "expired.md").write_text(
        "---\ntitle: Expired\nexpires: 2020-01-01\n---\n\n- [fact] Old news\n", encoding="utf-8"
    )
    long_ago = time.time() - 70 * 86400
    for note in store_root.rglob("*.md"):
        os.utime(note, (long_ago, long_ago))
    assert MemoryStore(store_root, actor="human:tester", clock=lambda: long_ago).recovery
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        assert await wait_for(pilot, lambda: bool(app.badges))
        stale = sorted(path for path, names in app.badges.items() if "stale" in names)
        assert stale == ["tools/expired.md"]
        assert app.ctx.index is not None
        queued = {c.path for c in review(app.ctx.index, app.ctx.history, now=app.clock())}
        assert {"tools/expired.md", "user/preferences.md"} <= queued
        tree = app.screen.query_one(NoteTree)
        tree.select_path("tools/expired.md")
        node = tree.node_for("tools/expired.md")
        assert node is not None
        assert tree.render_label(node, Style(), Style()).plain == "expired ◌"


async def test_the_side_panel_reads_history_off_the_ui_thread_and_skips_unchanged_redraws(
    store_root: Path,
    make_app: AppFactory,
) -> None:
    """Re-showing a note keeps the same side-panel options; its history arrives from a worker."""
    app = make_app(clock=lambda: 1_790_000_000.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path("tools/textual.md")
        assert await wait_for(pilot, lambda: screen.preview.relpath == "tools/textual.md")
        await wait_idle(pilot)
        side = screen.side
        prompts = [str(side.get_option_at_index(n).prompt) for n in range(side.option_count)]
        assert prompts[-2] == "History"
        assert prompts[-1].endswith(" external baseline")
        first = side.get_option_at_index(0)
        screen.refresh_side("tools/textual.md")
        await wait_idle(pilot)
        assert side.get_option_at_index(0) is first


NOW = 1_790_000_000.0
DAY = 86_400.0


def tree_label(app: MemtuiApp, relpath: str) -> str:
    """The tree's label of a note, badges included."""
    tree = app.screen.query_one(NoteTree)
    tree.select_path(relpath)
    node = tree.node_for(relpath)
    assert node is not None
    return tree.render_label(node, Style(), Style()).plain


async def test_the_agent_badge_marks_only_recent_agent_changes(
    store_root: Path, make_app: AppFactory
) -> None:
    """An agent edit two days ago is badged; one eight days ago (by the app's clock) is not."""
    for days_ago, relpath, old, new in (
        (8, "tools/textual.md", "A TUI framework", "A Python TUI framework"),
        (2, "user/preferences.md", "Prefers short answers", "Prefers short, direct answers"),
    ):
        agent = MemoryStore(
            store_root, actor="agent:claude", clock=lambda d=days_ago: NOW - d * DAY
        )
        assert not agent.str_replace("/memories/" + relpath, old, new).is_error
        agent.history.close()
    app = make_app(clock=lambda: NOW)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        assert await wait_for(pilot, lambda: bool(app.badges))
        agent_badged = sorted(path for path, names in app.badges.items() if "agent" in names)
        assert agent_badged == ["user/preferences.md"]
        assert tree_label(app, "user/preferences.md") == "preferences ●"
        assert tree_label(app, "tools/textual.md") == "textual"


async def test_the_secret_badge_follows_the_current_content(
    store_root: Path, make_app: AppFactory
) -> None:
    """An agent writing an AWS key badges the note; a human edit elsewhere keeps the badge; a human
    removing the key clears it."""
    note = "/memories/tools/textual.md"
    app = make_app(clock=lambda: NOW)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        agent = app.ctx.store.with_actor("agent:claude")
        key_line = "- [fact] deploy key AKIAABCDEFGHIJKLMNOP\n"
        assert agent.insert(note, 12, key_line).event_id is not None
        flagged = app.ctx.history.events(path=note, limit=1)[0]
        assert flagged.flags == ("secret:aws-access-key",)
        await app.apply_changes(frozenset({"tools/textual.md"}))

        def secret_badge() -> bool:
            return "secret" in app.badges.get("tools/textual.md", frozenset())

        assert await wait_for(pilot, secret_badge)
        assert await wait_for(pilot, lambda: tree_label(app, "tools/textual.md") == "textual ● ⚑")
        text, revision = app.ctx.store.read(note)
        elsewhere = app.ctx.store.write(note, text + "- [fact] Edited elsewhere\n", revision)
        assert not elsewhere.is_error
        shown = app.badges
        await app.apply_changes(frozenset({"tools/textual.md"}))
        assert await wait_for(pilot, lambda: app.badges is not shown)
        assert secret_badge(), "an edit that leaves the key in place keeps the badge"
        text, revision = app.ctx.store.read(note)
        removed = app.ctx.store.write(note, text.replace(key_line, ""), revision)
        assert not removed.is_error
        await app.apply_changes(frozenset({"tools/textual.md"}))
        assert await wait_for(pilot, lambda: not secret_badge())
        assert await wait_for(pilot, lambda: tree_label(app, "tools/textual.md") == "textual")
        assert any(event.flags for event in app.ctx.history.events(path=note))


async def test_a_badge_run_overtaken_by_a_newer_one_does_not_win(
    store_root: Path, monkeypatch: pytest.MonkeyPatch, make_app: AppFactory
) -> None:
    """Badges computed from an older state never replace those of a newer run (the older run,
    overtaken while computing, posts nothing)."""
    import threading

    import memtui.tui.app as app_module

    release = threading.Event()
    runs: list[str] = []

    def fake_badges(
        history: object,
        index: object,
        now: float,
        store: object = None,
        interaction: object = None,
        policy: object = None,
    ) -> dict[str, frozenset[str]]:
        runs.append("run")
        if len(runs) == 1:
            release.wait(5)
            return {"tools/textual.md": frozenset({"secret"})}
        return {"tools/textual.md": frozenset({"agent"})}

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        monkeypatch.setattr(app_module, "compute_badges", fake_badges)
        old = app.compute_badges()
        assert await wait_for(pilot, lambda: len(runs) == 1)
        new = app.compute_badges()
        await wait_for(pilot, lambda: new.state == WorkerState.RUNNING)
        release.set()
        await app.workers.wait_for_complete([new])
        assert await wait_for(pilot, lambda: app.badges.get("tools/textual.md") == {"agent"})
        with contextlib.suppress(WorkerCancelled):
            await app.workers.wait_for_complete([old])
        await wait_idle(pilot)
        assert app.badges == {"tools/textual.md": frozenset({"agent"})}


async def test_one_key_previews_at_once_and_a_held_key_only_where_it_stops(
    store_root: Path, monkeypatch: pytest.MonkeyPatch, make_app: AppFactory
) -> None:
    """After a rest, one cursor move loads the preview without waiting for a timer; of a burst
    of moves only the first (after a rest) and the last, once the cursor rests, are loaded."""
    for n in range(1, 7):
        (store_root / "projects" / f"note-{n}.md").write_text(f"# Note {n}\n", encoding="utf-8")
    timers = ManualTimers()
    app = make_app(timers=timers)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        rest = PREVIEW_DELAY * 2
        timers.advance(rest)
        screen.show_path("projects/memtui.md")
        assert await wait_for(pilot, lambda: screen.preview.relpath == "projects/memtui.md")
        timers.advance(rest)
        await wait_idle(pilot)
        loaded: list[str | None] = []
        original = screen.load_preview

        async def counting_load(line: int | None = None) -> None:
            loaded.append(screen.note_tree.cursor_relpath)
            await original(line)

        monkeypatch.setattr(screen, "load_preview", counting_load)
        timers.advance(rest)
        await pilot.press("down")
        await pilot.pause()
        first = screen.note_tree.cursor_relpath
        assert loaded == [first]
        await wait_idle(pilot)
        timers.advance(rest)
        await pilot.press("down", "down", "down", "down")
        await wait_idle(pilot)
        burst_start = loaded[1]
        assert loaded == [first, burst_start] and timers.pending
        assert timers.advance(rest) == 1
        await wait_idle(pilot)
        last = screen.note_tree.cursor_relpath
        assert loaded == [first, burst_start, last] and last != burst_start


async def test_brackets_in_file_names_and_titles_are_plain_text(
    store_root: Path, make_app: AppFactory
) -> None:
    """Tree labels, the delete question and notice, and palette hits show names as they are."""
    from textual.command import CommandPalette
    from textual.widgets import Input, Label, Static
    from textual.widgets._toast import Toast

    from memtui.tui.widgets.confirm import ConfirmScreen

    (store_root / "[red]note.md").write_text("---\ntitle: '[b]T[/b] [/t]'\n---\n# t\n")
    (store_root / "[").mkdir()
    (store_root / "[" / "x].md").write_text("# x\n")
    app = make_app()
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await wait_idle(pilot)
        assert tree_label(app, "[red]note.md") == "[red]note"
        await pilot.press("d")
        await pilot.pause()
        assert str(app.screen.query_one(".confirm-title", Label).render()) == "Delete [red]note.md?"
        await pilot.press("y")
        await wait_idle(pilot)
        assert [str(toast.render()) for toast in app.screen.query(Toast)] == [
            "Deleted the note [red]note.md (u to undo)"
        ]
        tree = app.screen.query_one(NoteTree)
        tree.select_path("[/x].md")
        await pilot.press("d")
        await pilot.pause()
        assert str(app.screen.query_one(".confirm-title", Label).render()) == "Delete [/x].md?"
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("u")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "[red]note.md" in str(app.screen.query_one(".confirm-body", Static).render())
        await pilot.press("y")
        await wait_idle(pilot)
        assert (store_root / "[red]note.md").exists()
        await pilot.press("ctrl+p")
        assert await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        palette = app.screen
        assert await wait_for(pilot, lambda: palette.has_class("-ready"))
        palette.remove_class("-ready")
        palette.query_one(Input).value = "[red]note"
        assert await wait_for(pilot, lambda: palette.has_class("-ready"))
        options = palette.query_one("CommandList").options  # type: ignore[attr-defined]
        assert any(
            str(option.prompt).startswith("open: [b]T[/b] [/t]\n[red]note.md") for option in options
        )
