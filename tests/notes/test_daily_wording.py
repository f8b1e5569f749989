"""Messages agree in number: `1 note still links`, `1 link in 1 note now points nowhere`."""

from __future__ import annotations

from memtui.core.result import CommandResult
from memtui.notes.operations.deleting import Deleted, DeletePlan
from memtui.notes.operations.moving import Moved

OK = CommandResult("done", False, 1)


def test_one_note_still_links_to_the_old_path() -> None:
    moved = Moved(OK, "a.md", "b/a.md", broken=["c.md"])
    assert moved.summary == "Moved a.md to b/a.md; 1 note still links to the old path (c.md)"
    two = Moved(OK, "a.md", "b/a.md", broken=["c.md", "d.md"])
    assert two.summary.endswith("; 2 notes still link to the old path (c.md, d.md)")


def test_one_link_in_one_note_now_points_nowhere() -> None:
    one = Deleted(OK, DeletePlan("a.md", False, 1, {"c.md": ["a"]}))
    assert one.summary == "Deleted the note a.md; 1 link in 1 note now points nowhere (c.md)"
    two = Deleted(OK, DeletePlan("a.md", False, 1, {"c.md": ["a", "a#top"]}))
    assert two.summary == "Deleted the note a.md; 2 links in 1 note now point nowhere (c.md)"
