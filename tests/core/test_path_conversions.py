"""Virtual and relative path conversions, the one place every layer converts (core.paths)."""

from __future__ import annotations

import pytest

from memtui.agents.notes_access import relpath_of
from memtui.core.parsing.paths import as_virtual, from_relpath, to_relpath, under_root


@pytest.mark.parametrize(
    ("virtual", "expected"),
    [
        ("/memories/a/b.md", "a/b.md"),
        ("/memories/", ""),
        ("/memories", None),
        ("/memoriesfoo/a.md", None),
        ("/etc/passwd", None),
        ("a.md", None),
        ("/memories/../x", "../x"),
    ],
)
def test_under_root_takes_only_paths_written_below_the_root(
    virtual: str, expected: str | None
) -> None:
    assert under_root(virtual) == expected


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("a.md", "/memories/a.md"),
        ("/a/b/", "/memories/a/b"),
        ("/memories/a.md/", "/memories/a.md"),
        ("/memories", "/memories"),
        ("", "/memories"),
        ("/memories/../x", "/memories/../x"),
    ],
)
def test_as_virtual_keeps_virtual_paths_and_roots_relative_ones(typed: str, expected: str) -> None:
    assert as_virtual(typed) == expected


def test_relative_and_virtual_round_trip() -> None:
    assert from_relpath("a/b.md") == "/memories/a/b.md"
    assert to_relpath(from_relpath("a/b.md")) == "a/b.md"
    assert from_relpath("") == "/memories"


def test_an_agent_path_that_only_starts_like_the_root_names_no_note() -> None:
    assert relpath_of("/memoriesfoo/a.md") is None
    assert relpath_of("/memories/x/../a.md") == "a.md"
    assert relpath_of("/memories/../a.md") is None
    assert relpath_of("/memories") == ""
