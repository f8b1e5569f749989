"""The index's reads of store files: on folder descriptors, never out of the store."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from memtui.core.resolving.regular import whole_chars
from memtui.notes.reading import read_store_head


def store(tmp_path: Path) -> Path:
    """A store with a note in a folder, and a folder outside it holding a note of the same name."""
    root = tmp_path / "store"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "a.md").write_bytes(b"# Inside\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.md").write_bytes(b"# Outside secret\n")
    return root


def test_a_note_is_read_with_its_stat(tmp_path: Path) -> None:
    root = store(tmp_path)
    head = read_store_head(root, "notes/a.md")
    info = os.stat(root / "notes" / "a.md")
    assert (head.data, head.size, head.mtime_ns, head.cut) == (
        b"# Inside\n",
        9,
        info.st_mtime_ns,
        False,
    )


def test_a_folder_swapped_for_a_link_out_of_the_store_is_not_followed(tmp_path: Path) -> None:
    root = store(tmp_path)
    (root / "notes" / "a.md").unlink()
    (root / "notes").rmdir()
    (root / "notes").symlink_to(tmp_path / "outside")
    with pytest.raises(OSError) as refused:
        read_store_head(root, "notes/a.md")
    assert refused.value.errno == errno.ELOOP
    assert refused.value.strerror == "a symlink out of the store is not followed"


def test_a_linked_folder_inside_the_store_is_not_followed(tmp_path: Path) -> None:
    root = store(tmp_path)
    (root / "alias").symlink_to(root / "notes")
    with pytest.raises(OSError) as refused:
        read_store_head(root, "alias/a.md")
    assert (refused.value.errno, refused.value.strerror) == (
        errno.ELOOP,
        "a linked folder is not followed",
    )


def test_a_final_link_is_followed_inside_the_store_only(tmp_path: Path) -> None:
    root = store(tmp_path)
    (root / "inside-link.md").symlink_to(root / "notes" / "a.md")
    (root / "outside-link.md").symlink_to(tmp_path / "outside" / "a.md")
    assert read_store_head(root, "inside-link.md").data == b"# Inside\n"
    with pytest.raises(OSError) as refused:
        read_store_head(root, "outside-link.md")
    assert refused.value.strerror == "a symlink out of the store is not followed"


@pytest.mark.parametrize(
    "relpath",
    [
        "../outside/a.md",
        "/etc/passwd",
        "notes/../../outside/a.md",
        ".memtui/index.db",
        "notes//a.md",
        "",
    ],
)
def test_a_path_that_is_not_plainly_inside_the_store_is_refused(
    tmp_path: Path, relpath: str
) -> None:
    root = store(tmp_path)
    with pytest.raises(OSError) as refused:
        read_store_head(root, relpath)
    assert refused.value.errno == errno.EINVAL


def test_a_missing_note_or_folder_is_file_not_found(tmp_path: Path) -> None:
    root = store(tmp_path)
    for relpath in ("notes/gone.md", "gone/a.md", "notes/a.md/deeper.md"):
        with pytest.raises(FileNotFoundError):
            read_store_head(root, relpath)


def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    root = store(tmp_path)
    os.mkfifo(root / "notes" / "pipe.md")
    with pytest.raises(OSError) as refused:
        read_store_head(root, "notes/pipe.md")
    assert "not a regular file" in str(refused.value)


@pytest.mark.parametrize(
    ("data", "kept"),
    [
        (b"abc", b"abc"),
        ("é".encode()[:1], b""),
        (b"a" + "€".encode()[:2], b"a"),
        (b"a" + "€".encode(), b"a" + "€".encode()),
        (b"a" + "😀".encode()[:3], b"a"),
    ],
)
def test_a_cut_character_at_the_end_is_left_out(data: bytes, kept: bytes) -> None:
    assert whole_chars(data) == kept
