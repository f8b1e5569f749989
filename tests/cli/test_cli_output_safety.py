"""What search, stale, log and export print is safe for a terminal and always valid UTF-8 / JSON."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memtui.core.config import Settings
from memtui.core.store import MemoryStore

MEMTUI = str(Path(sys.executable).with_name("memtui"))
RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")
"""Control characters a terminal would act on (newline ends each printed line)."""
BAD_NAME = b"bad-\xff-name.md"
ESCAPES = "say \x1b]0;PWNED\x07 then \x1b[2J clear, nul \x00 here, csi \x9b31m, del \x7f end"


def memtui(store: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    """Run `memtui ARGS` on the store with an isolated config; stdout and stderr as bytes."""
    env = {
        "PATH": "/usr/bin:/bin",
        "MEMTUI_CONFIG_FILE": os.devnull,
        "XDG_CACHE_HOME": str(store.parent / "cache"),
    }
    command = [MEMTUI, args[0], str(store), *args[1:]]
    return subprocess.run(command, capture_output=True, env=env, timeout=60)


def printed(data: bytes) -> str:
    """Output that must be valid UTF-8 and hold no raw control character but line ends."""
    text = data.decode("utf-8")
    assert RAW_CONTROL.search(text) is None, text
    return text


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store with escape sequences in a note and in file names, and a link out of it."""
    root = tmp_path_factory.mktemp("safety") / "mem"
    memory = MemoryStore(root, actor="agent:claude", settings=Settings())
    memory.create(
        "/memories/esc.md", f"# Escapes\n\n- [fact] hello {ESCAPES}\n- see [[Gone\x1b[2J]]\n"
    )
    with open(os.path.join(os.fsencode(root), b"new\nline.md"), "wb") as handle:
        handle.write(b"# New line\n\n- [fact] hello from a hostile name\n")
    with open(os.path.join(os.fsencode(root), b"title\x1b]0;X\x07.md"), "wb") as handle:
        handle.write(b"# Title\n\n- [fact] hello from an escape in a name\n")
    with open(os.path.join(os.fsencode(root), BAD_NAME), "wb") as handle:
        handle.write(b"# Bad\n\n- [fact] hello from a name that is not UTF-8\n")
    (root / "binary.md").write_bytes(b"# Binary\n\nhello \xff\xfe \x1b[31m red \x00\n")
    (root / "[red]markup.md").write_text("# Markup\n\n- [fact] hello [bold]not markup[/bold]\n")
    long_ago = time.time() - 200 * 86400
    for name in os.listdir(os.fsencode(root)):
        if not name.startswith(b"."):
            os.utime(os.path.join(os.fsencode(root), name), (long_ago, long_ago))
    (root / "outside.md").symlink_to("/etc/hostname")
    return root


def test_plain_search_shows_control_characters_as_symbols(store: Path) -> None:
    done = memtui(store, "search", "hello", "--limit", "50")
    assert done.returncode == 0
    out = printed(done.stdout)
    assert "say ␛]0;PWNED␇ then ␛[2J clear, nul ␀ here, csi \\x9b31m, del ␡ end" in out
    rows = out.splitlines()
    assert "new␊line.md" in rows
    assert "title␛]0;X␇.md" in rows
    assert "bad-\\xff-name.md" in rows
    assert "hello \ufffd\ufffd ␛[31m red ␀" in out
    assert "[red]markup.md" in rows and "hello [bold]not markup[/bold]" in out
    assert len(rows) == 12 and sum(row.startswith("      3  ") for row in rows) == 6
    assert printed(done.stderr).startswith("memtui search: skipped outside.md: ")


def test_search_json_is_valid_utf8_and_keeps_the_values(store: Path) -> None:
    done = memtui(store, "search", "hello", "--json", "--limit", "50")
    hits = [json.loads(line) for line in printed(done.stdout).splitlines()]
    paths = {hit["path"] for hit in hits}
    assert os.fsdecode(BAD_NAME) in paths and "new\nline.md" in paths
    assert any(ESCAPES in hit["text"] for hit in hits)


def test_stale_shows_control_characters_as_symbols_and_names_skipped_entries(
    store: Path,
) -> None:
    done = memtui(store, "stale", "--limit", "0")
    assert done.returncode == 0
    out = printed(done.stdout)
    assert "new␊line.md" in out and "bad-\\xff-name.md" in out
    assert "unchanged for 200 days" in out
    assert "links to 1 note not written yet: Gone␛[2J" in out
    assert printed(done.stderr).startswith("memtui stale: skipped outside.md: ")
    rows = [
        json.loads(line)
        for line in printed(memtui(store, "stale", "--json").stdout).split("\n")
        if line
    ]
    assert os.fsdecode(BAD_NAME) in {row["path"] for row in rows}


def test_log_shows_control_characters_as_symbols(store: Path) -> None:
    done = memtui(store, "log", "--limit", "0")
    assert done.returncode == 0
    out = printed(done.stdout)
    assert "/memories/new␊line.md" in out
    assert "/memories/[red]markup.md" in out
    events = [
        json.loads(line) for line in printed(memtui(store, "log", "--json").stdout).splitlines()
    ]
    assert "/memories/new\nline.md" in {event["path"] for event in events}


@pytest.mark.parametrize("form", ["jsonl", "json"])
def test_export_is_valid_json_whatever_the_names(store: Path, form: str) -> None:
    done = memtui(store, "export", "--format", form, "--warnings")
    assert done.returncode == 0
    out = printed(done.stdout)
    records = json.loads(out) if form == "json" else [json.loads(x) for x in out.splitlines()]
    by_path = {record["path"]: record for record in records}
    assert os.fsdecode(BAD_NAME) in by_path
    assert os.fsencode(os.fsdecode(BAD_NAME)) == BAD_NAME
    assert "\\udcff" in out
    esc = by_path["esc.md"]["observations"][0]["content"]
    assert esc == "hello " + ESCAPES.replace("\x00", "")


def test_export_keeps_unicode_text_readable(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    root.mkdir()
    (root / "é.md").write_text("- [fact] ünïcödé — 日本\n", encoding="utf-8")
    out = memtui(root, "export").stdout.decode("utf-8")
    assert '"path": "é.md"' in out and "ünïcödé — 日本" in out


def test_a_huge_line_is_shown_around_its_first_match(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    root.mkdir()
    line = "lorem ipsum dolor " * 30_000 + "needle in the haystack " + "sit amet " * 120_000
    (root / "huge.md").write_text(f"# Huge\n\n{line}\n")
    done = memtui(root, "search", "needle haystack")
    out = printed(done.stdout)
    assert out.splitlines()[0] == "huge.md"
    (hit,) = [row for row in out.splitlines() if row.startswith("      3  body")]
    assert len(hit) < 260
    assert "  body        …" in hit and "dolor needle in the haystack sit amet" in hit
    assert hit.endswith("…")
    (record,) = [
        json.loads(row)
        for row in printed(memtui(root, "search", "needle haystack", "--json").stdout).split("\n")
        if row and json.loads(row)["line"] == 3
    ]
    assert record["text"] == line[:10_000]
    assert len(record["spans"]) <= 100
    assert all(0 <= start < end <= 10_000 for start, end in record["spans"])
