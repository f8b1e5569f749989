"""What a remote can send that memtui must not take as it is: memtui's own folder, links,
submodules, plain git commits without memtui's trailers; and a note edited outside memtui while
a sync merges it."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from memtui.notes.sync import driver
from memtui.notes.sync.state import CLASH_KEPT
from tests.sync.conftest import Machine, git, remote_files, tree_files

MakeMachine = Callable[..., Machine]


def plain_clone(remote: Path, where: Path) -> Path:
    """A plain git clone of the remote with an identity, as a teammate without memtui has."""
    git("clone", "--quiet", "--branch", "main", str(remote), str(where))
    git("-C", str(where), "config", "user.name", "Pat")
    git("-C", str(where), "config", "user.email", "pat@example.com")
    return where


def test_memtuis_folder_links_and_submodules_from_the_remote_are_not_taken(
    machine: MakeMachine, remote: Path, tmp_path: Path
) -> None:
    a = machine("a", files={"n.md": "one\n"})
    history = (a.root / ".memtui" / "history.db").read_bytes()[:16]
    other = plain_clone(remote, tmp_path / "plain")
    (other / ".memtui").mkdir()
    (other / ".memtui" / "history.db").write_text("not a database\n")
    (other / "link.md").symlink_to("/etc/passwd")
    (other / "ok.md").write_text("fine\n")
    git("-C", str(other), "add", "-A")
    sub = (
        subprocess.run(
            ["git", "-C", str(other), "hash-object", "-w", "--stdin"],
            input=b"x",
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    git("-C", str(other), "update-index", "--add", "--cacheinfo", f"160000,{sub},module")
    git("-C", str(other), "commit", "--quiet", "-m", "hostile")
    git("-C", str(other), "push", "--quiet", "origin", "HEAD:main")
    report = a.sync()
    assert (a.root / ".memtui" / "history.db").read_bytes()[:16] == history
    assert not (a.root / "link.md").exists() and not (a.root / "module").exists()
    assert tree_files(a.root) == {"n.md": b"one\n", "ok.md": b"fine\n"}
    assert sorted((c.path, c.kind) for c in report.clashes) == [
        ("link.md", CLASH_KEPT),
        ("module", CLASH_KEPT),
    ]
    assert sorted(remote_files(remote)) == ["n.md", "ok.md"]
    pulled = a.store.history.events(path="/memories/ok.md", limit=1)[0]
    assert (pulled.actor, pulled.args["machine"]) == ("external", "git (Pat)")
    assert pulled.args["changes"][0].startswith("git:")


def test_a_note_edited_outside_memtui_during_the_merge_keeps_that_edit(
    machine: MakeMachine, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = machine("a", files={"n.md": "one\ntwo\nthree\n"})
    b = machine("b")
    a.agent().str_replace("/memories/n.md", "three", "THREE")
    a.sync()
    real = driver.commit_local

    def then_an_editor_writes(ctx: driver.Context, **kwargs: object) -> object:
        done = real(ctx, **kwargs)  # type: ignore[arg-type]
        (b.root / "n.md").write_text("ONE\ntwo\nthree\n")
        return done

    monkeypatch.setattr(driver, "commit_local", then_an_editor_writes)
    b.sync()
    assert b.text("n.md") == "ONE\ntwo\nTHREE\n"
    monkeypatch.setattr(driver, "commit_local", real)
    b.sync()
    a.sync()
    assert a.text("n.md") == "ONE\ntwo\nTHREE\n"


def test_conflict_markers_committed_by_plain_git_never_reach_a_file(
    machine: MakeMachine, remote: Path, tmp_path: Path
) -> None:
    a = machine("a", files={"prefs.md": "# Prefs\n- editor: vim\n"})
    pat = plain_clone(remote, tmp_path / "pat")
    marked = "# Prefs\n<<<<<<< HEAD\n- editor: vim\n=======\n- editor: zed\n>>>>>>> theirs\n"
    (pat / "prefs.md").write_text(marked)
    (pat / "new.md").write_text("<<<<<<< HEAD\n- one\n=======\n- two\n>>>>>>> x\n")
    git("-C", str(pat), "add", "-A")
    git("-C", str(pat), "commit", "--quiet", "-m", "merged by hand")
    git("-C", str(pat), "push", "--quiet", "origin", "main")
    report = a.sync()
    assert a.text("prefs.md") == "# Prefs\n- editor: vim\n"
    assert not (a.root / "new.md").exists()
    assert sorted((clash.path, clash.kind, clash.theirs) for clash in report.clashes) == [
        ("new.md", "markers", b"<<<<<<< HEAD\n- one\n=======\n- two\n>>>>>>> x\n"),
        ("prefs.md", "markers", marked.encode()),
    ]
    assert remote_files(remote) == {"prefs.md": "# Prefs\n- editor: vim\n"}
    b = machine("b")
    assert tree_files(b.root) == {"prefs.md": b"# Prefs\n- editor: vim\n"}
