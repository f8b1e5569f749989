"""Searcher: relevance, exact spans, kinds and lines, filters, cancellation and invalidation."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from memtui.notes import search as search_module
from memtui.notes.file_checks import LARGE_NOTE_BYTES
from memtui.notes.index import NoteIndex
from memtui.notes.search import Searcher, SearchFilters, SearchHit
from memtui.notes.vocabulary import Vocabulary
from tests.notes.reads import count_reads


def write(root: Path, relpath: str, text: str) -> None:
    """Write one note, creating folders."""
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def searcher_for(root: Path, history: object | None = None) -> Searcher:
    """A searcher over a freshly loaded index of `root`."""
    return Searcher(NoteIndex.load(root), history)


def brief(hits: list[SearchHit]) -> list[tuple[str, int, str, str]]:
    """(path, line, kind, text) of each hit."""
    return [(h.path, h.line, h.kind, h.text) for h in hits]


def test_verbatim_word_outranks_prefix_and_lookalike_titles(tmp_path: Path) -> None:
    write(tmp_path, "approach.md", "---\ntitle: Approach\n---\n\nNothing here.\n")
    write(tmp_path, "apis.md", "---\ntitle: APIs\n---\n\nNothing here.\n")
    write(tmp_path, "notes.md", "---\ntitle: Notes\n---\n\nWe call the api here.\n")
    hits = searcher_for(tmp_path).search("api")
    assert brief(hits) == [
        ("notes.md", 5, "body", "We call the api here."),
        ("apis.md", 0, "title", "APIs"),
    ]
    assert hits[0].spans == ((12, 15),)
    assert hits[1].spans == ((0, 3),)
    assert "approach.md" not in {h.path for h in hits}


def test_typo_still_finds_the_word_and_highlights_it(tmp_path: Path) -> None:
    write(tmp_path, "lang.md", "---\ntitle: Languages\n---\n\nI like Python a lot.\n")
    hits = searcher_for(tmp_path).search("pyhton")
    assert brief(hits) == [("lang.md", 5, "body", "I like Python a lot.")]
    assert hits[0].spans == ((7, 13),)
    assert 0 < hits[0].score < 100


def test_words_match_in_any_order_and_exact_phrase_ranks_first(tmp_path: Path) -> None:
    write(
        tmp_path,
        "a.md",
        "---\ntitle: Tool memory\n---\n\n"
        "The tool stores memory.\n\nOnly memory here.\n\nA memory tool for agents.\n",
    )
    hits = searcher_for(tmp_path).search("memory tool")
    assert [(h.line, h.kind, h.score, h.spans) for h in hits] == [
        (9, "body", 115.0, ((2, 13),)),
        (0, "title", 108.0, ((0, 4), (5, 11))),
        (5, "body", 100.0, ((4, 8), (16, 22))),
        (7, "body", 50.0, ((5, 11),)),
    ]


def test_title_hits_get_a_boost(tmp_path: Path) -> None:
    write(tmp_path, "b.md", "---\ntitle: Other\n---\n\nSome deploy steps.\n")
    write(tmp_path, "a.md", "---\ntitle: Deploy\n---\n\nNo match in body.\n")
    hits = searcher_for(tmp_path).search("deploy")
    assert brief(hits)[:2] == [
        ("a.md", 0, "title", "Deploy"),
        ("b.md", 5, "body", "Some deploy steps."),
    ]
    assert hits[0].score > hits[1].score


def test_kinds_and_lines_and_frontmatter_is_not_searched(tmp_path: Path) -> None:
    write(
        tmp_path,
        "k.md",
        "---\ntitle: Kinds\nsecret_key: zebra\n---\n\n"
        "- [fact] the zebra is striped #animal\n- relates_to [[Zebra facts]]\n\nA zebra in "
        "prose.\n",
    )
    hits = searcher_for(tmp_path).search("zebra")
    assert brief(hits) == [
        ("k.md", 6, "observation", "- [fact] the zebra is striped #animal"),
        ("k.md", 7, "relation", "- relates_to [[Zebra facts]]"),
        ("k.md", 9, "body", "A zebra in prose."),
    ]
    assert [h.spans for h in hits] == [((13, 18),), ((15, 20),), ((2, 7),)]


def test_prefix_and_substring_spans_cover_only_the_query(tmp_path: Path) -> None:
    write(tmp_path, "p.md", "---\ntitle: P\n---\n\nRedeployment soon.\n\nDeployment later.\n")
    hits = searcher_for(tmp_path).search("deploy")
    assert [(h.line, h.spans) for h in hits] == [(7, ((0, 6),)), (5, ((2, 8),))]


def test_short_queries_find_whole_words_in_lines_and_tags(tmp_path: Path) -> None:
    """A one- or two-character word is found as a whole word in body lines and frontmatter
    values (tags) too, after whole-word titles and paths and before titles holding it at a
    word's start; a note names itself once (its title, or its path when that matches better)."""
    write(tmp_path, "ux/notes.md", "---\ntitle: UX ideas\n---\n\nux in the body\n")
    write(
        tmp_path,
        "billing.md",
        "---\ntitle: Billing\ntags: [billing, go]\n---\n\nGo 1.23 service\n"
        "- [stack] Go and Postgres #tech\ngoing nowhere, ago, cargo\n",
    )
    write(tmp_path, "golang.md", "---\ntitle: Golang notes\n---\n\nnothing\n")
    write(tmp_path, "go/x.md", "---\ntitle: X\n---\n\nnothing\n")
    searcher = searcher_for(tmp_path)
    assert [(h.path, h.line, h.kind, h.text, h.score, h.spans) for h in searcher.search("go")] == [
        ("go/x.md", 0, "path", "go/x.md", 104.0, ((0, 2),)),
        ("billing.md", 3, "frontmatter", "tags: billing, go", 100.0, ((15, 17),)),
        ("billing.md", 6, "body", "Go 1.23 service", 100.0, ((0, 2),)),
        ("billing.md", 7, "observation", "- [stack] Go and Postgres #tech", 100.0, ((10, 12),)),
        ("golang.md", 0, "title", "Golang notes", 98.0, ((0, 2),)),
    ]
    assert [(h.kind, h.text, h.spans) for h in searcher.search("ux")] == [
        ("title", "UX ideas", ((0, 2),)),
        ("body", "ux in the body", ((0, 2),)),
    ]
    assert [(h.path, h.line) for h in searcher.search("go", limit=2)] == [
        ("go/x.md", 0),
        ("billing.md", 3),
    ]
    assert [(h.path, h.line) for h in searcher.search("go", per_note=1)] == [
        ("go/x.md", 0),
        ("billing.md", 3),
        ("golang.md", 0),
    ]
    assert searcher.search("  ") == []


