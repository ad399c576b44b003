"""Each loose memory's nearest routing centroid (issue #38).

A routing table attaches every active noise memory to its nearest centroid when their cosine
reaches the attach floor (:mod:`memmaint.maintenance.retrieve.routing`). Exactly, that is one
product of every loose memory with every centroid: on the 1M benchmark store 360k loose
memories x 48k clusters, 164 s of a 975 s night, although only the night's new memories and
touched clusters changed.

Up to :data:`EXACT_MAX` cosines the search is exact (float64, in blocks); above it, as the
noise regrouping and the place stage do at that size, the centroids are cut into
inverted-file cells (:func:`memmaint.clustering.cells.nearest_in_cells`, seeded) and each
loose memory is compared with the centroids of its :data:`PROBES` nearest cells, in float32.
A nearest centroid outside the probed cells is missed and the next best taken (or none, below
the floor): ``benchmarks/routing_attach.py`` measures how often on a real store.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["EXACT_MAX", "PROBES", "nearest_centroids"]

#: Loose memories x centroids up to which the attach search is exact (as
#: :data:`memmaint.clustering.regroup.EXACT_MAX`): 40k loose x 10k clusters at 100k.
EXACT_MAX = 2_000_000_000
#: Cells of centroids each loose memory is compared with above :data:`EXACT_MAX`.
PROBES = 16


def nearest_centroids(x: np.ndarray, rows: np.ndarray, cents: np.ndarray, *,
                      exact_max: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(position, cosine)`` of the nearest of ``cents`` for each row ``x[rows]`` (unit rows
    both; ``len(cents) >= 1``). Exact up to ``exact_max`` (default :data:`EXACT_MAX`)
    cosines, in blocks of about 4M products (ties: the lowest position); above it,
    approximate (see the module docstring)."""
    limit = EXACT_MAX if exact_max is None else int(exact_max)
    if len(rows) * len(cents) <= limit:
        return _exact(x, rows, cents)
    from memmaint.clustering.cells import nearest_in_cells

    loose = np.empty((len(rows), x.shape[1]), dtype=np.float32)
    for b0 in range(0, len(rows), 65536):  # gathered in float32 blocks: no float64 copy
        loose[b0:b0 + 65536] = x[rows[b0:b0 + 65536]]
    # far fewer centroids than loose memories: cells balanced on the centroids (assigning
    # the loose ones costs rows x cells, their searches rows x PROBES x centroids / cells)
    cells = max(PROBES, math.ceil(math.sqrt(PROBES * len(cents))))
    best, arg = nearest_in_cells(loose, np.ascontiguousarray(cents, dtype=np.float32),
                                 probes=PROBES, cells=cells)
    return arg, best.astype(np.float64)


def _exact(x: np.ndarray, rows: np.ndarray, cents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    pick = np.zeros(len(rows), dtype=np.int64)
    value = np.zeros(len(rows), dtype=np.float64)
    step = max(1, (1 << 22) // len(cents))
    for b0 in range(0, len(rows), step):
        sims = x[rows[b0:b0 + step]] @ cents.T
        block = np.argmax(sims, axis=1)
        pick[b0:b0 + len(sims)] = block
        value[b0:b0 + len(sims)] = sims[np.arange(len(sims)), block]
    return pick, value
