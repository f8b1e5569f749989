"""Basic Memory's own link resolution and build_context, on a store Basic Memory 0.24 wrote."""

from __future__ import annotations

from pathlib import Path

from memtui.notes.agent_context import build_context
from memtui.notes.index import NoteIndex

COFFEE = {
    "coffee/Coffee Brewing Methods.md": (
        "bmtest/coffee/coffee-brewing-methods",
        "- [method] Pour over is clean #brew\n\n## Relations\n"
        "- requires [[Burr Grinder]]\n- pairs_with [[Burr Grinder]]\n- includes [[Pour Over]]\n"
        "- includes [[coffee/french-press]]\n- see [grinder](../gear/Burr%20Grinder.md)\n"
        "- mentions [[Nothing Here]]\n",
    ),
    "coffee/Pour Over.md": (
        "bmtest/coffee/pour-over",
        "- part_of [[Coffee Brewing Methods]]\n- uses [[Burr Grinder]]\n",
    ),
    "coffee/French Press.md": (
        "bmtest/coffee/french-press",
        "- part_of [[Coffee Brewing Methods]]\n",
    ),
    "gear/Burr Grinder.md": (
        "bmtest/gear/burr-grinder",
        "- used_by [[Coffee Brewing Methods]]\n- used_by [[coffee/coffee-brewing-methods]]\n",
    ),
    "Kettle.md": ("bmtest/kettle", "- heats_for [[Coffee Brewing Methods]]\n"),
}
"""The notes as Basic Memory left them after `bm project add bmtest` (permalinks it wrote)."""


def bm_store(root: Path, notes: dict[str, tuple[str, str]]) -> Path:
    """Write notes with a title from the file name and the given permalink and body."""
    for relpath, (permalink, body) in notes.items():
        title = Path(relpath).stem
        path = root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"---\ntitle: {title}\ntype: note\npermalink: {permalink}\n---\n\n# {title}\n\n{body}",
            encoding="utf-8",
        )
    return root


def test_links_by_permalink_resolve_without_the_project_prefix(tmp_path: Path) -> None:
    """`[[projects/alpha/decisions-log]]` finds the note whose permalink carries `bmtest/`."""
    root = bm_store(
        tmp_path,
        {
            "projects/alpha/Decisions Log.md": ("bmtest/projects/alpha/decisions-log", ""),
            "specs/Search.md": ("bmtest/specs/search", ""),
            "index.md": (
                "bmtest/index",
                "- tracks [[projects/alpha/decisions-log]]\n- specifies [[bmtest/specs/search]]\n"
                "- spec [[specs/search]]\n- lost [[projects/beta/nothing]]\n",
            ),
        },
    )
    index = NoteIndex.load(root, use_cache=False)
    assert [(r.target, t) for r, t in index.outgoing("index.md")] == [
        ("projects/alpha/decisions-log", "projects/alpha/Decisions Log.md"),
        ("bmtest/specs/search", "specs/Search.md"),
        ("specs/search", "specs/Search.md"),
        ("projects/beta/nothing", None),
    ]
    assert list(index.unresolved()) == ["projects/beta/nothing"]
    assert index.resolve("projects/alpha/decisions-log") == "projects/alpha/Decisions Log.md"
    context = build_context(index, "projects/alpha/decisions-log")
    assert [(r.relation_type, r.direction, r.path) for r in context.related] == [
        ("tracks", "incoming", "index.md")
    ]


def test_build_context_lists_every_relation_basic_memory_does(tmp_path: Path) -> None:
    """BM 0.24.1 `build-context coffee/coffee-brewing-methods` lists 10 relations: 6 out (one
    unresolved, three to the grinder), 4 in (the grinder's two links by title and by permalink
    are one relation)."""
    index = NoteIndex.load(bm_store(tmp_path, COFFEE), use_cache=False)
    context = build_context(index, "coffee/coffee-brewing-methods")
    assert [(r.relation_type, r.direction, r.path) for r in context.related] == [
        ("requires", "outgoing", "gear/Burr Grinder.md"),
        ("pairs_with", "outgoing", "gear/Burr Grinder.md"),
        ("includes", "outgoing", "coffee/Pour Over.md"),
        ("includes", "outgoing", "coffee/French Press.md"),
        ("links_to", "outgoing", "gear/Burr Grinder.md"),
        ("heats_for", "incoming", "Kettle.md"),
        ("part_of", "incoming", "coffee/French Press.md"),
        ("part_of", "incoming", "coffee/Pour Over.md"),
        ("used_by", "incoming", "gear/Burr Grinder.md"),
    ]
    assert context.unresolved == (("mentions", "Nothing Here"),)
    deeper = build_context(index, "coffee/coffee-brewing-methods", depth=2)
    assert [(r.via, r.relation_type, r.path, r.depth) for r in deeper.related[9:]] == [
        ("gear/Burr Grinder.md", "uses", "coffee/Pour Over.md", 2)
    ]


def test_several_links_to_one_note_with_a_hidden_neighbour_count_it_once(tmp_path: Path) -> None:
    """A note left out by the timeframe is one hidden note, however many relations reach it."""
    index = NoteIndex.load(bm_store(tmp_path, COFFEE), use_cache=False)
    context = build_context(index, "Coffee Brewing Methods", timeframe="1d", now=4e9)
    assert (context.related, context.hidden) == ((), 4)
