"""memtui's merge rules for a note both machines changed (notes/sync/rules.py)."""

from __future__ import annotations

import pytest

from memtui.notes.sync.merging import plan_file
from memtui.notes.sync.rules import has_markers, sync_merge, union
from memtui.notes.sync.state import CLASH_MARKERS


def merged(base: str | None, ours: str, theirs: str) -> tuple[str, int]:
    """The text a sync leaves (ours at each clash) and the number of clashes."""
    result = sync_merge(base, ours, theirs)
    return result.text([c.side("mine") for c in result.conflicts]), len(result.conflicts)


def test_different_lines_combine() -> None:
    base = "# Notes\n- one\n- two\n- three\n"
    ours = "# Notes\n- ONE\n- two\n- three\n"
    theirs = "# Notes\n- one\n- two\n- THREE\n"
    assert merged(base, ours, theirs) == ("# Notes\n- ONE\n- two\n- THREE\n", 0)


def test_additions_at_the_same_place_keep_both_in_the_same_order_either_way() -> None:
    base = "# Log\n- start\n"
    a = "# Log\n- start\n- [obs] from a\n"
    b = "# Log\n- start\n- [obs] from b\n"
    expected = "# Log\n- start\n- [obs] from a\n- [obs] from b\n"
    assert merged(base, a, b) == (expected, 0)
    assert merged(base, b, a) == (expected, 0)


def test_additions_between_the_same_lines_keep_both() -> None:
    base = "x\ny\n"
    assert merged(base, "x\nq\ny\n", "x\np\ny\n") == ("x\np\nq\ny\n", 0)


def test_the_same_addition_is_kept_once_and_the_rest_of_each_side_kept() -> None:
    assert merged("a\n", "a\n- same\n- mine\n", "a\n- same\n") == ("a\n- same\n- mine\n", 0)
    assert union(["s\n", "m\n"], ["s\n", "t\n"]) == ["s\n", "m\n", "t\n"]


def test_a_line_changed_two_ways_keeps_ours_and_is_a_clash() -> None:
    base = "a\nb\nc\n"
    result = sync_merge(base, "a\nOURS\nc\n", "a\nTHEIRS\nc\n")
    assert len(result.conflicts) == 1
    conflict = result.conflicts[0]
    assert (conflict.base, conflict.mine, conflict.theirs) == (("b\n",), ("OURS\n",), ("THEIRS\n",))
    assert result.text([conflict.side("mine")]) == "a\nOURS\nc\n"
    assert result.text([conflict.side("theirs")]) == "a\nTHEIRS\nc\n"
    assert result.text([conflict.side("both")]) == "a\nOURS\nTHEIRS\nc\n"


def test_a_rewritten_line_and_an_addition_after_it_combine() -> None:
    assert merged("x\ny\nz\n", "x\nY\nz\n", "x\ny\nq\nz\n") == ("x\nY\nq\nz\n", 0)


def test_an_addition_where_the_other_side_rewrote_the_line_before_it_is_a_clash() -> None:
    _text, clashes = merged("x\ny\nz\n", "x\nY\nz\n", "x\nq\ny\nz\n")
    assert clashes == 1


def test_a_deleted_line_and_an_addition_after_it_combine() -> None:
    assert merged("x\ny\n", "x\n", "x\ny\nz\n") == ("x\nz\n", 0)


def test_rewrites_of_neighbouring_lines_combine() -> None:
    assert merged("a\nb\n", "A\nb\n", "a\nB\n") == ("A\nB\n", 0)


def test_appending_after_an_unended_last_line_is_an_addition() -> None:
    assert merged("a", "a\nb", "a\nc") == ("a\nb\nc", 0)
    assert merged("a\n", "a\nb\n", "a\n") == ("a\nb\n", 0)


@pytest.mark.parametrize("flip", [False, True])
def test_a_note_made_on_both_sides_keeps_every_line_once(flip: bool) -> None:
    a = "# Today\n- standup\n- lunch\n"
    b = "# Today\n- standup\n- review\n"
    ours, theirs = (b, a) if flip else (a, b)
    assert merged(None, ours, theirs) == ("# Today\n- standup\n- lunch\n- review\n", 0)


def test_no_merge_ever_writes_markers() -> None:
    text, clashes = merged("a\n", "<<<<<<< x\n", "=======\n")
    assert clashes == 1
    assert text == "<<<<<<< x\n"


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (b"a\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> main\nb\n", True),
        (b"<<<<<<<\n=======\n>>>>>>>", True),
        (b"a\n<<<<<<< HEAD\nours\n", False),
        (b"=======\n<<<<<<< x\n>>>>>>> y\n", False),
        (b"  <<<<<<< x\n=======\n>>>>>>> y\n", False),
        (None, False),
    ],
)
def test_git_conflict_markers_are_recognised(text: bytes | None, found: bool) -> None:
    assert has_markers(text) is found


def test_a_text_with_markers_from_the_other_side_keeps_ours_and_is_a_clash() -> None:
    marked = b"# N\n<<<<<<< HEAD\n- a\n=======\n- b\n>>>>>>> x\n"
    plan = plan_file("n.md", b"# N\n", b"# N\n", marked)
    assert (plan.result, plan.clash) == (b"# N\n", CLASH_MARKERS)
    assert plan_file("n.md", None, None, marked).result is None
    assert plan_file("n.md", marked, marked + b"- c\n", marked + b"- d\n").clash is None
