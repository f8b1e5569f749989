"""Cache files under `.memtui/` are sealed: a planted, foreign or tampered file is never unpickled."""

from __future__ import annotations

import os
import pickle
import stat
import subprocess
import sys
from array import array
from pathlib import Path

import pytest

from memtui.notes import cache as note_cache
from memtui.notes import sealed
from memtui.notes.index import NoteIndex
from memtui.notes.search import SNAPSHOT_NAME, Searcher

TEXT = "---\ntitle: Alpha\n---\n\n- [fact] kiwi is green\n- uses [[Beta]]\n"
REPO = Path(__file__).resolve().parents[2]


class Planted:
    """Unpickling this writes `marker`: what an attacker's cache file would do."""

    def __init__(self, marker: Path) -> None:
        """Remember where the marker goes."""
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        """Run code at unpickling time."""
        return (exec, (f"open({str(self.marker)!r}, 'w').write('ran')",))


def planted(kind: str, marker: Path) -> bytes:
    """A hostile cache file: a bare pickle, the old format, or the sealed format's header."""
    evil = pickle.dumps(Planted(marker), protocol=pickle.HIGHEST_PROTOCOL)
    if kind == "bare":
        return evil
    if kind == "old format":
        return evil + pickle.dumps({}, protocol=pickle.HIGHEST_PROTOCOL)
    header = sealed.MAGIC + note_cache._stamp_digest() + b"n" * sealed.NONCE_BYTES
    if kind == "sealed header":
        return header + evil + b"\0" * sealed.TAG_BYTES
    return header + evil.ljust(sealed.CHUNK + 64, b".") + b"\0" * sealed.TAG_BYTES


