"""Permalinks match Basic Memory 0.24.1's generate_permalink (recorded), without a project
prefix."""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest

from memtui.notes.parser import parse_note
from memtui.notes.permalink import generate_permalink

RECORDED = {
    "specs/Search Design.md": "specs/search-design",
    "Specs/My Note_v2.md": "specs/my-note-v2",
    "docs/API (v2).md": "docs/api-v2",
    "中文/测试文档.md": "中文/测试文档",
    "Version 2.0.0": "version-2.0.0",
    "notes/Café Crème.md": "notes/cafe-creme",
    "a/camelCaseName.md": "a/camel-case-name",
    "it's here.md": "its-here",
    "x--y__z.md": "x-y-z",
    "-lead/trail-.md": "lead/trail",
    "日本語のメモ abc.md": "日本語-nomemo-abc",
    "mixed/ＡＢＣ全角.md": "mixed/全角",
    "deep/a.b.c.md": "deep/a.b.c",
    "notes/README.MD": "notes/readme",
    "x.txt": "x",
    "weird/##hash##.md": "weird/hash",
}


@pytest.mark.parametrize(("path", "expected"), RECORDED.items())
def test_generated_permalink(path: str, expected: str) -> None:
    assert generate_permalink(path) == expected


def test_frontmatter_permalink_wins_and_empty_one_is_generated() -> None:
    assert parse_note(b"---\npermalink: own/link\n---\nx", "a/B c.md").permalink == "own/link"
    assert parse_note(b"---\npermalink: ''\n---\nx", "a/B c.md").permalink == "a/b-c"
    assert parse_note(b"\xff", "a/B c.md").permalink == "a/b-c"


_PATHS = [
    "a/b.md", "b.md", ".md", "a/.hidden", "a/b.", "a/b.c.md", "a/b/", "a/.", "a/..", "x",
    "a//b.md", "", "/", "a/b.tar.gz", ". .md", ".a.md",
]  # fmt: skip


@pytest.mark.parametrize("path", _PATHS)
def test_title_defaults_to_the_path_stem(path: str) -> None:
    assert parse_note(b"body\n", path).title == PurePosixPath(path).stem
