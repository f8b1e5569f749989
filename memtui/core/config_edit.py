"""Saving one setting into the user's config file, keeping every other line and comment as is.

The app remembers a choice (the tree's labels) in `config.toml`, the file the user edits. The
file is changed by one line (the key's value replaced, or the key added above the first table),
checked by parsing it again (every other setting must read the same), and replaced atomically.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tomllib
from collections.abc import Mapping
from pathlib import Path

from memtui.core.applying.atomic import make_dirs, replace_file
from memtui.core.config import ConfigError, config_path
from memtui.core.resolving.regular import read_regular

NEW_FILE_MODE = 0o600
_TABLE_HEADER = re.compile(r"^\s*\[")


def save_setting(key: str, value: str, env: Mapping[str, str] | None = None) -> Path:
    """Set the top-level `key = "value"` in the config file (`config_path`), creating the file
    if there is none; returns the file written. A symlinked config file is written where it
    points. Raises ConfigError with one line when the file cannot be read, parsed or written,
    or the change would touch anything else."""
    path = config_path(env)
    text, mode = _current(path)
    changed = with_top_level_value(text, key, value)
    _check_only_key_changed(path, text, changed, key, value)
    target = Path(os.path.realpath(path))
    try:
        make_dirs(target.parent)
        replace_file(target, changed.encode("utf-8"), mode)
    except OSError as error:
        raise ConfigError(f"{path}: cannot write: {error.strerror or error}") from error
    return path


def _current(path: Path) -> tuple[str, int]:
    """The config file's text and permission bits ("" and 0600 when there is no file)."""
    try:
        data, info = read_regular(path, follow_symlinks=True)
    except FileNotFoundError:
        return "", NEW_FILE_MODE
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from error
    try:
        return data.decode("utf-8"), stat.S_IMODE(info.st_mode)
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not valid UTF-8 text") from error


def with_top_level_value(text: str, key: str, value: str) -> str:
    """`text` with the top-level `key`'s value replaced (a comment after it kept), or with
    `key = "value"` added before the first table (at the end when there is none)."""
    shown = json.dumps(value, ensure_ascii=False)
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


def _check_only_key_changed(path: Path, before: str, after: str, key: str, value: str) -> None:
    """Refuse a change that would not parse, or would change anything but `key`."""
    try:
        old = tomllib.loads(before)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from error
    try:
        new = tomllib.loads(after)
    except tomllib.TOMLDecodeError:
        new = None
    if new != {**old, key: value}:
        raise ConfigError(
            f'{path}: cannot set "{key}" without changing other lines; set it by hand'
        )
