"""Precision and recall of the contradiction finder on the labelled pairs.

Each pair is laid out as the files it came from (one note, one memory-tool file, two notes with
the same title, or an entity note and a note linking to it) and the whole finder runs on them,
so extraction, subjects, blocking and the older/newer order are measured with the rules. A pair
counts as found only when the finder proposes exactly its two lines, older first.

`python -m tests.notes.contradiction_eval` prints the figures per split and every miss.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memtui.notes.contradictions import Contradiction, MemoryFile, find_contradictions

DATA = Path(__file__).parent / "data"
SPLITS = ("dev", "held", "fresh")
OLDER_TIME = 1_700_000_000.0
NEWER_TIME = OLDER_TIME + 30 * 86400


def load_pairs(name: str = "contradiction_pairs.jsonl") -> list[dict[str, Any]]:
    """The labelled pairs of a data file."""
    with (DATA / name).open(encoding="utf-8") as rows:
        return [json.loads(row) for row in rows if row.strip()]


def all_pairs() -> list[dict[str, Any]]:
    """Every labelled pair: the first set (dev and held) and the fresh set."""
    return load_pairs() + load_pairs("contradiction_pairs_fresh.jsonl")


def _slug(title: str) -> str:
    """A file name for a title."""
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "note"


def _note(title: str, lines: list[str]) -> str:
    """A Basic Memory note with these observation lines."""
    body = "\n".join(lines)
    return f"---\ntitle: {title}\ntype: note\n---\n\n# {title}\n\n## Observations\n{body}\n"


def pair_files(row: dict[str, Any]) -> list[MemoryFile]:
    """The files a labelled pair lives in."""
    shape, title, older, newer = row["shape"], row["title"], row["older"], row["newer"]
    slug = _slug(title)
    if shape == "note":
        return [MemoryFile(f"{slug}.md", title, _note(title, [older, newer]), NEWER_TIME)]
    if shape == "file":
        if title == "MEMORY":
            name = "MEMORY.md"
        else:
            name = f"{slug}.xml" if older.startswith("<") else f"{slug}.md"
        return [MemoryFile(name, title, f"{older}\n{newer}\n", NEWER_TIME)]
    if shape == "title":
        return [
            MemoryFile(f"old/{slug}.md", title, _note(title, [older]), OLDER_TIME),
            MemoryFile(f"new/{slug}.md", title, _note(title, [newer]), NEWER_TIME),
        ]
    entity = f"people/{slug}.md"
    linking = _note("Team notes", [f"- works_with [[{title}]]", newer])
    return [
        MemoryFile(entity, title, _note(title, [older]), OLDER_TIME),
        MemoryFile("team-notes.md", "Team notes", linking, NEWER_TIME, links=(entity,)),
    ]


def found_for(row: dict[str, Any]) -> tuple[bool, list[Contradiction]]:
    """Whether the finder proposes the pair (its two lines, older first), and all it proposed."""
    proposed = find_contradictions(pair_files(row))
    hit = any(c.older.text == row["older"] and c.newer.text == row["newer"] for c in proposed)
    return hit, proposed


@dataclass(frozen=True)
class Scores:
    """Counts and figures of one split."""

    true_positives: int
    false_positives: int
    false_negatives: int
    true_negatives: int
    misses: tuple[tuple[str, dict[str, Any], list[Contradiction]], ...]

    @property
    def precision(self) -> float:
        """Found pairs that are labelled contradicting, as a share of all found."""
        found = self.true_positives + self.false_positives
        return self.true_positives / found if found else 1.0

    @property
    def recall(self) -> float:
        """Contradicting pairs found, as a share of all contradicting pairs."""
        wanted = self.true_positives + self.false_negatives
        return self.true_positives / wanted if wanted else 1.0

    @property
    def pairs(self) -> int:
        """How many pairs were scored."""
        return (
            self.true_positives + self.false_positives + self.false_negatives + self.true_negatives
        )


def score(rows: list[dict[str, Any]]) -> Scores:
    """The finder's scores on some labelled pairs; a proposal other than the pair itself (its
    lines the wrong way round) counts as a false positive."""
    counts = {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
    misses = []
    for row in rows:
        hit, proposed = found_for(row)
        wrong = [
            c
            for c in proposed
            if not (c.older.text == row["older"] and c.newer.text == row["newer"])
        ]
        if row["contradicts"]:
            counts["tp" if hit else "fn"] += 1
            if not hit:
                misses.append(("missed", row, proposed))
        elif proposed:
            counts["fp"] += 1
            misses.append(("false alarm", row, proposed))
        else:
            counts["tn"] += 1
        if row["contradicts"] and wrong:
            counts["fp"] += 1
            misses.append(("wrong pair", row, wrong))
    return Scores(counts["tp"], counts["fp"], counts["fn"], counts["tn"], tuple(misses))


def report() -> str:
    """The figures per split and every miss, as text."""
    rows = all_pairs()
    out = []
    for split in (*SPLITS, "all"):
        chosen = [row for row in rows if split in ("all", row["split"])]
        result = score(chosen)
        out.append(
            f"{split:6} pairs {result.pairs:3}  precision {result.precision:.2f}  recall "
            f"{result.recall:.2f}  (tp {result.true_positives}, fp {result.false_positives}, "
            f"fn {result.false_negatives}, tn {result.true_negatives})"
        )
        if split != "all":
            for kind, row, proposed in result.misses:
                said = "; ".join(f"{c.reason}: {c.detail}" for c in proposed) or "nothing"
                out.append(
                    f"    {kind} #{row['id']} [{row['why']}] {row['older']!r} / "
                    f"{row['newer']!r} -> {said}"
                )
    return "\n".join(out)


if __name__ == "__main__":
    print(report())