def parse_counter(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Count every note the parser parses from now on."""
    from memtui.notes import parser

    parsed: list[str] = []
    real = parser.parse_note

    def counting(data: bytes, relpath: str, **kwargs: object) -> object:
        parsed.append(relpath)
        return real(data, relpath, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(parser, "parse_note", counting)
    return parsed


def make_store(root: Path) -> Path:
    """A small store of two notes."""
    root.mkdir(exist_ok=True)
    (root / "a.md").write_text(TEXT)
    (root / "b.md").write_text("---\ntitle: Beta\n---\n\n- [fact] banana is yellow\n")
    return root


def search_in_a_child(root: Path, tmp_path: Path) -> str:
    """`memtui search ROOT kiwi --json` as a separate process; its output."""
    done = subprocess.run(
        [sys.executable, "-m", "memtui", "search", str(root), "kiwi", "--json"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        env={**os.environ, "MEMTUI_CONFIG_FILE": os.devnull},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("entry", ["index", "snapshot", "memtui search"])
@pytest.mark.parametrize("kind", ["bare", "old format", "sealed header", "sealed header, long"])
def test_a_planted_cache_never_runs_code(tmp_path: Path, kind: str, entry: str) -> None:
    root = make_store(tmp_path / "store")
    marker = tmp_path / "marker"
    (root / ".memtui").mkdir()
    for name in (note_cache.CACHE_NAME, SNAPSHOT_NAME):
        (root / ".memtui" / name).write_bytes(planted(kind, marker))
    if entry == "index":
        index = NoteIndex.load(root)
        assert index.notes["a.md"].title == "Alpha"
        assert index.outgoing("a.md")[0][1] == "b.md"
    elif entry == "snapshot":
        assert Searcher.from_snapshot(root, {"a.md": (0, 0)}) is None
    else:
        assert '"a.md"' in search_in_a_child(root, tmp_path)
    assert not marker.exists()


def test_a_cache_sealed_with_another_key_is_ignored_and_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_store(tmp_path / "store")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "someone-else"))
    index = NoteIndex.load(root)
    assert Searcher(index).save_snapshot(root, index.file_stats())
    foreign = sealed.load_key()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "me"))
    assert sealed.load_key() is None
    parsed = parse_counter(monkeypatch)
    assert Searcher.from_snapshot(root, index.file_stats()) is None
    assert NoteIndex.load(root).notes["b.md"].title == "Beta"
    assert sorted(parsed) == ["a.md", "b.md"]
    mine = sealed.load_key()
    assert mine is not None and mine != foreign
    cached = note_cache.load_cache(root)
    assert cached is not None and cached.relpaths == ["a.md", "b.md"]
    parsed.clear()
    NoteIndex.load(root)
    assert parsed == []


def test_a_missing_key_means_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_store(tmp_path / "store")
    NoteIndex.load(root)
    path = sealed.key_path()
    assert path is not None
    path.unlink()
    parsed = parse_counter(monkeypatch)
    NoteIndex.load(root)
    assert sorted(parsed) == ["a.md", "b.md"]
    assert sealed.load_key() is not None


def tampered(data: bytes) -> dict[str, bytes]:
    """One-byte changes, cuts and additions anywhere in a sealed file."""
    header = sealed.HEADER_BYTES
    variants = {
        "magic": b"X" + data[1:],
        "stamp": flip(data, len(sealed.MAGIC) + 3),
        "nonce": flip(data, header - 1),
        "first payload byte": flip(data, header),
        "middle": flip(data, len(data) // 2),
        "last tag byte": flip(data, len(data) - 1),
        "cut one byte": data[:-1],
        "cut a chunk": data[: header + sealed.CHUNK + sealed.TAG_BYTES],
        "one byte more": data + b"\0",
        "empty": b"",
    }
    full = sealed.CHUNK + sealed.TAG_BYTES
    chunks = [data[i : i + full] for i in range(header, len(data), full)]
    variants["chunks swapped"] = data[:header] + chunks[1] + chunks[0] + b"".join(chunks[2:])
    return variants


def flip(data: bytes, position: int) -> bytes:
    """`data` with one bit of one byte changed."""
    return data[:position] + bytes([data[position] ^ 1]) + data[position + 1 :]


def test_any_tampered_byte_makes_the_cache_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sealed, "CHUNK", 256)
    root = make_store(tmp_path / "store")
    for i in range(20):
        (root / f"n{i}.md").write_text(f"---\ntitle: N{i}\n---\n\n- [fact] note {i} #t\n")
    NoteIndex.load(root)
    cache_file = note_cache.cache_path(root)
    good = cache_file.read_bytes()
    assert len(good) > 4 * sealed.CHUNK
    parsed = parse_counter(monkeypatch)
    for what, content in tampered(good).items():
        cache_file.write_bytes(content)
        parsed.clear()
        index = NoteIndex.load(root)
        assert len(parsed) == 22, what
        assert index.notes["a.md"].title == "Alpha"
        assert cache_file.read_bytes() != content, what
    parsed.clear()
    NoteIndex.load(root)
    assert parsed == []


def test_a_valid_cache_and_snapshot_are_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sealed, "CHUNK", 64)
    root = make_store(tmp_path / "store")
    first = NoteIndex.load(root)
    searcher = Searcher(first)
    assert searcher.save_snapshot(root, first.file_stats())
    parsed = parse_counter(monkeypatch)
    second = NoteIndex.load(root)
    assert parsed == []
    assert second.notes == first.notes and second.texts == first.texts
    restored = Searcher.from_snapshot(root, first.file_stats())
    assert restored is not None
    assert restored.search("kiwi") == searcher.search("kiwi")


@pytest.mark.parametrize("size", [0, 1, 63, 64, 65, 128, 1000])
def test_sealed_round_trip_across_chunk_boundaries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    monkeypatch.setattr(sealed, "CHUNK", 64)
    payload = {
        "blob": b"x" * size,
        "text": "line\n" * (size // 5),
        "n": list(range(size // 10)),
        "ids": array("I", range(size)),
        "dead": {1, 2, size},
    }
    path = tmp_path / ".memtui" / "p.pickle"
    assert sealed.dump(path, "p", b"s" * 32, payload)
    assert sealed.load(path, "p", b"s" * 32) == payload
    with pytest.raises(sealed.SealError):
        sealed.load(path, "other name", b"s" * 32)
    with pytest.raises(sealed.SealError):
        sealed.load(path, "p", b"t" * 32)


@pytest.mark.parametrize("chunks", [1, 2, 5])
def test_a_payload_that_fills_its_last_chunk_exactly_reads_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunks: int
) -> None:
    """The writer ends such a payload with an empty chunk; the reader accepts exactly that."""
    monkeypatch.setattr(sealed, "CHUNK", 64)
    payload = next(
        blob
        for blob in (b"x" * n for n in range(64 * chunks))
        if len(pickle.dumps(blob, protocol=pickle.HIGHEST_PROTOCOL)) == 64 * chunks
    )
    path = tmp_path / ".memtui" / "p.pickle"
    assert sealed.dump(path, "p", b"s" * 32, payload)
    data = path.read_bytes()
    assert len(data) == sealed.HEADER_BYTES + chunks * (64 + sealed.TAG_BYTES) + sealed.TAG_BYTES
    assert sealed.load(path, "p", b"s" * 32) == payload
    path.write_bytes(data[: -sealed.TAG_BYTES])
    with pytest.raises(sealed.SealError):
        sealed.load(path, "p", b"s" * 32)


def test_protocol_zero_reads_lines_across_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sealed, "CHUNK", 16)
    key = sealed.ensure_key()
    assert key is not None
    header = sealed.MAGIC + b"s" * 32 + b"n" * 16
    path = tmp_path / "p.pickle"
    with open(path, "wb") as handle:
        handle.write(header)
        writer = sealed._SealingWriter(handle, sealed._chunk_mac(key, header, "p"))
        pickle.dump(["a" * 40, 12345678901234567890], writer, protocol=0)
        writer.close()
    assert sealed.load(path, "p", b"s" * 32) == ["a" * 40, 12345678901234567890]


def test_the_key_is_private_and_outside_the_store(tmp_path: Path) -> None:
    root = make_store(tmp_path / "store")
    NoteIndex.load(root)
    path = sealed.key_path()
    assert path is not None and path.is_file()
    assert Path(os.environ["XDG_CACHE_HOME"]) in path.parents
    assert root not in path.parents
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(path.read_bytes()) == sealed.KEY_BYTES
    assert sorted(os.listdir(root / ".memtui")) == [note_cache.CACHE_NAME]


def test_a_key_others_can_read_is_replaced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = sealed.key_path()
    assert path is not None
    path.parent.mkdir(parents=True)
    path.write_bytes(b"k" * sealed.KEY_BYTES)
    path.chmod(0o644)
    assert sealed.load_key() is None
    key = sealed.ensure_key()
    assert key is not None and key != b"k" * sealed.KEY_BYTES
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sealed.load_key() == key


def test_without_a_usable_key_folder_the_index_runs_without_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_store(tmp_path / "store")
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    index = NoteIndex.load(root)
    assert index.notes["a.md"].title == "Alpha"
    assert not note_cache.cache_path(root).exists()
    assert not Searcher(index).save_snapshot(root, index.file_stats())
    assert not (root / ".memtui").exists()


def test_a_sealed_file_may_name_no_class_or_function(tmp_path: Path) -> None:
    """Even a correctly sealed file (a leaked key) cannot make the unpickler call code."""
    marker = tmp_path / "marker"
    path = tmp_path / "p.pickle"
    assert sealed.dump(path, "p", b"s" * 32, [Planted(marker)])
    with pytest.raises(pickle.UnpicklingError):
        sealed.load(path, "p", b"s" * 32)
    assert not marker.exists()


def test_a_correctly_sealed_cache_cannot_run_code_through_a_note_blob(tmp_path: Path) -> None:
    """Each note's own compressed blob inside the cache is unpickled with the same data-only rules."""
    import zlib

    root = make_store(tmp_path / "store")
    NoteIndex.load(root)
    cached = note_cache.load_cache(root)
    assert cached is not None
    marker = tmp_path / "marker"
    position = cached.relpaths.index("a.md")
    evil = zlib.compress(pickle.dumps(Planted(marker), protocol=pickle.HIGHEST_PROTOCOL))
    cached.packed[position] = (*cached.packed[position][:4], evil)
    assert note_cache.save_cache(root, cached)
    index = NoteIndex.load(root)
    with pytest.raises(pickle.UnpicklingError):
        index.notes["a.md"]
    with pytest.raises(pickle.UnpicklingError):
        Searcher(index).search("kiwi")
    assert not marker.exists()
