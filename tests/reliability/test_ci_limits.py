"""CI's test steps run under a time limit, so a hang fails the run instead of stalling it."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import pytest

CI = Path(__file__).resolve().parents[2] / ".ci" / "run"
README = CI.parents[1] / "README.md"
BUDGET_MINUTES = 90
SETUP_MINUTES = 10
"""What the fresh environment and lint may take out of the budget."""


def bounded_function() -> str:
    """The shell source of `.ci/run`'s `bounded` function."""
    match = re.search(r"^bounded\(\) \{\n.*?^\}\n", CI.read_text(), re.MULTILINE | re.DOTALL)
    assert match, "no bounded() function in .ci/run"
    return match.group(0)


def test_every_pytest_step_is_bounded_within_the_budget() -> None:
    text = CI.read_text()
    steps = [line for line in text.splitlines() if re.search(r"/bin/pytest\b", line)]
    assert len(steps) == 2, steps
    limits = []
    for line in steps:
        match = re.match(r'bounded "\$(\w+)" "\$venv/bin/pytest"', line)
        assert match, line
        default = re.search(rf'^{match.group(1)}="\$\{{\w+:-(\d+)m\}}"$', text, re.MULTILINE)
        assert default, match.group(1)
        limits.append(int(default.group(1)))
    assert sum(limits) + SETUP_MINUTES <= BUDGET_MINUTES, limits


def test_ci_runs_the_readme_s_test_command_in_parallel() -> None:
    """The README's test command is CI's first test step, options and all (`-q` aside)."""
    readme = re.findall(r"\.venv/bin/pytest( [^\n`&]*)?\n", README.read_text(encoding="utf-8"))
    ci = re.findall(r'^bounded "\$TESTS_LIMIT" "\$venv/bin/pytest" -q( .*)?$', CI.read_text(), re.M)
    assert readme == ci == [" -n auto"]


@pytest.mark.serial
def test_bounded_stops_a_hanging_step_and_everything_it_started(tmp_path: Path) -> None:
    marker = tmp_path / "child-still-running"
    script = (
        "set -euo pipefail\n"
        + bounded_function()
        + f"bounded 1s bash -c 'echo figure; (sleep 2; touch {marker}) & sleep 60'\n"
        + "echo not reached\n"
    )
    started = time.monotonic()
    process = subprocess.run(["bash", "-c", script], capture_output=True, timeout=30)
    assert time.monotonic() - started < 10
    assert process.returncode == 124
    assert process.stdout == b"figure\n"
    assert process.stderr == b"== stopped: this step ran longer than its limit of 1s\n"
    time.sleep(3)
    assert not marker.exists(), "a process the step started outlived the limit"


def test_bounded_passes_a_step_s_own_exit_status_through() -> None:
    for command, status in (("true", 0), ("exit 5", 5)):
        script = "set -uo pipefail\n" + bounded_function() + f"bounded 10s bash -c '{command}'\n"
        assert subprocess.run(["bash", "-c", script], timeout=30).returncode == status
