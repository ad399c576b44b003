"""Approximate nearest neighbours for the update grouping of large namespaces.

:func:`~memmaint.maintenance.agents.updates.group_updates` reads each memory's few nearest
others of its namespace. Exactly that is a full matrix product, quadratic in the namespace
(about 1.5 s at 20,000 memories on 2 cores, hours at a million), so above
:data:`~memmaint.maintenance.agents.updates.EXACT_MAX` memories the neighbours come from an
inverted-file search instead:

1. **cells**: a spherical k-means (a few Lloyd steps on a seeded sample, every centroid of
   unit length) cuts the namespace into cells of about ``max(CELL, sqrt(n))`` memories;
2. **spill**: every memory is listed in its :data:`PROBES` nearest cells, so that two near
   memories on either side of a border still share a cell;
3. **search**: inside each cell, each member's ``k`` nearest other members at cosine >=
   the floor (one small matrix product per cell; a cell over :data:`MAX_CELL` times the aim
   is cut again, without spill); each memory keeps the ``k`` best over its cells.

The cost is about ``n x PROBES**2 x max(CELL, sqrt(n))`` cosines (``n**1.5``) instead of
``n x n``. It is approximate: a
neighbour whose cell is neither of a memory's two nearest ones is missed
(``benchmarks/group_updates.py --recall`` measures the share of the exact pairs found). The
result is deterministic (a fixed seed).

The rules' planning of one large cluster reads candidate pairs instead of every pair
(:func:`~memmaint.maintenance.agents.updates.cluster_partners`); :func:`jaccard_pairs` gives
it, exactly, every pair of word sets whose Jaccard similarity reaches a threshold, without
comparing every pair (prefix filtering).
"""

from __future__ import annotations

import math

import numpy as np

# the cells, their k-means and constants are shared with the place stage and the noise
# regrouping: clustering.cells (PROBES, MAX_CELL, STEPS, SAMPLE_PER_CELL are there)
from memmaint.clustering.cells import BLOCK, CELL
from memmaint.clustering.cells import cells as _cells


def approximate_pairs(unit: np.ndarray, rows: np.ndarray, k: int, floor: float,
                      *, seed: int = 0) -> np.ndarray:
    """Row pairs ``(a, b)``, ``a < b``, sorted and unique, as an ``(m, 2)`` array: each
    memory with (about) its ``k`` nearest others at cosine >= ``floor``, found in cells (the
    module docstring). ``unit``: float32 unit vectors, position ``i`` being row ``rows[i]``."""
    n = len(unit)
    rng = np.random.default_rng(seed)
    src: list[np.ndarray] = []
    dst: list[np.ndarray] = []
    sim: list[np.ndarray] = []
    for members in _cells(unit, np.arange(n), rng, max(CELL, math.isqrt(n)), spill=True):
        m = len(members)
        if m < 2:
            continue
        kk = min(k, m - 1)
        vecs = unit[members]
        for start in range(0, m, BLOCK):
            block = vecs[start:start + BLOCK] @ vecs.T
            local = np.arange(len(block))
            block[local, start + local] = -np.inf
            top = np.argpartition(-block, kk - 1, axis=1)[:, :kk]
            s = np.take_along_axis(block, top, axis=1)
            keep = s >= floor
            src.append(np.repeat(members[start + local], kk)[keep.reshape(-1)])
            dst.append(members[top][keep])
            sim.append(s[keep])
    if not src:
        return np.zeros((0, 2), dtype=np.int64)
    a, b, s = np.concatenate(src), np.concatenate(dst), np.concatenate(sim)
    key = a * n + b  # one candidate per (memory, other): a pair found in both cells
    key, first = np.unique(key, return_index=True)
    a, b, s = a[first], b[first], s[first]
    order = np.lexsort((-s, a))  # each memory's candidates, nearest first
    a, b = a[order], b[order]
    starts = np.flatnonzero(np.r_[True, a[1:] != a[:-1]])
    rank = np.arange(len(a)) - np.repeat(starts, np.diff(np.r_[starts, len(a)]))
    a, b = a[rank < k], b[rank < k]
    ra, rb = rows[a], rows[b]
    pairs = np.stack([np.minimum(ra, rb), np.maximum(ra, rb)], axis=1)
    return np.unique(pairs, axis=0)


def jaccard_pairs(sets: list[frozenset[str]], threshold: float) -> list[tuple[int, int]]:
    """Every pair ``(i, j)``, ``i < j``, of ``sets`` with Jaccard similarity >= ``threshold``
    (> 0; an empty set has none), sorted. Exact, by prefix filtering: with the words ordered
    rarest first, two sets that reach the threshold share a word among the first ``|x| -
    ceil(threshold * |x|) + 1`` of each, so only pairs sharing such a word are compared."""
    if threshold <= 0:
        raise ValueError(f"threshold must be > 0, got {threshold}")
    freq: dict[str, int] = {}
    for words in sets:
        for w in words:
            freq[w] = freq.get(w, 0) + 1
    index: dict[str, list[int]] = {}
    found: set[tuple[int, int]] = set()
    for i, words in enumerate(sets):
        if not words:
            continue
        ordered = sorted(words, key=lambda w: (freq[w], w))
        need = max(1, math.ceil(threshold * len(ordered) - 1e-9))
        seen: set[int] = set()
        for w in ordered[:len(ordered) - need + 1]:
            for j in index.get(w, ()):
                if j in seen:
                    continue
                seen.add(j)
                other = sets[j]
                if len(words & other) >= threshold * len(words | other) - 1e-12:
                    found.add((j, i))
            index.setdefault(w, []).append(i)
    return sorted(found)


__all__ = ["CELL", "approximate_pairs", "jaccard_pairs"]
