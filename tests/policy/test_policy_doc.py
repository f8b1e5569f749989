"""docs/policy.md's three set-ups run as shown, from fresh stores: every command's output is
compared line for line with the document."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "policy.md"
BLOCK = re.compile(r"```console\n(.*?)```", re.DOTALL)


def sessions() -> list[list[tuple[str, str]]]:
    """Each console block of the document as (command, expected output) pairs."""
    found = []
    for block in BLOCK.findall(DOC.read_text(encoding="utf-8")):
        steps: list[tuple[str, list[str]]] = []
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            else:
                steps[-1][1].append(line)
        found.append([(command, "".join(f"{out}\n" for out in lines)) for command, lines in steps])
    return found


SESSIONS = sessions()


def test_the_document_has_the_three_set_ups() -> None:
    assert len(SESSIONS) == 3


@pytest.mark.parametrize("number", range(len(SESSIONS)))
def test_a_set_up_runs_as_shown(tmp_path: Path, number: int) -> None:
    env = {
        "HOME": str(tmp_path),
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "MEMTUI_CONFIG_FILE": os.devnull,
        "MEMTUI_ACTOR": "dana",
        "XDG_CACHE_HOME": str(tmp_path / ".cache"),
        "LANG": "C.UTF-8",
    }
    for command, expected in SESSIONS[number]:
        done = subprocess.run(
            ["bash", "-c", command],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=60,
        )
        assert (done.stdout, done.stderr) == (expected, ""), command
