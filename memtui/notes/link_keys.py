"""The keys Basic Memory's strict resolver tries for a link target besides its text: the target
as a permalink (its slug), and the project prefix the store's permalinks carry."""

from __future__ import annotations

import re
from functools import lru_cache

PATH_PREFIXES = ("/", "./", "../")
"""Targets starting so name a file by where it is (Basic Memory's path targets): they resolve
by that path alone, never by a permalink, a title or an alias."""
_PLAIN = re.compile(r"[A-Za-z0-9 _'\-]+(?:/[A-Za-z0-9 _'\-]+)*\Z")
"""Targets whose slug needs no transliteration, extension or path clean-up."""
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_UNSAFE = re.compile(r"[^a-z0-9/\-]")
_HYPHENS = re.compile(r"-+")


def is_path_target(target: str) -> bool:
    """Whether a link target names a file by its path (`./x.md`, `../x.md`, `/x.md`)."""
    return target.strip().startswith(PATH_PREFIXES)


@lru_cache(maxsize=1 << 16)
def link_slug(target: str) -> str | None:
    """The permalink form Basic Memory also looks a target up by (`Coffee Bean Origins` ->
    `coffee-bean-origins`, `proj::notes/A B` -> `proj/notes/a-b`); None for a path target."""
    target = target.strip()
    if target.startswith(PATH_PREFIXES):
        return None
    if "::" in target:
        project, rest = target.split("::", 1)
        target = f"{project}/{rest.lstrip('/')}"
    exact = target.strip("/")
    if _PLAIN.match(exact) and not exact.isspace():
        text = _CAMEL.sub(r"\1-\2", exact).lower().replace("_", "-").replace("'", "")
        clean = _HYPHENS.sub("-", _UNSAFE.sub("-", text))
        return "/".join(segment.strip("-") for segment in clean.split("/")).strip("/")
    from memtui.notes.permalink import generate_permalink  # unidecode, only for other names

    return generate_permalink(exact).strip("/")


def project_prefix(permalink: str | None, path: str) -> str | None:
    """The project prefix a note's permalink carries, as Basic Memory writes permalinks by
    default (`bmtest` for `bmtest/specs/search` at `specs/Search.md`); None for any other."""
    if not permalink or permalink.count("/") <= path.count("/"):
        return None
    from memtui.notes.permalink import generate_permalink

    own = generate_permalink(path)
    if not own or not permalink.endswith("/" + own):
        return None
    return permalink[: -len(own) - 1] or None
