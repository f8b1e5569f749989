"""Laying text out for the preview's text view: safe characters, tabs, syntax spans, wrapping."""

from __future__ import annotations

from memtui.tui.text_layout import (
    HIGHLIGHT_MAX_BYTES,
    is_markdown,
    lay_out,
    lexer_for,
    shown_text,
    wrap_line,
)


def rows_text(line: str, width: int) -> list[str]:
    """The rows of one wrapped line, as text."""
    return [line[start:end] for start, end in wrap_line(line, width)]


def test_a_short_or_empty_line_is_one_row() -> None:
    """Lines that fit are never cut; an empty line still takes a row."""
    assert rows_text("hello", 10) == ["hello"]
    assert rows_text("", 10) == [""]


def test_long_lines_wrap_after_the_last_space_that_fits() -> None:
    """Words stay whole where they fit (a row may end in the space after its last word, which
    is not drawn); every character is kept, in order."""
    line = "the quick brown fox jumps over the lazy dog"
    assert rows_text(line, 10) == ["the quick ", "brown fox ", "jumps over ", "the lazy ", "dog"]
    assert "".join(rows_text(line, 10)) == line


def test_a_word_longer_than_the_width_is_cut_at_the_width() -> None:
    """Without a space to break at, rows are exactly the width."""
    assert rows_text("a" * 25, 10) == ["a" * 10, "a" * 10, "a" * 5]


def test_wide_characters_count_two_cells() -> None:
    """CJK characters take two cells, so five fit in ten."""
    line = "漢字" * 6
    rows = rows_text(line, 10)
    assert rows == ["漢字漢字漢", "字漢字漢字", "漢字"]
    assert "".join(rows) == line


def test_a_huge_line_of_symbols_wraps_in_width_sized_rows() -> None:
    """A sparse file's NULs become one line of ␀ symbols, one cell each."""
    shown = shown_text("\x00" * 1000)
    assert shown.lines == ["␀" * 1000]
    rows = lay_out(shown, 80)
    assert len(rows.rows) == 13
    assert rows.rows[-1] == (0, 960, 1000)


def test_shown_text_is_display_safe_with_tabs_expanded_and_crlf_dropped() -> None:
    """Escape sequences become symbols, tabs 8 columns, a CRLF ending goes, a lone CR shows."""
    shown = shown_text("a\tb\r\nc\x1b]0;x\x07\r\nlone\rcr")
    assert shown.lines == ["a       b", "c␛]0;x␇", "lone␍cr"]
    assert shown.source == "a\tb\r\nc\x1b]0;x\x07\r\nlone\rcr"


def test_line_of_and_first_row_map_rows_and_lines_both_ways() -> None:
    """`first_row[line]` and `line_of(row)` agree on wrapped lines."""
    rows = lay_out(shown_text("short\n" + "x" * 25 + "\nend"), 10)
    assert rows.first_row == [0, 1, 4]
    assert [rows.line_of(row) for row in range(5)] == [0, 1, 1, 1, 2]


def test_data_and_code_files_get_a_lexer_plain_text_and_markdown_do_not() -> None:
    """JSON, XML, YAML, TOML and code are coloured; .txt, .md and unknown kinds are plain."""
    for name in ("a.json", "b.xml", "c.yaml", "d.yml", "e.toml", "f.py", "g.sh"):
        assert lexer_for(f"notes/{name}") is not None, name
    for name in ("a.txt", "b.md", "c", "d.unknownext", "e.log"):
        assert lexer_for(name) is None, name
    assert is_markdown("x/y.MD") and is_markdown("a.markdown") and not is_markdown("a.txt")


def test_syntax_spans_style_json_keys_strings_and_numbers() -> None:
    """Each line gets spans for its tokens, in the theme's roles."""
    lexer = lexer_for("prefs.json")
    shown = shown_text('{\n  "theme": "dark",\n  "count": 3\n}\n', lexer)
    styles = {
        shown.lines[line][start:end]: style
        for line, spans in shown.spans.items()
        for start, end, style in spans
    }
    assert styles['"theme"'] == "$text-accent"
    assert styles['"dark"'] == "$text-success"
    assert styles["3"] == "$text-warning"


def test_a_token_spanning_lines_is_split_per_line() -> None:
    """A multi-line string or comment styles each line it covers."""
    lexer = lexer_for("a.py")
    shown = shown_text('x = """one\ntwo"""\n', lexer)
    covered = "".join(shown.lines[1][start:end] for start, end, _ in shown.spans[1])
    assert covered == 'two"""'
    assert all(style == "$text-success" for _s, _e, style in shown.spans[1])


def test_text_over_the_highlight_limit_is_plain() -> None:
    """Lexing a MiB would take up to a second, so big files are shown without colours."""
    text = '{"k": "v"}\n' * (HIGHLIGHT_MAX_BYTES // 10)
    assert shown_text(text, lexer_for("a.json")).spans == {}
