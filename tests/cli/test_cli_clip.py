"""Long hit lines cut around their first match, with the spans moved and capped."""

from __future__ import annotations

from memtui.cli.search_cmd import MAX_SPANS, clip


def test_a_short_line_is_kept_whole() -> None:
    assert clip("short line", ((0, 5),), 200, 60) == ("short line", [(0, 5)])


def test_a_long_line_is_cut_around_its_first_match() -> None:
    text = "a" * 1000 + "MATCH" + "b" * 1000
    shown, spans = clip(text, ((1000, 1005), (1100, 1200), (1990, 2005)), 200, 60)
    assert shown == "…" + "a" * 60 + "MATCH" + "b" * 135 + "…"
    assert spans == [(61, 66), (161, 201)]
    assert shown[61:66] == "MATCH"


def test_a_match_near_either_end_fills_the_window() -> None:
    text = "x" * 1000
    assert clip(text, ((5, 6),), 200, 60) == ("x" * 200 + "…", [(5, 6)])
    assert clip(text, ((998, 1000),), 200, 60) == ("…" + "x" * 200, [(199, 201)])


def test_spans_are_capped() -> None:
    text = "ab" * 10_000
    spans = tuple((i, i + 1) for i in range(0, 20_000, 2))
    assert len(clip(text, spans, 200, 60)[1]) == 100 == MAX_SPANS
    assert len(clip("ab" * 100, spans[:150], 200, 60)[1]) == MAX_SPANS
