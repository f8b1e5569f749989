"""The git operations a sync needs, each one git run whatever the number of files: the changed
paths (`status`), trees compared (`diff_tree`), blobs read (`cat_blobs`), commits written
(`fast_import`), refs read and moved, the index told what a commit holds."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from memtui.notes.sync.git import Git, GitError, Identity

REGULAR = "100644"
"""The mode memtui gives every file it commits."""
EXECUTABLE = "100755"
FILE_MODES = frozenset({REGULAR, EXECUTABLE})
"""Tree entry modes of regular files (links `120000` and submodules `160000` are not)."""
NO_SHA = "0" * 40
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
"""The empty tree, which git knows without storing it."""


def fsdecode(data: bytes) -> str:
    """A path from git as memtui spells names (bytes that are not UTF-8 as lone surrogates)."""
    return os.fsdecode(data)


def fsencode(path: str) -> bytes:
    """A path as git takes it."""
    return os.fsencode(path)


@dataclass(frozen=True)
class StatusEntry:
    """A path whose file differs from the last commit (or is not in it)."""

    path: str
    head: str | None
    """Its blob in the last commit, None if it was not there."""
    head_mode: str | None = None


STATUS = (
    "status",
    "--porcelain=v2",
    "-z",
    "--untracked-files=all",
    "--ignored=traditional",
    "--no-renames",
    "--ignore-submodules=all",
    "--",
    ".",
    ":(exclude).memtui",
)
"""The git command listing what differs from HEAD (`status_entries` reads its output): files a
`.gitignore` in the store names too (an agent can write one; every file of the store is
synced), memtui's own folder left out."""


def status(git: Git) -> list[StatusEntry]:
    """Every path whose file differs from HEAD or is new (git's own stat-cached status)."""
    return status_entries(git.out(*STATUS))


def status_entries(raw: bytes) -> list[StatusEntry]:
    """The entries of `git STATUS`'s output."""
    entries: list[StatusEntry] = []
    for record in raw.split(b"\0"):
        if not record:
            continue
        kind = record[:1]
        if kind in (b"?", b"!"):
            path = fsdecode(record[2:])
            if not path.endswith("/"):
                entries.append(StatusEntry(path, None))
        elif kind == b"1":
            fields = record.split(b" ", 8)
            head_mode, head = fields[3].decode(), fields[6].decode()
            present = head_mode != "000000"
            entries.append(
                StatusEntry(
                    fsdecode(fields[8]), head if present else None, head_mode if present else None
                )
            )
        elif kind == b"u":
            fields = record.split(b" ", 10)
            entries.append(StatusEntry(fsdecode(fields[10]), None))
    return entries


@dataclass(frozen=True)
class TreeChange:
    """One path that differs between two trees."""

    path: str
    old_mode: str
    new_mode: str
    old: str | None
    """The blob before (None: not there)."""
    new: str | None
    """The blob after (None: removed)."""


def diff_tree_command(old: str, new: str) -> tuple[str, ...]:
    """The git command listing the paths that differ between two commits or trees (renames as
    remove + add), read by `tree_changes`."""
    return ("diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", old, new)


def tree_changes(raw: bytes) -> dict[str, TreeChange]:
    """The changes in the output of `diff_tree_command`, by path."""
    parts = raw.split(b"\0")
    changes: dict[str, TreeChange] = {}
    at = 0
    while at + 1 < len(parts):
        header = parts[at]
        if not header.startswith(b":"):
            at += 1
            continue
        old_mode, new_mode, old_sha, new_sha, _status = header[1:].decode().split(" ")
        path = fsdecode(parts[at + 1])
        changes[path] = TreeChange(
            path,
            old_mode,
            new_mode,
            None if old_sha == NO_SHA else old_sha,
            None if new_sha == NO_SHA else new_sha,
        )
        at += 2
    return changes


def cat_blobs(git: Git, shas: Iterable[str]) -> dict[str, bytes]:
    """The bytes of each blob, read in one git run."""
    wanted = list(dict.fromkeys(shas))
    if not wanted:
        return {}
    raw = git.out("cat-file", "--batch", input="".join(f"{sha}\n" for sha in wanted).encode())
    found: dict[str, bytes] = {}
    at = 0
    for sha in wanted:
        end = raw.index(b"\n", at)
        header = raw[at:end].split(b" ")
        at = end + 1
        if header[-1] == b"missing":
            raise GitError(f"git cat-file: the object {sha} is missing")
        size = int(header[2])
        found[sha] = raw[at : at + size]
        at += size + 1
    return found


def read_refs(git: Git, *names: str) -> dict[str, str]:
    """Full ref name -> commit, for those of `names` that exist (one git run)."""
    out = git.out("for-each-ref", "--format=%(objectname) %(refname)", *names)
    found: dict[str, str] = {}
    for line in out.decode("utf-8", "surrogateescape").splitlines():
        sha, _, name = line.partition(" ")
        if name in names:
            found[name] = sha
    return found


