"""Link rewriting after a move: finding the links into moved notes and rewriting their text."""

from __future__ import annotations

import shutil
from pathlib import Path

from memtui.notes.index import NoteIndex
from memtui.notes.links import (
    broken_by_move,
    link_name,
    links_into,
    moved_path,
    retargets,
    rewrite_links,
    wikilinks,
)


def write(root: Path, relpath: str, text: str) -> None:
    """Write one note, creating folders."""
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def move(index: NoteIndex, old: str, new: str) -> None:
    """Move a note or folder on disk and update the index, as the app does after a rename."""
    target = index.root / new
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(index.root / old, target)
    index.update_paths([old, new])


def test_every_wikilink_form_is_rewritten_and_its_alias_or_heading_kept() -> None:
    text = (
        "- uses [[Old]]\n"
        "- see [[Old|the old one]] and [[Old#Setup]] and [[ Old ]]\n"
        "| [[Old\\|alias]] | [[Old#Top|top]] |\n"
        "[[Older]] [[Other]]\n"
    )
    rewritten, count = rewrite_links(text, {"Old": "lib/new"})
    assert rewritten == (
        "- uses [[lib/new]]\n"
        "- see [[lib/new|the old one]] and [[lib/new#Setup]] and [[ lib/new ]]\n"
        "| [[lib/new\\|alias]] | [[lib/new#Top|top]] |\n"
        "[[Older]] [[Other]]\n"
    )
    assert count == 6


def test_links_in_frontmatter_code_and_escapes_are_left_alone() -> None:
    text = (
        '---\ntitle: X\nsee: "[[Old]]"\n---\n'
        "`[[Old]]` and \\[[Old]] and [[Old]]\n"
        "```\n[[Old]]\n```\n"
        "~~~~\n[[Old]]\n~~~\n[[Old]]\n~~~~\n"
        "after [[Old]]\n"
    )
    rewritten, count = rewrite_links(text, {"Old": "New"})
    assert count == 2
    assert rewritten == text.replace("and [[Old]]\n", "and [[New]]\n").replace(
        "after [[Old]]", "after [[New]]"
    )
    assert [link.inner for link in wikilinks(text)] == ["Old", "Old"]


def test_a_whole_target_that_names_a_note_wins_over_its_base() -> None:
    assert rewrite_links("[[A|B]] [[A]]", {"A|B": "C", "A": "D"}) == ("[[C]] [[D]]", 2)


def test_moved_path_follows_a_note_or_a_folder() -> None:
    assert moved_path("a/b.md", "a/b.md", "c.md") == "c.md"
    assert moved_path("a/b.md", "a", "z/y") == "z/y/b.md"
    assert moved_path("ab/c.md", "a", "z") == "ab/c.md"


def test_a_folder_move_finds_links_into_every_note_below_it(tmp_path: Path) -> None:
    write(tmp_path, "tools/textual.md", "# Textual\n")
    write(tmp_path, "tools/deep/rich.md", "---\ntitle: Rich\n---\n# Rich\n")
    write(tmp_path, "tools/other.md", "- see [[tools/textual]]\n")
    write(
        tmp_path,
        "notes/a.md",
        "- uses [[tools/textual|the lib]]\n- see [[Rich#Usage]] and [[tools/deep/rich]]\n",
    )
    write(tmp_path, "notes/b.md", "- unrelated [[Nothing]]\n")
    index = NoteIndex.load(tmp_path, use_cache=False)
    plan = links_into(index, "tools")
    assert plan == {
        "notes/a.md": {
            "tools/textual": "tools/textual.md",
            "Rich": "tools/deep/rich.md",
            "tools/deep/rich": "tools/deep/rich.md",
        },
        "tools/other.md": {"tools/textual": "tools/textual.md"},
    }
    move(index, "tools", "libs")
    assert retargets(index, plan, "tools", "libs") == {
        "notes/a.md": {"tools/textual": "libs/textual", "tools/deep/rich": "libs/deep/rich"},
        "libs/other.md": {"tools/textual": "libs/textual"},
    }


