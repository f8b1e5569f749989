"""The background loading of the index keeps up with files changed meanwhile; search follows it."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from memtui.core.store import MemoryStore
from memtui.notes import search as search_module
from memtui.tui.context import AppContext
from memtui.tui.indexing import after_changes, apply_changes, build_searcher, load_index
from tests.tui.conftest import AppFactory


def make_context(root: Path) -> AppContext:
    """An app context on `root` with the history opened (as the app does first) and no index."""
    store = MemoryStore(root, actor="human:tester")
    store.history.events(limit=1)
    return AppContext(root=store.root, settings=store.settings, store=store)


def note(title: str, fact: str) -> str:
    """A small note with one observation."""
    return f"---\ntitle: {title}\n---\n\n- [fact] {fact}\n"


def test_a_file_changed_while_the_index_loads_is_in_the_installed_index(tmp_path: Path) -> None:
    """The change lands after the file was read; the installed index still has the new text."""
    root = tmp_path / "memories"
    root.mkdir()
    (root / "alpha.md").write_text(note("Alpha", "first wording"), encoding="utf-8")
    (root / "beta.md").write_text(note("Beta", "unchanged"), encoding="utf-8")
    ctx = make_context(root)

    def change_during_load(done: int, total: int) -> None:
        if done == total and not ctx.changed_while_loading:
            (root / "alpha.md").write_text(note("Alpha", "second wording, longer"), "utf-8")
            assert apply_changes(ctx, frozenset({"alpha.md"})) == {"alpha.md"}

    index, error, _changed = load_index(ctx, change_during_load)

    assert error is None and index is not None
    assert ctx.index is index
    assert index.notes["alpha.md"].observations[0].content == "second wording, longer"


def test_a_file_changed_after_the_index_loaded_is_searchable_at_once(tmp_path: Path) -> None:
    """The searcher reads the index's latest state: a change applied before or after it is
    installed is found, and the outside edit is in the history."""
    root = tmp_path / "memories"
    root.mkdir()
    for name in ("alpha", "beta", "gamma"):
        (root / f"{name}.md").write_text(note(name.title(), f"{name} plain"), encoding="utf-8")
    ctx = make_context(root)
    index, _error, _changed = load_index(ctx, lambda done, total: None)
    assert index is not None
    first = next(iter(index.notes))
    (root / first).write_text(note("Changed", "zebracorn arrives"), encoding="utf-8")
    apply_changes(ctx, frozenset({first}))
    after_changes(ctx, frozenset({first}))
    searcher = build_searcher(ctx, index, None)
    assert ctx.searcher is searcher
    assert ctx.changed_while_loading == set()
    assert [hit.path for hit in searcher.search("zebracorn")] == [first]
    (root / "gamma.md").write_text(note("Gamma", "unicorn later"), encoding="utf-8")
    apply_changes(ctx, frozenset({"gamma.md"}))
    assert [hit.path for hit in searcher.search("unicorn")] == ["gamma.md"]
    results = [e.result for e in ctx.history.events(command="external", path=f"/memories/{first}")]
    assert f"/memories/{first} was changed outside memtui" in results


async def test_the_ui_answers_keys_while_the_search_index_builds(
    store_root: Path, monkeypatch: pytest.MonkeyPatch, make_app: AppFactory
) -> None:
    """The search index is built off the UI thread: search opens and says so, then shows hits."""
    from textual.widgets import Input, Static

    from memtui.tui.screens.search import SearchScreen
    from tests.tui.conftest import wait_for, wait_idle

    release = threading.Event()
    real_init = search_module.Searcher.__init__

    def slow_init(self: search_module.Searcher, *args: object, **kwargs: object) -> None:
        release.wait(10)
        real_init(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(search_module.Searcher, "__init__", slow_init)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        assert await wait_for(pilot, lambda: app.ctx.index is not None)
        await pilot.press("slash")
        await pilot.press("t", "e", "x", "t", "u", "a", "l")
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        assert screen.query_one("#search-input", Input).value == "textual"
        status = screen.query_one("#search-status", Static)
        building = "Building the search index… results appear when it is done."
        assert await wait_for(pilot, lambda: str(status.render()) == building)
        assert app.ctx.searcher is None
        release.set()
        await wait_idle(pilot)
        assert await wait_for(pilot, lambda: screen.hits != [])
        assert "tools/textual.md" in {hit.path for hit in screen.hits}


async def test_a_built_index_is_searchable_at_once_and_catches_up_after(
    store_root: Path, monkeypatch: pytest.MonkeyPatch, make_app: AppFactory
) -> None:
    """On a warm launch search works before the files are checked; a note changed while the app
    was closed is found once the check is done (and nothing else is read again)."""
    from memtui.notes import parse_pool
    from memtui.notes.index import NoteIndex
    from tests.tui.conftest import wait_for, wait_idle

    NoteIndex.load(store_root).close()
    note_path = store_root / "user/preferences.md"
    note_path.write_text(note_path.read_text() + "- [style] Loves quokkas\n", encoding="utf-8")
    release = threading.Event()
    real_refresh = NoteIndex.refresh
    read: list[str] = []
    real_read = parse_pool.read_store_head

    def gated_refresh(self: NoteIndex, progress: object = None, **kwargs: object) -> set[str]:
        release.wait(10)
        return real_refresh(self, progress, **kwargs)  # type: ignore[arg-type]

    def counting_read(root: Path, relpath: str) -> object:
        read.append(relpath)
        return real_read(root, relpath)

    monkeypatch.setattr(NoteIndex, "refresh", gated_refresh)
    monkeypatch.setattr(parse_pool, "read_store_head", counting_read)
    app = make_app()
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            assert await wait_for(pilot, lambda: app.ctx.searcher is not None)
            searcher = app.ctx.searcher
            assert searcher is not None
            assert [hit.path for hit in searcher.search("widgets")] == ["tools/textual.md"]
            assert searcher.search("quokkas") == []
            release.set()
            await wait_idle(pilot)
            assert await wait_for(pilot, lambda: searcher.search("quokkas") != [])
            assert read == ["user/preferences.md"]
    finally:
        release.set()
