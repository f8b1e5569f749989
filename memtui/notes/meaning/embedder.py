"""The embedding model: a model2vec static model named in the config (a model name the library
downloads once, or a local folder), loaded once per process, giving unit vectors."""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from memtui.notes.meaning import TURN_ON, missing_packages

EMBED_BATCH = 1024
"""Texts encoded per call of the model."""


class MeaningUnavailable(Exception):
    """Search by meaning cannot be used; the message is one line for the user."""


class Embedder(Protocol):
    """Turns texts into unit vectors of `dims` float32 numbers (a zero vector for a text with no
    known token); `identity` names the model and its weights, so vectors of another are redone."""

    identity: str
    dims: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """The (len(texts), dims) float32 matrix of the texts' unit vectors."""
        ...


class StaticEmbedder:
    """A model2vec `StaticModel`: a token's vector looked up and averaged (numpy only)."""

    def __init__(self, model: Any, spec: str) -> None:
        """Wrap a loaded model; `spec` is the config's name for it."""
        self._model = model
        self.dims = int(model.dim)
        self.identity = f"model2vec:{spec}:{self.dims}:{_fingerprint(model)}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """The texts' unit vectors (encoded in this thread: no helper processes)."""
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        vectors = self._model.encode(
            list(texts), batch_size=EMBED_BATCH, use_multiprocessing=False, normalize=False
        )
        return unit_rows(np.asarray(vectors, dtype=np.float32).reshape(len(texts), self.dims))


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """`matrix` with every non-zero row scaled to length 1 (zero rows stay zero)."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    np.maximum(norms, 1e-12, out=norms)
    return (matrix / norms).astype(np.float32, copy=False)


def _fingerprint(model: Any) -> str:
    """A short digest of the model's vocabulary size and first vectors: a model replaced under
    the same name gets a different identity."""
    digest = hashlib.sha256()
    embedding = np.asarray(model.embedding)
    digest.update(repr((embedding.shape, str(embedding.dtype), len(model.tokens))).encode())
    digest.update(np.ascontiguousarray(embedding[:64]).tobytes())
    return digest.hexdigest()[:12]


def is_folder_spec(spec: str) -> bool:
    """Whether the config names a local folder (absolute, `~` or `.`-relative) rather than a model
    name for the library to download."""
    return spec.startswith(("/", "~", ".")) or os.path.isabs(spec)


_loaded: dict[str, StaticEmbedder] = {}
_loading = threading.Lock()


def load_embedder(spec: str) -> StaticEmbedder:
    """The model the config names, loaded once per process; raises MeaningUnavailable (one line)
    when the extra is missing, the folder holds no model, or the name cannot be downloaded."""
    spec = spec.strip()
    if not spec:
        raise MeaningUnavailable(TURN_ON)
    with _loading:
        found = _loaded.get(spec)
        if found is None:
            found = _loaded[spec] = StaticEmbedder(_load_model(spec), spec)
        return found


def _load_model(spec: str) -> Any:
    """The model2vec model of a folder or a model name (fetched once into the library's cache)."""
    missing = missing_packages()
    if missing:
        raise MeaningUnavailable(f"{TURN_ON} (missing: {', '.join(missing)})")
    from model2vec import StaticModel

    if is_folder_spec(spec):
        folder = Path(spec).expanduser()
        if not folder.is_dir():
            raise MeaningUnavailable(f"[search] model: {folder} is not a folder")
        source = str(folder)
    else:
        source = spec
    try:
        return StaticModel.from_pretrained(source, force_download=False)
    except Exception as error:
        reason = " ".join(str(error).split())[:200] or type(error).__name__
        raise MeaningUnavailable(f"[search] model {spec!r} cannot be loaded: {reason}") from None
