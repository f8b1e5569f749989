"""Held changes: never applied before a person approves; approved as the agent's change (merged
three ways when the file changed since, or left for the person to choose when the changes
overlap: never written over); rejected; several to one file in order; the history says who
proposed, who decided and when."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memtui.core.config import Settings
from memtui.core.result import CONFLICT, HELD
from memtui.core.store import MemoryStore
from memtui.notes.operations.deciding import approve, held, reject, waiting

NOTE = "one\ntwo\nthree\nfour\nfive\n"
REVIEW = '[[rule]]\npaths = ["user/**"]\naccess = "review"\n'
MEMTUI = str(Path(sys.executable).with_name("memtui"))


@pytest.fixture
def stores(tmp_path: Path) -> tuple[MemoryStore, MemoryStore]:
    """(the person, the agent) on a store whose `user/` changes wait for review."""
    person = MemoryStore(tmp_path, actor="human:dana", settings=Settings(), clock=lambda: 1000.0)
    person.create("/memories/user/a.md", NOTE)
    (tmp_path / ".memtui/policy.toml").write_text(REVIEW)
    return person, person.with_actor("agent:bot", "s1")


def on_disk(person: MemoryStore) -> str:
    """The note's text now."""
    return person.read("/memories/user/a.md")[0]


def test_a_held_change_is_checked_then_kept_not_applied(
    stores: tuple[MemoryStore, MemoryStore],
) -> None:
    person, agent = stores
    missing = agent.str_replace("/memories/user/a.md", "absent", "x")
    assert (missing.is_error, missing.kind) == (True, "error")
    assert missing.content.startswith("No replacement was performed, old_str `absent`")
    result = agent.str_replace("/memories/user/a.md", "two", "TWO")
    assert (result.is_error, result.kind) == (False, HELD)
    assert result.content == (
        "Held for review: a person must approve this change to /memories/user/a.md before it is "
        f"applied (proposal {result.event_id}); until then nothing changes."
    )
    assert on_disk(person) == NOTE
    view = agent.view("/memories/user/a.md")
    assert "     2\ttwo" in view.content
    assert person.history.pending_review_count() == 0
    (shown,) = waiting(person)
    assert (shown.id, shown.proposal.actor, shown.proposal.session) == (
        result.event_id,
        "agent:bot",
        "s1",
    )
    assert shown.diff()[2:] == [
        "@@ -1,5 +1,5 @@",
        " one",
        "-two",
        "+TWO",
        " three",
        " four",
        " five",
    ]


def test_approving_applies_it_as_the_agents_change_approved_by_the_person(
    stores: tuple[MemoryStore, MemoryStore],
) -> None:
    person, agent = stores
    proposal = agent.str_replace("/memories/user/a.md", "two", "TWO").event_id
    assert proposal is not None
    approval = approve(person, proposal)
    assert approval.result is not None and not approval.result.is_error
    assert on_disk(person) == NOTE.replace("two", "TWO")
    applied = person.history.event(approval.result.event_id or 0)
    assert applied is not None
    assert (applied.actor, applied.session, applied.command, applied.flags) == (
        "agent:bot",
        "s1",
        "str_replace",
        ("policy:approved",),
    )
    decided = person.proposals.get(proposal)
    assert decided is not None
    assert (decided.decision, decided.decided_by, decided.decided_time) == (
        "approved",
        "human:dana",
        1000.0,
    )
    assert decided.applied_event == applied.id
    assert person.history.reviews([applied.id])[applied.id].reviewer == "human:dana"
    assert person.history.pending_review_count() == 0
    again = person.approve_proposal(proposal)
    assert again.content == f"Proposal {proposal} was already approved by human:dana"


def test_approving_after_the_file_changed_merges_when_the_changes_combine(
    stores: tuple[MemoryStore, MemoryStore],
) -> None:
    person, agent = stores
    proposal = agent.str_replace("/memories/user/a.md", "two", "TWO").event_id or 0
    text, revision = person.read("/memories/user/a.md")
    person.write("/memories/user/a.md", text.replace("five", "FIVE"), revision)
    assert person.approve_proposal(proposal).kind == CONFLICT
    assert on_disk(person) == NOTE.replace("five", "FIVE")
    shown = held(person, person.proposals.get(proposal))  # type: ignore[arg-type]
    assert (shown.changed_since, shown.clashes) == (True, False)
    approval = approve(person, proposal)
    assert approval.result is not None and not approval.result.is_error
    assert on_disk(person) == "one\nTWO\nthree\nfour\nFIVE\n"


def test_approving_after_an_overlapping_change_asks_and_never_overwrites(
    stores: tuple[MemoryStore, MemoryStore],
) -> None:
    person, agent = stores
    proposal = agent.str_replace("/memories/user/a.md", "two", "TWO").event_id or 0
    text, revision = person.read("/memories/user/a.md")
    person.write("/memories/user/a.md", text.replace("two", "deux"), revision)
    approval = approve(person, proposal)
    assert approval.clash and approval.held is not None and approval.held.clashes
    assert on_disk(person) == NOTE.replace("two", "deux")
    assert person.proposals.get(proposal).waiting  # type: ignore[union-attr]
    merge = approval.held.as_changed().merge
    assert merge is not None
    chosen = merge.text(["deux\nTWO\n"])
    done = approve(person, proposal, chosen)
    assert done.result is not None and not done.result.is_error
    assert on_disk(person) == "one\ndeux\nTWO\nthree\nfour\nfive\n"


