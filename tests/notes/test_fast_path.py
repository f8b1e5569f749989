"""The fast path gives exactly the reference path's output, or falls back to it."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest

from memtui.notes._md_fast import fast_blocks
from memtui.notes._md_reference import reference_blocks
from memtui.notes.parser import parse_note

FIXTURES = Path(__file__).parent / "fixtures" / "notes"
CORPUS = Path(__file__).parents[2].parent / "shared" / "corpus" / "basic-memory-notes"

_INDENTS = ["", "", "", " ", "  ", "   ", "    ", "     ", "      ", "        "]
_MARKERS = ["- ", "- ", "* ", "+ ", "1. ", "2. ", "10) ", "-  ", "-     ", "-", "1.  "]
_TEXTS = [
    "[decision] Use SQLite #db (speed)",
    "[fact] wrapped item #a",
    "depends_on [[Storage]] (why)",
    '"inspired by" [[Obsidian]]',
    "plain words and [[Link One]] here",
    "see [doc](notes/doc.md) and [web](https://x.org)",
    "[[Only Link]]",
    "[ ] task",
    "issue #42 mentioned",
    "`code [[NotLink]]` then [[Real]]",
    "#",
    "text with trailing #",
    "## not heading? #tag",
    "[cat] @2026-01-02 dated",
    "x (a (b))",
    "mixed *emph* and **bold** [[B]]",
    "[ref][r]",
    "a | table | row",
    "[x](<my note.md>) and [y](a%20b.md#frag)",
    "[[a [[b]] c]]",
    "\\[[escaped]] [[kept]]",
]
_SPECIAL = [
    "",
    "",
    "",
    "# Heading [[H]]",
    "## Heading #with tag ##",
    "#",
    "###### six #x",
    "####### seven",
    "---",
    "***",
    "* * *",
    "___",
    "```",
    "```python",
    "~~~",
    "    indented code [[NoLink]]",
    "===",
    "> quote [[Q]]",
    "<div>",
    "[r]: target.md",
    "\tTabbed",
    "|---|---|",
    "- ",
    "1.",
]


_TRICKY_STARTS = [
    "*emph* start", "**bold** start", "_under_ start", "+ plus text", "2024 was good",
    "1.5 version", "#hashtag start", "# real heading", "text   ", "   ", "x\u00a0y",
    "``` inline", "~~~ x", "\\- escaped", "-- dashes", "--- three", "- - -", "***bold***",
    "1.", "2)", "##", "#\u00a0x", "= eq", "a\\", "[a]( b )", "[a][b]", "123456789. nine",
    "1234567890. ten",
]  # fmt: skip


def _generated_note(rng: random.Random) -> str:
    """A random note mixing common and awkward block shapes."""
    lines: list[str] = []
    for _ in range(rng.randint(1, 25)):
        roll = rng.random()
        if roll < 0.1:
            lines.append(rng.choice(_INDENTS) + rng.choice(_MARKERS) + rng.choice(_TRICKY_STARTS))
        elif roll < 0.25:
            lines.append(rng.choice(_SPECIAL))
        elif roll < 0.7:
            lines.append(rng.choice(_INDENTS) + rng.choice(_MARKERS) + rng.choice(_TEXTS))
        else:
            lines.append(rng.choice(_INDENTS) + rng.choice(_TEXTS))
    return "\n".join(lines) + rng.choice(["\n", "", "\n\n"])


_CLEAN_TEXTS = [text for text in _TEXTS if not text.startswith("#")]


def _generated_clean_note(rng: random.Random) -> str:
    """A random note in the common agent style (the shapes the fast path should take)."""
    lines = ["---", f"title: Note {rng.randint(0, 999)}", "type: memory", "---", ""]
    lines.append(f"# Note {rng.randint(0, 99)}")
    for _ in range(rng.randint(1, 6)):
        lines.append("")
        lines.append(f"## Section {rng.randint(0, 9)}")
        for _ in range(rng.randint(1, 5)):
            indent = rng.choice(["", "", "", "  ", "    "])
            lines.append(indent + "- " + rng.choice(_CLEAN_TEXTS))
            if rng.random() < 0.2:
                lines.append(indent + "  continued line #cont")
        if rng.random() < 0.5:
            lines.extend(["", rng.choice(_CLEAN_TEXTS) + " in a paragraph", "second line [[P]]"])
        if rng.random() < 0.2:
            lines.extend(["", "```", "- [code] not parsed [[No]]", "```"])
    return "\n".join(lines) + "\n"


def _outputs(data: bytes | str, path: str, fast: bool) -> tuple[object, ...]:
    """Everything the two paths must agree on."""
    note = parse_note(data, path, use_fast_path=fast)
    return (
        note.frontmatter,
        note.title,
        note.observations,
        note.relations,
        note.warnings,
        note.permalink,
        note.note_type,
        note.tags,
        note.index_error,
    )


def _assert_same(data: bytes | str, path: str) -> None:
    """Both paths agree on this note."""
    assert _outputs(data, path, True) == _outputs(data, path, False), path


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.md")), ids=lambda p: p.name)
def test_fixtures_identical(path: Path) -> None:
    _assert_same(path.read_bytes(), path.name)


@pytest.mark.skipif(not CORPUS.exists(), reason="shared corpus not present")
def test_corpus_identical() -> None:
    for path in sorted(CORPUS.rglob("*.md")):
        _assert_same(path.read_bytes(), path.relative_to(CORPUS).as_posix())


def test_generated_awkward_notes_identical() -> None:
    rng = random.Random(20261122)
    fast = 0
    for index in range(600):
        text = _generated_note(rng)
        assert _outputs(text, f"g{index}.md", True) == _outputs(text, f"g{index}.md", False), text
        blocks = fast_blocks(text)
        if blocks is not None:
            fast += 1
            assert blocks == reference_blocks(text), text
    assert fast >= 60


def test_generated_agent_notes_identical_and_mostly_fast() -> None:
    rng = random.Random(7)
    fast = 0
    for index in range(300):
        text = _generated_clean_note(rng)
        assert _outputs(text, f"a{index}.md", True) == _outputs(text, f"a{index}.md", False), text
        body = text.split("---\n", 2)[2].strip()
        fast += fast_blocks(body) is not None
    assert fast >= 240


def test_fast_path_falls_back_on_unhandled_shapes() -> None:
    for body in [
        "> quote",
        "<div>\nx\n</div>",
        "Title\n=====",
        "Title\n---",
        "[ref]: target.md",
        "- [note]: defined",
        "a\tb",
        "- item\n  ```\n  code\n  ```",
        "-",
        "1. a\n   2. b",
    ]:
        assert fast_blocks(body) is None, body


def test_fast_path_handles_common_shapes() -> None:
    body = "# T\n\n- [a] b #c\n  - rel [[X]]\n\ntext [l](x.md)\n\n```\ncode\n```\n\n***\n"
    blocks = fast_blocks(body)
    assert blocks is not None
    assert [(b.content, b.line, b.kind, b.in_list, b.bm_in_list_item) for b in blocks] == [
        ("T", 0, "heading", False, False),
        ("[a] b #c", 2, "paragraph", True, True),
        ("rel [[X]]", 3, "paragraph", True, True),
        ("text [l](x.md)", 5, "paragraph", False, False),
    ]
    assert blocks[3].hrefs == ["x.md"]


_SHORTCUT_CASES = [
    "---\ntitle: T\ntags: [a, b]\n---\n- [fact] x #a##b #c#d (ctx)\n",
    "---\ntitle: T\n----\n---  \t\nbody #tag\n",
    "---\ntitle: T\x85x: y\n---\nbody\n",
    "---\ntitle: T\u2028type: x\n---\nbody\n",
    "---\ntitle: T\x85---\nx: y\n---\nbody\n",
    "---\ntitle: T\r---\nx: y\n---\nbody\n",
    "---\ntitle: T\r\n---\r\n- [a] b\r\n",
    "---\ntitle: T\n---",
    "---\ntitle: T\n--- x\n---\n- [a] b #c\n",
    "---\ntitle: 2026-01-02\ntype: [a, b]\ntags: '#x, y'\n---\ntext\n",
    "---\ntitle: yes\ntype: 12\npermalink: ~\n---\n- [a] b\n",
    "text\n  ---\n- [a] after setext #t\n",
    "text\n\n---\n- [a] after a break #t\n",
    "- item\n===\n",
    "a -> b\n  > quote [[Q]]\n",
    "<b>x</b> [[Y]]\n",
    "- [cat] a#b c #d\n- [cat] #\n- [cat] ## e\n- [cat]\u00a0#nb x\n",
    "- [cat] @2026-01-02 dated #t (when)\n- [12:30] clock #t\n- [x] task #t\n",
    "- [cat] see [doc](a.md) #t\n- [[Only]]\n- [a](b.md)\n- [] empty #e\n",
    "- rel [[A]] (why)\n- `rel` [[B]]\n- x [[C]] #bm:links_to\n- \\[[D]] [[E]]\n",
    "para #word\nwrapped [[L]] line\n\n# Head #tag\n",
    "- [fact] first line #a\n  second line #b\n",
]


@pytest.mark.parametrize("text", _SHORTCUT_CASES)
def test_shortcuts_match_reference(text: str) -> None:
    _assert_same(text, "notes/Some Note.md")


def _gen_corpus() -> object:
    """The benchmarks' corpus generator module."""
    path = Path(__file__).parents[2] / "benchmarks" / "gen_corpus.py"
    spec = importlib.util.spec_from_file_location("gen_corpus", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _assert_corpus_same(root: Path, count: int) -> None:
    """Generate `count` benchmark notes under root; both paths agree and the fast one is taken."""
    _gen_corpus().generate(count, root, seed=3)  # type: ignore[attr-defined]
    paths = sorted(root.rglob("*.md"))
    assert len(paths) == count
    fast = 0
    for path in paths:
        data = path.read_bytes()
        relpath = path.relative_to(root).as_posix()
        assert _outputs(data, relpath, True) == _outputs(data, relpath, False), relpath
        body = data.decode().split("\n---\n", 1)[1].strip()
        fast += fast_blocks(body) is not None
    assert fast == count


def test_generated_corpus_identical(tmp_path: Path) -> None:
    _assert_corpus_same(tmp_path, 200)


@pytest.mark.slow
def test_generated_2k_corpus_identical(tmp_path: Path) -> None:
    _assert_corpus_same(tmp_path, 2000)
