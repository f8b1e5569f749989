"""Saving one setting into the user's config file: one line changes, nothing else does."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from memtui.core import config_edit
from memtui.core.config import ConfigError, load_settings
from memtui.core.config_edit import save_setting

COMMENTED = (
    "# my memtui settings\n"
    'root = "~/memories"   # where the agent writes\n'
    "\n"
    "# keys I like\n"
    "[keymap]\n"
    '"main.search" = "slash,ctrl+f"\n'
)


def env_for(path: Path) -> dict[str, str]:
    """An environment naming `path` as the config file."""
    return {"MEMTUI_CONFIG_FILE": str(path)}


def test_a_missing_config_file_is_created_with_the_one_setting(tmp_path: Path) -> None:
    """No config yet: the file (and its folder) appear holding just the key, mode 0600."""
    path = tmp_path / "config" / "memtui" / "config.toml"
    assert save_setting("tree_labels", "titles", env_for(path)) == path
    assert path.read_bytes() == b'tree_labels = "titles"\n'
    assert path.stat().st_mode & 0o777 == 0o600
    assert load_settings(env_for(path)).tree_labels == "titles"


def test_the_key_is_added_above_the_first_table_keeping_every_comment(tmp_path: Path) -> None:
    """A new top-level key goes just before `[keymap]`; every other byte stays."""
    path = tmp_path / "config.toml"
    path.write_text(COMMENTED, encoding="utf-8")
    path.chmod(0o640)
    save_setting("tree_labels", "titles", env_for(path))
    assert path.read_text(encoding="utf-8") == COMMENTED.replace(
        "# keys I like\n[keymap]", '# keys I like\ntree_labels = "titles"\n[keymap]'
    )
    assert path.stat().st_mode & 0o777 == 0o640


def test_an_existing_value_is_replaced_in_place_with_its_comment(tmp_path: Path) -> None:
    """Switching back rewrites only the value; a comment after it stays."""
    path = tmp_path / "config.toml"
    path.write_text('tree_labels = "titles"  # chosen in the app\nactor = "ana"\n')
    save_setting("tree_labels", "names", env_for(path))
    assert path.read_text() == 'tree_labels = "names"  # chosen in the app\nactor = "ana"\n'


def test_a_symlinked_config_is_written_where_it_points(tmp_path: Path) -> None:
    """A dotfiles link stays a link; its target gets the change."""
    target = tmp_path / "dotfiles" / "memtui.toml"
    target.parent.mkdir()
    target.write_text('actor = "ana"\n')
    link = tmp_path / "config.toml"
    link.symlink_to(target)
    save_setting("tree_labels", "titles", env_for(link))
    assert link.is_symlink()
    assert target.read_text() == 'actor = "ana"\ntree_labels = "titles"\n'


def test_a_change_that_would_touch_other_settings_is_refused(tmp_path: Path) -> None:
    """A table header inside a multi-line string would be misread: refused, file unchanged."""
    path = tmp_path / "config.toml"
    text = 'root = """\n[not a table]\n"""\n'
    path.write_text(text)
    with pytest.raises(ConfigError, match='cannot set "tree_labels" without changing other'):
        save_setting("tree_labels", "titles", env_for(path))
    assert path.read_text() == text


def test_a_broken_config_or_a_full_disk_is_one_line_and_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Invalid TOML and a failed write give ConfigError naming the file; nothing changes."""
    path = tmp_path / "config.toml"
    path.write_text("root = [\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        save_setting("tree_labels", "titles", env_for(path))
    assert path.read_text() == "root = [\n"
    path.write_text('actor = "ana"\n')

    def full_disk(*_args: object) -> None:
        """The disk is full."""
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(config_edit, "replace_file", full_disk)
    with pytest.raises(ConfigError) as error:
        save_setting("tree_labels", "titles", env_for(path))
    assert str(error.value) == f"{path}: cannot write: No space left on device"
    assert path.read_text() == 'actor = "ana"\n'


def test_tree_labels_must_be_names_or_titles(tmp_path: Path) -> None:
    """A bad value is a config error naming the file and the key."""
    path = tmp_path / "config.toml"
    path.write_text('tree_labels = "headings"\n')
    with pytest.raises(ConfigError) as error:
        load_settings(env_for(path))
    assert (
        str(error.value) == f'{path}: key "tree_labels" must be "names" or "titles", got "headings"'
    )
