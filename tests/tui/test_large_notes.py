"""No file can freeze the app: a huge or sparse note is read (capped) and laid out off the UI
thread, in the preview and in the raw view, and costs the app only what is shown."""

from __future__ import annotations

import resource
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static, TextArea

import memtui.tui.preview_source as preview_source
from memtui.notes.file_checks import LARGE_NOTE_BYTES
from memtui.tui.app import MemtuiApp
from memtui.tui.screens.main import MainScreen
from memtui.tui.widgets.confirm import ConfirmScreen
from memtui.tui.widgets.text_view import TextView
from tests.tui.conftest import AppFactory, wait_for, wait_idle
from tests.tui.hostile_terminal import drawn_lines

GIB = 1 << 30


def write_sparse(path: Path, head: str, size: int) -> None:
    """A file of `size` bytes: `head`, then a hole that reads as NUL bytes."""
    with path.open("wb") as handle:
        handle.write(head.encode("utf-8"))
        handle.truncate(size)


def toast_texts(app: MemtuiApp) -> list[str]:
    """The text of each notification on screen, its wrapped lines joined."""
    from textual.widgets._toast import Toast

    return [" ".join(str(toast.render()).split()) for toast in app.screen.query(Toast)]


def header(main: MainScreen) -> str:
    """The preview's header line."""
    return str(main.query_one("#preview-header", Static).render())


def gate(monkeypatch: pytest.MonkeyPatch, name: str) -> tuple[threading.Event, threading.Event]:
    """Hold `preview_source.<name>` until the returned `release` is set; `entered` is set once
    a view's preparation is waiting (so the test knows it started)."""
    entered, release = threading.Event(), threading.Event()
    real: Callable[..., Any] = getattr(preview_source, name)

    def gated(*args: Any, **kwargs: Any) -> Any:
        """Wait for the test, then prepare the view for real."""
        entered.set()
        release.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(preview_source, name, gated)
    return entered, release


async def wait_thread_event(pilot: Pilot[None], event: threading.Event) -> bool:
    """Pause until a thread sets `event`."""
    return await wait_for(pilot, event.is_set)


@pytest.mark.parametrize("raw", [False, True], ids=["preview", "raw view"])
async def test_a_key_is_answered_while_a_huge_note_is_being_prepared(
    store_root: Path, monkeypatch: pytest.MonkeyPatch, raw: bool, make_app: AppFactory
) -> None:
    """While a 5 MB note's view is read and laid out (held in its thread), F1's key help is on
    screen at once; the note's view appears when its thread finishes."""
    line = "- [fact] a long line of the big note #bulk " * 4 + "\n"
    (store_root / "huge.md").write_text(line * (5_000_000 // len(line)), encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_idle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        main.show_path("huge.md")
        if raw:
            assert await wait_for(pilot, lambda: main.preview.relpath == "huge.md")
        entered, release = gate(monkeypatch, "prepare_raw" if raw else "prepare_view")
        if raw:
            await pilot.press("v")
        assert await wait_thread_event(pilot, entered)
        help_line = "Search  (main.search)"
        assert help_line not in "".join(drawn_lines(app))
        await pilot.press("f1")
        assert await wait_for(pilot, lambda: help_line in "".join(drawn_lines(app)))
        assert main.preview.mode != ("raw" if raw else "plain")
        await pilot.press("escape")
        release.set()
        wanted = "raw" if raw else "plain"
        assert await wait_for(pilot, lambda: main.preview.mode == wanted, timeout=20)
        assert main.preview.relpath == "huge.md"
        assert f"of {(store_root / 'huge.md').stat().st_size:,} B" in header(main)


async def test_a_sparse_gigabyte_note_shows_its_first_mib_in_both_views(
    store_root: Path,
    make_app: AppFactory,
) -> None:
    """A 1 GiB sparse file: the preview and the raw view show its first MiB, say so, record no
    read of the whole file, and the app's peak memory does not grow by the file's size."""
    write_sparse(store_root / "huge.txt", "first line\nsecond line\n", GIB)
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_idle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        main.show_path("huge.txt")
        assert await wait_for(pilot, lambda: main.preview.relpath == "huge.txt", timeout=20)
        await wait_idle(pilot)
        assert (
            header(main)
            == f"huge.txt  ·  first {LARGE_NOTE_BYTES:,} of {GIB:,} B  ·  ! 2 warning(s)"
        )
        view = main.query_one("#preview-plain", TextView)
        assert view.text.startswith("first line\nsecond line\n\x00")
        assert len(view.text) == LARGE_NOTE_BYTES
        await pilot.press("v")
        assert await wait_for(pilot, lambda: main.preview.mode == "raw", timeout=20)
        await wait_idle(pilot)
        assert header(main) == (
            f"huge.txt  ·  raw view of the first {LARGE_NOTE_BYTES:,} of {GIB:,} B"
            f"  ·  ≈ {GIB // 4:,} tokens in all"
        )
        assert view.text.startswith(
            "Here's the content of /memories/huge.txt with line numbers:\n"
            "     1\tfirst line\n     2\tsecond line\n     3\t\x00"
        )
        grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
        assert grown_kib < 256 * 1024
        assert app.ctx.history.events(command="view") == []


async def test_a_note_over_the_cap_is_not_loaded_into_the_editor_here(
    store_root: Path, monkeypatch: pytest.MonkeyPatch, make_app: AppFactory
) -> None:
    """`e` on a note over a MiB loads nothing: it offers $EDITOR instead, and `n` declines
    (nothing runs, nothing changes)."""
    monkeypatch.setenv("EDITOR", "false")
    text = "- [fact] filler line\n" * 60_000
    (store_root / "big.md").write_text(text, encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await wait_idle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        main.show_path("big.md")
        assert await wait_for(pilot, lambda: main.preview.relpath == "big.md")
        await pilot.press("e")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert app.screen.title_text == "big.md is too big to edit here"
        assert app.screen.body.startswith(
            "It is over 1 MiB or 20,000 lines, more than memtui's editor loads. Edit it in "
            "your editor (false) instead?"
        )
        await pilot.press("n")
        assert await wait_for(pilot, lambda: app.screen is main)
        assert not app.screen.query(TextArea)
    assert (store_root / "big.md").read_text(encoding="utf-8") == text
