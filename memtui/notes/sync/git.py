"""The `git` command, run with an argument list (never a shell) on memtui's own repository.

The repository of a store lives in `<store>/.memtui/git` (memtui's folder, which agents cannot
reach, so no agent can plant a hook or a config that git would run), with the store as its work
tree. Every run gets the same settings: no hooks, no line-ending or filter conversion, no
signing, no prompt for a password (git runs in a session of its own, without a terminal), an
identity set per command (so a machine without `user.name` works), and English messages.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

GIT_DIR_NAME = "git"
"""The repository's folder inside `.memtui`."""
LOCAL_TIMEOUT = 120.0
"""Seconds a local git command may run before it is stopped."""
NETWORK_TIMEOUT = 300.0
"""Seconds a fetch or push may run before it is stopped."""
SETTINGS = (
    "core.hooksPath=/dev/null/memtui-no-hooks",
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.symlinks=false",
    "core.fileMode=false",
    "core.quotePath=false",
    "core.fsmonitor=false",
    "core.excludesFile=/dev/null",
    "core.bare=false",
    "commit.gpgSign=false",
    "tag.gpgSign=false",
    "push.gpgSign=false",
    "advice.detachedHead=false",
    "gc.autoDetach=false",
    "fastimport.unpackLimit=1000",
)
"""`-c` settings of every run: these win over the user's and the repository's config."""
KEPT_ENVIRONMENT = (
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_SSH_VARIANT",
    "GIT_ASKPASS",
    "GIT_PROXY_COMMAND",
    "GIT_SSL_NO_VERIFY",
    "GIT_SSL_CAINFO",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_NOSYSTEM",
    "GIT_EXEC_PATH",
    "GIT_TRACE",
    "GIT_TRACE_PACKET",
    "GIT_CURL_VERBOSE",
)
"""The `GIT_*` variables passed on (how to reach a remote); the rest would redirect git."""


class GitError(Exception):
    """A git command failed; `str()` is one line (git's own last words)."""

    def __init__(self, message: str, *, status: int = 1, stderr: str = "") -> None:
        """Keep the one-line message, the exit status and the whole error output."""
        super().__init__(message)
        self.status = status
        self.stderr = stderr


class GitMissing(GitError):
    """The `git` command is not installed."""


@dataclass(frozen=True)
class Identity:
    """A git author or committer: a name and an e-mail address."""

    name: str
    email: str


