"""Review marks travel between machines; files holding likely secrets never leave."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from memtui.core.recording.inbox import changes
from tests.sync.conftest import Machine, git, remote_files

MakeMachine = Callable[..., Machine]
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"


def waiting(one: Machine) -> list[str]:
    """The paths of the changes waiting for review on a machine."""
    return sorted({e.path or "" for e in changes(one.store.history)})


def test_an_approval_on_one_machine_marks_the_change_reviewed_on_the_others(
    machine: MakeMachine,
) -> None:
    a = machine("a", files={"n.md": "one\n"})
    b = machine("b")
    c = machine("c")
    a.agent().insert("/memories/n.md", 1, "two")
    a.sync()
    b.sync()
    c.sync()
    assert waiting(a) == waiting(b) == waiting(c) == ["/memories/n.md"]
    local = changes(a.store.history)[0]
    a.store.history.mark_reviewed([local.id], "human:dana", 1000.0)
    assert a.sync().marks_sent == 1
    assert b.sync().marks_received == 1
    c.sync()
    assert waiting(b) == waiting(c) == []
    pulled = b.store.history.events(path="/memories/n.md", limit=1)[0]
    review = b.store.history.reviews([pulled.id])[pulled.id]
    assert (review.reviewer, review.time) == ("human:dana", 1000.0)


def test_approving_a_pulled_change_marks_it_on_the_machine_it_came_from(
    machine: MakeMachine,
) -> None:
    a = machine("a", files={"n.md": "one\n"})
    b = machine("b")
    a.agent().insert("/memories/n.md", 1, "two")
    a.agent().insert("/memories/n.md", 2, "three")
    a.sync()
    b.sync()
    pulled = changes(b.store.history)[0]
    assert len(pulled.args["changes"]) == 2
    b.store.history.mark_reviewed([pulled.id], "human:bo", 2000.0)
    b.sync()
    a.sync()
    assert waiting(a) == []
    reviews = a.store.history.reviews(e.id for e in a.store.history.events(changes_only=True))
    assert {r.reviewer for r in reviews.values()} == {"human:bo"}


def test_a_file_holding_a_likely_secret_is_held_back_and_the_rest_pushed(
    machine: MakeMachine, remote: Path
) -> None:
    a = machine("a", files={"n.md": "one\n"})
    a.agent().create("/memories/keys.md", f"aws key {AWS_KEY}\n")
    a.agent().insert("/memories/n.md", 1, "two")
    report = a.sync()
    assert report.held == {
        "keys.md": "holds a likely secret (AWS access key); not pushed until it is removed"
    }
    assert remote_files(remote) == {"n.md": "one\ntwo\n"}
    objects = git("--git-dir", str(remote), "rev-list", "--all", "--objects")
    everything = subprocess.run(
        ["git", "--git-dir", str(remote), "cat-file", "--batch-all-objects", "--batch"],
        capture_output=True,
        check=True,
    ).stdout
    assert AWS_KEY.encode() not in everything and "keys.md" not in objects
    assert report.waiting
    a.store.write(
        "/memories/keys.md", "aws key: in the vault\n", a.store.revision("/memories/keys.md")
    )
    report = a.sync()
    assert report.held == {} and not report.waiting
    assert remote_files(remote)["keys.md"] == "aws key: in the vault\n"


def test_a_secret_in_a_file_name_is_held_back(machine: MakeMachine, remote: Path) -> None:
    a = machine("a")
    (a.root / f"{AWS_KEY}.md").write_text("x\n")
    report = a.sync()
    assert list(report.held) == [f"{AWS_KEY}.md"]
    assert remote_files(remote) == {}


def test_an_edit_made_outside_memtui_is_committed_as_external_and_its_review_travels(
    machine: MakeMachine,
) -> None:
    a = machine("a", files={"n.md": "one\n"})
    b = machine("b")
    (a.root / "n.md").write_text("one\nedited in vim\n")
    report = a.sync()
    assert report.committed == 1
    external = a.store.history.events(path="/memories/n.md", limit=1)[0]
    assert external.actor == "external"
    b.sync()
    pulled = b.store.history.events(path="/memories/n.md", limit=1)[0]
    assert (pulled.actor, pulled.args["changes"]) == (
        "external",
        [f"{a.state.machine_id()}.{external.id}"],
    )
    a.store.history.mark_reviewed([external.id], "human:dana", 3000.0)
    a.sync()
    b.sync()
    assert waiting(b) == []