def merge_base(git: Git, one: str, two: str) -> str | None:
    """The best common ancestor of two commits, or None for unrelated histories."""
    done = git.run("merge-base", one, two, check=False)
    return done.stdout.decode().strip() or None if done.returncode == 0 else None


def is_ancestor(git: Git, older: str, newer: str) -> bool:
    """Whether `older` is `newer` or an ancestor of it."""
    return git.run("merge-base", "--is-ancestor", older, newer, check=False).returncode == 0


@dataclass
class NewCommit:
    """A commit for `fast_import`: who, when, why, its parents and its file changes."""

    author: Identity
    when: int
    """When it was committed (unix seconds)."""
    message: str
    parents: list[str]
    """Commit shas, or `:N` for the N-th commit of the same import (1-based)."""
    files: dict[str, bytes | None] = field(default_factory=dict)
    """Path -> new bytes (None: removed)."""
    blobs: dict[str, str] = field(default_factory=dict)
    """Path -> an existing blob to put there (no bytes needed)."""
    authored: int | None = None
    """When the change was made (the commit time if not given)."""


def fast_import(git: Git, commits: Sequence[NewCommit], ref: str) -> list[str]:
    """Write the commits in one `git fast-import` run, the last one the new value of `ref`
    (refused, nothing moved, unless it holds the ref's value now); their shas, in order."""
    if not commits:
        return []
    stream = bytearray(f"reset {ref}\n".encode())
    for number, commit in enumerate(commits, start=1):
        _commit_stream(stream, git.committer, number, commit, ref)
    for number in range(1, len(commits) + 1):
        stream += f"get-mark :{number}\n".encode()
    stream += b"done\n"
    out = git.out("fast-import", "--quiet", "--done", input=bytes(stream))
    shas = [line for line in out.decode().split() if line]
    if len(shas) != len(commits):
        raise GitError("git fast-import: it did not say which commits it wrote")
    return shas


def _commit_stream(
    stream: bytearray, committer: Identity, number: int, commit: NewCommit, ref: str
) -> None:
    """Append one commit's fast-import commands to `stream`."""
    message = commit.message.encode("utf-8", "surrogateescape")
    stream += f"commit {ref}\nmark :{number}\n".encode()
    authored = commit.when if commit.authored is None else commit.authored
    stream += b"author " + _ident(commit.author, authored) + b"\n"
    stream += b"committer " + _ident(committer, commit.when) + b"\n"
    stream += b"data %d\n" % len(message) + message + b"\n"
    if commit.parents:
        stream += f"from {commit.parents[0]}\n".encode()
        for parent in commit.parents[1:]:
            stream += f"merge {parent}\n".encode()
    else:
        stream += b"deleteall\n"
    for path, data in sorted(commit.files.items()):
        if data is None:
            stream += b"D " + quote(path) + b"\n"
        else:
            stream += f"M {REGULAR} inline ".encode() + quote(path) + b"\n"
            stream += b"data %d\n" % len(data) + data + b"\n"
    for path, sha in sorted(commit.blobs.items()):
        stream += f"M {REGULAR} {sha} ".encode() + quote(path) + b"\n"


def _ident(who: Identity, when: int) -> bytes:
    """`Name <email> time +0000`, with the characters git cannot keep in an identity left out."""
    name = _clean(who.name) or "memtui"
    email = _clean(who.email).replace(" ", "")
    return f"{name} <{email}> {when} +0000".encode("utf-8", "surrogateescape")


def _clean(text: str) -> str:
    """An identity part without `<`, `>` and line breaks."""
    return "".join(ch for ch in text if ch not in "<>\n\r\0").strip()


def quote(path: str) -> bytes:
    """A path for a fast-import command: as it is, or C-quoted when it must be."""
    raw = fsencode(path)
    if not raw.startswith(b'"') and b"\n" not in raw:
        return raw
    body = raw.replace(b"\\", b"\\\\").replace(b'"', b'\\"').replace(b"\n", b"\\n")
    return b'"' + body + b'"'


def index_info(git: Git, entries: dict[str, str | None]) -> None:
    """Tell the index that each path holds a blob (None: is gone), without reading the files
    (git compares their stat with what it recorded when it next looks)."""
    if not entries:
        return
    lines = bytearray()
    for path, sha in entries.items():
        if sha is None:
            lines += f"0 {NO_SHA}\t".encode() + fsencode(path) + b"\0"
        else:
            lines += f"{REGULAR} {sha}\t".encode() + fsencode(path) + b"\0"
    git.run("update-index", "-z", "--index-info", input=bytes(lines))


def blob_sha(data: bytes) -> str:
    """The id git gives a blob holding `data` (its sha1 of `blob <size>\\0<data>`)."""
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()
