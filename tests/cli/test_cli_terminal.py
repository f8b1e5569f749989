"""Control characters made visible with their highlight spans kept, and terminal-safe JSON."""

from __future__ import annotations

import json

from memtui.cli.terminal import json_safe, visible, visible_spans


def test_control_characters_become_visible_symbols() -> None:
    assert visible("a\x1b]0;T\x07b\x00\n\t\x7f") == "a␛]0;T␇b␀␊␉␡"
    assert visible("c\x9b\u202ed") == "c\\x9b\\u202ed"
    assert visible("bad-\udcff.md") == "bad-\\xff.md"
    assert visible("plain ünïcödé 日本") == "plain ünïcödé 日本"


def test_spans_follow_the_characters_they_marked() -> None:
    shown, spans = visible_spans("\x9bab\x1bcd", [(1, 3), (4, 6)])
    assert shown == "\\x9bab␛cd"
    assert [shown[start:end] for start, end in spans] == ["ab", "cd"]


def test_json_keeps_values_and_is_safe() -> None:
    raw = json.dumps({"p": "x\x7f\x9b\u202e\udcff\x1b é"}, ensure_ascii=False)
    safe = json_safe(raw)
    assert safe == r'{"p": "x\u007f\u009b\u202e\udcff\u001b é"}'
    assert json.loads(safe) == json.loads(raw)
    safe.encode("utf-8")


def test_json_lines_are_not_split_by_unicode_line_separators() -> None:
    raw = json.dumps({"p": "a\x85b\u2028c\u2029d"}, ensure_ascii=False)
    safe = json_safe(raw)
    assert safe == r'{"p": "a\u0085b\u2028c\u2029d"}'
    assert safe.splitlines() == [safe]
    assert json.loads(safe) == json.loads(raw)
