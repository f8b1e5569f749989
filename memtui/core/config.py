"""Typed user settings from `config.toml` plus `MEMTUI_*` environment overrides."""

from __future__ import annotations

import getpass
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memtui.core.actors import ActorError, human_actor
from memtui.core.config_sync import SyncSettings, sync_settings
from memtui.core.config_tables import (
    BudgetSettings,
    ContradictionSettings,
    TableError,
    budget_settings,
    contradiction_settings,
)
from memtui.core.display import visible
from memtui.core.keymap import BINDING_IDS, keys_problem
from memtui.core.resolving.regular import read_regular

DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024
SECRET_MODES = ("warn", "block")
TREE_LABELS = ("names", "titles")


class ConfigError(Exception):
    """A config file or environment value is invalid; the message names the file and the key."""


def login_name() -> str:
    """The login user name, or `user` when the system cannot tell."""
    try:
        name = getpass.getuser()
    except Exception:
        name = ""
    return name or "user"


@dataclass(frozen=True)
class Settings:
    """Everything the user can configure, after the file and the environment are applied."""

    root: Path | None = None
    """The memory folder opened when `memtui` is run without a path."""
    actor: str = field(default_factory=login_name)
    """The name recorded for your own changes, as `human:<actor>`."""
    secrets: str = "warn"
    """Agent writes that look like credentials: `warn` records a flag, `block` refuses the write."""
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    """Largest file in bytes a write may produce; larger writes are refused."""
    keymap: dict[str, str] = field(default_factory=dict)
    """Binding id -> keys (comma-separated), overriding the app's default keys."""
    theme: str | None = None
    """The Textual theme name, or None for the default."""
    tree_labels: str = "names"
    """What the app's tree shows for a file: `names` (file names) or `titles` (frontmatter
    title, else first heading); `t` in the app switches and saves it here."""
    search_model: str | None = None
    """`[search] model`: the embedding model of search by meaning (a model name the library
    downloads once, or a local folder); None: search by meaning is off."""
    budget: BudgetSettings = field(default_factory=BudgetSettings)
    """`[budget]`: the store kind, always-loaded files and token limit, overriding detection."""
    contradictions: ContradictionSettings = field(default_factory=ContradictionSettings)
    """`[contradictions]`: what keeping the newer statement does to the older line."""
    sync: SyncSettings = field(default_factory=SyncSettings)
    """`[sync]`: automatic sync interval and this machine's name."""
    source: Path | None = None
    """The config file these settings were read from, if any."""


def config_path(env: Mapping[str, str] | None = None) -> Path:
    """`$MEMTUI_CONFIG_FILE`, else `$XDG_CONFIG_HOME/memtui/config.toml` (default `~/.config`)."""
    env = os.environ if env is None else env
    explicit = env.get("MEMTUI_CONFIG_FILE")
    if explicit:
        return Path(explicit).expanduser()
    base = env.get("XDG_CONFIG_HOME") or str(Path("~/.config").expanduser())
    return Path(base) / "memtui" / "config.toml"


_SIZE = re.compile(r"^\s*(\d+)\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


def parse_size(value: object, where: str) -> int:
    """A byte count from an int or a string like `10MiB`; raises ConfigError naming `where`."""
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and (match := _SIZE.match(value)):
        unit = (match.group(2) or "").lower()[:1]
        number = int(match.group(1)) * _UNITS[unit]
    else:
        raise ConfigError(
            f'{where} must be a number of bytes (like 10485760 or "10MiB"), got {value!r}'
        )
    if number <= 0:
        raise ConfigError(f"{where} must be a positive number of bytes, got {value!r}")
    return number


def _read_file(path: Path) -> dict[str, Any]:
    """The parsed TOML table of `path`, or {} if it does not exist."""
    try:
        data, _info = read_regular(path, follow_symlinks=True)
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from error
    if not data.strip():
        return {}
    import tomllib

    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not valid UTF-8 text") from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from error


def _check_str(path: Path, key: str, value: object) -> str:
    """`value` if it is a non-empty string, else a ConfigError naming the key."""
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f'{path}: key "{key}" must be a non-empty string, got {value!r}')
    return value


def _check_secrets(where: str, value: object) -> str:
    """`value` if it is a known secret mode."""
    if value not in SECRET_MODES:
        shown = f'"{value}"' if isinstance(value, str) else repr(value)
        raise ConfigError(f'{where} must be "warn" or "block", got {shown}')
    return str(value)


def check_tree_labels(where: str, value: object) -> str:
    """`value` if it is a tree label mode (`names` or `titles`), else a ConfigError."""
    if value not in TREE_LABELS:
        shown = f'"{value}"' if isinstance(value, str) else repr(value)
        raise ConfigError(f'{where} must be "names" or "titles", got {shown}')
    return str(value)