def test_a_note_is_named_once_and_per_note_keeps_its_best_lines(tmp_path: Path) -> None:
    """Title and path hits of one note become one (the better); `per_note` keeps a note's best
    hits, and the limit then counts the hits kept."""
    write(
        tmp_path,
        "runbook.md",
        "---\ntitle: Runbook\n---\n\n" + "".join(f"run the runbook step {n}\n" for n in range(8)),
    )
    write(tmp_path, "other.md", "---\ntitle: Other\n---\n\nthe runbook is elsewhere\n")
    searcher = searcher_for(tmp_path)
    every = searcher.search("runbook")
    assert [(h.path, h.kind) for h in every].count(("runbook.md", "path")) == 0
    assert [(h.path, h.line, h.kind) for h in every[:2]] == [
        ("runbook.md", 0, "title"),
        ("other.md", 5, "body"),
    ]
    assert len(every) == 10
    capped = searcher.search("runbook", per_note=3)
    assert [(h.path, h.line) for h in capped] == [
        ("runbook.md", 0),
        ("other.md", 5),
        ("runbook.md", 5),
        ("runbook.md", 6),
    ]
    assert [(h.path, h.line) for h in searcher.search("runbook", limit=2, per_note=1)] == [
        ("runbook.md", 0),
        ("other.md", 5),
    ]


