"""Benchmark: does decoding base64 runs make the secret scanner better or worse?

Usage: python benchmarks/secrets_bench.py [--notes N] [--runs R] [--packages-mb M] [--baseline F]

False positives: every text file of each corpus (Basic Memory's notes in ../shared/corpus when
present, memtui's demo store, N generated notes, and up to M MB of text from the installed
packages: code, JSON, lock files and docs, full of hashes and base64) is scanned; a finding that
only the base64 step makes is a false positive unless its run really encodes a credential (each
is printed for a person to judge). Detection: fake credentials of every kind, base64-encoded in
the ways they are met (standard, URL-safe, unpadded, inside a sentence, as an assignment's value,
a whole `.env` file, a JSON object). Cost: medians of R timed scans of each corpus with and
without the base64 step, interleaved, against what indexing each file costs, and (with
`--baseline`, e.g. `git show main:memtui/core/secrets.py > /tmp/old_secrets.py`) the whole
scanner against another version of it.
"""

from __future__ import annotations

import argparse
import base64
import importlib.util
import json
import site
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_corpus import generate

from memtui.core import secrets
from memtui.core.resolving.regular import Head
from memtui.core.secret_forms import base64_runs, base64_texts, unhidden
from memtui.notes.records import build_record

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "corpus" / "basic-memory-notes"
TEXT_SUFFIXES = {".md", ".txt", ".rst", ".json", ".py", ".toml", ".cfg", ".yaml", ".yml", ".ini"}

FAKES = {
    "aws-access-key": "AKIAQWERTYUIOPASDFGH",
    "aws-secret-key": "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq9LmW3kT8",
    "github-token": "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    "slack-token": "xoxb-2048-1024-abcdefghijklmnopqrstuvwx",
    "stripe-key": "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "anthropic-key": "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abc",
    "openai-key": "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
    "google-api-key": "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    "gitlab-token": "glpat-xKz9Pq2RmW7vTn4LbY8c",
    "huggingface-token": "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",
    "npm-token": "npm_abcdefghijklmnopqrstuvwxyz0123456789",
    "connection-url": "postgres://admin:S3cretP4ss@db:5432/app",
    "assignment": "DB_PASSWORD=Sup3rS3cret",
    "private-key": (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1c7\n-----END RSA PRIVATE KEY-----"
    ),
}


def b64(text: str, *, url: bool = False, pad: bool = True) -> str:
    """`text` in base64."""
    data = text.encode()
    encoded = (base64.urlsafe_b64encode if url else base64.b64encode)(data).decode()
    return encoded if pad else encoded.rstrip("=")


WAYS: dict[str, Callable[[str], str]] = {
    "standard": b64,
    "url-safe, unpadded": lambda s: b64(s, url=True, pad=False),
    "in a sentence": lambda s: f"The deploy token is {b64(s)} (rotate monthly).",
    "assignment value": lambda s: f"CREDENTIALS_B64={b64(s)}",
    "whole .env file": lambda s: b64(f"APP_ENV=prod\nLOG_LEVEL=info\n{s}\nREGION=eu-west-1\n"),
    "JSON object": lambda s: json.dumps({"auth": b64(json.dumps({"user": "ci", "key": s}))}),
    "a path's file name": lambda s: f"/memories/users/ana/{b64(s, url=True, pad=False)}.json",
    "after a name and _": lambda s: f"export_token_{b64(s, url=True, pad=False)}",
    "wrapped at 76 columns": lambda s: "\n".join(
        (lambda e: [e[i : i + 76] for i in range(0, len(e), 76)])(b64(("filler " * 12) + s))
    ),
}


def text_files(root: Path, limit_bytes: int | None = None) -> list[tuple[str, str]]:
    """(relative path, text) of every UTF-8 text file under `root`, up to `limit_bytes` in all."""
    found: list[tuple[str, str]] = []
    total = 0
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        if limit_bytes is not None and path.suffix not in TEXT_SUFFIXES:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        found.append((str(path.relative_to(root)), text))
        total += len(text)
        if limit_bytes is not None and total >= limit_bytes:
            break
    return found


def corpora(notes: int, packages_mb: float, work: Path) -> dict[str, list[tuple[str, str]]]:
    """The named corpora to scan."""
    named: dict[str, list[tuple[str, str]]] = {}
    if SHARED.is_dir():
        named["basic-memory notes"] = text_files(SHARED)
    named["demo store"] = text_files(REPO / "memtui" / "demo" / "store")
    generate(notes, work / "generated")
    named[f"{notes} generated notes"] = text_files(work / "generated")
    packages = Path(site.getsitepackages()[0])
    named["installed packages"] = text_files(packages, int(packages_mb * 1_000_000))
    return named


