"""Generate a deterministic corpus of Basic-Memory-style agent memories for the benchmarks.

Usage: python benchmarks/gen_corpus.py N OUT [--seed S]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

FOLDERS = ("user", "projects", "sessions", "patterns")
TYPES = {"user": "person", "projects": "project", "sessions": "session", "patterns": "pattern"}
CATEGORIES = ("fact", "decision", "preference", "idea", "issue", "technique", "requirement", "note")
RELATION_TYPES = ("relates_to", "depends_on", "implements", "part_of", "follows", "links_to")
COMMON = [
    "the",
    "agent",
    "user",
    "project",
    "memory",
    "note",
    "search",
    "index",
    "file",
    "cache",
    "build",
    "test",
    "deploy",
    "api",
    "server",
    "client",
    "python",
    "rust",
    "typescript",
    "database",
    "query",
    "schema",
    "migration",
    "config",
    "release",
    "review",
    "bug",
    "fix",
    "feature",
    "design",
    "pattern",
    "session",
    "context",
    "model",
    "prompt",
    "tool",
    "token",
    "budget",
    "latency",
    "error",
    "retry",
    "timeout",
    "queue",
    "worker",
    "thread",
    "lock",
    "history",
    "audit",
    "graph",
    "link",
    "backlink",
    "tag",
    "category",
    "observation",
    "relation",
    "permalink",
    "title",
    "folder",
    "path",
    "directory",
    "terminal",
    "editor",
    "keyboard",
    "approach",
    "module",
    "function",
    "class",
    "method",
    "interface",
    "protocol",
    "request",
    "response",
    "stream",
    "event",
    "signal",
    "message",
    "handler",
    "screen",
    "widget",
    "layout",
    "style",
    "theme",
    "color",
    "font",
    "render",
    "frame",
    "cursor",
]
SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ne",
    "ru",
    "sa",
    "te",
    "vi",
    "zo",
    "pa",
    "qu",
    "re",
    "st",
    "an",
    "el",
    "or",
    "ix",
    "um",
    "by",
    "ch",
    "th",
]


def make_vocabulary(rng: random.Random, size: int = 3000) -> list[str]:
    """Common words plus invented ones, so word frequencies have a long tail."""
    invented = {
        "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(size)
    }
    return list(COMMON) + sorted(invented)


def sentence(rng: random.Random, vocab: list[str], words: int) -> str:
    """A pseudo sentence: common words most of the time, rare ones sometimes."""
    out = []
    for _ in range(words):
        if rng.random() < 0.6:
            out.append(rng.choice(COMMON))
        else:
            out.append(vocab[min(len(vocab) - 1, int(rng.paretovariate(1.2) * 10))])
    return " ".join(out).capitalize()


def target_size(rng: random.Random) -> int:
    """A note size between 200 bytes and 30 KB with a long tail."""
    return int(min(30_000, max(200, rng.lognormvariate(7.4, 0.9))))


def make_note(
    rng: random.Random, vocab: list[str], index: int, titles: list[str]
) -> tuple[str, str]:
    """One note: (relative path, text)."""
    folder = FOLDERS[index % len(FOLDERS)]
    title = f"{sentence(rng, vocab, rng.randint(2, 4))} {index}"
    slug = title.lower().replace(" ", "-")
    lines = ["---", f"title: {title}", f"type: {TYPES[folder]}"]
    lines.append(f"tags: [{', '.join(rng.sample(COMMON, rng.randint(0, 3)))}]")
    lines.append(f"permalink: {folder}/{slug}")
    if rng.random() < 0.2:
        lines.append(
            f"last_verified: 202{rng.randint(3, 6)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}"
        )
    if rng.random() < 0.1:
        lines.append(f"expires: 202{rng.randint(4, 7)}-0{rng.randint(1, 9)}-2{rng.randint(0, 8)}")
    lines += ["---", "", f"# {title}", "", "## Observations", ""]
    for _ in range(rng.randint(3, 40)):
        text = sentence(rng, vocab, rng.randint(4, 14))
        tag = f" #{rng.choice(COMMON)}" if rng.random() < 0.5 else ""
        ctx = f" ({sentence(rng, vocab, 3)})" if rng.random() < 0.3 else ""
        lines.append(f"- [{rng.choice(CATEGORIES)}] {text}{tag}{ctx}")
    relations = rng.randint(0, 8)
    if relations:
        lines += ["", "## Relations", ""]
        for _ in range(relations):
            if titles and rng.random() < 0.85:
                target = rng.choice(titles)
            else:
                target = f"Missing {rng.choice(vocab)} {rng.randint(0, 999)}"
            lines.append(f"- {rng.choice(RELATION_TYPES)} [[{target}]]")
    size = target_size(rng)
    text = "\n".join(lines) + "\n"
    while len(text) < size:
        roll = rng.random()
        if roll < 0.6:
            block = " ".join(sentence(rng, vocab, rng.randint(6, 18)) + "." for _ in range(4))
        elif roll < 0.85:
            block = "\n".join(f"- {sentence(rng, vocab, rng.randint(3, 9))}" for _ in range(5))
        else:
            code = "\n".join(
                f"    {rng.choice(COMMON)} = {rng.choice(COMMON)}({rng.randint(0, 99)})"
                for _ in range(4)
            )
            block = f"```python\n{code}\n```"
        text += "\n" + block + "\n"
    return f"{folder}/{slug}.md", text


def generate(count: int, out: Path, seed: int = 1) -> int:
    """Write `count` notes under `out`; returns the total bytes written."""
    rng = random.Random(seed)
    vocab = make_vocabulary(rng)
    titles: list[str] = []
    total = 0
    for index in range(count):
        relpath, text = make_note(rng, vocab, index, titles)
        titles.append(text.split("\n", 2)[1].removeprefix("title: "))
        path = out / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode()
        path.write_bytes(data)
        total += len(data)
    return total


def main() -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int, help="number of notes")
    parser.add_argument("out", type=Path, help="output folder (created)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    args = parser.parse_args()
    total = generate(args.count, args.out, args.seed)
    print(f"wrote {args.count} notes, {total} bytes, to {args.out}")


if __name__ == "__main__":
    main()
