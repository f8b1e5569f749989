"""Parse warnings (memtui's additions), line numbers and never-raise behaviour."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import pytest

from memtui.notes.parser import parse_file, parse_note

FIXTURES = Path(__file__).parent / "fixtures" / "notes"


def test_line_numbers_count_frontmatter_and_blank_lines() -> None:
    data = b"---\ntitle: T\n---\n\n# Head\n\n- [a] first\n- rel [[X]]\n\ntext [[Y]]\n"
    note = parse_note(data, "t.md")
    assert [(o.category, o.line) for o in note.observations] == [("a", 7)]
    assert [(r.relation_type, r.target, r.line) for r in note.relations] == [
        ("rel", "X", 8),
        ("links_to", "Y", 10),
    ]


def test_line_numbers_with_crlf_and_leading_blank_lines() -> None:
    note = parse_note((FIXTURES / "crlf.md").read_bytes(), "crlf.md")
    assert [o.line for o in note.observations] == [5]
    assert [r.line for r in note.relations] == [6]
    blank = parse_note((FIXTURES / "leading_blank.md").read_bytes(), "leading_blank.md")
    assert [(o.content, o.line) for o in blank.observations] == [("line seven #x", 10)]


def test_note_fields() -> None:
    data = (FIXTURES / "observations.md").read_bytes()
    note = parse_note(data, "dir/observations.md", mtime=12.5)
    assert note.title == "Observations"
    assert note.note_type == "memory"
    assert note.tags == ["alpha", "beta", "gamma"]
    assert note.permalink == "custom/observations"
    assert note.size == len(data)
    assert note.mtime == 12.5
    assert note.content_hash == hashlib.sha256(data).hexdigest()
    plain = parse_note(b"text", "Specs/My Note_v2.md")
    assert plain.permalink == "specs/my-note-v2"
    assert plain.frontmatter == {"title": "My Note_v2", "type": "note"}


def test_malformed_frontmatter_warns_and_reads_whole_file_as_body() -> None:
    note = parse_note((FIXTURES / "malformed_yaml.md").read_bytes(), "malformed_yaml.md")
    assert note.frontmatter == {"title": "malformed_yaml", "type": "note"}
    assert len(note.warnings) == 1
    assert note.warnings[0].startswith("line 1: frontmatter is not valid YAML (")
    assert note.warnings[0].endswith("): the whole file is read as body")
    assert [(o.content, o.line) for o in note.observations] == [("body still parsed #ok", 4)]
    listed = parse_note((FIXTURES / "list_frontmatter.md").read_bytes(), "l.md")
    assert listed.warnings[0] == (
        "line 1: frontmatter is a YAML list, not a mapping: the whole file is read as body"
    )


def test_non_string_key_warns_and_still_parses() -> None:
    note = parse_note((FIXTURES / "nonstring_key.md").read_bytes(), "nonstring_key.md")
    assert note.index_error == (
        "frontmatter key True, 2024 is not a string; Basic Memory refuses to index this file"
    )
    assert note.warnings == [f"line 1: {note.index_error} (quote the key)"]
    assert note.frontmatter == {"title": "Odd keys", "True": "True", "2024": "year", "type": "note"}
    assert [o.content for o in note.observations] == ["still parsed"]


def test_wrapped_item_warns_about_dropped_lines() -> None:
    note = parse_note((FIXTURES / "wrapped.md").read_bytes(), "wrapped.md")
    assert note.warnings == [
        "line 4: observation [note] keeps only its first line; "
        "the wrapped lines after it (and their tags) are dropped",
        "line 6: observation [lazy] keeps only its first line; "
        "the wrapped lines after it (and their tags) are dropped",
    ]


def test_hashtag_paragraph_and_heading_warn() -> None:
    note = parse_note(b"# Issue #42\n\nColour #ff8800 here\n\n- item #fine\n", "h.md")
    assert [o.content for o in note.observations] == [
        "Issue #42",
        "Colour #ff8800 here",
        "item #fine",
    ]
    assert note.warnings == [
        "line 1: this heading became an observation without a category "
        "only because it contains a #word",
        "line 3: this paragraph became an observation without a category "
        "only because it contains a #word",
    ]


def test_empty_tag_warns() -> None:
    note = parse_note(b"- [idea] a lone # here\n", "e.md")
    assert note.observations[0].tags == [""]
    assert note.warnings == ["line 1: an observation has an empty tag (a lone '#')"]


@pytest.mark.parametrize("fast", [True, False])
def test_free_form_date_qualifiers_are_read_as_basic_memory_reads_them(fast: bool) -> None:
    data = (
        b'- [decision] @occurred:"June 10, 2026" Moved to Redis\n'
        b'- [fact] @"June 2026" quoted without a kind\n'
        b"- [fact] @effective:2026-06-10 an ISO date\n"
        b'- [fact] @occurred:"2026-06-10" quoted ISO\n'
        b'- [fact] @asked:"June 10, 2026" not a time kind\n'
        b"- [fact] @bob said hi\n"
        b'- [fact] @occurred:"yesterday" moves every day\n'
        b"- [fact] @occurred:June 10, 2026 unquoted\n"
        b'- [fact] @due:"June 10 open quote\n'
    )
    note = parse_note(data, "d.md", use_fast_path=fast)
    assert [o.content for o in note.observations] == [
        "Moved to Redis",
        "quoted without a kind",
        "an ISO date",
        "quoted ISO",
        '@asked:"June 10, 2026" not a time kind',
        "@bob said hi",
        '@occurred:"yesterday" moves every day',
        "@occurred:June 10, 2026 unquoted",
        '@due:"June 10 open quote',
    ]
    assert note.warnings == [
        "line 5: unknown temporal kind 'asked' in '@asked:\"June 10, 2026\"' "
        "(due, effective, mentioned, occurred, valid)",
        'line 7: the quoted date qualifier @occurred:"yesterday" names no fixed date, so it '
        "stays in the observation text (Basic Memory does not read it either)",
        "line 8: temporal point '@occurred:June' names only a month or a year; quote the "
        'whole date to file it, as @occurred:"June 10, 2026"',
        "line 9: unterminated quote in temporal qualifier '@due:\"'; close it, as "
        '@due:"June 10, 2026"',
    ]


def test_undecodable_bytes_warn_and_never_raise() -> None:
    note = parse_note((FIXTURES / "bad_utf8.md").read_bytes(), "bad_utf8.md")
    assert note.warnings == ["not valid UTF-8 (byte 19); Basic Memory does not index this file"]
    assert note.index_error == note.warnings[0]
    assert note.observations == [] and note.relations == []
    assert note.title == "bad_utf8"


@pytest.mark.serial
def test_alias_bomb_is_refused_quickly() -> None:
    started = time.perf_counter()
    note = parse_note((FIXTURES / "alias_bomb.md").read_bytes(), "alias_bomb.md")
    assert time.perf_counter() - started < 1.0
    assert note.warnings == [
        "line 1: frontmatter YAML expands to more than 10000 values: the whole file is read as body"
    ]
    assert note.frontmatter == {"title": "alias_bomb", "type": "note"}
    assert [o.content for o in note.observations] == ["body after a bomb"]


def test_self_referencing_yaml_is_refused() -> None:
    note = parse_note(b"---\na: &a [*a]\n---\ntext\n", "r.md")
    assert note.warnings == [
        "line 1: frontmatter YAML refers to itself: the whole file is read as body"
    ]


def test_small_alias_is_read() -> None:
    note = parse_note((FIXTURES / "small_alias.md").read_bytes(), "small_alias.md")
    assert note.frontmatter["copy"] == {"x": "1"}
    assert note.warnings == []


def test_hostile_inputs_never_raise() -> None:
    hostile = [
        b"",
        b"---",
        b"---\n" + b"[" * 5000 + b"\n---\n",
        b"- " * 3000,
        b"> " * 3000 + b"x",
        b"---\n!!python/object:os.system x\n---\n",
        b"---\ndate: 2024-13-45\n---\n- [a] b\n",
        b"\x00\x00\xff",
        b"[[" * 2000,
    ]
    for data in hostile:
        note = parse_note(data, "h.md")
        assert note.path == "h.md"


def test_parse_file_reads_stat_and_bytes(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    target = tmp_path / "sub" / "n.md"
    target.write_bytes(b"- [a] b #c\n")
    note = parse_file(tmp_path, "sub/n.md")
    assert note.path == "sub/n.md"
    assert note.mtime == target.stat().st_mtime
    assert [(o.category, o.content, o.tags) for o in note.observations] == [("a", "b #c", ["c"])]
    missing = parse_file(tmp_path, "gone.md")
    assert missing.index_error == "could not read the file"
    assert missing.warnings[-1].startswith("could not read the file (")


def test_nul_bytes_are_left_out_with_a_warning() -> None:
    note = parse_note(b"# Nul\n\n- [fact] be\x00fore\x00\n", "n.md")
    assert note.warnings == ["contains 2 NUL bytes; they are left out"]
    assert [o.content for o in note.observations] == ["before"]
    assert parse_note(b"a\x00", "one.md").warnings == ["contains 1 NUL byte; they are left out"]


def test_large_and_long_notes_warn_naming_the_limit() -> None:
    from memtui.notes.file_checks import LARGE_NOTE_BYTES, LARGE_NOTE_LINES

    big = parse_note(b"y" * (LARGE_NOTE_BYTES + 1), "big.md")
    assert big.warnings == [
        f"large note: {LARGE_NOTE_BYTES + 1:,} bytes, over 1 MiB; "
        "the app shows only its first 1 MiB"
    ]
    long = parse_note(b"x\n" * (LARGE_NOTE_LINES + 1), "long.md")
    assert long.warnings == [
        f"long note: {LARGE_NOTE_LINES + 1:,} lines, over 20,000; "
        "the app shows only its first 20,000 lines"
    ]
    assert parse_note(b"x\n" * LARGE_NOTE_LINES, "edge.md").warnings == []
    assert parse_note(b"y" * LARGE_NOTE_BYTES, "edge.md").warnings == []


def test_hostile_file_names_warn() -> None:
    import os

    bad = os.fsdecode(b"dir/bad-\xff-name.md")
    assert parse_note(b"x", bad).warnings == [
        "file name is not valid UTF-8 (byte 0xff); agents cannot open it by path"
    ]
    assert parse_note(b"x", "new\nline.md").warnings == [
        "file name contains a control character (U+000A)"
    ]
    assert parse_note(b"x", "a\u0085b.md").warnings == [
        "file name contains a control character (U+0085)"
    ]
    assert parse_note(b"x", "caf\u00e9 \u4e2d.md").warnings == []


def test_note_head_cuts_large_notes_at_a_line_end() -> None:
    from memtui.notes.file_checks import LARGE_NOTE_BYTES, LARGE_NOTE_LINES, note_head

    assert note_head("short\n") is None
    lines = "x\n" * (LARGE_NOTE_LINES + 5)
    assert note_head(lines) == "x\n" * LARGE_NOTE_LINES
    one_line = "é" * LARGE_NOTE_BYTES
    head = note_head(one_line)
    assert head is not None and len(head.encode("utf-8")) <= LARGE_NOTE_BYTES
    assert one_line.startswith(head)


def test_permalink_of_an_undecodable_name_raises_no_warning() -> None:
    import os
    import warnings

    from memtui.notes.permalink import generate_permalink

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert generate_permalink(os.fsdecode(b"bad-\xff\xfe-name.md")) == "bad-name"
        assert generate_permalink(os.fsdecode(b"\xe4\xb8\xad-\xff.md")) == "中"
