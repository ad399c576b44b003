"""Which queries served each memory, and what came of it: outcome evidence tied to a need.

The counters on a memory (``successes``, ``failures``) say how often it helped, not *for
what*. A memory proven on one question says little about another question of the same
domain, and a memory that failed for one question may be the right answer to another. A
:class:`ServeLog` keeps, per use, the query's vector and the verdict, so that:

retrieval weighs a memory's record only for queries like the ones that earned it
(:func:`matched_counts`: the uses whose query has cosine >= ``agents.outcome_query_match``
with the new query), and lets that record decide in proportion to how much of it there is
(:class:`memmaint.maintenance.retrieve.search.Retriever`, ``served=``).

A memory with no entry in the log is judged by its counters as before. The log holds vectors,
not texts: it is built by whoever embedded the queries, with the pool's embedder: the search
service from the store's serve history (``store.serve_history``: feedback recorded with its
query), the evaluation (``memmaint eval outcomes --part dev|validation``) from its set.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memmaint.maintenance.core.errors import InputError

Key = tuple[str, str]  # (namespace, memory id)


@dataclass(frozen=True)
class ServeLog:
    """Uses of memories: ``keys[i]`` was served for the query ``vectors[i]`` and helped
    (``outcomes[i] == 1``), failed (``0``) or was used without a verdict (``nan``).

    Rows of ``vectors`` are scaled to unit length on construction.
    """

    keys: tuple[Key, ...]
    vectors: Any
    outcomes: Any
    _rows: dict[Key, np.ndarray] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        vecs = np.asarray(self.vectors, dtype=np.float64)
        outs = np.asarray(self.outcomes, dtype=np.float64).reshape(-1)
        n = len(self.keys)
        if vecs.ndim != 2 or vecs.shape[0] != n or outs.shape[0] != n:
            raise InputError(f"a serve log needs {n} query vectors and {n} outcomes, got "
                             f"{vecs.shape} and {outs.shape}")
        if not np.all(np.isfinite(vecs)):
            raise InputError("serve log query vectors contain NaN or infinite values")
        if not np.all(np.isnan(outs) | (outs == 0.0) | (outs == 1.0)):
            raise InputError("serve log outcomes must be 1 (helped), 0 (failed) or NaN (used)")
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        rows: dict[Key, list[int]] = {}
        for i, key in enumerate(self.keys):
            rows.setdefault(key, []).append(i)
        object.__setattr__(self, "vectors", vecs / norms)
        object.__setattr__(self, "outcomes", outs)
        object.__setattr__(self, "_rows", {k: np.asarray(v, dtype=np.int64)
                                          for k, v in rows.items()})

    @classmethod
    def empty(cls, dim: int) -> ServeLog:
        return cls((), np.zeros((0, dim)), np.zeros(0))

    def __len__(self) -> int:
        return len(self.keys)

    def rows(self, key: Key) -> np.ndarray:
        """Indices of ``key``'s uses (empty when it has none)."""
        return self._rows.get(key, np.zeros(0, dtype=np.int64))


def closest_question(log: ServeLog, keys: Sequence[Key], query: Any) -> float:
    """The best cosine between ``query`` and a past query that served one of ``keys`` (-1
    when none has a use in the log): the question in the log most like this one."""
    rows = [log.rows(key) for key in keys]
    rows = [r for r in rows if len(r)]
    if not rows:
        return -1.0
    q = np.asarray(query, dtype=np.float64).reshape(-1)
    norm = float(np.linalg.norm(q))
    return float((log.vectors[np.concatenate(rows)] @ (q / norm if norm > 0 else q)).max())


def matched_counts(log: ServeLog, keys: Sequence[Key], query: Any, match: float,
                   nearest_floor: float = -np.inf,
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per key, the evidence that applies to ``query``: ``(successes, failures, logged,
    closest)``, the successes and failures among its uses whose query is the same question,
    whether it has any use in the log, and its best cosine with ``query`` (-1 without uses).

    A past query is the same question when its cosine with ``query`` is at least ``match``
    and the key's closest past query reaches ``nearest_floor`` (a key whose every question is
    further from ``query`` than that served a neighbouring question: none of its uses count).
    Outcomes of uses for other questions do not count."""
    n = len(keys)
    s, f = np.zeros(n), np.zeros(n)
    logged, closest = np.zeros(n, dtype=bool), np.full(n, -1.0)
    if not len(log):
        return s, f, logged, closest
    q = np.asarray(query, dtype=np.float64).reshape(-1)
    norm = float(np.linalg.norm(q))
    cos = log.vectors @ (q / norm if norm > 0 else q)
    weight = (cos >= match).astype(np.float64)
    for i, key in enumerate(keys):
        rows = log.rows(key)
        if not len(rows):
            continue
        logged[i] = True
        c = cos[rows]
        closest[i] = float(c.max())
        if closest[i] < nearest_floor:
            continue
        out, wt = log.outcomes[rows], weight[rows]
        s[i] = float(np.sum(wt[out == 1.0]))
        f[i] = float(np.sum(wt[out == 0.0]))
    return s, f, logged, closest