def test_limit_and_stable_order(tmp_path: Path) -> None:
    for i in range(5):
        write(tmp_path, f"n{i}.md", f"---\ntitle: N{i}\n---\n\nkiwi\n")
    hits = searcher_for(tmp_path).search("kiwi", limit=3)
    assert [h.path for h in hits] == ["n0.md", "n1.md", "n2.md"]


def test_filters(tmp_path: Path) -> None:
    write(
        tmp_path, "work/a.md", "---\ntitle: A\ntype: project\ntags: [red]\n---\n\n- [fact] mango\n"
    )
    write(tmp_path, "work/b.md", "---\ntitle: B\n---\n\n- [idea] mango #blue\n")
    write(tmp_path, "home/c.md", "---\ntitle: C\n---\n\nmango\n")
    old = time.time() - 10 * 86400
    os.utime(tmp_path / "home/c.md", (old, old))

    class FakeHistory:
        def last_change_actors(self) -> dict[str, str]:
            return {"/memories/work/a.md": "agent:claude", "/memories/work/b.md": "human:ann"}

    searcher = searcher_for(tmp_path, FakeHistory())

    def paths(**kwargs: object) -> list[str]:
        return [h.path for h in searcher.search("mango", filters=SearchFilters(**kwargs))]  # type: ignore[arg-type]

    assert paths() == ["work/a.md", "work/b.md", "home/c.md"]
    assert paths(folder="work/") == ["work/a.md", "work/b.md"]
    assert paths(folder="wor") == []
    assert paths(tag="#red") == ["work/a.md"]
    assert paths(tag="blue") == ["work/b.md"]
    assert paths(category="idea") == ["work/b.md"]
    assert paths(note_type="project") == ["work/a.md"]
    assert paths(actor="agent") == ["work/a.md"]
    assert paths(actor="agent:other") == []
    assert paths(actor="human:ann") == ["work/b.md"]
    assert paths(max_age_days=5) == ["work/a.md", "work/b.md"]


def test_cancelled_search_returns_nothing(tmp_path: Path) -> None:
    write(tmp_path, "a.md", "---\ntitle: A\n---\n\nkiwi\n")
    assert searcher_for(tmp_path).search("kiwi", cancelled=lambda: True) == []


def test_invalidate_follows_index_updates(tmp_path: Path) -> None:
    write(tmp_path, "a.md", "---\ntitle: A\n---\n\nkiwi\n")
    index = NoteIndex.load(tmp_path)
    searcher = Searcher(index)
    write(tmp_path, "a.md", "---\ntitle: A\n---\n\nbanana bread\n")
    write(tmp_path, "b.md", "---\ntitle: B\n---\n\nkiwi again\n")
    changed = index.update_paths(["a.md", "b.md"])
    searcher.invalidate(changed)
    assert brief(searcher.search("kiwi")) == [("b.md", 5, "body", "kiwi again")]
    assert brief(searcher.search("banana")) == [("a.md", 5, "body", "banana bread")]
    (tmp_path / "b.md").unlink()
    searcher.invalidate(index.update_paths(["b.md"]))
    assert searcher.search("kiwi") == []


def test_non_ascii_text_keeps_spans_aligned(tmp_path: Path) -> None:
    write(tmp_path, "u.md", "---\ntitle: U\n---\n\nİstanbul café meeting\n")
    hits = searcher_for(tmp_path).search("café")
    assert hits[0].text == "İstanbul café meeting"
    assert [hits[0].text[s:e] for s, e in hits[0].spans] == ["café"]


