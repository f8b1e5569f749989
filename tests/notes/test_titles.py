"""A file's title for the tree: frontmatter title, else first heading, else none (its name)."""

from __future__ import annotations

from pathlib import Path

from memtui.core.store import MemoryStore
from memtui.notes.titles import display_title, read_titles


def test_frontmatter_title_wins_over_a_heading() -> None:
    """A Basic Memory note's `title` is its title."""
    assert display_title("a.md", "---\ntitle: Front Title\n---\n\n# Heading\n") == "Front Title"


def test_the_first_heading_outside_code_fences_is_the_title() -> None:
    """Without a frontmatter title, the first ATX heading (closing hashes dropped)."""
    assert display_title("a.md", "intro\n\n## User preferences ##\n# Later\n") == "User preferences"
    assert display_title("a.md", "```\n# comment\n```\n# Real\n") == "Real"
    assert display_title("a.md", "---\ntype: note\n---\n# From body\n") == "From body"


def test_other_text_files_use_their_first_heading_and_no_frontmatter() -> None:
    """A `.txt` log's heading is its title; `---` in it is not frontmatter; JSON has none."""
    assert (
        display_title("log.txt", "---\ntitle: no\n---\n# Log of decisions\n") == "Log of decisions"
    )
    assert display_title("prefs.json", '{"title": "x"}\n') is None


def test_read_titles_reads_each_file_head_and_skips_unreadable_ones(tmp_path: Path) -> None:
    """Titles of several files at once; a non-UTF-8 file is left out."""
    (tmp_path / "a.md").write_text("# Alpha\n")
    (tmp_path / "b.md").write_text("no heading\n")
    (tmp_path / "c.md").write_bytes(b"\xff# Bad\n")
    assert read_titles(MemoryStore(tmp_path), ["a.md", "b.md", "c.md", "gone.md"]) == {
        "a.md": "Alpha",
        "b.md": None,
    }
