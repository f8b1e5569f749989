"""A small model2vec model made by the tests (a word-level tokenizer and a vector table saved to a
temporary folder, never fetched), and stores indexed with it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pytest
from model2vec import StaticModel
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

CONCEPTS = {
    "vehicle": ("car", "automobile", "vehicle", "volvo", "garage"),
    "colour": ("theme", "colours", "dark", "scheme", "palette"),
    "food": ("meal", "pasta", "food", "dinner", "cooking"),
    "type": ("typeface", "font", "fonts", "monospace", "lettering"),
    "animal": ("dog", "puppy", "beagle", "cat", "kitten"),
}
"""Words of one concept share a direction in the test model: its idea of meaning."""


def make_model(folder: Path, concepts: Mapping[str, tuple[str, ...]] = CONCEPTS) -> Path:
    """Save a model2vec model whose words of one concept have the same unit vector."""
    vocab = {"[UNK]": 0, "[PAD]": 1}
    rows = [np.zeros(len(concepts)), np.zeros(len(concepts))]
    for axis, words in enumerate(concepts.values()):
        for word in words:
            vocab[word] = len(vocab)
            rows.append(np.eye(len(concepts))[axis])
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    model = StaticModel(np.asarray(rows, dtype=np.float32), tokenizer, normalize=True)
    model.save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def model_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of the test-made model."""
    return make_model(tmp_path_factory.mktemp("model"))


def write(root: Path, files: dict[str, str]) -> None:
    """Write files under `root`."""
    for relpath, text in files.items():
        target = root / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