def test_a_second_process_searches_the_index_without_reading_unchanged_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index on disk serves the next load: only files whose stat changed are read again."""
    write(tmp_path, "a.md", "---\ntitle: A\ntags: [fruit]\n---\n\n- [fact] kiwi is green\n")
    write(tmp_path, "b.md", "---\ntitle: B\n---\n\nbanana\n")
    first = searcher_for(tmp_path)
    expected = first.search("kiwi")
    first.index.close()  # type: ignore[union-attr]
    read = count_reads(monkeypatch)
    again = searcher_for(tmp_path)
    assert read == []
    assert again.search("kiwi") == expected
    assert brief(again.search("kiwi", filters=SearchFilters(tag="fruit"))) == [
        ("a.md", 6, "observation", "- [fact] kiwi is green")
    ]
    write(tmp_path, "b.md", "---\ntitle: B\n---\n\nkiwi too\n")
    os.utime(tmp_path / "b.md", ns=(1, 1))
    third = searcher_for(tmp_path)
    assert read == ["b.md"]
    assert [h.path for h in third.search("kiwi")] == ["a.md", "b.md"]


def phrase_corpus(root: Path) -> None:
    """Notes with the three words on one line (a*), the phrase in other casing (z*),
    neither (m*)."""
    for i in range(6):
        write(root, f"a{i}.md", f"---\ntitle: A{i}\n---\n\n- [fact] render the api, the database\n")
    for i in range(3):
        write(root, f"m{i}.md", f"---\ntitle: M{i}\n---\n\nnothing relevant\n")
        write(root, f"z{i}.md", f"---\ntitle: Z{i}\n---\n\n- [fact] We Render API Database {i}\n")


def test_typed_phrase_after_cancelled_keystrokes_matches_a_fresh_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_module, "CHUNK", 1)
    phrase_corpus(tmp_path)
    query = "render api database"
    typed = searcher_for(tmp_path)
    for i in range(1, len(query)):
        typed.search(query[:i], limit=3)
    interrupted = searcher_for(tmp_path)
    for i in range(3, len(query)):
        calls = {"n": 0}

        def cancel_after_two(calls: dict[str, int] = calls) -> bool:
            calls["n"] += 1
            return calls["n"] > 2

        assert interrupted.search(query[:i], limit=3, cancelled=cancel_after_two) == []
    assert interrupted.search(query, limit=3) == searcher_for(tmp_path).search(query, limit=3)
    hits = typed.search(query, limit=3)
    assert hits == searcher_for(tmp_path).search(query, limit=3)
    assert [(h.path, h.kind, h.score, h.text) for h in hits] == [
        ("z0.md", "observation", 116.0, "- [fact] We Render API Database 0"),
        ("z1.md", "observation", 116.0, "- [fact] We Render API Database 1"),
        ("z2.md", "observation", 116.0, "- [fact] We Render API Database 2"),
    ]
    assert hits[0].spans == ((12, 31),)


def test_phrase_scan_is_forgotten_when_notes_change(tmp_path: Path) -> None:
    phrase_corpus(tmp_path)
    index = NoteIndex.load(tmp_path)
    searcher = Searcher(index)
    assert [h.path for h in searcher.search("render api database", limit=3)] == [
        "z0.md",
        "z1.md",
        "z2.md",
    ]
    write(tmp_path, "a1.md", "---\ntitle: A1\n---\n\n- [fact] render api database now\n")
    searcher.invalidate(index.update_paths(["a1.md"]))
    hits = searcher.search("render api database", limit=4)
    assert [(h.path, h.score) for h in hits] == [
        ("a1.md", 116.0),
        ("z0.md", 116.0),
        ("z1.md", 116.0),
        ("z2.md", 116.0),
    ]


def test_many_exact_titles_fill_the_limit_before_prefix_titles(tmp_path: Path) -> None:
    for i in range(6):
        write(tmp_path, f"d{i}.md", f"---\ntitle: Deploy {i}\n---\n\nSteps.\n")
    write(tmp_path, "a.md", "---\ntitle: Deployment\n---\n\nSteps.\n")
    hits = searcher_for(tmp_path).search("deploy", limit=4)
    assert [(h.path, h.kind, h.score) for h in hits] == [
        ("d0.md", "title", 108.0),
        ("d1.md", "title", 108.0),
        ("d2.md", "title", 108.0),
        ("d3.md", "title", 108.0),
    ]
    everything = searcher_for(tmp_path).search("deploy")
    assert ("a.md", "title", 98.0) in [(h.path, h.kind, h.score) for h in everything]


def test_typo_candidates_in_chunks_rank_exactly_as_one_rapidfuzz_call() -> None:
    """Scoring the vocabulary in chunks gives the same words, scores and tie order."""
    import random

    from rapidfuzz import fuzz, process

    from memtui.notes.vocabulary import FUZZY_CHUNK, FUZZY_CUTOFF, closest_words

    rng = random.Random(7)
    for _ in range(20):
        pool = [
            "".join(rng.choice("abcde") for _ in range(rng.randint(2, 7)))
            for _ in range(rng.randint(FUZZY_CHUNK - 50, 3 * FUZZY_CHUNK))
        ]
        word = "".join(rng.choice("abcde") for _ in range(rng.randint(4, 6)))
        expected = [
            (candidate, ratio)
            for candidate, ratio, _ in process.extract(
                word, pool, scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF, limit=20
            )
        ]
        assert closest_words(word, pool, 20) == expected


def test_new_words_join_the_vocabulary_as_a_full_rebuild_would_place_them(
    tmp_path: Path,
) -> None:
    """Words from an edit are inserted in order; search finds them; a rebuild changes nothing."""
    (tmp_path / "a.md").write_text("# Alpha\n\n- [fact] apple banana #fruit\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# Beta\n\n- [fact] cherry date\n", encoding="utf-8")
    index = NoteIndex.load(tmp_path)
    searcher = Searcher(index)
    assert [hit.path for hit in searcher.search("cherry")] == ["b.md"]
    (tmp_path / "b.md").write_text("# Beta\n\n- [fact] cherry zucchini aardvark\n", "utf-8")
    index.update_paths(["b.md"])
    assert [hit.path for hit in searcher.search("zucchini")] == ["b.md"]
    assert [hit.path for hit in searcher.search("ardvark")] == ["b.md"]
    words = searcher._vocab
    incremental = (
        list(words.words),
        {n: list(ws) for n, ws in words.by_length.items()},
        words.text,
        list(words.starts),
    )
    assert "zucchini" in words.words and "aardvark" in words.words
    fresh = Vocabulary()
    fresh.refresh(index.db.connection(), index.generation())
    assert set(fresh.words) <= set(incremental[0])
    words._rebuild(sorted(words.words))
    assert incremental == (words.words, words.by_length, words.text, words.starts)


def test_search_covers_what_the_app_shows_of_a_huge_note(tmp_path: Path) -> None:
    """Words past a note's first 20,000 lines, or past its first MiB, are not searched (the app
    shows only that much); everything before is."""
    many_lines = ["early marker"] + ["filler"] * 24_998 + ["late marker"]
    write(tmp_path, "lines.md", "\n".join(many_lines) + "\n")
    long_text = "first needle\n" + ("y" * 100 + "\n") * 11_000 + "second needle\n"
    assert len(long_text) > LARGE_NOTE_BYTES
    write(tmp_path, "bytes.md", long_text)
    searcher = searcher_for(tmp_path)
    assert [(h.path, h.line) for h in searcher.search("marker", limit=10)] == [("lines.md", 1)]
    assert [(h.path, h.line) for h in searcher.search("needle", limit=10)] == [("bytes.md", 1)]
    assert len(searcher.search("filler", limit=50_000)) == 19_999


def test_typos_in_several_words_still_find_their_notes(tmp_path: Path) -> None:
    """The issue's examples: each misspelt query finds the note that says it, first."""
    write(
        tmp_path,
        "db.md",
        "---\ntitle: Database\n---\n\n- [decision] Run the schema migration at night\n",
    )
    write(
        tmp_path,
        "ops.md",
        "---\ntitle: Ops\n---\n\n- [fact] Every job has a retry budget of three\n",
    )
    write(tmp_path, "lang.md", "---\ntitle: Languages\ntags: [python]\n---\n\nNothing more.\n")
    for n in range(30):
        write(
            tmp_path,
            f"other/n{n}.md",
            f"---\ntitle: Other {n}\n---\n\nschema notes and budgets {n}\n",
        )
    searcher = searcher_for(tmp_path)
    for query, path, line in (
        ("schema migraton", "db.md", 5),
        ("retyr budget", "ops.md", 5),
        ("pyhton", "lang.md", 3),
    ):
        best = searcher.search(query, limit=5)[0]
        assert (best.path, best.line) == (path, line), query
