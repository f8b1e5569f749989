"""Keys and clicks in the app mark it as in use, so background loops yield more to it."""

from __future__ import annotations

from pathlib import Path

from tests.tui.conftest import AppFactory, wait_idle


async def test_a_key_or_a_click_marks_the_app_in_use(
    store_root: Path, make_app: AppFactory
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        interaction = app.ctx.interaction
        interaction.last = float("-inf")
        await pilot.pause()
        assert not interaction.recent()
        await pilot.press("down")
        assert interaction.recent()
        interaction.last = float("-inf")
        await pilot.click("#tree")
        assert interaction.recent()
