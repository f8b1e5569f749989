"""Shortening untrusted text to a width: paths keep their start and file name, actors their start;
wide characters count as two cells."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from rich.cells import cell_len

from memtui.tui.widgets.side_panel import actor_column
from memtui.tui.wording import shorten_end, shorten_middle

DEEP = "test-int/fixtures/schema/inference/people/grace-hopper.md"


def test_a_long_path_keeps_its_start_and_its_file_name() -> None:
    assert shorten_middle(DEEP, 80) == DEEP
    assert shorten_middle(DEEP, 40) == "test-int/fixt…nce/people/grace-hopper.md"
    assert shorten_middle(DEEP, 20) == "test-i…ace-hopper.md"
    assert shorten_middle(DEEP, 1) == "…"
    assert shorten_middle(DEEP, 0) == ""
    others = [DEEP.replace("grace-hopper", name) for name in ("alan-turing", "ada-lovelace")]
    assert len({shorten_middle(path, 30) for path in [DEEP, *others]}) == 3


def test_wide_characters_count_as_two_cells() -> None:
    shortened = shorten_middle("日本語/日本語のノート/とても長い名前のファイル.md", 20)
    assert shortened == "日本語…のファイル.md"
    assert cell_len(shortened) <= 20
    assert shorten_end("日本語のノート", 7) == "日本語…"


def test_actors_share_one_column_with_a_gap_before_the_command() -> None:
    events: list[Any] = [
        SimpleNamespace(actor="agent:claude"),
        SimpleNamespace(actor="human:dana"),
        SimpleNamespace(actor="agent:" + "x" * 40),
        SimpleNamespace(actor="agent:\x1b]0;title\x07"),
    ]
    assert actor_column(events) == [
        "agent:claude" + " " * 13,
        "human:dana" + " " * 15,
        "agent:" + "x" * 17 + "… ",
        "agent:␛]0;title␇" + " " * 9,
    ]