def base64_only(text: str) -> list[tuple[str, str]]:
    """(kind, run) of each finding only the base64 step makes."""
    plain = unhidden(text).text
    found = []
    for start, end, decoded in base64_texts(plain):
        kinds = {span.kind for span in secrets._spans_in(unhidden(decoded).text, decode=False)}
        found += [(kind, plain[start:end]) for kind in sorted(kinds)]
    return found


def scan_all(files: list[tuple[str, str]], decode: bool) -> float:
    """Seconds to scan every file once, with or without the base64 step."""
    started = time.perf_counter()
    for _path, text in files:
        secrets._spans_in(unhidden(text).text, decode=decode)
    return time.perf_counter() - started


def report_false_positives(named: dict[str, list[tuple[str, str]]], runs: int) -> None:
    """Per corpus: size, base64 runs, runs that are text, base64-only findings, costs."""
    print("corpus | files | MB | base64 runs | decode to text | base64-only findings")
    timings: list[str] = []
    for name, files in named.items():
        runs_seen = texts = 0
        flagged: list[tuple[str, str, str]] = []
        for path, text in files:
            plain = unhidden(text).text
            runs_seen += len(base64_runs(plain))
            texts += sum(1 for _ in base64_texts(plain))
            flagged += [(path, kind, run) for kind, run in base64_only(text)]
        size = sum(len(text.encode()) for _path, text in files) / 1e6
        print(f"{name} | {len(files)} | {size:.1f} | {runs_seen} | {texts} | {len(flagged)}")
        for path, kind, run in flagged:
            print(f"    {path}: {kind}: {run[:80]}")
        without: list[float] = []
        with_: list[float] = []
        for _ in range(runs):
            without.append(scan_all(files, False))
            with_.append(scan_all(files, True))
        a, b = statistics.median(without), statistics.median(with_)
        timings.append(f"{name} | {a * 1000:.0f} ms | {b * 1000:.0f} ms | {b / a:.2f}")
    print("\ncorpus | scan without base64 | with | ratio")
    print("\n".join(timings))


def report_index_cost(named: dict[str, list[tuple[str, str]]], runs: int) -> None:
    """Per corpus: what scanning every file would add to indexing it (`build_record`)."""
    print("\ncorpus | scan per file | index record per file | scan / record")
    for name, files in named.items():
        heads = [(path, Head(text.encode(), len(text.encode()), 0, False)) for path, text in files]
        scans: list[float] = []
        builds: list[float] = []
        for _ in range(runs):
            started = time.perf_counter()
            for _path, text in files:
                secrets.find_spans(text)
            scans.append((time.perf_counter() - started) / len(files))
            started = time.perf_counter()
            for path, head in heads:
                build_record(path, head)
            builds.append((time.perf_counter() - started) / len(files))
        a, b = statistics.median(scans), statistics.median(builds)
        print(f"{name} | {a * 1e6:.0f} us | {b * 1e6:.0f} us | {a / b:.2f}")


def report_baseline(named: dict[str, list[tuple[str, str]]], runs: int, baseline: Path) -> None:
    """Per corpus: the whole scan (`find_spans`) against another version of `secrets.py`."""
    spec = importlib.util.spec_from_file_location("baseline_secrets", baseline)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["baseline_secrets"] = module
    spec.loader.exec_module(module)
    print(f"\ncorpus | {baseline.name} | this scanner | ratio")
    for name, files in named.items():
        old: list[float] = []
        new: list[float] = []
        for _ in range(runs):
            for scanner, times in ((module.find_spans, old), (secrets.find_spans, new)):
                started = time.perf_counter()
                for _path, text in files:
                    scanner(text)
                times.append(time.perf_counter() - started)
        a, b = statistics.median(old), statistics.median(new)
        print(f"{name} | {a * 1000:.0f} ms | {b * 1000:.0f} ms | {b / a:.2f}")


def report_detection() -> None:
    """For each way of encoding: how many fake credentials the scanner finds, of which kind."""
    print(f"\nencoded as | found (of {len(FAKES)}) | missed")
    for way, encode in WAYS.items():
        missed = [
            kind
            for kind, fake in FAKES.items()
            if kind not in {finding.kind for finding in secrets.scan(encode(fake))}
        ]
        print(f"{way} | {len(FAKES) - len(missed)} | {', '.join(missed) or '-'}")


def main() -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=2000, help="generated notes (default 2000)")
    parser.add_argument("--runs", type=int, default=5, help="timed scans per corpus (default 5)")
    parser.add_argument(
        "--packages-mb", type=float, default=20.0, help="MB of installed packages' text (20)"
    )
    parser.add_argument(
        "--baseline", type=Path, help="another secrets.py to time against (e.g. main's)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        named = corpora(args.notes, args.packages_mb, Path(work))
    report_false_positives(named, args.runs)
    report_index_cost(named, args.runs)
    if args.baseline is not None:
        report_baseline(named, args.runs, args.baseline)
    report_detection()


if __name__ == "__main__":
    main()