def test_a_note_move_keeps_links_that_still_resolve(tmp_path: Path) -> None:
    write(tmp_path, "a/kept.md", "---\ntitle: Kept\npermalink: a/kept\n---\n")
    write(tmp_path, "a/stem.md", "# no title in frontmatter\n")
    write(
        tmp_path,
        "b.md",
        "- by title [[Kept]]\n- by permalink [[a/kept]]\n"
        "- by stem [[stem|Stem]] and [[stem#Top]]\n- depends_on [[a/stem]]\n",
    )
    index = NoteIndex.load(tmp_path, use_cache=False)
    kept = links_into(index, "a/kept.md")
    assert kept == {"b.md": {"Kept": "a/kept.md", "a/kept": "a/kept.md"}}
    move(index, "a/kept.md", "c/kept.md")
    assert retargets(index, kept, "a/kept.md", "c/kept.md") == {}
    stem = links_into(index, "a/stem.md")
    assert stem == {"b.md": {"stem": "a/stem.md", "a/stem": "a/stem.md"}}
    move(index, "a/stem.md", "a/renamed.md")
    assert retargets(index, stem, "a/stem.md", "a/renamed.md") == {
        "b.md": {"stem": "renamed", "a/stem": "a/renamed"}
    }


def test_link_name_keeps_the_style_of_the_old_link(tmp_path: Path) -> None:
    write(tmp_path, "x/note.md", "---\ntitle: The Note\n---\n")
    write(tmp_path, "y/note.md", "---\ntitle: The Note\n---\n")
    index = NoteIndex.load(tmp_path, use_cache=False)
    assert link_name(index, "y/note.md", "old/path") == "y/note"
    assert link_name(index, "y/note.md", "Old Title") == "y/note"
    write(tmp_path, "z/solo.md", "---\ntitle: Solo\n---\n")
    index.update_paths(["z/solo.md"])
    assert link_name(index, "z/solo.md", "Old Title") == "Solo"
    assert link_name(index, "z/solo.md", "old/solo") == "z/solo"


def rewritten_keys(plan: dict[str, dict[str, str]], old: str, new: str) -> set[tuple[str, str]]:
    """(source after the move, link text) of every link in `plan`."""
    return {(moved_path(source, old, new), key) for source, links in plan.items() for key in links}


def test_the_links_a_move_would_break_are_exactly_those_rewritten_after_it(tmp_path: Path) -> None:
    write(tmp_path, "a/kept.md", "---\ntitle: Kept\npermalink: a/kept\n---\n")
    write(tmp_path, "a/stem.md", "# no title in frontmatter\n")
    write(tmp_path, "a/sib.md", "- next to [[./stem.md]] and [[a/stem]]\n")
    write(
        tmp_path,
        "b.md",
        "- by title [[Kept]]\n- by permalink [[a/kept]]\n"
        "- by stem [[stem|Stem]] and [[stem#Top]]\n- depends_on [[a/stem]]\n",
    )
    index = NoteIndex.load(tmp_path, use_cache=False)
    for old, new in (("a/kept.md", "c/kept.md"), ("a/stem.md", "a/renamed.md"), ("a", "z")):
        plan = links_into(index, old)
        predicted = broken_by_move(index, plan, old, new)
        move(index, old, new)
        assert rewritten_keys(predicted, old, new) == rewritten_keys(
            retargets(index, plan, old, new), new, new
        ), (old, new)
        move(index, new, old)
    assert broken_by_move(index, links_into(index, "a/kept.md"), "a/kept.md", "c/kept.md") == {}


def test_the_prediction_follows_which_note_wins_a_shared_title(tmp_path: Path) -> None:
    """Two notes share a title and a link by it reaches the first by path: moving that one
    behind the other hands the title over, so the link breaks and the prediction says so."""
    write(tmp_path, "b/note.md", "---\ntitle: The Note\n---\n")
    write(tmp_path, "c/note.md", "---\ntitle: The Note\n---\n")
    write(tmp_path, "src.md", "- about [[The Note]]\n")
    index = NoteIndex.load(tmp_path, use_cache=False)
    for old, new in (("b/note.md", "d/note.md"), ("b/note.md", "a/note.md"), ("b", "z")):
        plan = links_into(index, old)
        assert plan == {"src.md": {"The Note": "b/note.md"}}
        predicted = broken_by_move(index, plan, old, new)
        move(index, old, new)
        rewritten = retargets(index, plan, old, new)
        assert rewritten_keys(predicted, old, new) == rewritten_keys(rewritten, new, new), (
            old,
            new,
        )
        move(index, new, old)
    assert broken_by_move(index, links_into(index, "b"), "b", "z") == {
        "src.md": {"The Note": "b/note.md"}
    }