def test_a_merge_made_against_an_older_file_is_refused(
    stores: tuple[MemoryStore, MemoryStore],
) -> None:
    person, agent = stores
    proposal = agent.insert("/memories/user/a.md", 0, "zero").event_id or 0
    _text, revision = person.read("/memories/user/a.md")
    person.write("/memories/user/a.md", "new\n", revision)
    stale = person.approve_proposal(proposal, "zero\none\n", revision)
    assert stale.kind == CONFLICT
    assert stale.content.startswith("Conflict: /memories/user/a.md changed again")
    assert on_disk(person) == "new\n"


def test_rejecting_applies_nothing_and_is_recorded(
    stores: tuple[MemoryStore, MemoryStore],
) -> None:
    person, agent = stores
    proposal = agent.delete("/memories/user/a.md").event_id or 0
    (result,) = reject(person, [proposal])
    assert result.content == (
        f"Rejected proposal {proposal} (delete of /memories/user/a.md by agent:bot); nothing "
        "was applied"
    )
    assert on_disk(person) == NOTE
    event = person.history.event(result.event_id or 0)
    assert event is not None and (event.actor, event.command) == ("human:dana", "reject")
    decided = person.proposals.get(proposal)
    assert decided is not None and (decided.decision, decided.decided_by) == (
        "rejected",
        "human:dana",
    )
    assert waiting(person) == []
    assert person.approve_proposal(proposal).is_error


def test_several_proposals_to_one_file_apply_in_order(
    stores: tuple[MemoryStore, MemoryStore],
) -> None:
    person, agent = stores
    first = agent.str_replace("/memories/user/a.md", "one", "ONE").event_id or 0
    second = agent.str_replace("/memories/user/a.md", "five", "FIVE").event_id or 0
    early = person.approve_proposal(second)
    assert early.content == (
        f"Proposal {second} waits for proposal {first} to /memories/user/a.md (changes to one "
        "path apply in order): approve or reject that one first"
    )
    assert not approve(person, first).result.is_error  # type: ignore[union-attr]
    assert not approve(person, second).result.is_error  # type: ignore[union-attr]
    assert on_disk(person) == "ONE\ntwo\nthree\nfour\nFIVE\n"


def test_a_held_delete_of_a_file_changed_since_needs_force(
    stores: tuple[MemoryStore, MemoryStore],
) -> None:
    person, agent = stores
    proposal = agent.delete("/memories/user/a.md").event_id or 0
    text, revision = person.read("/memories/user/a.md")
    person.write("/memories/user/a.md", text + "six\n", revision)
    refused = person.approve_proposal(proposal)
    assert refused.kind == CONFLICT
    assert on_disk(person) == NOTE + "six\n"
    forced = person.approve_proposal(proposal, force=True)
    assert not forced.is_error
    assert not (person.root / "user/a.md").exists()


def test_an_agent_cannot_decide(stores: tuple[MemoryStore, MemoryStore]) -> None:
    _person, agent = stores
    proposal = agent.delete("/memories/user/a.md").event_id or 0
    assert agent.approve_proposal(proposal).content == (
        f"Cannot approve proposal {proposal}: only a person decides on held changes"
    )


def test_the_command_line_lists_approves_and_rejects(tmp_path: Path) -> None:
    person = MemoryStore(tmp_path, actor="human:dana", settings=Settings())
    person.create("/memories/user/a.md", NOTE)
    (tmp_path / ".memtui/policy.toml").write_text(REVIEW)
    agent = person.with_actor("agent:bot")
    kept = agent.str_replace("/memories/user/a.md", "two", "TWO").event_id
    dropped = agent.create("/memories/user/b.md", "b\n").event_id
    env = {**os.environ, "MEMTUI_CONFIG_FILE": os.devnull, "MEMTUI_ACTOR": "dana"}

    def memtui(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([MEMTUI, *args], capture_output=True, text=True, env=env, timeout=60)

    rows = [
        json.loads(line)
        for line in memtui("changes", str(tmp_path), "--json").stdout.split("\n")
        if line
    ]
    assert [(row["id"], row["status"], row["added"], row["removed"]) for row in rows] == [
        (kept, "held", 1, 1),
        (dropped, "held", 1, 0),
    ]
    assert rows[0]["diff"].splitlines()[4:6] == ["-two", "+TWO"]
    done = memtui("approve", str(tmp_path), str(kept))
    assert done.stdout == (
        f"Applied proposal {kept} (str_replace of /memories/user/a.md by agent:bot), approved "
        "by human:dana\n"
    )
    assert memtui("reject", str(tmp_path), str(dropped)).returncode == 0
    assert on_disk(person) == NOTE.replace("two", "TWO")
    assert not (tmp_path / "user/b.md").exists()
    rows = [
        json.loads(line)
        for line in memtui("changes", str(tmp_path), "--all", "--json").stdout.split("\n")
        if line
    ]
    decided = {row["id"]: (row.get("status"), row.get("decided_by")) for row in rows}
    assert decided[kept] == ("approved", "human:dana")
    assert decided[dropped] == ("rejected", "human:dana")


def test_a_held_rename_of_a_missing_source_makes_no_folder(
    stores: tuple[MemoryStore, MemoryStore],
) -> None:
    person, agent = stores
    before = sorted(path.relative_to(person.root) for path in person.root.rglob("*"))
    result = agent.rename("/memories/user/none.md", "/memories/user/new/deep/x.md")
    assert (result.content, result.is_error) == (
        "Error: The path /memories/user/none.md does not exist",
        True,
    )
    after = sorted(path.relative_to(person.root) for path in person.root.rglob("*"))
    assert [path for path in after if not str(path).startswith(".memtui")] == [
        path for path in before if not str(path).startswith(".memtui")
    ]
