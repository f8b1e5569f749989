"""memtui's frontmatter split (which also yields the body offset) agrees with
python-frontmatter's."""

from __future__ import annotations

from pathlib import Path

import frontmatter
import pytest
import yaml

from memtui.notes.frontmatter_norm import split_frontmatter

FIXTURES = Path(__file__).parent / "fixtures" / "notes"
CORPUS = Path(__file__).parents[2].parent / "shared" / "corpus" / "basic-memory-notes"

HANDWRITTEN = [
    "---\ntitle: A\n---\nbody\n",
    "\n\n---\ntitle: A\ntags: [x, y]\n---\n\n\nbody line\n\n",
    "---\r\ntitle: A\r\n---\r\nbody\r\n",
    "---   \ntitle: A\n---\t\nbody",
    "---\ntitle: A\n---\n",
    "---\n---\nonly body\n",
    "---\ntitle: A\n-----\nstill yaml?\n---\nbody\n",
    "no frontmatter at all\n",
    "---\ntitle: unterminated\n",
]


def _texts() -> list[str]:
    """Every note text to compare: handwritten cases, the fixtures and the shared corpus."""
    texts = list(HANDWRITTEN)
    for folder in (FIXTURES, CORPUS):
        if folder.is_dir():
            for path in sorted(folder.rglob("*.md")):
                try:
                    texts.append(path.read_text(encoding="utf-8"))
                except UnicodeDecodeError:
                    continue
    return texts


@pytest.mark.parametrize("text", _texts())
def test_split_matches_python_frontmatter(text: str) -> None:
    split = split_frontmatter(text)
    yaml_text, body, body_start = split.yaml, split.body, split.body_start
    try:
        metadata, content = frontmatter.parse(text)
    except yaml.YAMLError:
        return
    assert body == content
    assert text[body_start : body_start + len(body)] == body
    loaded = None if yaml_text is None else yaml.safe_load(yaml_text)
    if isinstance(loaded, dict):
        assert loaded == metadata
    else:
        assert metadata == {}  # python-frontmatter drops a block that is not a mapping
