"""Making a store a repository with a remote: the remote looked at first (so a wrong URL changes
nothing here), then the repository made in `.memtui/git` with `.memtui/` excluded, and the
clone of a non-empty remote into an empty folder."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from memtui.core.resolving.lock import META_DIR_NAME
from memtui.notes.sync.context import DEFAULT_BRANCH, ORIGIN
from memtui.notes.sync.git import NETWORK_TIMEOUT, Git, GitError, error_of

BRANCH_KEY = "memtui.branch"
"""The repository config key naming the branch memtui syncs."""
EXCLUDED = "/.memtui/\n"
"""What `info/exclude` holds: memtui's own folder is never committed."""


class SyncError(Exception):
    """A sync could not be done; `str()` is one line."""


@dataclass(frozen=True)
class RemoteHeads:
    """The branches a remote has (name -> commit) and the one its HEAD names."""

    heads: dict[str, str]
    default: str | None

    @property
    def empty(self) -> bool:
        """Whether the remote has no branch at all."""
        return not self.heads

    def branch(self, preferred: str | None = None) -> str:
        """The branch to sync: `preferred` if given, else the remote's default, else its only
        branch, else `main` (or `master` if that is what it has)."""
        if preferred:
            return preferred
        if self.default and self.default in self.heads:
            return self.default
        if len(self.heads) == 1:
            return next(iter(self.heads))
        for name in (DEFAULT_BRANCH, "master"):
            if name in self.heads:
                return name
        return DEFAULT_BRANCH


def remote_heads(git: Git, url: str) -> RemoteHeads:
    """What the remote at `url` has (one `git ls-remote`); SyncError when it cannot be read."""
    done = git.run("ls-remote", "--symref", url, check=False, timeout=NETWORK_TIMEOUT)
    if done.returncode != 0:
        raise SyncError(str(error_of("ls-remote", done)))
    heads: dict[str, str] = {}
    default: str | None = None
    for line in done.stdout.decode("utf-8", "replace").splitlines():
        if line.startswith("ref: ") and line.endswith("\tHEAD"):
            target = line[5:].split("\t")[0]
            default = target.removeprefix("refs/heads/")
            continue
        sha, _, ref = line.partition("\t")
        if ref.startswith("refs/heads/"):
            heads[ref.removeprefix("refs/heads/")] = sha
    return RemoteHeads(heads, default)


def repo_exists(git: Git) -> bool:
    """Whether the store has memtui's repository."""
    return (git.git_dir / "HEAD").is_file()


def configured(git: Git, key: str) -> str | None:
    """A value of the repository's config, or None."""
    done = git.run("config", "--get", key, check=False)
    return done.stdout.decode("utf-8", "replace").strip() or None if done.returncode == 0 else None


def settings(git: Git) -> dict[str, str]:
    """The repository's sync settings (its branch and origin's URL) in one git run."""
    done = git.run("config", "--get-regexp", r"^(memtui\.branch|remote\.origin\.url)$", check=False)
    found: dict[str, str] = {}
    for line in done.stdout.decode("utf-8", "surrogateescape").splitlines():
        key, _, value = line.partition(" ")
        found[key] = value
    return found


def init_repo(git: Git, branch: str) -> None:
    """Make the repository (its HEAD on `branch`), `.memtui/` excluded."""
    meta = git.work_tree / META_DIR_NAME
    meta.mkdir(mode=0o700, parents=True, exist_ok=True)
    git.run("init", "--quiet")
    git.run("symbolic-ref", "HEAD", f"refs/heads/{branch}")
    info = git.git_dir / "info"
    info.mkdir(exist_ok=True)
    (info / "exclude").write_text(EXCLUDED)
    git.run("config", BRANCH_KEY, branch)


def set_remote(git: Git, url: str) -> None:
    """Point `origin` at `url`, fetching every branch into `refs/remotes/origin/`."""
    git.run("config", f"remote.{ORIGIN}.url", url)
    git.run("config", f"remote.{ORIGIN}.fetch", f"+refs/heads/*:refs/remotes/{ORIGIN}/*")


def connect(git: Git, url: str) -> str:
    """Make the store a repository whose origin is `url` (or re-point it); the branch synced.

    The remote is read first: when it cannot be, nothing is made.
    """
    heads = remote_heads(git, url)
    if repo_exists(git):
        branch = configured(git, BRANCH_KEY) or heads.branch()
    else:
        branch = heads.branch()
        init_repo(git, branch)
    git.run("config", BRANCH_KEY, branch)
    set_remote(git, url)
    return branch


def is_empty_store(root: Path) -> bool:
    """Whether `root` is missing, or holds nothing but a `.memtui` without a history."""
    if not root.exists():
        return True
    if not root.is_dir():
        return False
    names = [name for name in os.listdir(root) if name != META_DIR_NAME]
    return not names and not (root / META_DIR_NAME / "history.db").exists()


def is_reserved(path: str) -> bool:
    """Whether a relative path is memtui's own folder or below it (never synced); in any case
    of letters, as a file system that ignores case would take it."""
    return path.split("/", 1)[0].casefold() == META_DIR_NAME.casefold()


def clone_into_empty(git: Git, url: str) -> str | None:
    """Check the remote's branch out into an empty store folder (git writes the files before
    memtui first opens the folder, so they become its baseline); the commit checked out, or
    None when the folder is not empty, the remote is, or its files would reach `.memtui/`.
    """
    if not is_empty_store(git.work_tree):
        return None
    heads = remote_heads(git, url)
    if heads.empty:
        return None
    branch = heads.branch()
    git.work_tree.mkdir(mode=0o700, parents=True, exist_ok=True)
    init_repo(git, branch)
    set_remote(git, url)
    tracking = f"refs/remotes/{ORIGIN}/{branch}"
    try:
        git.run("fetch", "--quiet", "--no-tags", ORIGIN, timeout=NETWORK_TIMEOUT)
        tip = git.line("rev-parse", "--verify", f"{tracking}^{{commit}}")
        listed = git.out("ls-tree", "-z", "--name-only", tip)
    except GitError as problem:
        raise SyncError(str(problem)) from problem
    if any(is_reserved(os.fsdecode(name)) for name in listed.split(b"\0") if name):
        return None
    git.run("read-tree", "--reset", "-u", tip)
    git.run("update-ref", "-m", "memtui sync: clone", f"refs/heads/{branch}", tip)
    return tip


def clear_stale_locks(git: Git) -> list[str]:
    """Remove the lock files a killed git run left in the repository (called with the sync lock
    held, so no other memtui git run can be using them); the names removed."""
    removed: list[str] = []
    top = git.git_dir
    candidates = [top / name for name in ("index.lock", "HEAD.lock", "config.lock")]
    candidates += [top / "packed-refs.lock", top / "shallow.lock"]
    refs = top / "refs"
    if refs.is_dir():
        candidates += list(refs.rglob("*.lock"))
    for candidate in candidates:
        if candidate.is_file() and not candidate.is_symlink():
            with contextlib.suppress(OSError):
                candidate.unlink()
                removed.append(str(candidate.relative_to(top)))
    return removed
