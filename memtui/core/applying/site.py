"""Where a command acts: the open store root, its temp folder, and each path resolved on
descriptors."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from memtui.core.applying.atomic import TempArea, make_dirs
from memtui.core.config import DEFAULT_MAX_FILE_SIZE
from memtui.core.parsing.command_types import CommandOutcome, ParsedCommand, error
from memtui.core.parsing.paths import FLAG_OUTSIDE, FLAG_REFUSED, FLAG_RESERVED, RESERVED_NAME
from memtui.core.policy.rules import ActorPolicy
from memtui.core.resolving.fd_paths import Location, OutsideStore, StoreRoot


class Site:
    """An open store root, its temp folder and resolved locations; close it when done."""

    def __init__(self, root: StoreRoot, max_size: int = DEFAULT_MAX_FILE_SIZE) -> None:
        """Act in `root` (taken over: closed with the site)."""
        self.root = root
        self.temps = TempArea(root)
        self.locations: list[Location] = []
        self.max_size = max_size
        self.gate: ActorPolicy | None = None
        """The policy of the agent the command is for (None: a person, never restricted)."""

    @classmethod
    def open(cls, root: str | os.PathLike[str], max_size: int = DEFAULT_MAX_FILE_SIZE) -> Site:
        """Open the store at `root`, creating the root folder (0700) if it is missing."""
        real = Path(os.path.realpath(root))
        if not real.is_dir():
            make_dirs(real)
        return cls(StoreRoot(real), max_size)

    def __enter__(self) -> Site:
        """Use as a context manager."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close everything the site opened."""
        self.close()

    def close(self) -> None:
        """Close the locations, the temp folder and the root."""
        for location in self.locations:
            location.close()
        self.locations.clear()
        self.temps.close()
        self.root.close()

    def locate(self, parts: Sequence[str]) -> Location:
        """Walk resolved `parts` again on descriptors; OutsideStore if they now lead out."""
        location = self.root.locate(parts)
        self.locations.append(location)
        return location

    def release(self, location: Location) -> None:
        """Close a location this site no longer needs (a long walk keeps few descriptors open)."""
        location.close()
        if self.locations and self.locations[-1] is location:
            self.locations.pop()
        elif location in self.locations:
            self.locations.remove(location)

    def place(self, parts: Sequence[str], shown: str) -> Location | CommandOutcome:
        """Walk a path resolved earlier (`parts`) again; the refusal if the store changed since.

        If a folder became a link meanwhile, so that the path now leads out of the store, into
        memtui's own folder or anywhere else than it did, nothing is done there.
        """
        try:
            location = self.locate(parts)
        except OutsideStore:
            return error(
                f"Path {shown} would escape /memories directory", FLAG_REFUSED, FLAG_OUTSIDE
            )
        if location.parts[:1] == [RESERVED_NAME]:
            return error(
                f"The path {shown} is reserved for memtui's history", FLAG_REFUSED, FLAG_RESERVED
            )
        if tuple(location.parts) != tuple(parts):
            return error(
                f"The path {shown} changed on disk while memtui was resolving it; "
                "nothing was done. Try again."
            )
        return location


def open_site(
    root: str | os.PathLike[str], cmd: ParsedCommand, max_size: int = DEFAULT_MAX_FILE_SIZE
) -> Site | CommandOutcome:
    """A site with each of the command's paths located, or the refusal if one no longer resolves.

    The paths were resolved when the command was parsed; here they are walked again on
    descriptors (see `Site.place`).
    """
    site = Site.open(root, max_size)
    try:
        for shown, parts in zip(cmd.echoed, cmd.parts, strict=True):
            placed = site.place(parts, shown)
            if isinstance(placed, CommandOutcome):
                site.close()
                return placed
    except BaseException:
        site.close()
        raise
    return site
