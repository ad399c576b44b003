"""The ``hashing`` embedder: deterministic feature hashing, no model (fast tests)."""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Sequence

import numpy as np

from memmaint.maintenance.core.config import EmbeddingConfig
from memmaint.maintenance.embed.base import check_texts, normalise_rows

_WORD = re.compile(r"\w+")


class HashingEmbedder:
    """Deterministic feature hashing of word unigrams and bigrams (signed), L2-normalised.

    No model, no randomness across runs or machines: texts that share words get similar
    vectors, so clustering tests stay meaningful. A text with no word characters hashes its
    stripped self, so every row is a unit vector.
    """

    max_tokens: int | None = None

    def __init__(self, dim: int = 384, seed: int = 0, bigram_weight: float = 0.5) -> None:
        if dim < 1:
            raise ValueError("dim must be >= 1")
        self.dim = int(dim)
        self.seed = int(seed)
        self.bigram_weight = float(bigram_weight)
        self.model_id = f"hashing-v1-d{self.dim}-s{self.seed}"
        if self.bigram_weight != 0.5:
            self.model_id += f"-b{self.bigram_weight:g}"
        self.last_truncated = 0
        self._key = self.seed.to_bytes(8, "little", signed=True)
        self._cache: dict[str, int] = {}

    def __repr__(self) -> str:
        return f"HashingEmbedder(dim={self.dim}, seed={self.seed})"

    def _code(self, feature: str) -> int:
        """``±(column + 1)``: the feature's hashed column and sign, cached."""
        h = int.from_bytes(
            hashlib.blake2b(feature.encode("utf-8"), digest_size=8, key=self._key).digest(),
            "little",
        )
        code = (h % self.dim + 1) * (1 if h >> 63 else -1)
        if len(self._cache) > 500_000:
            self._cache.clear()
        self._cache[feature] = code
        return code

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = check_texts(texts)
        self.last_truncated = 0
        cache = self._cache
        codes: list[int] = []
        n_feats = np.zeros(len(texts), dtype=np.int64)
        n_words = np.zeros(len(texts), dtype=np.int64)
        for r, text in enumerate(texts):
            words = _WORD.findall(text.casefold())
            if words:
                feats = words + [f"{a} {b}" for a, b in itertools.pairwise(words)]
            else:
                feats = ["\x00" + text.strip()]
            for f in feats:
                code = cache.get(f)
                codes.append(code if code is not None else self._code(f))
            n_feats[r] = len(feats)
            n_words[r] = max(len(words), 1)
        out: np.ndarray = np.zeros(len(texts) * self.dim, dtype=np.float64)
        if codes:
            c = np.asarray(codes, dtype=np.int64)
            owner = np.repeat(np.arange(len(texts)), n_feats)
            pos = np.arange(len(c)) - np.repeat(np.cumsum(n_feats) - n_feats, n_feats)
            weight = np.where(pos < n_words[owner], 1.0, self.bigram_weight) * np.sign(c)
            out = np.bincount(owner * self.dim + np.abs(c) - 1, weights=weight,
                              minlength=out.size)
        out = out.reshape(len(texts), self.dim)
        # features can cancel exactly (opposite signs, same column); fall back to a fixed axis
        out[~out.any(axis=1), 0] = 1.0
        return normalise_rows(out)


def hashing_from_config(config: EmbeddingConfig) -> HashingEmbedder:
    """The ``hashing`` entry of the embedder registry (``embedding.dim``)."""
    return HashingEmbedder(dim=config.dim)


__all__ = ["HashingEmbedder", "hashing_from_config"]