def _check_actor(where: str, value: str) -> str:
    """`value` if it names a person (`dana` or `human:dana`), else a ConfigError naming `where`."""
    try:
        human_actor(value)
    except ActorError as error:
        raise ConfigError(f"{where}: {error}") from error
    return value


def _check_keymap(path: Path, value: object) -> dict[str, str]:
    """A `[keymap]` table whose ids are the app's binding ids and whose keys are valid keys."""
    if not isinstance(value, dict) or not all(isinstance(keys, str) for keys in value.values()):
        raise ConfigError(f'{path}: key "keymap" must be a table of binding id = "keys" strings')
    for binding_id, keys in value.items():
        if binding_id not in BINDING_IDS:
            raise ConfigError(
                f'{path}: [keymap] "{visible(binding_id)}" is not a binding id of memtui '
                "(the keys screen, F1, lists them)"
            )
        problem = keys_problem(keys)
        if problem is not None:
            raise ConfigError(f'{path}: [keymap] "{binding_id}": {visible(problem)}')
    return dict(value)


def _check_search(path: Path, value: object) -> dict[str, Any]:
    """The Settings fields of a `[search]` table (its one key: `model`)."""
    if not isinstance(value, dict):
        raise ConfigError(f'{path}: key "search" must be a table ([search])')
    values: dict[str, Any] = {}
    for key, item in value.items():
        if key != "model":
            raise ConfigError(f'{path}: [search] unknown key "{visible(key)}"')
        values["search_model"] = _check_str(path, "search.model", item).strip()
    return values


_TABLES = {
    "budget": budget_settings,
    "contradictions": contradiction_settings,
    "sync": sync_settings,
}
"""Config tables checked in their own module: key -> checker returning the typed settings."""


def _from_table(path: Path, table: Mapping[str, Any]) -> dict[str, Any]:
    """Validated Settings fields from a config file's top-level table."""
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key == "root":
            values["root"] = Path(_check_str(path, key, value)).expanduser()
        elif key == "actor":
            values["actor"] = _check_actor(f'{path}: key "actor"', _check_str(path, key, value))
        elif key == "secrets":
            values["secrets"] = _check_secrets(f'{path}: key "secrets"', value)
        elif key == "max_file_size":
            values["max_file_size"] = parse_size(value, f'{path}: key "max_file_size"')
        elif key == "theme":
            values["theme"] = _check_str(path, key, value)
        elif key == "tree_labels":
            values["tree_labels"] = check_tree_labels(f'{path}: key "tree_labels"', value)
        elif key == "keymap":
            values["keymap"] = _check_keymap(path, value)
        elif key == "search":
            values.update(_check_search(path, value))
        elif key in _TABLES:
            try:
                values[key] = _TABLES[key](path, value)
            except TableError as error:
                raise ConfigError(str(error)) from error
        else:
            raise ConfigError(f'{path}: unknown key "{key}"')
    return values


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    """Read the config file and apply `MEMTUI_*` overrides; raises ConfigError on bad values.

    `MEMTUI_CONFIG_FILE` must name a file that exists (`/dev/null` for no config file), so a
    mistyped name cannot silently drop a setting such as `secrets = "block"`.
    """
    env = os.environ if env is None else env
    path = config_path(env)
    explicit = bool(env.get("MEMTUI_CONFIG_FILE"))
    if explicit and str(path) == os.devnull:
        values: dict[str, Any] = {}
    else:
        if explicit and not os.path.lexists(path):
            raise ConfigError(
                f"MEMTUI_CONFIG_FILE: {path} does not exist "
                f"(set it to {os.devnull} to run without a config file)"
            )
        values = _from_table(path, _read_file(path))
        if path.exists():
            values["source"] = path
    if env.get("MEMTUI_ROOT"):
        values["root"] = Path(env["MEMTUI_ROOT"]).expanduser()
    if env.get("MEMTUI_ACTOR"):
        values["actor"] = _check_actor("MEMTUI_ACTOR", env["MEMTUI_ACTOR"])
    if env.get("MEMTUI_SECRETS"):
        values["secrets"] = _check_secrets("MEMTUI_SECRETS", env["MEMTUI_SECRETS"])
    if env.get("MEMTUI_MAX_FILE_SIZE"):
        values["max_file_size"] = parse_size(env["MEMTUI_MAX_FILE_SIZE"], "MEMTUI_MAX_FILE_SIZE")
    return Settings(**values)


def default_human_actor(settings: Settings) -> str:
    """`human:<settings.actor>`: MEMTUI_ACTOR, else the config's `actor`, else the login name.

    `load_settings` has already applied MEMTUI_ACTOR and checked both; raises ActorError if the
    name (a login name, or an actor given to `Settings` directly) names another kind of actor.
    """
    return human_actor(settings.actor)
