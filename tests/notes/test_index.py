"""NoteIndex: scanning, Basic Memory link resolution, backlinks, graph queries and updates."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memtui.notes import index as index_module
from memtui.notes import parse_pool
from memtui.notes.index import NoteIndex
from tests.notes.reads import count_reads


def write(root: Path, relpath: str, text: str) -> None:
    """Write one note, creating folders."""
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def note(title: str, body: str = "", permalink: str | None = None) -> str:
    """Note text with a title (and optional permalink) in the frontmatter."""
    extra = f"permalink: {permalink}\n" if permalink else ""
    return f"---\ntitle: {title}\n{extra}---\n\n{body}"


def test_only_markdown_outside_dot_folders_is_indexed(tmp_path: Path) -> None:
    write(tmp_path, "a.md", note("A"))
    write(tmp_path, "sub/deep/b.md", note("B"))
    write(tmp_path, "notes.txt", "not a note")
    write(tmp_path, ".memtui/hidden.md", note("Hidden"))
    write(tmp_path, ".git/x.md", note("X"))
    index = NoteIndex.load(tmp_path)
    assert sorted(index.notes) == ["a.md", "sub/deep/b.md"]
    assert index.problems == []


def test_hostile_entries_become_problems_not_errors(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(note("Secret"))
    root = tmp_path / "root"
    write(root, "good.md", note("Good"))
    os.symlink(outside / "secret.md", root / "escape.md")
    os.symlink(root / "loop.md", root / "loop.md")
    os.mkfifo(root / "pipe.md")
    os.symlink(outside, root / "linked_dir")
    write(root, "inside.md", note("Inside"))
    os.symlink(root / "inside.md", root / "alias.md")
    write(root, "sub/n.md", note("N"))
    os.symlink("..", root / "sub" / "up")
    os.symlink("sub", root / "sub-alias")
    os.symlink("missing-folder", root / "dangling")
    index = NoteIndex.load(root)
    assert sorted(index.notes) == ["alias.md", "good.md", "inside.md", "sub/n.md"]
    assert index.problems == [
        "dangling: broken or looping symlink, skipped",
        "escape.md: symlink points outside the store, skipped",
        "linked_dir: symlink points outside the store, skipped",
        "loop.md: broken or looping symlink, skipped",
        "pipe.md: not a regular file, skipped",
        "sub-alias: symlinked folder not followed",
        "sub/up: symlink loops back to a folder that holds it, skipped",
    ]


def test_unreadable_file_is_a_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "ok.md", note("Ok"))
    write(tmp_path, "locked.md", note("Locked"))
    real_read = parse_pool.read_store_head

    def guarded_read(root: Path, relpath: str) -> object:
        if relpath == "locked.md":
            raise PermissionError(13, "Permission denied")
        return real_read(root, relpath)

    monkeypatch.setattr(parse_pool, "read_store_head", guarded_read)
    index = NoteIndex.load(tmp_path, use_cache=False)
    assert sorted(index.notes) == ["ok.md"]
    assert index.problems == ["locked.md: cannot read (Permission denied)"]


def test_deep_tree_is_walked_without_recursion(tmp_path: Path) -> None:
    relpath = "/".join(["d"] * 120) + "/leaf.md"
    write(tmp_path, relpath, note("Leaf"))
    index = NoteIndex.load(tmp_path)
    assert list(index.notes) == [relpath]


def test_resolution_order_permalink_title_path_alias(tmp_path: Path) -> None:
    write(tmp_path, "x/by-permalink.md", note("P", permalink="target"))
    write(tmp_path, "y/titled.md", note("target"))
    write(tmp_path, "z/plain.md", note("Plain"))
    write(tmp_path, "Mixed_Case.md", note("Mixed"))
    write(tmp_path, "dup_a.md", note("D1"))
    write(tmp_path, "Dup-A.md", note("D2"))
    index = NoteIndex.load(tmp_path)
    assert index.resolve("target") == "x/by-permalink.md"
    assert index.resolve("Plain") == "z/plain.md"
    assert index.resolve("z/plain.md") == "z/plain.md"
    assert index.resolve("z/plain") == "z/plain.md"
    assert index.resolve("mixed-case") == "Mixed_Case.md"
    assert index.resolve("DUP_A") is None
    assert index.resolve("nothing") is None


def test_markdown_links_resolve_relative_to_the_note(tmp_path: Path) -> None:
    write(tmp_path, "notes/a.md", note("A", "See [b](./b.md) and [up](../top.md).\n"))
    write(tmp_path, "notes/b.md", note("B"))
    write(tmp_path, "top.md", note("Top"))
    index = NoteIndex.load(tmp_path)
    assert [(r.target, t) for r, t in index.outgoing("notes/a.md")] == [
        ("./b.md", "notes/b.md"),
        ("../top.md", "top.md"),
    ]
    assert index.resolve("./b.md", "notes/a.md") == "notes/b.md"


def test_backlinks_unresolved_orphans_hubs(tmp_path: Path) -> None:
    write(tmp_path, "hub.md", note("Hub", "- relates_to [[Leaf One]]\n- relates_to [[Leaf Two]]\n"))
    write(tmp_path, "one.md", note("Leaf One", "- part_of [[Hub]]\n- links [[Ghost]]\n"))
    write(tmp_path, "two.md", note("Leaf Two"))
    write(tmp_path, "alone.md", note("Alone", "Only [[Ghost]] here.\n"))
    index = NoteIndex.load(tmp_path)
    assert [(s, r.relation_type, r.line) for s, r in index.backlinks("hub.md")] == [
        ("one.md", "part_of", 5)
    ]
    assert [(s, r.relation_type) for s, r in index.backlinks("one.md")] == [
        ("hub.md", "relates_to")
    ]
    assert {t: [(s, r.line) for s, r in pairs] for t, pairs in index.unresolved().items()} == {
        "Ghost": [("alone.md", 5), ("one.md", 6)]
    }
    assert index.unresolved_uses() == {"Ghost": [("alone.md", 1), ("one.md", 1)]}
    assert index.orphans() == ["alone.md"]
    assert index.hubs() == [("hub.md", 2), ("one.md", 1), ("two.md", 1)]
    assert index.warnings("one.md") == ["unresolved link: Ghost"]
    assert index.notes["one.md"].warnings == []


def test_title_of_one_note_follows_updates(tmp_path: Path) -> None:
    write(tmp_path, "a.md", note("Alpha"))
    index = NoteIndex.load(tmp_path)
    assert (index.title("a.md"), index.title("missing.md")) == ("Alpha", None)
    write(tmp_path, "a.md", note("Alpha two", "changed\n"))
    index.update_paths(["a.md"])
    assert index.title("a.md") == "Alpha two" == index.notes["a.md"].title


def test_counts(tmp_path: Path) -> None:
    write(
        tmp_path,
        "a.md",
        "---\ntitle: A\ntype: person\ntags: [x, y]\n---\n\n- [fact] one #y #z\n- [fact] two\n- "
        "[idea] three\n",
    )
    write(tmp_path, "b.md", "---\ntitle: B\ntags: [x]\n---\n\n- [idea] four\n")
    index = NoteIndex.load(tmp_path)
    assert dict(index.tag_counts()) == {"x": 2, "y": 1, "z": 1}
    assert dict(index.category_counts()) == {"fact": 2, "idea": 2}
    assert dict(index.type_counts()) == {"person": 1, "note": 1}


def test_neighbourhood_both_directions_with_depth(tmp_path: Path) -> None:
    write(tmp_path, "a.md", note("A", "- next [[B]]\n"))
    write(tmp_path, "b.md", note("B", "- next [[C]]\n- next [[Missing]]\n"))
    write(tmp_path, "c.md", note("C", "- next [[D]]\n"))
    write(tmp_path, "d.md", note("D"))
    index = NoteIndex.load(tmp_path)
    nodes, edges = index.neighbourhood("b.md", 1)
    assert nodes == {"a.md", "b.md", "c.md", "?Missing"}
    assert edges == [
        ("a.md", "b.md", "next"),
        ("b.md", "?Missing", "next"),
        ("b.md", "c.md", "next"),
    ]
    nodes, _ = index.neighbourhood("a.md", 3)
    assert nodes == {"a.md", "b.md", "c.md", "d.md", "?Missing"}
    assert index.neighbourhood("nope.md", 2) == (set(), [])


def test_update_adds_resolves_forward_reference_without_rereading_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "a.md", note("A", "- needs [[Later]]\n"))
    write(tmp_path, "b.md", note("B"))
    index = NoteIndex.load(tmp_path)
    assert list(index.unresolved()) == ["Later"]
    read = count_reads(monkeypatch)
    write(tmp_path, "later.md", note("Later"))
    assert index.update_paths(["later.md"]) == {"later.md"}
    assert read == ["later.md"]
    assert index.unresolved() == {}
    assert [s for s, _ in index.backlinks("later.md")] == ["a.md"]


def test_update_delete_rename_and_retitle(tmp_path: Path) -> None:
    write(tmp_path, "a.md", note("A", "- needs [[Target]]\n"))
    write(tmp_path, "t.md", note("Target"))
    index = NoteIndex.load(tmp_path)
    assert index.outgoing("a.md")[0][1] == "t.md"
    (tmp_path / "t.md").rename(tmp_path / "moved.md")
    assert index.update_paths(["t.md", "moved.md"]) == {"t.md", "moved.md"}
    assert index.outgoing("a.md")[0][1] == "moved.md"
    assert "t.md" not in index.notes
    write(tmp_path, "moved.md", note("Renamed title, longer"))
    index.update_paths(["moved.md"])
    assert index.outgoing("a.md")[0][1] is None
    assert index.warnings("a.md") == ["unresolved link: Target"]
    (tmp_path / "moved.md").unlink()
    assert index.update_paths(["moved.md"]) == {"moved.md"}
    assert sorted(index.notes) == ["a.md"]
    assert index.update_paths(["moved.md", "a.txt", ".memtui/x.md"]) == set()


def test_update_handles_a_higher_priority_match_appearing(tmp_path: Path) -> None:
    write(tmp_path, "a.md", note("A", "- needs [[shared_thing]]\n"))
    write(tmp_path, "Shared_Thing.md", note("Other", permalink="elsewhere"))
    index = NoteIndex.load(tmp_path)
    assert index.outgoing("a.md")[0][1] == "Shared_Thing.md"
    write(tmp_path, "z.md", note("shared_thing"))
    index.update_paths(["z.md"])
    assert index.outgoing("a.md")[0][1] == "z.md"
    assert index.backlinks("Shared_Thing.md") == []
    (tmp_path / "z.md").unlink()
    index.update_paths(["z.md"])
    assert index.outgoing("a.md")[0][1] == "Shared_Thing.md"


def test_progress_reports_done_and_total(tmp_path: Path) -> None:
    for i in range(3):
        write(tmp_path, f"n{i}.md", note(f"N{i}"))
    calls: list[tuple[int, int]] = []
    NoteIndex.load(tmp_path, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(3, 3)]


def test_normalise_text_matches_parser_line_breaks() -> None:
    assert index_module.normalise_text(b"a\r\nb\rc\n\xff") == "a\nb\nc\n\ufffd"


def test_update_with_a_folder_path_covers_every_note_below(tmp_path: Path) -> None:
    write(tmp_path, "a.md", note("A", "- needs [[Deep]]\n"))
    write(tmp_path, "old/deep.md", note("Deep"))
    write(tmp_path, "old/more/x.md", note("X"))
    index = NoteIndex.load(tmp_path)
    (tmp_path / "old").rename(tmp_path / "new")
    assert index.update_paths(["old", "new"]) == {
        "old/deep.md",
        "old/more/x.md",
        "new/deep.md",
        "new/more/x.md",
    }
    assert sorted(index.notes) == ["a.md", "new/deep.md", "new/more/x.md"]
    assert index.outgoing("a.md")[0][1] == "new/deep.md"


def test_alias_owners_and_shared_links_follow_updates(tmp_path: Path) -> None:
    write(tmp_path, "a.md", note("A", "- needs [[dup_a]]\n- also [[Gone]]\n"))
    write(tmp_path, "b.md", note("B", "- needs [[dup_a]]\n- also [[Gone]]\n"))
    write(tmp_path, "Dup_A.md", note("D1"))
    write(tmp_path, "sub/DUP-A.md", note("D2"))
    write(tmp_path, "DUP-A.md", note("D3"))
    index = NoteIndex.load(tmp_path)
    assert index.resolve("DUP_A") is None
    assert [t for _, t in index.outgoing("a.md")] == [None, None]
    assert sorted(index.unresolved()) == ["Gone", "dup_a"]
    assert [s for s, _ in index.unresolved()["Gone"]] == ["a.md", "b.md"]
    (tmp_path / "DUP-A.md").unlink()
    assert index.update_paths(["DUP-A.md"]) == {"DUP-A.md"}
    assert index.resolve("DUP_A") == "Dup_A.md"
    assert [s for s, _ in index.backlinks("Dup_A.md")] == ["a.md", "b.md"]
    write(tmp_path, "Gone.md", note("Gone"))
    index.update_paths(["Gone.md"])
    assert index.unresolved() == {}
    assert index.linked_notes("Gone.md") == {"a.md", "b.md"}
    (tmp_path / "b.md").unlink()
    index.update_paths(["b.md"])
    assert [s for s, _ in index.backlinks("Gone.md")] == ["a.md"]
    assert index.orphans() == ["sub/DUP-A.md"]
    write(tmp_path, "DUP-A.md", note("D3"))
    index.update_paths(["DUP-A.md"])
    assert [t for _, t in index.outgoing("a.md")] == [None, "Gone.md"]
    assert index.backlinks("Dup_A.md") == []


def test_a_shared_title_or_permalink_passes_to_the_next_path_in_order(tmp_path: Path) -> None:
    write(tmp_path, "src.md", note("Src", "- needs [[Same]]\n- also [[shared/perma]]\n"))
    write(tmp_path, "b.md", "---\ntitle: Same\npermalink: shared/perma\n---\n\nB\n")
    write(tmp_path, "c.md", "---\ntitle: Same\npermalink: shared/perma\n---\n\nC\n")
    write(tmp_path, "a.md", "---\ntitle: Same\npermalink: shared/perma\n---\n\nA\n")
    index = NoteIndex.load(tmp_path)
    assert [t for _, t in index.outgoing("src.md")] == ["a.md", "a.md"]
    (tmp_path / "a.md").unlink()
    index.update_paths(["a.md"])
    assert [t for _, t in index.outgoing("src.md")] == ["b.md", "b.md"]
    write(tmp_path, "b.md", "---\ntitle: Other\npermalink: other\n---\n\nB\n")
    index.update_paths(["b.md"])
    assert [t for _, t in index.outgoing("src.md")] == ["c.md", "c.md"]
    assert index.resolve("Other") == "b.md"
    write(tmp_path, "a.md", "---\ntitle: Same\npermalink: shared/perma\n---\n\nA\n")
    index.update_paths(["a.md"])
    assert [t for _, t in index.outgoing("src.md")] == ["a.md", "a.md"]
    fresh = NoteIndex.load(tmp_path, use_cache=False)
    assert fresh.outgoing("src.md") == index.outgoing("src.md")


def test_unresolved_uses_counts_each_relation_without_building_them(tmp_path: Path) -> None:
    write(tmp_path, "a.md", note("A", "- links [[Ghost]]\n- cites [[Ghost]]\n- to [[B]]\n"))
    write(tmp_path, "b.md", note("B", "See [[Ghost]] and [[Other Ghost]].\n"))
    index = NoteIndex.load(tmp_path)
    uses = index.unresolved_uses()
    assert uses == {"Ghost": [("a.md", 2), ("b.md", 1)], "Other Ghost": [("b.md", 1)]}
    assert {t: len(p) for t, p in index.unresolved().items()} == {
        t: sum(n for _, n in u) for t, u in uses.items()
    }
