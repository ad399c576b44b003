"""Inverted-file cells: approximate cosine searches over large pools (issue #38).

One spherical k-means (a few Lloyd steps on a seeded sample, every centroid of unit length)
cuts a pool into cells; a search then compares a vector only with the members of a few
cells instead of the whole pool. Three users, one implementation:

- the update grouping's neighbours (``maintenance.agents.neighbours``: :func:`cells`, each
  memory listed in its :data:`PROBES` nearest cells, then each cell searched alone);
- the place stage above ``incremental.PLACE_EXACT_MAX`` (``incremental._nearest_cells``:
  :func:`nearest_in_cells`);
- the noise regrouping above ``regroup.EXACT_MAX`` cosines (``clustering.regroup``: both).

Everything is seeded (the same cells for the same vectors); what it decides rests on float32
products as the exact searches' do. A near pair whose members share no searched cell is
missed: each user measures how often.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["BLOCK", "CELL", "MAX_CELL", "PROBES", "SAMPLE_PER_CELL", "STEPS", "cells",
           "kmeans", "nearest_centres", "nearest_in_cells"]

#: Members per cell :func:`cells` aims at, at least (``sqrt(n)`` above 512**2 vectors, so
#: that both the cells' assignment and their searches grow as ``n**1.5``); each cell holds
#: about :data:`PROBES` times that with the spill.
CELL = 512
#: Cells each vector is listed in by :func:`cells` (its nearest ones).
PROBES = 3
#: A cell larger than this many times the aim is cut again (a k-means of its own, no spill).
MAX_CELL = 4
#: Lloyd steps of the k-means, on :data:`SAMPLE_PER_CELL` vectors per cell.
STEPS = 6
SAMPLE_PER_CELL = 20
#: Rows of one matrix-product block (float32): bounds the memory of a step.
BLOCK = 4096


def nearest_centres(unit: np.ndarray, centres: np.ndarray, p: int) -> np.ndarray:
    """Each row's ``p`` nearest centres, nearest first (``(n, min(p, len(centres)))``)."""
    p = min(p, len(centres))
    out = np.empty((len(unit), p), dtype=np.int64)
    for start in range(0, len(unit), BLOCK):
        sims = unit[start:start + BLOCK] @ centres.T
        if p == 1:
            out[start:start + len(sims), 0] = np.argmax(sims, axis=1)
            continue
        top = np.argpartition(-sims, p - 1, axis=1)[:, :p]
        order = np.argsort(-np.take_along_axis(sims, top, axis=1), axis=1, kind="stable")
        out[start:start + len(sims)] = np.take_along_axis(top, order, axis=1)
    return out


def kmeans(unit: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """``k`` unit centroids of a spherical k-means on a sample of ``unit``."""
    n = len(unit)
    sample = unit[np.sort(rng.choice(n, size=min(n, k * SAMPLE_PER_CELL), replace=False))]
    centres = sample[rng.choice(len(sample), size=k, replace=False)].copy()
    for _ in range(STEPS):
        near = nearest_centres(sample, centres, 1)[:, 0]
        sums = np.zeros_like(centres)
        np.add.at(sums, near, sample)
        norms = np.linalg.norm(sums, axis=1)
        full = norms > 0  # an empty cell keeps its centre
        centres[full] = sums[full] / norms[full, None]
    return centres


def cells(unit: np.ndarray, idx: np.ndarray, rng: np.random.Generator, aim: int,
          spill: bool, depth: int = 0) -> list[np.ndarray]:
    """Positions (into ``unit``) grouped into cells of at most about ``MAX_CELL * aim``;
    with ``spill``, each position in its :data:`PROBES` nearest cells."""
    if len(idx) <= MAX_CELL * aim:
        return [idx]
    k = min(math.ceil(len(idx) / aim), len(idx))
    sub = unit[idx]
    near = nearest_centres(sub, kmeans(sub, k, rng), PROBES if spill else 1)
    cell = near.T.reshape(-1)
    member = np.tile(idx, near.shape[1])
    order = np.argsort(cell, kind="stable")
    bounds = np.flatnonzero(np.diff(cell[order])) + 1
    out: list[np.ndarray] = []
    for part in np.split(member[order], bounds):
        if len(part) > MAX_CELL * aim and (len(part) < len(idx) or spill) and depth < 8:
            out.extend(cells(unit, part, rng, aim, False, depth + 1))
        elif len(part) > MAX_CELL * aim:  # the k-means could not cut it (identical vectors)
            out.extend(np.array_split(part, math.ceil(len(part) / aim)))
        else:
            out.append(part)
    return out


def nearest_in_cells(queries: np.ndarray, base: np.ndarray, *, probes: int,
                     cells: int | None = None, spill: int = 1, seed: int = 0,
                     block: int = 256) -> tuple[np.ndarray, np.ndarray]:
    """Best cosine and its row in ``base`` for every row of ``queries`` (unit float32 rows),
    approximately: ``base`` is cut into ``k`` cells (``cells``, else ``sqrt(len(queries) *
    probes)``) by :func:`kmeans` (seeded), each base row listed in its ``spill`` nearest
    cells, and each query compared only with the members of its ``probes`` nearest cells
    (``block`` queries per product). The default ``k`` balances the two costs (assigning
    the base: ``n k`` cosines; the searches: ``q probes n / k``). A nearest row outside the
    probed cells is missed and a worse one returned (or none: cosine -inf, where every probed
    cell is empty); where the exact nearest is found, the result is the exact one (ties: the
    lowest row)."""
    q, n = len(queries), len(base)
    best = np.full(q, -np.inf, dtype=np.float32)
    arg = np.zeros(q, dtype=np.int64)
    if not q or not n:
        return best, arg
    k = min(n, cells or max(probes, math.ceil(math.sqrt(q * probes))))
    centres = kmeans(base, k, np.random.default_rng(seed))
    near = nearest_centres(base, centres, spill)  # (n, spill)
    cell = near.T.reshape(-1)
    brow = np.tile(np.arange(n), near.shape[1])
    order = np.argsort(cell, kind="stable")  # members of each cell in row order
    bounds = np.searchsorted(cell[order], np.arange(k + 1))
    order = brow[order]
    probe = nearest_centres(queries, centres, probes)
    qcell = probe.reshape(-1)
    qrow = np.repeat(np.arange(q), probe.shape[1])
    qorder = np.argsort(qcell, kind="stable")
    qbounds = np.searchsorted(qcell[qorder], np.arange(k + 1))
    for c in range(k):
        members = order[bounds[c]:bounds[c + 1]]
        who = qrow[qorder[qbounds[c]:qbounds[c + 1]]]
        if not members.size or not who.size:
            continue
        vecs = base[members]
        for s in range(0, len(who), block):
            w = who[s:s + block]
            sims = queries[w] @ vecs.T
            a = np.argmax(sims, axis=1)
            b = sims[np.arange(len(w)), a]
            r = members[a]
            better = (b > best[w]) | ((b == best[w]) & (r < arg[w]))
            best[w[better]] = b[better]
            arg[w[better]] = r[better]
    return best, arg
