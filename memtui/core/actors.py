"""Actor names for the history: agents are recorded as `agent:<name>`, people as `human:<name>`.

Every entry point (the CLI's `--actor`, `MEMTUI_ACTOR`, the config's `actor`, an MCP client's
`clientInfo.name`, the SDK classes' `actor=`) goes through these checks, so a name can neither
pass as another kind of actor nor carry control characters or bytes that are not UTF-8.
"""

from __future__ import annotations

from memtui.core.display import has_unsafe, visible

AGENT = "agent"
HUMAN = "human"
EXTERNAL = "external"
"""The actor of changes made outside memtui (recorded by the watcher and recovery only)."""
KINDS = (AGENT, HUMAN, EXTERNAL)
EXAMPLE_NAMES = {AGENT: "claude", HUMAN: "dana"}
"""The plain name each kind's refusals suggest."""
MAX_NAME_LENGTH = 200
"""Characters an actor's name may have."""


class ActorError(ValueError):
    """An actor name is empty, names another kind of actor or holds unsafe characters."""


class UnsafeActorName(ActorError):
    """An actor name holds control characters or bytes that are not UTF-8, or is too long."""


def agent_actor(name: str) -> str:
    """`agent:<name>` for a bare name (blanks become `-`); `agent:<name>` is kept as it is.

    Raises ActorError for an empty name (`agent:` alone too), for any other kind (`human:x`,
    `external`, `x:y`, `agent:human:x`), and for control characters or bytes that are not UTF-8,
    so an agent can neither go unnamed nor pass as someone else.
    """
    _check_characters(AGENT, name)
    return _actor(AGENT, "-".join(name.split()))


def human_actor(name: str) -> str:
    """`human:<name>` for a bare name or a `human:<name>` actor (surrounding blanks removed).

    Raises ActorError for an empty name, for any other kind (`agent:x`, `external`,
    `human:agent:x`) and for control characters or bytes that are not UTF-8.
    """
    _check_characters(HUMAN, name)
    return _actor(HUMAN, name)


def check_actor(actor: str) -> str:
    """`actor` if it is a complete, safe actor (`agent:x`, `human:x` or `external`), else
    ActorError."""
    if actor == EXTERNAL:
        return actor
    kind = actor.partition(":")[0]
    if kind == AGENT:
        checked = agent_actor(actor)
    elif kind == HUMAN:
        checked = human_actor(actor)
    else:
        raise ActorError(
            f"{_shown(actor)} is not an actor: use agent:NAME or human:NAME (or {EXTERNAL})"
        )
    if checked != actor:
        raise ActorError(f"{_shown(actor)} is not an actor as memtui records it ({checked!r})")
    return actor


def _shown(name: str) -> str:
    """A name quoted for a message, its unsafe characters made visible."""
    return repr(visible(name))


def _check_characters(kind: str, name: str) -> None:
    """Refuse a name with control characters, bidi overrides or bytes that are not UTF-8."""
    if has_unsafe(name):
        raise UnsafeActorName(
            f"{_shown(name)} holds control characters or bytes that are not UTF-8: give a "
            f"plain name such as '{EXAMPLE_NAMES[kind]}'"
        )
    if len(name) > MAX_NAME_LENGTH:
        raise UnsafeActorName(
            f"the {kind} name is {len(name)} characters long, more than {MAX_NAME_LENGTH}: "
            f"give a plain name such as '{EXAMPLE_NAMES[kind]}'"
        )


def _actor(kind: str, name: str) -> str:
    """`<kind>:<name>` from a bare name or one already prefixed with `kind:`."""
    prefix, colon, rest = name.strip().partition(":")
    if colon and prefix != kind:
        raise ActorError(
            f"{_shown(name)} is not {_article(kind)} {kind} name: give a plain name such as "
            f"'{EXAMPLE_NAMES[kind]}' or {kind}:NAME"
        )
    bare = rest.strip() if colon else prefix
    if not bare:
        raise ActorError(
            f"the {kind} name is empty: give a plain name such as '{EXAMPLE_NAMES[kind]}'"
        )
    inner = bare.partition(":")[0]
    if bare == EXTERNAL or (inner in KINDS and inner != bare):
        raise ActorError(
            f"{_shown(name)} is not {_article(kind)} {kind} name: '{inner}' names another kind "
            f"of actor; give a plain name such as '{EXAMPLE_NAMES[kind]}'"
        )
    return f"{kind}:{bare}"


def _article(kind: str) -> str:
    """`an` before a vowel, else `a`."""
    return "an" if kind[:1] in "aeiou" else "a"
