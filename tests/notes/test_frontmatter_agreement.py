"""Every reader splits frontmatter the parser's way: parser, links, samples and
python-frontmatter."""

from __future__ import annotations

import frontmatter

from memtui.notes.frontmatter_norm import body_start, split_frontmatter
from memtui.notes.links import wikilinks
from memtui.notes.parser import parse_note
from memtui.notes.records import body_sample

LEADING_BLANK = "\n---\ntitle: A\n---\nbody"


def test_a_note_opening_with_a_blank_line_has_its_frontmatter_read() -> None:
    note = parse_note(LEADING_BLANK, "a.md")
    assert note.title == "A"
    assert note.frontmatter == {"title": "A", "type": "note"}
    assert note.body_line == 5
    assert note.warnings == []


def test_the_split_is_python_frontmatters() -> None:
    metadata, content = frontmatter.parse(LEADING_BLANK)
    split = split_frontmatter(LEADING_BLANK)
    assert (metadata, content) == ({"title": "A"}, "body")
    assert split.yaml == "\ntitle: A\n"
    assert split.body == content
    assert LEADING_BLANK[split.body_start :] == "body"
    assert body_start(LEADING_BLANK) == split.body_start


def test_links_in_frontmatter_after_a_blank_line_are_not_links() -> None:
    text = "\n---\ntitle: A\nsee: '[[Hidden]]'\n---\nbody [[Shown]]\n"
    assert [link.inner for link in wikilinks(text)] == ["Shown"]


def test_a_body_sample_leaves_the_frontmatter_out() -> None:
    text = "\n\n---\ntitle: Same\n---\nThe body of a note that is long enough to compare.\n"
    assert body_sample(text) == "the body of a note that is long enough to compare."


def test_malformed_frontmatter_is_body_for_every_reader() -> None:
    text = "---\ntitle: [unclosed\n---\nbody [[Shown]]\n"
    assert parse_note(text, "a.md").body_line == 1
    assert body_start(text) == 0
    assert [link.inner for link in wikilinks(text)] == ["Shown"]
