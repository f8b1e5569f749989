"""Actor names for the history: agents are recorded as `agent:<name>`, people as `human:<name>`."""

from __future__ import annotations

AGENT = "agent"
HUMAN = "human"
EXAMPLE_NAMES = {AGENT: "claude", HUMAN: "dana"}
"""The plain name each kind's refusals suggest."""


class ActorError(ValueError):
    """An actor name is empty or names another kind of actor; the message says which."""


def agent_actor(name: str) -> str:
    """`agent:<name>` for a bare name (blanks become `-`); `agent:<name>` is kept as it is.

    Raises ActorError for an empty name (`agent:` alone too) and for any other kind
    (`human:x`, `external:x`, `x:y`), so an agent can neither go unnamed nor pass as someone else.
    """
    return _actor(AGENT, "-".join(name.split()))


def human_actor(name: str) -> str:
    """`human:<name>` for a bare name or a `human:<name>` actor (surrounding blanks removed).

    Raises ActorError for an empty name and for any other kind (`agent:x`, `external:x`).
    """
    return _actor(HUMAN, name)


def _actor(kind: str, name: str) -> str:
    """`<kind>:<name>` from a bare name or one already prefixed with `kind:`."""
    prefix, colon, rest = name.strip().partition(":")
    if colon and prefix != kind:
        raise ActorError(
            f"{name!r} is not {_article(kind)} {kind} name: give a plain name such as "
            f"'{EXAMPLE_NAMES[kind]}' or {kind}:NAME"
        )
    bare = rest.strip() if colon else prefix
    if not bare:
        raise ActorError(
            f"the {kind} name is empty: give a plain name such as '{EXAMPLE_NAMES[kind]}'"
        )
    return f"{kind}:{bare}"


def _article(kind: str) -> str:
    """`an` before a vowel, else `a`."""
    return "an" if kind[:1] in "aeiou" else "a"
