"""Settings: config.toml location, validation messages naming file and key, env overrides."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.core.config import (
    DEFAULT_MAX_FILE_SIZE,
    ConfigError,
    Settings,
    config_path,
    default_human_actor,
    load_settings,
    login_name,
)


def write_config(tmp_path: Path, text: str) -> tuple[Path, dict[str, str]]:
    """A config file and the environment pointing at it."""
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path, {"MEMTUI_CONFIG_FILE": str(path)}


def test_location_follows_xdg_and_override(tmp_path: Path) -> None:
    assert config_path({"XDG_CONFIG_HOME": "/x"}) == Path("/x/memtui/config.toml")
    assert config_path({"HOME": str(tmp_path)}).name == "config.toml"
    assert config_path({"MEMTUI_CONFIG_FILE": "/y/c.toml", "XDG_CONFIG_HOME": "/x"}) == Path(
        "/y/c.toml"
    )


def test_defaults_without_a_file(tmp_path: Path) -> None:
    settings = load_settings({"XDG_CONFIG_HOME": str(tmp_path)})
    assert settings.root is None
    assert settings.secrets == "warn"
    assert settings.max_file_size == DEFAULT_MAX_FILE_SIZE == 10 * 1024 * 1024
    assert settings.keymap == {}
    assert settings.theme is None
    assert settings.actor


def test_full_file(tmp_path: Path) -> None:
    path, env = write_config(
        tmp_path,
        'root = "~/mem"\nactor = "ann"\nsecrets = "block"\nmax_file_size = "2MiB"\n'
        'theme = "nord"\n[keymap]\n"main.search" = "ctrl+f,/"\n',
    )
    settings = load_settings(env)
    assert settings == Settings(
        root=Path("~/mem").expanduser(),
        actor="ann",
        secrets="block",
        max_file_size=2 * 1024 * 1024,
        keymap={"main.search": "ctrl+f,/"},
        theme="nord",
        source=path,
    )


def test_environment_overrides_file(tmp_path: Path) -> None:
    _path, env = write_config(tmp_path, 'actor = "ann"\nsecrets = "warn"\n')
    env |= {
        "MEMTUI_ROOT": "/data/mem",
        "MEMTUI_ACTOR": "bob",
        "MEMTUI_SECRETS": "block",
        "MEMTUI_MAX_FILE_SIZE": "1024",
    }
    settings = load_settings(env)
    assert (settings.root, settings.actor, settings.secrets, settings.max_file_size) == (
        Path("/data/mem"),
        "bob",
        "block",
        1024,
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('secrets = "maybe"\n', 'key "secrets" must be "warn" or "block", got "maybe"'),
        ("max_file_size = -3\n", 'key "max_file_size" must be a positive number of bytes, got -3'),
        (
            'max_file_size = "lots"\n',
            'key "max_file_size" must be a number of bytes (like 10485760 or "10MiB"), got '
            "'lots'",
        ),
        ("actor = 3\n", 'key "actor" must be a non-empty string, got 3'),
        ("keymap = 1\n", 'key "keymap" must be a table of binding id = "keys" strings'),
        ('colour = "red"\n', 'unknown key "colour"'),
        ('[search]\nmodle = "x"\n', '[search] unknown key "modle"'),
        ("search = 3\n", 'key "search" must be a table ([search])'),
        ('[search]\nmodel = ""\n', "key \"search.model\" must be a non-empty string, got ''"),
    ],
)
def test_bad_values_name_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    path, env = write_config(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_settings(env)
    assert str(caught.value) == f"{path}: {message}"


def test_toml_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    path, env = write_config(tmp_path, 'actor = "ann"\nsecrets = \n')
    with pytest.raises(ConfigError) as caught:
        load_settings(env)
    assert str(caught.value) == f"{path}: invalid TOML: Invalid value (at line 2, column 11)"


def test_bad_environment_values(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path)}
    with pytest.raises(ConfigError) as caught:
        load_settings(env | {"MEMTUI_SECRETS": "off"})
    assert str(caught.value) == 'MEMTUI_SECRETS must be "warn" or "block", got "off"'
    with pytest.raises(ConfigError) as caught:
        load_settings(env | {"MEMTUI_MAX_FILE_SIZE": "big"})
    assert str(caught.value).startswith("MEMTUI_MAX_FILE_SIZE must be a number of bytes")


def test_default_human_actor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path)}
    assert default_human_actor(load_settings(env | {"MEMTUI_ACTOR": "carol"})) == "human:carol"
    assert default_human_actor(load_settings(env)) == f"human:{login_name()}"
    monkeypatch.setenv("MEMTUI_ACTOR", "dora")
    assert default_human_actor(Settings(actor="ann")) == "human:ann"


def test_settings_are_frozen() -> None:
    settings = Settings()
    with pytest.raises(AttributeError):
        settings.secrets = "block"  # type: ignore[misc]


def test_a_configured_agent_actor_is_an_error(tmp_path: Path) -> None:
    """The config's `actor` names the person using memtui, never an agent."""
    config = tmp_path / "config.toml"
    config.write_text('actor = "agent:bot"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_settings({"MEMTUI_CONFIG_FILE": str(config)})
    assert str(raised.value).startswith(f"{config}: key \"actor\": 'agent:bot' is not a human name")


def test_a_config_file_named_but_missing_is_an_error(tmp_path: Path) -> None:
    missing = tmp_path / "typo.toml"
    with pytest.raises(ConfigError) as refused:
        load_settings({"MEMTUI_CONFIG_FILE": str(missing)})
    assert str(refused.value) == (
        f"MEMTUI_CONFIG_FILE: {missing} does not exist "
        "(set it to /dev/null to run without a config file)"
    )
    assert load_settings({"MEMTUI_CONFIG_FILE": "/dev/null"}).source is None


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        (
            'search = "s"',
            '[keymap] "search" is not a binding id of memtui (the keys screen, F1, lists them)',
        ),
        (
            '"main.nope" = "s"',
            '[keymap] "main.nope" is not a binding id of memtui (the keys screen, F1, lists them)',
        ),
        (
            '"main.search" = "ctrl+nosuchkey"',
            '[keymap] "main.search": "ctrl+nosuchkey" is not a key name (like escape, f5, '
            "slash, a or ctrl+s)",
        ),
        (
            '"main.search" = "cmd+f"',
            '[keymap] "main.search": "cmd+f" has a modifier memtui does not know (use ctrl, '
            "shift, alt or meta)",
        ),
        ('"main.search" = "ctrl+"', '[keymap] "main.search": "ctrl+" names no key'),
        (
            '"main.search" = "s,,t"',
            '[keymap] "main.search": "s,,t" is not a list of keys (like "ctrl+f" or "s,ctrl+f")',
        ),
    ],
)
def test_an_unknown_binding_id_or_an_invalid_key_is_a_config_error(
    tmp_path: Path, table: str, problem: str
) -> None:
    path, env = write_config(tmp_path, f"[keymap]\n{table}\n")
    with pytest.raises(ConfigError) as refused:
        load_settings(env)
    assert str(refused.value) == f"{path}: {problem}"


@pytest.mark.parametrize(
    "keys", ["ctrl+f", "slash", "f12", "equals_sign", "plus,equals_sign", "E", "ctrl+shift+up", "/"]
)
def test_valid_keys_are_accepted(tmp_path: Path, keys: str) -> None:
    _path, env = write_config(tmp_path, f'[keymap]\n"main.search" = "{keys}"\n')
    assert load_settings(env).keymap == {"main.search": keys}


def test_the_search_model_is_named_in_a_search_table(tmp_path: Path) -> None:
    assert load_settings({"XDG_CONFIG_HOME": str(tmp_path)}).search_model is None
    _path, env = write_config(tmp_path, '[search]\nmodel = " minishlab/potion-base-8M "\n')
    assert load_settings(env).search_model == "minishlab/potion-base-8M"
