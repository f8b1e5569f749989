"""`memtui search --mode` (and `mode:` in its query): by meaning with a configured model, by text
and one line on stderr without one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.notes.meaning import TURN_ON
from tests.notes.meaning.conftest import make_model

GARAGE = "# Garage\n\nThe volvo is serviced each spring.\n\n## Dinner\nPasta on fridays.\n"


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A store of two notes, user config pointed at an empty folder."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("MEMTUI_CONFIG_FILE", raising=False)
    root = tmp_path / "store"
    root.mkdir()
    (root / "garage.md").write_text(GARAGE)
    (root / "look.md").write_text("# Look\n\nWants a dark palette.\n")
    return root


def configure_model(tmp_path: Path) -> None:
    """Write a config naming the test-made model."""
    model = make_model(tmp_path / "model")
    config = tmp_path / "config" / "memtui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[search]\nmodel = "{model}"\n')


def test_by_meaning_each_hit_names_its_section(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configure_model(tmp_path)
    assert main(["search", str(store), "meal", "--mode", "meaning"]) == 0
    assert capsys.readouterr() == ("garage.md\n      5  meaning     section: Dinner\n", "")
    assert main(["search", str(store), "automobile theme mode:meaning", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(hit["path"], hit["line"], hit["kind"], hit["text"]) for hit in lines] == [
        ("garage.md", 1, "meaning", "Garage"),
        ("look.md", 1, "meaning", "Look"),
    ]
    assert main(["search", str(store), "automobile", "--mode", "text"]) == 1
    assert capsys.readouterr() == ("", "memtui search: no matches\n")


def test_hybrid_is_the_default_with_a_model_and_keeps_the_text_hits(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configure_model(tmp_path)
    assert main(["search", str(store), "volvoo kitchen dinner"]) == 0
    assert capsys.readouterr().out == (
        "garage.md\n"
        "      5  body        ## Dinner\n"
        "      3  body        The volvo is serviced each spring.\n"
    )
    assert main(["search", str(store), "palette scheme", "--mode", "hybrid", "--folder", "x"]) == 1


def test_without_a_model_meaning_is_one_line_and_the_search_is_by_text(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", str(store), "volvo", "--mode", "meaning"]) == 0
    assert capsys.readouterr() == (
        "garage.md\n      3  body        The volvo is serviced each spring.\n",
        f"memtui search: {TURN_ON}; searching by text\n",
    )
    assert main(["search", str(store), "volvo"]) == 0
    assert capsys.readouterr() == (
        "garage.md\n      3  body        The volvo is serviced each spring.\n",
        "",
    )


def test_a_bad_mode_is_one_line(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", str(store), "volvo mode:fast"]) == 2
    assert capsys.readouterr().err == (
        "memtui search: mode:fast is not a search mode (mode:text, mode:meaning, mode:hybrid)\n"
    )
