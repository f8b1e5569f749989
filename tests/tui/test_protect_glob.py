"""The `p` dialog's first rule covers the note or folder it was opened on, whatever its name."""

from __future__ import annotations

import pytest

from memtui.core.policy.rules import compile_path_glob, glob_covers
from memtui.tui.screens.protect import default_glob


@pytest.mark.parametrize(
    ("relpath", "is_dir", "covered", "not_covered"),
    [
        ("notes/a[1].md", False, "notes/a[1].md", "notes/a1.md"),
        ("notes/*.md", False, "notes/*.md", "notes/b.md"),
        ("q?/x.md", False, "q?/x.md", "qa/x.md"),
        ("we[ir]d*", True, "we[ir]d*/n.md", "wed/n.md"),
        ("e\x1bx", True, "e\x1bx/n.md", "ex/n.md"),
        ("", True, "any/n.md", None),
    ],
)
def test_the_first_rule_covers_the_chosen_path_and_nothing_its_name_would_pattern(
    relpath: str, is_dir: bool, covered: str, not_covered: str | None
) -> None:
    glob = compile_path_glob(default_glob(relpath, is_dir))
    assert glob_covers(glob, covered)
    if not_covered is not None:
        assert not glob_covers(glob, not_covered)
