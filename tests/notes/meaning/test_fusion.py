"""Fusing text and meaning scores: exact figures for both fusions."""

from __future__ import annotations

import pytest

from memtui.notes.meaning.fusion import rank_fusion, score_fusion
from memtui.notes.meaning.scan import MeaningHit

TEXT = [("a.md", 115.0), ("b.md", 60.0), ("a.md", 40.0)]
MEANING = [MeaningHit("c.md", 3, "Cars", 0.8), MeaningHit("b.md", 1, "B", 0.5)]


def test_score_fusion_adds_a_share_of_the_weaker_score_to_the_stronger() -> None:
    fused = score_fusion(TEXT, MEANING, bonus=0.3)
    assert [(f.path, f.score, f.text, f.meaning) for f in fused] == [
        ("a.md", 1.0, 1.0, 0.0),
        ("c.md", pytest.approx(0.8), 0.0, 0.8),
        ("b.md", pytest.approx(0.6 + 0.3 * 0.5), 0.6, 0.5),
    ]
    assert fused[1].section == MEANING[0]
    assert fused[0].section is None


def test_relative_scaling_gives_the_best_text_hit_a_full_score() -> None:
    fused = score_fusion([("b.md", 60.0)], MEANING, bonus=0.0, relative=True)
    assert [(f.path, f.text) for f in fused] == [("b.md", 1.0), ("c.md", 0.0)]


def test_negative_similarity_counts_as_none_and_ties_go_in_path_order() -> None:
    fused = score_fusion(
        [],
        [
            MeaningHit("z.md", 1, "Z", 0.4),
            MeaningHit("y.md", 1, "Y", 0.4),
            MeaningHit("x.md", 1, "X", -0.2),
        ],
    )
    assert [(f.path, f.meaning) for f in fused] == [("y.md", 0.4), ("z.md", 0.4), ("x.md", 0.0)]


def test_rank_fusion_sums_reciprocal_ranks() -> None:
    fused = rank_fusion(TEXT, MEANING, k=60)
    assert [(f.path, f.score) for f in fused] == [
        ("b.md", pytest.approx(1 / 62 + 1 / 62)),
        ("a.md", pytest.approx(1 / 61)),
        ("c.md", pytest.approx(1 / 61)),
    ]
