"""What an agent loads of its memory at the start of every session, by the kind of store.

- **Claude Code auto memory** (`~/.claude/projects/<project>/memory/`, detected by `MEMORY.md`
  at the root): the first 200 lines of `MEMORY.md`, at most 25,000 bytes (cut at a line end),
  every session; topic files when the agent reads them.
- **Letta memory repository** (MemFS, detected by a `system/` folder): every `.md` file under
  `system/` in full, every turn; the rest when the agent opens it. Letta's context guidance
  keeps `system/` to about 15-20k estimated tokens: the limit is 20,000.
- **Anthropic memory tool** (the default): the agent starts by viewing `/memories`, so the
  listing of the folder (two levels, with sizes) is loaded; the files it then picks are read
  on demand.
- **Basic Memory** (detected by notes carrying a `permalink:` in their frontmatter): nothing at
  session start; notes come through search and `build_context` when the agent asks.

The config's `[budget]` overrides the kind (`kind`), the always-loaded files (`always`, globs:
a matching file is counted whole, replacing the kind's list) and the limit (`limit`, tokens).
Sources are cited in docs/reviewing.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache

from memtui.core.config_tables import BudgetSettings
from memtui.notes.tokens import tokens_for_bytes

CLAUDE_CODE = "claude-code"
LETTA = "letta"
MEMORY_TOOL = "memory-tool"
BASIC_MEMORY = "basic-memory"
ENTRYPOINT = "MEMORY.md"
ENTRYPOINT_LINES = 200
ENTRYPOINT_BYTES = 25_000
LETTA_LIMIT = 20_000
BASIC_MEMORY_SAMPLE = 50
"""Notes whose opening is read to tell a Basic Memory project (every one carries a permalink)."""
_PERMALINK = re.compile(r"\A---\r?\n(?:.*\r?\n)*?permalink:\s*\S", re.MULTILINE)


@dataclass(frozen=True)
class PartLoad:
    """A file loaded in part: its first `lines` lines, at most `bytes` of them."""

    lines: int
    bytes: int


@dataclass(frozen=True)
class LoadRules:
    """How one kind of agent loads its memory at the start of a session."""

    kind: str
    name: str
    always: tuple[str, ...] = ()
    """Globs of the files loaded whole."""
    partly: dict[str, PartLoad] = field(default_factory=dict)
    """Paths of the files loaded in part, with their cut."""
    listing: bool = False
    """Whether the `view /memories` listing is loaded."""
    limit: int | None = None
    """Estimated tokens the session's start may load (None: no stated limit)."""
    detected: bool = True
    """Whether the kind was detected (False: the config named it)."""

    def load_of(self, relpath: str) -> str:
        """`always`, `partly` or `on demand` for one file."""
        if any(glob_match(pattern, relpath) for pattern in self.always):
            return "always"
        return "partly" if relpath in self.partly else "on demand"


KINDS: dict[str, LoadRules] = {
    CLAUDE_CODE: LoadRules(
        CLAUDE_CODE,
        "Claude Code auto memory",
        partly={ENTRYPOINT: PartLoad(ENTRYPOINT_LINES, ENTRYPOINT_BYTES)},
        limit=tokens_for_bytes(ENTRYPOINT_BYTES),
    ),
    LETTA: LoadRules(
        LETTA, "Letta memory repository", always=("system/**/*.md",), limit=LETTA_LIMIT
    ),
    MEMORY_TOOL: LoadRules(MEMORY_TOOL, "Anthropic memory tool", listing=True),
    BASIC_MEMORY: LoadRules(BASIC_MEMORY, "Basic Memory"),
}


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """A path glob as a regex: `*` and `?` within a name, `**/` any folders, `**` anything."""
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        else:
            char = pattern[i]
            out.append("[^/]*" if char == "*" else "[^/]" if char == "?" else re.escape(char))
            i += 1
    return re.compile("".join(out) + r"\Z")


def glob_match(pattern: str, relpath: str) -> bool:
    """Whether a store-relative path matches a glob (`system/**/*.md`, `people/*.md`)."""
    return _glob_regex(pattern.strip("/")).match(relpath) is not None


def detect_kind(relpaths: Iterable[str], opening: Callable[[str], str | None]) -> str:
    """The kind of a store from its files (`opening` gives the start of a note, for the
    Basic Memory check)."""
    paths = list(relpaths)
    if ENTRYPOINT in paths:
        return CLAUDE_CODE
    if any(path.startswith("system/") and path.endswith(".md") for path in paths):
        return LETTA
    notes = [path for path in paths if path.endswith(".md")][:BASIC_MEMORY_SAMPLE]
    marked = sum(1 for path in notes if _PERMALINK.match(opening(path) or ""))
    return BASIC_MEMORY if notes and marked * 2 > len(notes) else MEMORY_TOOL


def rules_for(kind: str, settings: BudgetSettings | None = None) -> LoadRules:
    """The loading rules of a detected kind, with the config's overrides applied."""
    settings = settings or BudgetSettings()
    rules = KINDS[settings.kind or kind]
    if settings.kind is not None:
        rules = replace(rules, detected=False)
    if settings.always is not None:
        rules = replace(rules, always=settings.always)
    if settings.limit is not None:
        rules = replace(rules, limit=settings.limit)
    return rules
