"""Frontmatter: the quick YAML reader agrees with PyYAML, normalisation matches Basic Memory."""

from __future__ import annotations

import random

import yaml

from memtui.notes.frontmatter_norm import (
    _NOT_SIMPLE,
    _load_simple_yaml,
    normalize_value,
    parse_tags,
    read_frontmatter,
)

_VALUES = [
    "a", "Title", "yes", "no", "on", "null", "~", "1", "1.5", "0x1f", "2024-01-15",
    "2024-01-15T10:00:00Z", "foo bar", "foo: bar", "foo #c", "a,b", "#x", "-x", "x-", "(x)",
    "x'y", "'q'", "é", "日本", "x!", "?x", "@x", "x@y", "1_000", "1:20", "12:30:45", ".inf",
    ".5", "+1", "1e3", "True", "NULL", "x.md", "a/b", "[a, b]", "[]", "[yes, 2]", "[a b, c]",
    "[x", "x]", "a  b", "x:", "_", "0o7", "0b101", "-", "", "[,]", "[a,]", "2024-13-45",
]  # fmt: skip
_KEYS = ["title", "type", "tags", "on", "yes", "2024", "k-1", "_x", "null", "a b", "x:y"]


def test_quick_reader_agrees_with_pyyaml_or_declines() -> None:
    rng = random.Random(3)
    accepted = 0
    for _ in range(3000):
        lines = []
        for _ in range(rng.randint(0, 5)):
            key, value = rng.choice(_KEYS), rng.choice(_VALUES)
            lines.append(f"{key}: {value}" if value else f"{key}:")
        text = "\n".join(lines) + "\n"
        got = _load_simple_yaml(text)
        if got is _NOT_SIMPLE:
            continue
        accepted += 1
        expected = yaml.safe_load(text)
        assert got == expected, text
        assert list(got or {}) == list(expected or {})
    assert accepted > 300


def test_quick_reader_declines_typed_values() -> None:
    for text in [
        "a: 1\n",
        "a: yes\n",
        "created: 2024-13-01\n",
        "a: 'q'\n",
        "on: x\n",
        "a:\n  - b\n",
    ]:
        assert _load_simple_yaml(text) is _NOT_SIMPLE, text


def test_normalisation_matches_basic_memory() -> None:
    loaded = yaml.safe_load("d: 2024-01-15\nt: 2024-01-15T10:00:00Z\nn: [1, 2.5, true, null]\n")
    assert normalize_value(loaded) == {
        "d": "2024-01-15",
        "t": "2024-01-15T10:00:00+00:00",
        "n": ["1", "2.5", "True", None],
    }


def test_tags_forms() -> None:
    assert parse_tags(["a", "#b", "c, d", None]) == ["a", "b", "c", "d"]
    assert parse_tags("a, #b,, c") == ["a", "b", "c"]
    assert parse_tags('["x", "#y"]') == ["x", "y"]
    assert parse_tags(None) == []


def test_title_type_defaults_and_key_order() -> None:
    front = read_frontmatter("---\nname: n\ntitle: ''\ntype:\ntags: []\n---\nbody\n", "stem")
    assert front.metadata == {"name": "n", "title": "stem", "type": "note", "tags": []}
    assert list(front.metadata) == ["name", "title", "type", "tags"]
    assert front.body == "body"
    assert front.body_start == len("---\nname: n\ntitle: ''\ntype:\ntags: []\n---\n")
