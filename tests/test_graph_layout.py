"""Tests for the pure graph layout: deterministic placement, labelled edges, overflow,
navigation."""

from __future__ import annotations

from memtui.tui.layout_graph import layout_neighbourhood

CENTRE = "projects/memtui.md"
EDGES = [
    (CENTRE, "patterns/textual-ui.md", "uses"),
    (CENTRE, "?Basic Memory", "inspired_by"),
    ("sessions/s.md", CENTRE, "about"),
    ("patterns/textual-ui.md", "patterns/python-testing.md", "tested_with"),
]
NODES = {
    CENTRE,
    "patterns/textual-ui.md",
    "?Basic Memory",
    "sessions/s.md",
    "patterns/python-testing.md",
}
LABELS = {
    CENTRE: "memtui",
    "patterns/textual-ui.md": "Textual UI",
    "patterns/python-testing.md": "Testing",
    "sessions/s.md": "Session",
}


def test_depth_one_draws_sorted_neighbours_with_labelled_edges() -> None:
    layout = layout_neighbourhood(CENTRE, NODES, EDGES, depth=1, labels=LABELS)
    assert layout.lines == [
        "            ┌─ inspired_by ▶ ─ ‹? Basic Memory›",
        "◆ memtui ◆ ─┼─ uses ▶ ──────── [ Textual UI ]",
        "            └─ ◀ about ─────── [ Session ]",
    ]
    assert [(n.key, n.kind) for n in layout.navigation_order()] == [
        (CENTRE, "centre"),
        ("?Basic Memory", "unresolved"),
        ("patterns/textual-ui.md", "note"),
        ("sessions/s.md", "note"),
    ]


def test_depth_two_adds_a_column_and_layout_is_stable() -> None:
    first = layout_neighbourhood(CENTRE, NODES, EDGES, depth=2, labels=LABELS)
    again = layout_neighbourhood(
        CENTRE, reversed(sorted(NODES)), list(reversed(EDGES)), depth=2, labels=LABELS
    )
    assert first.lines == again.lines
    testing = first.node("patterns/python-testing.md")
    assert testing is not None
    assert (testing.depth, testing.parent) == (2, "patterns/textual-ui.md")
    assert first.lines[1].endswith("[ Textual UI ] ─── tested_with ▶ ─── [ Testing ]")


def test_too_many_children_fold_into_a_more_node() -> None:
    many = [(CENTRE, f"n{i:02}.md", "has") for i in range(20)]
    nodes = {CENTRE} | {t for _, t, _ in many}
    layout = layout_neighbourhood(CENTRE, nodes, many, depth=1, max_children=5)
    assert layout.hidden == 16
    assert [n.text for n in layout.navigation_order()][1:] == [
        "[ n00.md ]",
        "[ n01.md ]",
        "[ n02.md ]",
        "[ n03.md ]",
        "( +16 more )",
    ]


def test_arrow_navigation_and_hit_testing() -> None:
    layout = layout_neighbourhood(CENTRE, NODES, EDGES, depth=2, labels=LABELS)
    assert layout.neighbour(CENTRE, "right") == "patterns/textual-ui.md"
    assert layout.neighbour("patterns/textual-ui.md", "up") == "?Basic Memory"
    assert layout.neighbour("patterns/textual-ui.md", "down") == "sessions/s.md"
    assert layout.neighbour("patterns/textual-ui.md", "left") == CENTRE
    assert layout.neighbour("patterns/textual-ui.md", "right") == "patterns/python-testing.md"
    testing = layout.node("patterns/python-testing.md")
    assert testing is not None
    assert layout.node_at(testing.x + 2, testing.y) == testing
    assert layout.node_at(testing.x - 1, testing.y) is None
