"""Three machines whose agents write while they sync, in rotating order, for several rounds:
at the end the trees are identical, every acknowledged addition is there (or, for a line
written where another machine rewrote the same line, in a clash waiting for a person), no file
holds a conflict marker, and the remote's branch only ever moved forward."""

from __future__ import annotations

import itertools
import random
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.sync.conftest import Machine, git, remote_files, tree_files

MakeMachine = Callable[..., Machine]
SHARED = ("shared/log.md", "shared/people.md", "shared/prefs.md")
ROUNDS = 6
WRITES = 12


class Agent(threading.Thread):
    """An agent writing on one machine: new notes, observations appended to shared notes,
    lines inserted at random places, and now and then a rewrite of a line every machine has
    (the `status:` line, never a line an agent added: that would be its own deletion)."""

    def __init__(self, one: Machine, round_number: int, seed: int) -> None:
        super().__init__(daemon=True)
        self.one = one
        self.round = round_number
        self.random = random.Random(seed)
        self.added: list[str] = []
        """Lines whose write was acknowledged, each unique in the whole run."""
        self.rewrites: list[str] = []

    def run(self) -> None:
        store = self.one.agent(f"worker-{self.one.name}")
        for n in range(WRITES):
            tag = f"{self.one.name}-r{self.round}-{n}"
            kind = self.random.random()
            if kind < 0.2:
                line = f"- [fact] made by {tag}"
                done = store.create(f"/memories/{tag}.md", f"# {tag}\n{line}\n")
            elif kind < 0.6:
                line = f"- [obs] {tag} noticed something"
                path = self.random.choice(SHARED)
                lines = (self.one.root / path).read_text().count("\n")
                done = store.insert(f"/memories/{path}", lines, line)
            elif kind < 0.9:
                line = f"- [note] {tag} inserted here"
                path = self.random.choice(SHARED)
                lines = (self.one.root / path).read_text().count("\n")
                done = store.insert(f"/memories/{path}", self.random.randint(1, lines), line)
            else:
                prefs = (self.one.root / "shared/prefs.md").read_text().splitlines()
                old = next((line for line in prefs if line.startswith("status: ")), None)
                if old is None:
                    continue
                line = f"status: set by {tag}"
                done = store.str_replace("/memories/shared/prefs.md", old, line)
                if not done.is_error:
                    self.rewrites.append(line)
                continue
            if not done.is_error:
                self.added.append(line)


@pytest.mark.slow
def test_three_machines_writing_and_syncing_converge(machine: MakeMachine, remote: Path) -> None:
    a = machine(
        "a",
        files={
            "shared/log.md": "# Log\n- start\n",
            "shared/people.md": "# People\n- Ana\n- Bo\n",
            "shared/prefs.md": "# Prefs\nstatus: new\n- tabs\n",
        },
    )
    machines = [a, machine("b"), machine("c")]
    tips = [git("--git-dir", str(remote), "rev-parse", "main").strip()]
    agents: list[Agent] = []
    for round_number in range(ROUNDS):
        writers = [
            Agent(one, round_number, seed=round_number * 10 + i) for i, one in enumerate(machines)
        ]
        for writer in writers:
            writer.start()
        order = machines[round_number % 3 :] + machines[: round_number % 3]
        for one in order:
            one.sync()
            tips.append(git("--git-dir", str(remote), "rev-parse", "main").strip())
        for writer in writers:
            writer.join(timeout=60)
            assert not writer.is_alive()
        agents += writers
    for _quiet_round in range(2):
        for one in machines:
            one.sync()
            tips.append(git("--git-dir", str(remote), "rev-parse", "main").strip())

    trees = [tree_files(one.root) for one in machines]
    assert trees[0] == trees[1] == trees[2]
    assert {name: data.decode() for name, data in trees[0].items()} == remote_files(remote)
    text = "\n".join(data.decode() for data in trees[0].values())
    assert "<<<<<<<" not in text and ">>>>>>>" not in text
    clashes = [clash for one in machines for clash in one.state.clashes()]
    clash_text = "\n".join(
        (clash.ours or b"").decode() + (clash.theirs or b"").decode() for clash in clashes
    )
    added = [line for writer in agents for line in writer.added]
    missing = [line for line in added if line not in text and line not in clash_text]
    assert missing == []
    appended = [line for line in added if "[obs]" in line or "[fact]" in line]
    assert [line for line in appended if line not in text and line not in clash_text] == []
    print(f"{len(added)} additions, {len(clashes)} clashes, {len(tips)} remote tips")
    for clash in clashes:
        assert (clash.path, clash.kind) == ("shared/prefs.md", "text")
        assert clash.ours and clash.theirs and clash.ours != clash.theirs
    assert len([line for line in text.splitlines() if line.startswith("status: ")]) >= 1
    for older, newer in itertools.pairwise(tips):
        git("--git-dir", str(remote), "merge-base", "--is-ancestor", older, newer)
    for one in machines:
        assert one.git("status", "--porcelain").strip() == ""
