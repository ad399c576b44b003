"""A pool's own scale, and each memory's nearest semantic neighbour (issue #20).

Reducers z-score every map, so an absolute radius covers a fixed share of the map whatever the
pool's density: a radius tuned on pools of 10 paraphrases per class lumps pools of 2 together.
:func:`pool_scale` measures the pool instead (a quantile of its nearest-neighbour distances),
so ``R = R_rel * pool_scale(X)`` (GenKT) and ``epsilon = epsilon_rel * pool_scale(X)``
(HDBSCAN) mean the same on every pool: scaling the coordinates by any factor scales the
radius with them, and a pool duplicated into two far-apart copies keeps its scale.

:func:`best_cosines` is the one-off guard's measure: each row's highest cosine to any other
row of the original embeddings (blocked products, never an n x n matrix); :func:`lone_rows`
answers the guard's question (is it below the cut?) with the same products for only the rows
that no candidate neighbour settles first.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["BLOCK_ROWS", "best_cosines", "lone_rows", "nn_distances", "pool_scale"]

#: rows per block of the blocked products (block x n floats at a time)
BLOCK_ROWS = 1024


def nn_distances(X: Any) -> np.ndarray:
    """Euclidean distance from each row of ``X`` (n, d) to its nearest other row (n values;
    a single row gets ``inf``)."""
    from sklearn.neighbors import NearestNeighbors

    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    if n < 2:
        return np.full(n, np.inf)
    nn = NearestNeighbors(n_neighbors=2).fit(X)
    dist, idx = nn.kneighbors(X)
    # with exact duplicates the row itself may come second: take the other column then
    self_first = idx[:, 0] == np.arange(n)
    return np.where(self_first, dist[:, 1], dist[:, 0]).astype(np.float64)


def pool_scale(X: Any, quantile: float = 0.5) -> float:
    """The pool's scale: the ``quantile`` (0 < q <= 1) of the positive nearest-neighbour
    distances of the rows of ``X`` (exact duplicates say nothing about spacing).

    Homogeneous (``pool_scale(c * X) == c * pool_scale(X)`` for c > 0) and unchanged when the
    pool is duplicated into a far-apart copy. 1.0 when no distance is positive (one row, or
    all rows equal), so a relative radius is then a plain positive one.
    """
    if not 0.0 < quantile <= 1.0:
        raise ValueError(f"quantile must be in (0, 1], got {quantile}")
    d = nn_distances(X)
    d = d[np.isfinite(d) & (d > 0)]
    if d.size == 0:
        return 1.0
    return float(np.quantile(d, quantile, method="lower"))


def _unit_rows(embeddings: Any) -> tuple[np.ndarray, np.ndarray]:
    E = np.asarray(embeddings, dtype=np.float64)
    norms = np.linalg.norm(E, axis=1)
    E = np.divide(E, norms[:, None], out=np.zeros_like(E), where=norms[:, None] > 0)
    return E, norms


def best_cosines(embeddings: Any, block_rows: int = BLOCK_ROWS, rows: Any = None) -> np.ndarray:
    """Each row's highest cosine to any other row (rows normalised here; -1 for a lone row
    and for zero rows); with ``rows`` (indices), only those rows', in that order."""
    E, norms = _unit_rows(embeddings)
    n = E.shape[0]
    idx = np.arange(n) if rows is None else np.asarray(rows, dtype=np.int64)
    out = np.full(idx.size, -1.0)
    if n < 2:
        return out
    for start in range(0, idx.size, block_rows):
        part = idx[start:start + block_rows]
        sims = E[part] @ E.T
        sims[np.arange(part.size), part] = -np.inf
        out[start:start + part.size] = np.max(sims, axis=1)
    out[norms[idx] == 0] = -1.0
    return np.clip(out, -1.0, 1.0)


def lone_rows(embeddings: Any, threshold: float, candidates: Any = None,
              block_rows: int = BLOCK_ROWS) -> np.ndarray:
    """Which rows have no other row at cosine >= ``threshold``: ``best_cosines(E) <
    threshold``, computed for fewer rows. ``candidates`` (n, k) row indices (-1: none), for
    example each row's nearest neighbours in a reduced map, are tried first: a row with a
    candidate at or above the threshold is settled, and only the others get the blocked
    products against every row. Zero rows are always lone. The same answer as
    ``best_cosines`` up to the rounding of a cosine equal to the threshold.
    """
    E, norms = _unit_rows(embeddings)
    n = E.shape[0]
    lone = np.ones(n, dtype=bool)
    if n < 2:
        return lone
    todo = np.ones(n, dtype=bool)
    if candidates is not None:
        C = np.asarray(candidates, dtype=np.int64)
        if C.ndim != 2 or C.shape[0] != n:
            raise ValueError(f"candidates must have shape (n, k) with n = {n}, got {C.shape}")
        for start in range(0, n, block_rows):  # (block, k, dim) floats at a time
            stop = min(n, start + block_rows)
            Cb = C[start:stop]
            ok = (Cb >= 0) & (Cb < n) & (Cb != np.arange(start, stop)[:, None])
            sims = np.einsum("ij,ikj->ik", E[start:stop], E[np.where(ok, Cb, 0)])
            hit = (ok & (sims >= threshold)).any(axis=1) & (norms[start:stop] > 0)
            lone[start:stop][hit] = False
            todo[start:stop][hit] = False
    todo &= norms > 0
    idx = np.flatnonzero(todo)
    lone[idx] = ~(best_cosines(E, block_rows, rows=idx) >= threshold)
    return lone
