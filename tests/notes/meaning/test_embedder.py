"""Loading the model the config names: a local folder (the tests make one), one-line errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memtui.notes import meaning
from memtui.notes.meaning import TURN_ON, off_reason
from memtui.notes.meaning.embedder import MeaningUnavailable, is_folder_spec, load_embedder
from tests.notes.meaning.conftest import make_model


def test_a_folder_model_loads_once_and_gives_unit_vectors(model_folder: Path) -> None:
    embedder = load_embedder(str(model_folder))
    assert load_embedder(str(model_folder)) is embedder
    assert embedder.dims == 5
    assert embedder.identity.startswith(f"model2vec:{model_folder}:5:")
    vectors = embedder.embed(["Car", "the automobile and dinner", "nothing known here"])
    assert vectors.dtype == np.float32 and vectors.shape == (3, 5)
    assert vectors[0].tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]
    assert np.allclose(vectors[1], [2**-0.5, 0, 2**-0.5, 0, 0])
    assert not vectors[2].any()
    assert embedder.embed([]).shape == (0, 5)


def test_another_model_in_the_same_place_has_another_identity(tmp_path: Path) -> None:
    first = load_embedder(str(make_model(tmp_path / "a", {"x": ("car",), "y": ("meal",)})))
    second = load_embedder(
        str(make_model(tmp_path / "b", {"x": ("car",), "y": ("meal",), "z": ("cat",)}))
    )
    assert first.identity.split(":")[-1] != second.identity.split(":")[-1]


def test_a_missing_folder_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(MeaningUnavailable) as error:
        load_embedder(str(tmp_path / "nowhere"))
    assert str(error.value) == f"[search] model: {tmp_path / 'nowhere'} is not a folder"


def test_a_folder_without_a_model_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(MeaningUnavailable) as error:
        load_embedder(str(tmp_path))
    message = str(error.value)
    assert message.startswith(f"[search] model '{tmp_path}' cannot be loaded: ")
    assert "\n" not in message


def test_without_the_extra_the_message_says_how_to_turn_it_on(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(meaning, "REQUIRED", ("numpy", "no_such_package_for_memtui"))
    assert off_reason("minishlab/potion-base-8M") == TURN_ON
    with pytest.raises(MeaningUnavailable) as error:
        load_embedder(str(tmp_path / "elsewhere"))
    assert str(error.value) == f"{TURN_ON} (missing: no_such_package_for_memtui)"


def test_turned_off_without_a_model_and_on_with_one() -> None:
    assert off_reason(None) == TURN_ON
    assert off_reason("") == TURN_ON
    assert off_reason("minishlab/potion-base-8M") is None
    assert TURN_ON == (
        "search by meaning is off: pip install 'memtui[meaning]' and set "
        '[search] model = "minishlab/potion-base-8M" in config.toml'
    )


@pytest.mark.parametrize(
    ("spec", "folder"),
    [
        ("/opt/models/potion", True),
        ("~/models/potion", True),
        ("./potion", True),
        ("minishlab/potion-base-8M", False),
        ("potion-base-8M", False),
    ],
)
def test_folders_and_names(spec: str, folder: bool) -> None:
    assert is_folder_spec(spec) is folder
