"""The `[budget]` and `[contradictions]` config tables: typed values, and one-line errors that
name the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.core.config import ConfigError, Settings, load_settings
from memtui.core.config_tables import BudgetSettings, ContradictionSettings


def _load(tmp_path: Path, text: str) -> Settings:
    """Settings from a config file holding `text`."""
    path = tmp_path / "config.toml"
    path.write_text(text)
    return load_settings({"MEMTUI_CONFIG_FILE": str(path)})


def test_the_tables_are_typed(tmp_path: Path) -> None:
    settings = _load(
        tmp_path,
        '[budget]\nkind = "letta"\nalways = ["system/**"]\nlimit = 15000\n'
        '[contradictions]\nolder = "mark"\n',
    )
    assert settings.budget == BudgetSettings("letta", ("system/**",), 15000)
    assert settings.contradictions == ContradictionSettings("mark")
    assert _load(tmp_path, "").budget == BudgetSettings()
    assert _load(tmp_path, "").contradictions.older == "remove"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[budget]\nkind = "cursor"\n',
            '[budget] "kind" must be one of "claude-code", "letta", '
            '"memory-tool", "basic-memory", got \'cursor\'',
        ),
        ("[budget]\nlimit = 0\n", '[budget] "limit" must be a positive number of tokens, got 0'),
        (
            "[budget]\nlimit = true\n",
            '[budget] "limit" must be a positive number of tokens, got True',
        ),
        (
            '[budget]\nalways = "MEMORY.md"\n',
            "[budget] \"always\" must be a list of file globs, got 'MEMORY.md'",
        ),
        ("[budget]\nsize = 3\n", 'unknown key "size" in [budget]'),
        ('budget = "big"\n', 'key "budget" must be a table ([budget])'),
        (
            '[contradictions]\nolder = "delete"\n',
            '[contradictions] "older" must be one of "remove", "mark", got \'delete\'',
        ),
        ("[contradictions]\nask = true\n", 'unknown key "ask" in [contradictions]'),
    ],
)
def test_bad_values_are_one_line_errors_naming_the_key(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        _load(tmp_path, text)
    assert str(raised.value) == f"{tmp_path / 'config.toml'}: {message}"
