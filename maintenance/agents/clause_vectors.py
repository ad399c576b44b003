"""Vectors for the clauses of a memory, so that a merge compares clauses by what they mean.

The pipeline embeds whole memories. A memory of several sentences mixes its clauses in one
vector, so the merge's clause test (:func:`~memmaint.maintenance.agents.consolidate.
clause_covered`) could only compare such clauses word by word, and an informal restatement
("growth tier: $49/month" beside "The Growth plan costs $49 a month") was appended as news.
:func:`clause_embedder` embeds clauses with the run's own embedder (the ``[embedding]``
section of the configuration the planner is given), once per text per process, and only for
the memories of a merge group.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from memmaint.maintenance.core.config import EmbeddingConfig
from memmaint.maintenance.embed.base import Embedder, get_embedder

#: Texts in, unit rows out (one per text, in order); ``None`` when the embedder failed (the
#: merge then compares those clauses by their words, as without clause vectors).
ClauseEmbedder = Callable[[Sequence[str]], "np.ndarray | None"]

log = logging.getLogger(__name__)

_CACHE_LIMIT = 100_000  # clause vectors kept per embedder configuration


@lru_cache(maxsize=4)
def _embedder(config: EmbeddingConfig) -> Embedder:
    return get_embedder(config)


@lru_cache(maxsize=4)
def _vectors(config: EmbeddingConfig) -> dict[str, np.ndarray]:
    return {}


def clause_embedder(config: Any) -> ClauseEmbedder | None:
    """The clause embedder of a whole configuration (its ``[embedding]`` section), or
    ``None`` for anything else (an ``AgentsConfig`` alone: clauses are then compared by
    their words and the memories' vectors, as before). After the embedder fails once (one
    warning), it answers ``None`` without trying again."""
    emb = getattr(config, "embedding", None)
    if not isinstance(emb, EmbeddingConfig):
        return None

    failed: list[Exception] = []  # after one failure, no more tries in this plan

    def embed(texts: Sequence[str]) -> np.ndarray | None:
        if failed:
            return None
        cache = _vectors(emb)
        todo = [t for t in dict.fromkeys(texts) if t not in cache]
        if todo:
            if len(cache) + len(todo) > _CACHE_LIMIT:
                cache.clear()
            try:
                found = _embedder(emb).embed(todo)
            except Exception as exc:  # noqa: BLE001 - a refinement must not fail the plan
                # (an embedding endpoint down, a missing extra): compare by words instead
                failed.append(exc)
                log.warning("clause vectors unavailable (%s); merges compare clauses by "
                            "their words", exc)
                return None
            cache.update(zip(todo, found))
        if not texts:
            return np.zeros((0, 1), dtype=np.float32)
        return np.stack([cache[t] for t in texts])

    return embed


__all__ = ["ClauseEmbedder", "clause_embedder"]
