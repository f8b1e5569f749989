"""A bad command line gets one line, `memtui <command>: <problem>`, and exit status 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.cli import main
from memtui.cli.subcommands import SUBCOMMANDS

QUERY_FOR = {
    "search": ["python"],
    "undo": ["1"],
    "edit": ["x.md"],
    "mv": ["a.md", "b.md"],
    "rm": ["a.md"],
}
"""Positional arguments after PATH that a subcommand needs."""


def one_line_error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """stderr of a command line that must stop in argparse with status 2 and print nothing else."""
    with pytest.raises(SystemExit) as exited:
        main(args)
    assert exited.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.endswith("\n"), err
    return err


@pytest.mark.parametrize("command", sorted(SUBCOMMANDS))
def test_an_unknown_flag_is_one_line(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [command, str(tmp_path), *QUERY_FOR.get(command, []), "--bogus"]
    err = one_line_error(args, capsys)
    assert err == f"memtui {command}: unrecognized arguments: --bogus\n"


@pytest.mark.parametrize("command", sorted(SUBCOMMANDS))
def test_a_missing_path_is_one_line(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    err = one_line_error([command], capsys)
    assert err.startswith(f"memtui {command}: the following arguments are required: PATH")


@pytest.mark.parametrize("command", sorted(SUBCOMMANDS))
def test_help_still_prints_the_whole_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main([command, "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: memtui {command} [-h]")
    assert "options:" in out and "PATH" in out


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["search", "{root}", "q", "--limit", "abc"],
            "memtui search: --limit: 'abc' is not a whole number",
        ),
        (
            ["search", "{root}", "q", "--max-age", "old"],
            "memtui search: --max-age: invalid float value: 'old'",
        ),
        (
            ["stale", "{root}", "--limit", "abc"],
            "memtui stale: --limit: 'abc' is not a whole number",
        ),
        (["undo", "{root}", "abc"], "memtui undo: EVENT_ID: 'abc' is not a whole number"),
        (["undo", "{root}"], "memtui undo: the following arguments are required: EVENT_ID"),
        (["mcp", "{root}", "--port", "abc"], "memtui mcp: --port: 'abc' is not a whole number"),
        (["log", "{root}", "--limit", "ten"], "memtui log: --limit: 'ten' is not a whole number"),
        (
            ["log", "{root}", "--since", "soon"],
            "memtui log: --since: 'soon' is not a time: use 7d, 12h, 30m, 2 weeks, 1 month, 1y, "
            "today, yesterday or an ISO date like 2026-11-01T09:30",
        ),
        (
            ["export", "{root}", "--format", "xml"],
            "memtui export: --format: invalid choice: 'xml' (choose from 'jsonl', 'json')",
        ),
        (["tool", "{root}", "--session"], "memtui tool: --session: expected one argument"),
        (["--bogus"], "memtui: unrecognized arguments: --bogus"),
        (["{root}", "extra"], "memtui: unrecognized arguments: extra"),
    ],
)
def test_a_bad_flag_value_or_argument_is_one_line(
    args: list[str], expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = one_line_error([arg.format(root=tmp_path) for arg in args], capsys)
    assert err == expected + "\n"


def test_control_characters_in_a_bad_argument_stay_on_one_visible_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = one_line_error(["stale", str(tmp_path), "--bo\ngus\x1b[2J"], capsys)
    assert err == "memtui stale: unrecognized arguments: --bo␊gus␛[2J\n"


def test_version_names_the_installed_package(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out == f"memtui {version('memtui')}\n"


def test_the_top_help_names_every_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    named = text.split("Subcommands: ", 1)[1].split(" (memtui COMMAND --help)", 1)[0]
    assert named.split(", ") == list(SUBCOMMANDS)
