"""MemoryStore without explicit settings: it reads the user's config, and a bad one is an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.core.config import ConfigError, Settings
from memtui.core.store import MemoryStore


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A config file path the store will read (not written yet); MEMTUI_* overrides cleared."""
    path = tmp_path / "config.toml"
    monkeypatch.setenv("MEMTUI_CONFIG_FILE", str(path))
    for name in ("MEMTUI_ACTOR", "MEMTUI_SECRETS", "MEMTUI_MAX_FILE_SIZE", "MEMTUI_ROOT"):
        monkeypatch.delenv(name, raising=False)
    return path


def test_a_bad_key_beside_secrets_block_is_an_error_not_the_defaults(
    config: Path, tmp_path: Path
) -> None:
    config.write_text('secrets = "block"\nmax_file_sise = 5\n', encoding="utf-8")
    root = tmp_path / "memories"
    with pytest.raises(ConfigError) as raised:
        MemoryStore(root, actor="agent:claude")
    assert str(raised.value) == f'{config}: unknown key "max_file_sise"'
    assert not root.exists()


def test_a_bad_value_names_the_file_and_the_key(config: Path, tmp_path: Path) -> None:
    config.write_text('secrets = "blok"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        MemoryStore(tmp_path / "memories")
    assert str(raised.value) == f'{config}: key "secrets" must be "warn" or "block", got "blok"'


def test_a_good_config_applies_its_secret_policy(config: Path, tmp_path: Path) -> None:
    config.write_text('secrets = "block"\n', encoding="utf-8")
    store = MemoryStore(tmp_path / "memories", actor="agent:claude")
    result = store.create("/memories/k.md", "AKIAIOSFODNN7EXAMPLE\n")
    assert (result.content, result.is_error) == (
        "Refused: the text looks like it contains a secret (AWS access key). "
        "Nothing was written; store a reference to where the secret is kept instead.",
        True,
    )
    assert not (tmp_path / "memories" / "k.md").exists()


def test_explicit_settings_do_not_read_the_config(config: Path, tmp_path: Path) -> None:
    config.write_text("nonsense = 1\n", encoding="utf-8")
    store = MemoryStore(tmp_path / "memories", settings=Settings(actor="ann"))
    assert store.actor == "human:ann"


def test_the_configured_actor_is_the_default_human_actor(
    config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config.write_text('actor = "alice"\n', encoding="utf-8")
    assert MemoryStore(tmp_path / "memories").actor == "human:alice"
    assert MemoryStore(tmp_path / "memories", actor="agent:x").actor == "agent:x"
    monkeypatch.setenv("MEMTUI_ACTOR", "bob")
    assert MemoryStore(tmp_path / "memories").actor == "human:bob"
    assert MemoryStore(tmp_path / "memories", settings=Settings(actor="carl")).actor == (
        "human:carl"
    )