@dataclass
class Git:
    """Runs git on one store's repository (`git_dir`) and work tree."""

    work_tree: Path
    git_dir: Path
    committer: Identity = field(default_factory=lambda: Identity("memtui", "memtui@localhost"))
    executable: str = "git"
    held_fds: tuple[int, ...] = ()
    """Descriptors every git run inherits (the sync lock: a git run outliving a killed sync
    still holds it, so the next sync waits for it)."""

    @classmethod
    def for_store(cls, root: Path, committer: Identity | None = None) -> Git:
        """The runner for the store at `root` (its repository in `.memtui/git`)."""
        from memtui.core.resolving.lock import META_DIR_NAME

        git = cls(root, root / META_DIR_NAME / GIT_DIR_NAME)
        if committer is not None:
            git.committer = committer
        return git

    def command(self, args: Sequence[str]) -> list[str]:
        """The whole argument list of `git args...`."""
        settings = [part for setting in SETTINGS for part in ("-c", setting)]
        return [
            self.executable,
            f"--git-dir={self.git_dir}",
            f"--work-tree={self.work_tree}",
            *settings,
            *args,
        ]

    def environment(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment of a run: the caller's without the `GIT_*` variables that would
        point git elsewhere, plus English messages, no prompts and the committer."""
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith("GIT_") or key in KEPT_ENVIRONMENT
        }
        env.update(
            {
                "LC_ALL": "C",
                "LANGUAGE": "C",
                "GIT_TERMINAL_PROMPT": "0",
                "GIT_COMMITTER_NAME": self.committer.name,
                "GIT_COMMITTER_EMAIL": self.committer.email,
                "GIT_AUTHOR_NAME": self.committer.name,
                "GIT_AUTHOR_EMAIL": self.committer.email,
                "GIT_MERGE_AUTOEDIT": "no",
                "GIT_EDITOR": "true",
            }
        )
        if extra:
            env.update(extra)
        return env

    def run(
        self,
        *args: str,
        input: bytes | None = None,
        check: bool = True,
        env: Mapping[str, str] | None = None,
        timeout: float = LOCAL_TIMEOUT,
    ) -> subprocess.CompletedProcess[bytes]:
        """Run `git args...`; raises GitError (one line) when it fails and `check` is set."""
        return self.start(*args, input=input, env=env, timeout=timeout).finish(check=check)

    def start(
        self,
        *args: str,
        input: bytes | None = None,
        env: Mapping[str, str] | None = None,
        timeout: float = LOCAL_TIMEOUT,
    ) -> Running:
        """Start `git args...` and return at once (`Running.finish` waits for it), so other
        work goes on while it runs; GitMissing when git is not installed."""
        argv = self.command(args)
        try:
            process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self.environment(env),
                cwd=self.work_tree if self.work_tree.is_dir() else None,
                start_new_session=True,
                pass_fds=self.held_fds,
            )
        except FileNotFoundError as problem:
            raise GitMissing(
                "git is not installed (memtui sync runs the git command)", status=127
            ) from problem
        return Running(args[0], argv, process, input, time.monotonic() + timeout, timeout)

    def out(self, *args: str, input: bytes | None = None) -> bytes:
        """The standard output of `git args...` (GitError when it fails)."""
        return self.run(*args, input=input).stdout

    def outs(self, *commands: Sequence[str]) -> list[bytes]:
        """The standard outputs of several git commands run at once (GitError, one line, for the
        first that failed); none outlives the call."""
        running: list[Running] = []
        try:
            for args in commands:
                running.append(self.start(*args))
            return [run.finish().stdout for run in running]
        finally:
            for run in running:
                run.stop()

    def line(self, *args: str) -> str:
        """The first line of the output of `git args...`, as text."""
        return self.out(*args).decode("utf-8", "surrogateescape").strip()

    def ok(self, *args: str) -> bool:
        """Whether `git args...` succeeds."""
        return self.run(*args, check=False).returncode == 0


@dataclass
class Running:
    """A git run started by `Git.start`: wait for it (`finish`, `done_within`) or stop it."""

    subcommand: str
    argv: list[str]
    process: subprocess.Popen[bytes]
    input: bytes | None
    deadline: float
    """The `time.monotonic()` past which the run is stopped."""
    timeout: float
    output: tuple[bytes, bytes] | None = None

    def done_within(self, seconds: float) -> bool:
        """Wait at most `seconds` for the run to end: True when it has (its output kept)."""
        if self.output is None:
            self._communicate(min(seconds, self.deadline - time.monotonic()), final=False)
        return self.output is not None

    def finish(self, *, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        """Wait for the run (stopped past its deadline); GitError (one line) when it failed and
        `check` is set."""
        if self.output is None:
            self._communicate(self.deadline - time.monotonic(), final=True)
        assert self.output is not None
        done = subprocess.CompletedProcess(self.argv, self.process.returncode, *self.output)
        if check and done.returncode != 0:
            raise error_of(self.subcommand, done)
        return done

    def stop(self) -> None:
        """Stop the run and everything it started, if it has not ended (and reap it)."""
        if self.output is None and self.process.returncode is None:
            _kill_group(self.process)

    def _communicate(self, seconds: float, *, final: bool) -> None:
        """Collect the output if the run ends within `seconds`; stop it when the deadline has
        passed (GitError), or when anything interrupts the wait."""
        feed, self.input = self.input, None
        try:
            self.output = self.process.communicate(feed, timeout=max(seconds, 0.0))
        except subprocess.TimeoutExpired as problem:
            if final or time.monotonic() >= self.deadline:
                _kill_group(self.process)
                raise GitError(
                    f"git {self.subcommand} did not finish within {self.timeout:.0f} s; "
                    "it was stopped",
                    status=124,
                ) from problem
        except BaseException:
            _kill_group(self.process)
            raise


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Stop a git run and everything it started (ssh, helpers), then reap it."""
    with contextlib.suppress(OSError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(Exception):
        process.communicate(timeout=5)


def error_of(subcommand: str, done: subprocess.CompletedProcess[bytes]) -> GitError:
    """The one-line error of a failed run: git's last meaningful line of error output."""
    stderr = done.stderr.decode("utf-8", "replace")
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    meaningful = [line for line in lines if line.lower().startswith(("fatal:", "error:", "ssh:"))]
    last = (meaningful[:1] or lines[-1:] or [f"exit status {done.returncode}"])[0]
    for prefix in ("fatal: ", "error: "):
        last = last.removeprefix(prefix)
    return GitError(f"git {subcommand}: {last}", status=done.returncode, stderr=stderr)
