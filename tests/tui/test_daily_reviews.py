"""Renaming in the app approves nothing: the link rewrites of a rename leave the agent's
changes to the notes it rewrote waiting in the inbox."""

from __future__ import annotations

from pathlib import Path

from memtui.core.config import Settings
from memtui.core.recording.inbox import changes
from memtui.core.store import MemoryStore
from tests.tui.conftest import AppFactory, wait_for, wait_idle
from tests.tui.test_edit import NOTE, drop_permalink, rename_in_app


async def test_rename_with_rewrite_links_leaves_the_agents_creates_waiting(
    store_root: Path, make_app: AppFactory
) -> None:
    drop_permalink(store_root / NOTE)
    agent = MemoryStore(store_root, actor="agent:claude", settings=Settings())
    assert not agent.create("/memories/a.md", "# A\n- uses [[tools/textual]]\n").is_error
    assert not agent.create("/memories/b.md", "# B\n- likes [[tools/textual]]\n").is_error
    agent.close()
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        assert await wait_for(pilot, lambda: app.review_count == 2)
        label = await rename_in_app(app, pilot, NOTE, "libs/textual.md")
        assert label == "Rewrite links in 2 notes the move would break"
        assert await wait_for(
            pilot,
            lambda: (
                (store_root / "b.md").read_text(encoding="utf-8")
                == "# B\n- likes [[libs/textual]]\n"
            ),
        )
        assert (store_root / "a.md").read_text(encoding="utf-8") == "# A\n- uses [[libs/textual]]\n"
        app.count_reviews()
        await wait_idle(pilot)
        assert app.review_count == 2
        history = app.ctx.history
        waiting = [(event.command, event.path) for event in reversed(changes(history))]
        assert waiting == [("create", "/memories/a.md"), ("create", "/memories/b.md")]
