"""The store as it was: `memtui export --as-of` byte for byte across renames and deletes,
`memtui show FILE --as-of`, and a time before the history began refused in one line."""

from __future__ import annotations

import json
import time
from datetime import datetime
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.core.config import Settings
from memtui.core.store import MemoryStore
from memtui.notes.as_of import BeforeHistory, store_after, store_at

DAY = 86400.0
BASE = time.time() - 10 * DAY
V1 = "# Alpha\n\n- [fact] Tabs\n"
V2 = "# Alpha\n\n- [fact] Spaces\n"
BETA = "# Beta\n\nnaïve café ✓\n"


def _iso(when: float) -> str:
    """A local ISO date and time, as a person would type it."""
    return datetime.fromtimestamp(when).isoformat(timespec="seconds")


def _history(root: Path) -> MemoryStore:
    """Day 0: a.md (V1), notes/b.md; day 1: a.md becomes V2; day 2: notes/ renamed to old/;
    day 3: a.md deleted, e.md created."""
    clock = [BASE]
    agent = MemoryStore(root, actor="agent:claude", settings=Settings(), clock=lambda: clock[0])
    agent.create("/memories/a.md", V1)
    agent.create("/memories/notes/b.md", BETA)
    clock[0] = BASE + DAY
    assert not agent.str_replace("/memories/a.md", "Tabs", "Spaces").is_error
    clock[0] = BASE + 2 * DAY
    assert not agent.rename("/memories/notes", "/memories/old").is_error
    clock[0] = BASE + 3 * DAY
    assert not agent.delete("/memories/a.md").is_error
    agent.create("/memories/e.md", "new\n")
    return agent


def _tree(root: Path) -> dict[str, bytes]:
    """relpath -> bytes of every file under `root`."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".memtui" not in p.parts
    }


@pytest.mark.parametrize(
    ("day", "expected"),
    [
        (0.5, {"a.md": V1, "notes/b.md": BETA}),
        (1.5, {"a.md": V2, "notes/b.md": BETA}),
        (2.5, {"a.md": V2, "old/b.md": BETA}),
        (3.5, {"e.md": "new\n", "old/b.md": BETA}),
    ],
)
def test_export_as_of_writes_each_earlier_state_byte_for_byte(
    tmp_path: Path, day: float, expected: dict[str, str]
) -> None:
    store_root = tmp_path / "store"
    _history(store_root).close()
    out = tmp_path / "then"
    assert (
        main(["export", str(store_root), "--as-of", _iso(BASE + day * DAY), "--to", str(out)]) == 0
    )
    assert _tree(out) == {path: text.encode() for path, text in expected.items()}


def test_export_as_of_today_is_the_store_now(tmp_path: Path) -> None:
    store_root = tmp_path / "store"
    _history(store_root).close()
    out = tmp_path / "now"
    assert main(["export", str(store_root), "--as-of", "0d", "--to", str(out)]) == 0
    assert _tree(out) == _tree(store_root)


def test_export_as_of_prints_one_record_per_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _history(tmp_path).close()
    assert main(["export", str(tmp_path), "--as-of", _iso(BASE + 2.5 * DAY)]) == 0
    assert [json.loads(line) for line in capsys.readouterr().out.splitlines()] == [
        {"path": "a.md", "text": V2},
        {"path": "old/b.md", "text": BETA},
    ]


def test_a_time_before_the_history_began_says_so_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _history(tmp_path).close()
    early = BASE - DAY
    assert main(["export", str(tmp_path), "--as-of", _iso(early)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"memtui export: {datetime.fromtimestamp(early):%Y-%m-%d %H:%M:%S} is before the "
        f"history began ({datetime.fromtimestamp(BASE):%Y-%m-%d %H:%M:%S}): nothing is known "
        "of the store then\n"
    )
    assert main(["show", str(tmp_path), "a.md", "--as-of", _iso(early)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_as_of_takes_the_forms_of_since(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _history(tmp_path).close()
    assert main(["show", str(tmp_path), "old/b.md", "--as-of", "1 week"]) == 0
    assert capsys.readouterr().out == BETA
    with pytest.raises(SystemExit) as exit_status:
        main(["show", str(tmp_path), "a.md", "--as-of", "soon"])
    assert exit_status.value.code == 2
    assert "'soon' is not a time" in capsys.readouterr().err


def test_show_as_of_follows_a_file_renamed_since(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _history(tmp_path).close()
    assert main(["show", str(tmp_path), "old/b.md", "--as-of", _iso(BASE + 0.5 * DAY)]) == 0
    assert capsys.readouterr().out == BETA
    assert main(["show", str(tmp_path), "/memories/a.md", "--as-of", _iso(BASE + 1.5 * DAY)]) == 0
    assert capsys.readouterr().out == V2
    assert main(["show", str(tmp_path), "e.md", "--as-of", _iso(BASE + 0.5 * DAY)]) == 2
    assert capsys.readouterr().err == "memtui show: /memories/e.md was not in the store then\n"


def test_show_id_prints_the_event(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _history(tmp_path).close()
    assert main(["show", str(tmp_path), "1"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("#1 ") and first.endswith(" create /memories/a.md (+3 -0)")


def test_the_store_after_an_event(tmp_path: Path) -> None:
    agent = _history(tmp_path)
    events = agent.history.events(newest_first=False)
    renamed = next(e for e in events if e.command == "rename")
    after = store_after(agent.history, renamed)
    assert after.paths() == ["a.md", "old/b.md"]
    assert after.content(agent.history, "a.md") == V2.encode()
    with pytest.raises(BeforeHistory):
        store_at(agent.history, BASE - 1)
    agent.close()


def test_bytes_that_are_not_utf8_and_hostile_text_come_back_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "store"
    root.mkdir()
    raw = b"\xff\xfe not utf-8 \x00\n"
    hostile = "title\x1b]0;pwned\x07 \x1b[2J\n"
    (root / "raw.bin.md").write_bytes(raw)
    agent = MemoryStore(root, actor="agent:claude", settings=Settings())
    agent.create("/memories/evil.md", hostile)
    agent.close()
    out = tmp_path / "then"
    assert main(["export", str(root), "--as-of", "0d", "--to", str(out)]) == 0
    assert (out / "raw.bin.md").read_bytes() == raw
    assert (out / "evil.md").read_bytes() == hostile.encode()
    assert main(["export", str(root), "--as-of", "0d"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert records == [
        {"path": "evil.md", "text": hostile},
        {"path": "raw.bin.md", "base64": "//4gbm90IHV0Zi04IAAK"},
    ]
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    assert main(["show", str(root), "evil.md", "--as-of", "0d"]) == 0
    shown = capsys.readouterr().out
    assert "\x1b" not in shown and "\x07" not in shown and shown.startswith("title")


def test_export_to_a_folder_that_is_not_empty_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store_root = tmp_path / "store"
    _history(store_root).close()
    out = tmp_path / "busy"
    out.mkdir()
    (out / "keep.md").write_text("mine\n")
    assert main(["export", str(store_root), "--as-of", "0d", "--to", str(out)]) == 2
    assert capsys.readouterr().err == f"memtui export: {out} is not empty\n"
    assert [p.name for p in out.iterdir()] == ["keep.md"]
