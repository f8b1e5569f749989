"""How agents are named in the history: every agent entry point records as `agent:<name>`."""

from __future__ import annotations

AGENT_PREFIX = "agent:"
NOT_AGENT_KINDS = frozenset({"human", "external"})
"""Actor kinds that belong to people and to outside edits, never to an agent."""


def agent_actor(name: str) -> str:
    """`agent:<name>` for a bare name (blanks become `-`); `agent:<name>` is kept as it is.

    Raises ValueError for an empty name (also `agent:` alone) and for a `human:` or
    `external` actor, so an agent can neither go unnamed nor pass as a person or an outside edit.
    """
    name = "-".join(name.split())
    if name.split(":", 1)[0] in NOT_AGENT_KINDS:
        raise ValueError(
            f"{name!r} is not an agent actor: agents are recorded as agent:NAME; "
            "give a name such as 'my-bot'"
        )
    bare = name.removeprefix(AGENT_PREFIX)
    if not bare:
        raise ValueError(
            "the agent name is empty: give a name such as 'my-bot' (recorded as agent:my-bot)"
        )
    return AGENT_PREFIX + bare
