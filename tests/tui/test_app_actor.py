"""The app records your changes as the configured actor unless --actor says otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.tui.app import MemtuiApp


def test_the_app_uses_the_configured_actor(
    store_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config" / "memtui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('actor = "alice"\n', encoding="utf-8")
    assert MemtuiApp(store_root, watch=False).actor == "human:alice"
    assert MemtuiApp(store_root, actor="human:bob", watch=False).actor == "human:bob"
    monkeypatch.setenv("MEMTUI_ACTOR", "carol")
    assert MemtuiApp(store_root, watch=False).actor == "human:carol"
