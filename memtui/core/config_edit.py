"""Saving into TOML files people edit, keeping every other line and comment as is.

The app remembers a choice (the tree's labels) in `config.toml`, the file the user edits: the
file is changed by one line (the key's value replaced, or the key added above the first table).
A store's access policy (`.memtui/policy.toml`) gets a new `[[rule]]` at its end. Either change
is checked by parsing the file again (everything else must read the same) and the file replaced
atomically.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from memtui.core.applying.atomic import make_dirs, replace_file
from memtui.core.config import ConfigError, config_path
from memtui.core.policy.loading import POLICY_NAME, load_policy
from memtui.core.policy.rules import PolicyProblem, Rule, rule_from_table
from memtui.core.resolving.lock import meta_dir
from memtui.core.resolving.regular import read_regular

NEW_FILE_MODE = 0o600
_TABLE_HEADER = re.compile(r"^\s*\[")


def save_setting(key: str, value: str, env: Mapping[str, str] | None = None) -> Path:
    """Set the top-level `key = "value"` in the config file (`config_path`), creating the file
    if there is none; returns the file written. A symlinked config file is written where it
    points. Raises ConfigError with one line when the file cannot be read, parsed or written,
    or the change would touch anything else."""
    path = config_path(env)
    edit_toml(
        path,
        lambda text: with_top_level_value(text, key, value),
        lambda old: {**old, key: value},
        f'cannot set "{key}" without changing other lines; set it by hand',
    )
    return path


def add_policy_rule(
    root: str | os.PathLike[str],
    paths: list[str],
    access: str,
    actors: list[str] | None = None,
) -> Rule:
    """Add `[[rule]]` (paths, actors, access) at the end of the store's policy file, creating
    the file if there is none; returns the rule as the policy reads it (it wins over every
    earlier one). Raises ConfigError with one line for a rule or policy that cannot be used."""
    meta = meta_dir(Path(root))
    path = meta / POLICY_NAME
    current = load_policy(root)
    if current.problem is not None:
        raise ConfigError(f"{current.problem}; fix it by hand first")
    table: dict[str, object] = {"paths": paths}
    if actors:
        table["actors"] = actors
    table["access"] = access
    try:
        rule = rule_from_table(len(current.rules) + 1, table)
    except PolicyProblem as problem:
        raise ConfigError(f"{path}: {problem}") from None
    edit_toml(
        path,
        lambda text: with_table_appended(text, "rule", table),
        lambda old: {**old, "rule": [*old.get("rule", []), table]},
        "cannot add the rule without changing other lines; add it by hand",
        follow_symlinks=False,
    )
    return rule


def edit_toml(
    path: Path,
    change: Callable[[str], str],
    expected: Callable[[dict[str, Any]], dict[str, Any]],
    refusal: str,
    *,
    follow_symlinks: bool = True,
) -> None:
    """Replace the TOML file at `path` (created if missing) with `change(its text)`, which
    must parse to `expected(what it parsed to)`; `refusal` says why not otherwise. A link is
    written where it points, or (without `follow_symlinks`) refused. Raises ConfigError with
    one line."""
    text, mode = _current(path, follow_symlinks)
    changed = change(text)
    _check_only_expected_changed(path, text, changed, expected, refusal)
    target = Path(os.path.realpath(path)) if follow_symlinks else path
    try:
        make_dirs(target.parent)
        replace_file(target, changed.encode("utf-8"), mode)
    except OSError as error:
        raise ConfigError(f"{path}: cannot write: {error.strerror or error}") from error


def _current(path: Path, follow_symlinks: bool = True) -> tuple[str, int]:
    """The file's text and permission bits ("" and 0600 when there is no file)."""
    try:
        data, info = read_regular(path, follow_symlinks=follow_symlinks)
    except FileNotFoundError:
        return "", NEW_FILE_MODE
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise ConfigError(f"{path}: is a symbolic link; edit the file it points to") from error
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from error
    try:
        return data.decode("utf-8"), stat.S_IMODE(info.st_mode)
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not valid UTF-8 text") from error


def with_top_level_value(text: str, key: str, value: str) -> str:
    """`text` with the top-level `key`'s value replaced (a comment after it kept), or with
    `key = "value"` added before the first table (at the end when there is none)."""
    shown = toml_string(value)
    assignment = re.compile(
        rf"^(\s*{re.escape(key)}\s*=\s*)(\"(?:[^\"\\]|\\.)*\"|'[^']*'|[^\s#]+)(.*)$"
    )
    lines = text.splitlines(keepends=True)
    for number, line in enumerate(lines):
        if _TABLE_HEADER.match(line):
            lines.insert(number, f"{key} = {shown}\n")
            return "".join(lines)
        match = assignment.match(line.rstrip("\r\n"))
        if match is not None:
            ending = line[len(line.rstrip("\r\n")) :]
            lines[number] = f"{match.group(1)}{shown}{match.group(3)}{ending}"
            return "".join(lines)
    separator = "\n" if text and not text.endswith("\n") else ""
    return f"{text}{separator}{key} = {shown}\n"


def toml_string(value: str) -> str:
    """`value` as a TOML basic string: JSON's escapes, which TOML shares, and DEL escaped too
    (TOML allows no raw control character)."""
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def with_table_appended(text: str, name: str, table: Mapping[str, object]) -> str:
    """`text` with `[[name]]` holding `table`'s keys (strings or lists of strings) added at
    its end, after a blank line."""
    lines = [f"[[{name}]]"]
    for key, value in table.items():
        shown = (
            "[" + ", ".join(toml_string(item) for item in value) + "]"
            if isinstance(value, list)
            else toml_string(str(value))
        )
        lines.append(f"{key} = {shown}")
    separator = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
    return f"{text}{separator}" + "\n".join(lines) + "\n"


def _check_only_expected_changed(
    path: Path,
    before: str,
    after: str,
    expected: Callable[[dict[str, Any]], dict[str, Any]],
    refusal: str,
) -> None:
    """Refuse a change that would not parse, or would read as anything but `expected`."""
    try:
        old = tomllib.loads(before)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from error
    try:
        new = tomllib.loads(after)
    except tomllib.TOMLDecodeError:
        new = None
    if new != expected(old):
        raise ConfigError(f"{path}: {refusal}")
