"""The `[sync]` table of the config: the interval and the machine's name, checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.core.config import ConfigError, load_settings


def settings_from(tmp_path: Path, text: str) -> object:
    """Settings read from a config file holding `text`."""
    path = tmp_path / "config.toml"
    path.write_text(text)
    return load_settings({"MEMTUI_CONFIG_FILE": str(path)})


@pytest.mark.parametrize(
    ("every", "seconds"),
    [('"5m"', 300.0), ('"30s"', 30.0), ('"1h"', 3600.0), ("90", 90.0), ('"off"', None)],
)
def test_every_takes_durations(tmp_path: Path, every: str, seconds: float | None) -> None:
    settings = settings_from(tmp_path, f'[sync]\nevery = {every}\nmachine = " work  laptop "\n')
    assert settings.sync.every == seconds  # type: ignore[attr-defined]
    assert settings.sync.machine == "work laptop"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            'every = "soon"',
            """[sync] "every" must be a duration such as "5m", "30s" or "off", got 'soon'""",
        ),
        ('every = "2s"', """[sync] "every" must be at least 10 s, got '2s'"""),
        ("machine = 3", '[sync] "machine" must be a name of 1 to 100 characters, got 3'),
        ('color = "red"', 'unknown key "color" in [sync]'),
    ],
)
def test_bad_values_are_one_line_naming_the_key(tmp_path: Path, table: str, message: str) -> None:
    with pytest.raises(ConfigError) as error:
        settings_from(tmp_path, f"[sync]\n{table}\n")
    assert str(error.value) == f"{tmp_path / 'config.toml'}: {message}"
