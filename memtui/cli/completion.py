"""`memtui --print-completion SHELL`: shell completion for bash, zsh and fish, made by shtab."""

from __future__ import annotations

import argparse
import importlib

import shtab

SHELLS = ("bash", "zsh", "fish")
PATH_ARGUMENTS = {"path": shtab.DIRECTORY, "file": shtab.FILE}
"""Argument destinations that complete as a folder (PATH) or a file (`log --path`)."""


def completion_parser() -> argparse.ArgumentParser:
    """The whole command line as one parser: the app's options and every subcommand.

    The app's own PATH is left out so the first word completes as a subcommand; bash and zsh
    fall back to file names for anything else.
    """
    from memtui.cli import SUBCOMMANDS
    from memtui.cli.app_cmd import build_parser

    parser = build_parser(with_path=False)
    subparsers = parser.add_subparsers(dest="subcommand", metavar="COMMAND")
    for module_name in SUBCOMMANDS.values():
        importlib.import_module(module_name).register(subparsers)
    for command in [parser, *subparsers.choices.values()]:
        for action in command._actions:
            if action.dest in PATH_ARGUMENTS:
                action.complete = PATH_ARGUMENTS[action.dest]  # type: ignore[attr-defined]
    return parser


def completion_script(shell: str) -> str:
    """The completion script for `shell` (one of SHELLS)."""
    return shtab.complete(completion_parser(), shell=shell)
