"""The app records your changes as the configured actor unless --actor says otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.tui.app import MemtuiApp
from tests.tui.conftest import AppFactory


def test_the_app_uses_the_configured_actor(
    store_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_app: AppFactory
) -> None:
    config = tmp_path / "config" / "memtui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('actor = "alice"\n', encoding="utf-8")
    assert make_app(actor=None).actor == "human:alice"
    assert make_app(actor="human:bob").actor == "human:bob"
    monkeypatch.setenv("MEMTUI_ACTOR", "carol")
    assert make_app(actor=None).actor == "human:carol"


def actor_of_cli_app(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> str:
    """The actor of the app `memtui ARGV` builds (through the CLI entry, the app not run)."""
    from memtui.cli import main

    built: list[MemtuiApp] = []
    monkeypatch.setattr(MemtuiApp, "run", lambda self, *args, **kwargs: built.append(self))
    assert main(argv) == 0
    (app,) = built
    return app.actor


def test_the_command_takes_the_actor_from_flag_then_environment_then_config_then_login(
    store_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("getpass.getuser", lambda: "loginname")
    assert actor_of_cli_app(monkeypatch, [str(store_root)]) == "human:loginname"
    config = tmp_path / "config" / "memtui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('actor = "auditor"\n', encoding="utf-8")
    assert actor_of_cli_app(monkeypatch, [str(store_root)]) == "human:auditor"
    monkeypatch.setenv("MEMTUI_ACTOR", "carol")
    assert actor_of_cli_app(monkeypatch, [str(store_root)]) == "human:carol"
    assert actor_of_cli_app(monkeypatch, [str(store_root), "--actor", "dana"]) == "human:dana"


def test_an_agent_actor_in_the_config_is_refused_naming_the_file(
    store_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from memtui.cli import main

    config = tmp_path / "config" / "memtui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('actor = "agent:bot"\n', encoding="utf-8")
    monkeypatch.setattr(MemtuiApp, "run", lambda self, *args, **kwargs: None)
    assert main([str(store_root)]) == 2
    error = capsys.readouterr().err
    assert str(config) in error and '"actor"' in error and "human" in error
