"""A store that cannot be written opens read-only: a banner, changes refused in one line, no
crash, and the text typed in the editor kept (in the editor and in a copy outside the store).

A chmod'ed folder stops everyone but root; as root (CI containers) the same tests run again in
a child process under a read-only bind mount, where the write itself fails (EROFS)."""

from __future__ import annotations

import errno
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Static, TextArea

from memtui.core.config import Settings
from memtui.core.store import MemoryStore
from memtui.tui.app import MemtuiApp
from memtui.tui.screens.main import MainScreen
from tests.tui.conftest import AppFactory, wait_for, wait_idle
from tests.tui.test_edit import start_editing

READ_ONLY_ROOTS = "MEMTUI_TEST_READ_ONLY_ROOTS"
"""Set in the child process: the folder under which `fresh` and `kept` are mounted read-only."""
NOTE = "a.md"
TEXT = "# A\n\nFirst line.\n"


def make_stores(parent: Path) -> None:
    """`fresh`: notes and no `.memtui`; `kept`: notes and a history an agent wrote."""
    for kind in ("fresh", "kept"):
        root = parent / kind
        root.mkdir(parents=True)
        (root / NOTE).write_text(TEXT, encoding="utf-8")
    agent = MemoryStore(parent / "kept", actor="agent:claude", settings=Settings())
    assert not agent.create("/memories/b.md", "# B\n").is_error
    agent.close()


def _modes(root: Path, writable: bool) -> None:
    """Take away (or give back) write permission on every folder of `root`."""
    for folder in [root, *(p for p in root.rglob("*") if p.is_dir())]:
        mode = folder.stat().st_mode
        folder.chmod(mode | stat.S_IWUSR if writable else mode & ~0o222)


@pytest.fixture(params=["fresh", "kept"])
def read_only_root(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """A store folder that cannot be written, with no history (`fresh`) or one (`kept`)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    given = os.environ.get(READ_ONLY_ROOTS)
    if given:
        yield Path(given) / request.param
        return
    if os.geteuid() == 0:
        pytest.skip("root writes to a chmod'ed folder; test_as_root_under_a_read_only_mount")
    make_stores(tmp_path / "stores")
    root = tmp_path / "stores" / request.param
    _modes(root, writable=False)
    yield root
    _modes(root, writable=True)


def files(root: Path) -> dict[str, bytes]:
    """Every file under `root` and its bytes."""
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


async def test_opens_with_a_banner_refuses_a_save_and_keeps_the_text(
    read_only_root: Path, make_app: AppFactory
) -> None:
    before = files(read_only_root)
    app = make_app(read_only_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        banner = screen.query_one("#read-only", Static)
        assert await wait_for(pilot, lambda: banner.has_class("shown"))
        assert str(banner.render()).startswith(" Read-only: this memory folder cannot be written (")
        message = await refused_save(app, pilot, NOTE, TEXT + "Typed on a read-only store.\n")
        assert message.startswith(
            f"Cannot write /memories/{NOTE}: the memory folder cannot be written ("
        )
        assert "; nothing changed. Your text is still here, and a copy is kept at " in message
        assert app.return_code is None
    assert files(read_only_root) == before


async def test_approving_and_creating_are_refused_in_one_line(
    read_only_root: Path, make_app: AppFactory
) -> None:
    before = files(read_only_root)
    app = make_app(read_only_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        assert await wait_for(pilot, lambda: app.read_only is not None)
        reason = app.read_only
        await pilot.press("n")
        await pilot.press(*"idea", "enter")
        assert await wait_for(pilot, lambda: len(app._notifications) == 1)
        await pilot.press("c")
        await wait_idle(pilot)
        await pilot.press("a")
        assert await wait_for(pilot, lambda: len(app._notifications) == 2)
        approving = (
            f"Could not approve: the memory folder cannot be written ({reason})"
            if read_only_root.name == "kept"
            else "Nothing selected: the inbox is empty."
        )
        assert [n.message for n in app._notifications] == [
            "Cannot create /memories/idea.md: the memory folder cannot be written "
            f"({reason}); nothing changed",
            approving,
        ]
        assert app.return_code is None
    assert files(read_only_root) == before


async def refused_save(app: MemtuiApp, pilot: Pilot[None], note: str, typed: str) -> str:
    """Edit `note`, type `typed`, press ctrl+s: the one error line the refused save gives, once
    checked that the editor still holds `typed` and that the copy it names does too."""
    editor = await start_editing(app, pilot, note)
    editor.query_one(TextArea).text = typed
    await pilot.press("ctrl+s")
    assert await wait_for(pilot, lambda: any(n.severity == "error" for n in app._notifications))
    [message] = [n.message for n in app._notifications if n.severity == "error"]
    copy = Path(message.rsplit(" is kept at ", 1)[1].removesuffix("."))
    assert copy.read_text(encoding="utf-8") == typed
    assert app.screen is editor and editor.query_one(TextArea).text == typed
    return message


def test_as_root_under_a_read_only_mount(tmp_path: Path) -> None:
    """Root ignores permissions: run the tests above in a mount namespace where the stores
    are a read-only bind mount (skipped where that cannot be made)."""
    if os.geteuid() != 0 or os.environ.get(READ_ONLY_ROOTS):
        pytest.skip("not root: the chmod'ed folders above are read-only enough")
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("no unshare(1) to make a read-only mount")
    source, mounted = tmp_path / "stores", tmp_path / "mounted"
    make_stores(source)
    mounted.mkdir()
    script = (
        f"mount --bind '{source}' '{mounted}' && mount -o remount,bind,ro '{mounted}' || exit 77; "
        f"exec '{sys.executable}' -m pytest -q -p no:cacheprovider -n0 '{__file__}' "
        "-k 'opens_with_a_banner or approving_and_creating'"
    )
    env = {**os.environ, READ_ONLY_ROOTS: str(mounted)}
    done = subprocess.run(
        [unshare, "-m", "sh", "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    if done.returncode == 77 or "unshare failed" in done.stderr:
        pytest.skip(f"cannot make a read-only mount here: {done.stderr.strip()[:200]}")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "4 passed" in done.stdout


async def test_a_full_disk_refuses_the_save_in_one_line_and_keeps_the_text(
    store_root: Path, make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The note's write fails with ENOSPC: one error line, nothing written, nothing lost."""
    from memtui.core.applying import atomic

    def full(fd: int, data: bytes) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    note = "tools/textual.md"
    before = (store_root / note).read_bytes()
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        monkeypatch.setattr(atomic, "write_all", full)
        message = await refused_save(app, pilot, note, before.decode() + "Typed on a full disk.\n")
        assert message.startswith(
            f"Cannot write /memories/{note}: No space left on device. Your text is still here, "
            "and a copy is kept at "
        )
    assert (store_root / note).read_bytes() == before
