"""Conventions of the whole app: every binding has an id, every action is in the command palette,
and the palette opens a note by a fuzzy title."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

from textual.app import App
from textual.binding import Binding
from textual.command import CommandPalette
from textual.dom import DOMNode
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, TextArea

import memtui.tui
from memtui.tui.screens.dialogs import HelpScreen, NewNoteScreen, RenameScreen
from memtui.tui.screens.editor import EditorScreen
from memtui.tui.screens.graph import GraphScreen
from memtui.tui.screens.history import HistoryScreen
from memtui.tui.screens.main import MainScreen
from memtui.tui.screens.merge import ConflictScreen
from memtui.tui.screens.review import ReviewScreen
from memtui.tui.screens.search import SearchScreen
from memtui.tui.widgets.confirm import ConfirmScreen
from tests.tui.conftest import AppFactory, wait_for, wait_idle

# ----- every binding has an id ------------------------------------------------------------------


def memtui_node_classes() -> list[type[DOMNode]]:
    """Every screen, widget and app class defined anywhere in `memtui.tui` (found by walking)."""
    classes: dict[str, type[DOMNode]] = {}
    for info in pkgutil.walk_packages(memtui.tui.__path__, "memtui.tui."):
        module = importlib.import_module(info.name)
        for _name, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, DOMNode) and cls.__module__ == module.__name__:
                classes[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return list(classes.values())


def test_every_binding_of_every_screen_and_widget_has_a_unique_id() -> None:
    """Walking all of `memtui.tui`: each class's own bindings are Bindings with a unique,
    namespaced id (the name the config's keymap remaps)."""
    classes = memtui_node_classes()
    names = {cls.__name__ for cls in classes}
    walked = {"MemtuiApp", "MainScreen", "SearchScreen", "GraphScreen", "HistoryScreen"}
    walked |= {"ReviewScreen", "EditorScreen", "ConflictScreen", "NewNoteScreen", "RenameScreen"}
    walked |= {"HelpScreen", "ConfirmScreen", "NoteTree", "GraphView", "Preview"}
    assert walked <= names, walked - names
    ids: dict[str, str] = {}
    checked = 0
    for cls in classes:
        for binding in vars(cls).get("BINDINGS", []):
            where = f"{cls.__module__}.{cls.__qualname__} {binding!r}"
            assert isinstance(binding, Binding), where
            assert binding.id, f"no id: {where}"
            prefix, dot, name = binding.id.partition(".")
            assert prefix and dot and name, f"id is not namespace.name: {where}"
            assert binding.id not in ids, f"{binding.id} is used by {ids[binding.id]} and {where}"
            ids[binding.id] = where
            checked += 1
    assert checked >= 50


# ----- styling lives in memtui.tcss -------------------------------------------------------------


def test_no_screen_or_widget_carries_its_own_css() -> None:
    """Every style is in `memtui.tcss`: no class of `memtui.tui` declares CSS of its own."""
    own_css = [
        f"{cls.__module__}.{cls.__qualname__}.{name}"
        for cls in memtui_node_classes()
        for name in ("DEFAULT_CSS", "CSS")
        if vars(cls).get(name)
    ]
    assert own_css == []


# ----- every action is in the palette -----------------------------------------------------------

NAVIGATION_ONLY: dict[str, str] = {
    "tree.expand": "right opens the folder under the tree cursor",
    "tree.collapse": "left closes it",
    "graph.node_up": "moves the graph cursor between drawn nodes",
    "graph.node_down": "moves the graph cursor between drawn nodes",
    "graph.node_left": "moves the graph cursor to the parent node",
    "graph.node_right": "moves the graph cursor to a child node",
    "graph.node_next": "tab cycles the graph cursor",
    "graph.node_previous": "shift+tab cycles it back",
    "tree.down": "j moves the tree cursor down, as down does",
    "tree.up": "k moves it up",
    "list.down": "j moves a list's cursor down",
    "list.up": "k moves it up",
    "table.down": "j moves a table's row cursor down",
    "table.up": "k moves it up",
}
"""Widget-internal cursor moves: they act on where the widget's cursor is, which the palette
(opened over the screen) cannot point at, so they are keys only."""

WIDGET_ACTIONS_IN_PALETTE: dict[str, str] = {
    "graph.recentre": "recentre_focused",
}
"""Widget bindings whose action the palette offers as a screen action under another name."""


def own_bindings(node: DOMNode) -> Iterator[Binding]:
    """The bindings memtui declares on `node`'s classes (not Textual's built-in ones)."""
    for cls in type(node).__mro__:
        if cls.__module__.startswith("memtui.") and "BINDINGS" in vars(cls):
            for binding in vars(cls)["BINDINGS"]:
                assert isinstance(binding, Binding)
                yield binding


def expected_palette_actions(app: App[Any], screen: Screen[Any]) -> dict[str, str]:
    """Binding id -> the palette action that must exist, for the focused widget, its
    containers, the screen and the app (the chain a key press goes through)."""
    focused = screen.focused
    chain: list[DOMNode] = list(focused.ancestors_with_self) if focused else [screen, app]
    expected: dict[str, str] = {}
    for node in chain:
        for binding in own_bindings(node):
            assert binding.id is not None
            if node is app:
                expected[binding.id] = f"app.{binding.action}"
            elif node is screen:
                expected[binding.id] = binding.action
            elif binding.id in WIDGET_ACTIONS_IN_PALETTE:
                expected[binding.id] = WIDGET_ACTIONS_IN_PALETTE[binding.id]
            else:
                assert binding.id in NAVIGATION_ONLY, (
                    f"{type(node).__name__} binding {binding.id} is neither in the palette "
                    "nor documented as navigation only"
                )
    return expected


async def palette_actions(pilot: Pilot[None]) -> set[str]:
    """Open the palette (ctrl+p) on the current screen; the actions its listed verbs run."""
    app = pilot.app
    before = app.screen
    await pilot.press("ctrl+p")
    assert await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
    palette = app.screen
    assert await wait_for(pilot, lambda: palette.has_class("-ready"))
    actions: set[str] = set()
    for option in palette.query_one("CommandList").options:  # type: ignore[attr-defined]
        command = option.hit.command
        if isinstance(command, partial) and getattr(command.func, "__name__", "") == "_run":
            actions.add(command.args[0])
    await pilot.press("escape")
    assert await wait_for(pilot, lambda: app.screen is before)
    return actions


async def assert_everything_in_palette(pilot: Pilot[None], screen_type: type) -> None:
    """On the current screen (of `screen_type`) every binding has its verb in the palette."""
    app = pilot.app
    assert await wait_for(pilot, lambda: isinstance(app.screen, screen_type))
    await pilot.pause()
    screen = app.screen
    expected = expected_palette_actions(app, screen)
    assert {"app.quit", "app.help"} <= set(expected.values())
    offered = await palette_actions(pilot)
    missing = {
        binding_id: action for binding_id, action in expected.items() if action not in offered
    }
    assert not missing, f"{type(screen).__name__}: not in the palette: {missing}"


async def close_to(pilot: Pilot[None], key: str, screen_type: type) -> None:
    """Press `key` and wait until the screen is of `screen_type`."""
    await pilot.press(key)
    assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, screen_type))


