"""`memtui --print-completion SHELL`: shell completion for bash, zsh and fish, made by shtab."""

from __future__ import annotations

import argparse
import importlib

import shtab

from memtui.cli.subcommands import SUBCOMMANDS

SHELLS = ("bash", "zsh", "fish")
PATH_ARGUMENTS = {"path": shtab.DIRECTORY, "file": shtab.FILE}
"""Argument destinations that complete as a folder (PATH) or a file (`log --path`)."""


def completion_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The whole command line as one parser: the app's options (`parser`, built without the
    app's own PATH, so the first word completes as a subcommand) and every subcommand; bash
    and zsh fall back to file names for anything else."""
    subparsers = parser.add_subparsers(dest="subcommand", metavar="COMMAND")
    for module_name in SUBCOMMANDS.values():
        importlib.import_module(module_name).register(subparsers)
    for command in [parser, *subparsers.choices.values()]:
        for action in command._actions:
            if action.dest in PATH_ARGUMENTS:
                action.complete = PATH_ARGUMENTS[action.dest]  # type: ignore[attr-defined]
    return parser


def completion_script(shell: str, parser: argparse.ArgumentParser) -> str:
    """The completion script for `shell` (one of SHELLS) of the app's `parser` and every
    subcommand."""
    return shtab.complete(completion_parser(parser), shell=shell)
