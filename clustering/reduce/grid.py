"""Reduced coordinates that do not depend on the machine's floating-point noise (issue #31).

A BLAS library picks its kernels by CPU (``OPENBLAS_CORETYPE``) and splits work by thread
count; each choice rounds the last bits of a matrix product differently, and identical rows in
different positions of one product can even come out different (edge kernels). HDBSCAN and
GenKT then see exact duplicates as points 1e-14 apart, or two near-ties in another order, and
the plan a store gets changes with the machine. Two steps, applied by every reducer, make the
map a function of the embeddings' bits alone:

- :func:`duplicate_leaders` / :func:`share_duplicates`: rows with identical embeddings get the
  coordinates of the first of them, bit for bit (an integer hash of the rows' bits, then an
  exact comparison; no floating-point product);
- :func:`quantise`: z-scored coordinates are rounded to multiples of :data:`COORDINATE_GRID`
  (``2**-20``, about 1e-6 of an axis's standard deviation). Kernel noise is about 1e-14, so two
  machines disagree only when a coordinate lies within that distance of a grid midpoint.

What rounding cannot absorb: a reduction whose answer is itself ill-conditioned (PCA cutting
between two nearly equal eigenvalues turns the kept subspace, not its last bits).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["COORDINATE_GRID", "duplicate_leaders", "quantise", "share_duplicates"]

#: the spacing of the grid reduced, z-scored coordinates are rounded to (a power of two, so
#: rounding is exact)
COORDINATE_GRID = 2.0 ** -20

_HASH_BLOCK_ROWS = 8192


def _column_multipliers(d: int) -> np.ndarray:
    # odd 64-bit constants, one per column, so rows that are permutations of each other hash
    # apart; fixed seed: the hash is the same on every machine
    rng = np.random.default_rng(0x6D656D6D61696E74)
    return rng.integers(1, 2 ** 63, size=d, dtype=np.uint64) * np.uint64(2) + np.uint64(1)


def _row_hashes(X: np.ndarray) -> np.ndarray:
    mult = _column_multipliers(X.shape[1])
    out = np.empty(X.shape[0], dtype=np.uint64)
    with np.errstate(over="ignore"):
        for start in range(0, X.shape[0], _HASH_BLOCK_ROWS):
            # + 0.0 turns -0.0 into 0.0, which == already treats as equal
            block = (X[start:start + _HASH_BLOCK_ROWS] + 0.0).view(np.uint64)
            out[start:start + block.shape[0]] = (block * mult).sum(axis=1, dtype=np.uint64)
    return out


def duplicate_leaders(X: Any) -> np.ndarray:
    """For each row of ``X`` (n, d), the index of the first row exactly equal to it (its own
    index when it has no earlier twin). ``-0.0`` equals ``0.0``; no row holds NaN (the reducers
    refuse NaN before this)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    n = X.shape[0]
    leaders = np.arange(n, dtype=np.int64)
    if n < 2 or X.shape[1] == 0:
        return leaders
    hashes = _row_hashes(X)
    order = np.argsort(hashes, kind="stable")  # stable: ascending row index within a hash
    sorted_hashes = hashes[order]
    starts = np.flatnonzero(np.r_[True, sorted_hashes[1:] != sorted_hashes[:-1]])
    sizes = np.diff(np.r_[starts, n])
    for start, size in zip(starts[sizes > 1], sizes[sizes > 1]):
        members = order[start:start + size]
        while members.size > 1:  # a hash collision splits into several exact groups
            same = (X[members] == X[members[0]]).all(axis=1)
            leaders[members[same]] = members[0]
            members = members[~same]
    return leaders


def share_duplicates(X: Any, Y: np.ndarray) -> np.ndarray:
    """``Y`` (one output row per input row of ``X``) with every row whose input repeats an
    earlier input replaced by that earlier row's output."""
    leaders = duplicate_leaders(X)
    if (leaders == np.arange(leaders.size)).all():
        return Y
    return np.ascontiguousarray(Y[leaders])


def quantise(Y: np.ndarray) -> np.ndarray:
    """``Y`` rounded to the nearest multiple of :data:`COORDINATE_GRID` (ties to even)."""
    scale = 1.0 / COORDINATE_GRID
    return np.round(np.asarray(Y, dtype=np.float64) * scale) / scale