async def test_every_action_of_every_screen_is_in_the_palette(
    store_root: Path, make_app: AppFactory
) -> None:
    """Main, search, graph, history, review, editor, conflict and every dialog: ctrl+p lists a
    verb for each of the screen's and the focused widget's bindings (cursor moves excepted)."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        main.show_path("tools/textual.md")
        assert await wait_for(pilot, lambda: main.preview.relpath == "tools/textual.md")
        await assert_everything_in_palette(pilot, MainScreen)

        for key, screen_type in (
            ("slash", SearchScreen),
            ("g", GraphScreen),
            ("h", HistoryScreen),
            ("r", ReviewScreen),
        ):
            await pilot.press(key)
            await assert_everything_in_palette(pilot, screen_type)
            await close_to(pilot, "escape", MainScreen)

        for key, screen_type in (("n", NewNoteScreen), ("m", RenameScreen), ("d", ConfirmScreen)):
            await pilot.press(key)
            await assert_everything_in_palette(pilot, screen_type)
            await close_to(pilot, "escape", MainScreen)
        await pilot.press("f1")
        await assert_everything_in_palette(pilot, HelpScreen)
        await close_to(pilot, "escape", MainScreen)

        await pilot.press("e")
        await assert_everything_in_palette(pilot, EditorScreen)
        editor = app.screen
        assert isinstance(editor, EditorScreen)
        agent = app.ctx.store.with_actor("agent:claude")
        agent.str_replace("/memories/tools/textual.md", "# Textual\n", "# Textual (agent)\n")
        mine = editor.original.replace("# Textual", "# Textual (mine)")
        editor.query_one(TextArea).text = mine
        await pilot.press("ctrl+s")
        await assert_everything_in_palette(pilot, ConflictScreen)

        # A verb chosen in the palette runs on the dialog it was opened over.
        await pilot.press("ctrl+p")
        assert await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"keep mine")
        assert await wait_for(pilot, lambda: app.screen.has_class("-ready"))
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        assert (store_root / "tools/textual.md").read_text(encoding="utf-8") == mine


# ----- the palette finds notes by fuzzy title ---------------------------------------------------


async def test_a_fuzzy_title_in_the_palette_opens_the_note(
    store_root: Path, make_app: AppFactory
) -> None:
    """ctrl+p "prefrences" (a typo: neither the exact title nor a prefix or substring of it)
    lists "Preferences" first; Enter opens it in the tree and the preview."""
    query = "prefrences"
    assert query not in "preferences" and not "preferences".startswith(query)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path("tools/textual.md")
        assert await wait_for(pilot, lambda: screen.preview.relpath == "tools/textual.md")
        await pilot.press("ctrl+p")
        assert await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        palette = app.screen
        assert await wait_for(pilot, lambda: palette.has_class("-ready"))
        # The whole query at once, so exactly one search runs after the list of verbs is in
        # (typed key by key, the hits of "pref" could still be listed when checked).
        palette.remove_class("-ready")
        palette.query_one(Input).value = query
        assert await wait_for(pilot, lambda: palette.has_class("-ready"))
        options = palette.query_one("CommandList").options  # type: ignore[attr-defined]
        assert options and options[0].hit.help == "user/preferences.md"
        assert "open: Preferences" in str(options[0].prompt)
        palette.query_one(Input).focus()  # the input is not focusable while not -ready
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: app.screen is screen)
        assert await wait_for(
            pilot, lambda: screen.note_tree.cursor_relpath == "user/preferences.md"
        )
        assert await wait_for(pilot, lambda: screen.preview.relpath == "user/preferences.md")


# ----- workers never touch widgets --------------------------------------------------------------


def thread_workers() -> Iterator[tuple[str, ast.FunctionDef]]:
    """Every function in `memtui.tui` decorated with `@work(thread=True, ...)`."""
    for path in sorted(Path(memtui.tui.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef):
                continue
            for decorator in node.decorator_list:
                threaded = isinstance(decorator, ast.Call) and any(
                    keyword.arg == "thread"
                    and isinstance(keyword.value, ast.Constant)
                    and keyword.value.value is True
                    for keyword in decorator.keywords
                )
                if threaded:
                    yield f"{path.name}:{node.name}", node


def test_thread_workers_post_messages_instead_of_calling_into_the_ui() -> None:
    """No thread worker hands a UI update to the event loop with `call_from_thread`."""
    workers = dict(thread_workers())
    assert "main.py:load_side_history" in workers and "search.py:search_worker" in workers
    offenders = [
        name
        for name, function in workers.items()
        for node in ast.walk(function)
        if isinstance(node, ast.Attribute) and node.attr == "call_from_thread"
    ]
    assert offenders == []


async def test_no_widget_is_refreshed_off_the_event_loop_thread(
    store_root: Path, monkeypatch: Any, make_app: AppFactory
) -> None:
    """Indexing, badges, the side panel's history and a search run in threads; no widget is
    refreshed from one of them."""
    import threading

    from textual.widget import Widget

    off_thread: list[str] = []
    refresh = Widget.refresh

    def checked_refresh(self: Widget, *args: Any, **kwargs: Any) -> Any:
        if threading.current_thread() is not threading.main_thread():
            off_thread.append(f"{type(self).__name__} in {threading.current_thread().name}")
        return refresh(self, *args, **kwargs)

    monkeypatch.setattr(Widget, "refresh", checked_refresh)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path("tools/textual.md")
        assert await wait_for(pilot, lambda: " external baseline" in side_text(screen))
        await pilot.press("slash", *"widgets")
        await wait_idle(pilot)
    assert off_thread == []


def side_text(screen: MainScreen) -> str:
    """Everything the side panel lists."""
    side = screen.side
    return "\n".join(str(side.get_option_at_index(i).prompt) for i in range(side.option_count))
