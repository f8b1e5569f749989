"""Editing a note in the user's editor ($VISUAL, $EDITOR, else vi): a copy in a folder of its
own, kept until its text is saved or thrown away on purpose, and one-line problems."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

DEFAULT_EDITOR = "vi"
COPY_PREFIX = "memtui-edit-"


class EditorProblem(Exception):
    """The editor cannot be run; the message says which one and what to do, in one line."""


def editor_command(environ: Mapping[str, str] | None = None) -> list[str]:
    """The editor's command line from $VISUAL, else $EDITOR, else vi; raises EditorProblem
    when it cannot be parsed or names no program that is installed."""
    environ = os.environ if environ is None else environ
    variable = next((name for name in ("VISUAL", "EDITOR") if environ.get(name, "").strip()), None)
    setting = environ[variable] if variable else DEFAULT_EDITOR
    where = f"${variable}" if variable else "the default editor"
    try:
        command = shlex.split(setting)
    except ValueError as problem:
        raise EditorProblem(f"cannot read {where} ({setting!r}): {problem}") from problem
    if not command:
        raise EditorProblem(f"{where} names no editor")
    if shutil.which(command[0], path=environ.get("PATH")) is None:
        raise EditorProblem(
            f'cannot run the editor "{command[0]}" ({where}): it is not installed or not on '
            "PATH; set $VISUAL or $EDITOR to an editor you have"
        )
    return command


def run_editor(command: list[str], path: Path) -> int:
    """Run `command path` in this terminal and wait for it; its exit status. Raises
    EditorProblem (nothing run) when the program cannot be started."""
    try:
        return subprocess.call([*command, str(path)])
    except OSError as problem:
        raise EditorProblem(
            f'cannot run the editor "{command[0]}": {problem.strerror or problem}'
        ) from problem


@dataclass(frozen=True)
class EditCopy:
    """A note's text copied to `path`, in a private folder of its own, for an outside editor."""

    path: Path

    @classmethod
    def create(cls, relpath: str, text: str) -> EditCopy:
        """Copy `text` into a new private folder, under the note's own file name."""
        folder = Path(tempfile.mkdtemp(prefix=COPY_PREFIX))
        name = PurePosixPath(relpath).name or "note.md"
        path = folder / name
        path.write_text(text, encoding="utf-8", newline="")
        return cls(path)

    def read(self) -> str:
        """The copy's text now (raises OSError or UnicodeDecodeError)."""
        with self.path.open(encoding="utf-8", newline="") as handle:
            return handle.read()

    def remove(self) -> None:
        """Throw the copy and its folder away."""
        shutil.rmtree(self.path.parent, ignore_errors=True)
