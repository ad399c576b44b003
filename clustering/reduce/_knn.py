"""Approximate k-nearest neighbours by cosine for UMAP: random-projection trees, then
NN-descent, compiled once per machine.

umap-learn finds neighbours with pynndescent, whose ``nn_descent`` receives its distance as
a function argument; numba cannot cache such code, so every process compiles it again (about
11 s on 2 cores, the largest single cost of a nightly run at 100k memories). These kernels
do the same job with the cosine distance written in (``1 - x.y`` on unit rows) and
``cache=True``, and UMAP takes their graph as ``precomputed_knn``.

The method is the one pynndescent implements (Dong, Charikar and Li 2011, "Efficient
k-nearest neighbor graph construction for generic similarity measures"): each point starts
with the points that share its leaf in a few random-projection trees, then repeatedly tries
the neighbours of its neighbours (forward and reverse, new candidates against new and old
ones) until fewer than ``delta * n * k`` lists change. It is deterministic for a seed and
single-threaded. ``tests/test_reducers.py`` checks its recall against the exact neighbours.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def _push(ind: np.ndarray, dist: np.ndarray, flag: np.ndarray, row: int, j: int,
          d: float, new: int) -> int:
    """Push ``j`` at distance ``d`` into row ``row``'s max-heap (root = farthest kept);
    returns 1 if it was added."""
    if d >= dist[row, 0]:
        return 0
    k = ind.shape[1]
    for m in range(k):
        if ind[row, m] == j:
            return 0
    # replace the root, then sift down
    pos = 0
    while True:
        left = 2 * pos + 1
        right = left + 1
        if left >= k:
            break
        child = left
        if right < k and dist[row, right] > dist[row, left]:
            child = right
        if dist[row, child] <= d:
            break
        ind[row, pos] = ind[row, child]
        dist[row, pos] = dist[row, child]
        flag[row, pos] = flag[row, child]
        pos = child
    ind[row, pos] = j
    dist[row, pos] = d
    flag[row, pos] = new
    return 1


@numba.njit(cache=True, fastmath=True)
def _cosine_distance(x: np.ndarray, a: int, b: int) -> float:
    s = np.float32(0.0)
    for t in range(x.shape[1]):
        s += x[a, t] * x[b, t]
    return max(0.0, 1.0 - float(s))


@numba.njit(cache=True, fastmath=True)
def _sides(x: np.ndarray, order: np.ndarray, lo: int, hi: int, normal: np.ndarray,
           side: np.ndarray) -> None:
    for a in range(lo, hi):
        r = order[a]
        s = np.float32(0.0)
        for t in range(x.shape[1]):
            s += x[r, t] * normal[t]
        side[a] = s


@numba.njit(cache=True)
def _next(state: np.ndarray) -> int:
    """xorshift64*: a small deterministic generator (state is a one-element uint64 array)."""
    s = state[0]
    s ^= s >> np.uint64(12)
    s ^= s << np.uint64(25)
    s ^= s >> np.uint64(27)
    state[0] = s
    return int((s * np.uint64(2685821657736338717)) >> np.uint64(33))


@numba.njit(cache=True)
def _tree_init(x: np.ndarray, ind: np.ndarray, dist: np.ndarray, flag: np.ndarray,
               state: np.ndarray, leaf_size: int) -> None:
    """One random-projection tree (hyperplanes between two random members); every pair in a
    leaf is offered to both heaps."""
    n, dim = x.shape
    order = np.arange(n)
    stack_lo = [0]
    stack_hi = [n]
    side = np.empty(n, dtype=np.float32)
    normal = np.empty(dim, dtype=np.float32)
    while len(stack_lo):
        lo = stack_lo.pop()
        hi = stack_hi.pop()
        size = hi - lo
        if size <= leaf_size:
            for a in range(lo, hi):
                for b in range(a + 1, hi):
                    p, q = order[a], order[b]
                    d = _cosine_distance(x, p, q)
                    _push(ind, dist, flag, p, q, d, 1)
                    _push(ind, dist, flag, q, p, d, 1)
            continue
        p = order[lo + _next(state) % size]
        q = order[lo + _next(state) % size]
        for t in range(dim):
            normal[t] = x[p, t] - x[q, t]
        _sides(x, order, lo, hi, normal, side)
        left = lo
        for a in range(lo, hi):  # stable partition: negative side first
            if side[a] < 0:
                order[left], order[a] = order[a], order[left]
                side[left], side[a] = side[a], side[left]
                left += 1
        if left == lo or left == hi:  # a degenerate plane (duplicates): split in half
            left = lo + size // 2
        stack_lo.append(lo)
        stack_hi.append(left)
        stack_lo.append(left)
        stack_hi.append(hi)


@numba.njit(cache=True)
def _sample(cand: np.ndarray, prio: np.ndarray, row: int, j: int, p: int) -> None:
    """Keep ``j`` among row ``row``'s candidates if its random priority ``p`` is among the
    smallest (a max-heap of priorities)."""
    m = cand.shape[1]
    if p >= prio[row, 0]:
        return
    for t in range(m):
        if cand[row, t] == j:
            return
    pos = 0
    while True:
        left = 2 * pos + 1
        right = left + 1
        if left >= m:
            break
        child = left
        if right < m and prio[row, right] > prio[row, left]:
            child = right
        if prio[row, child] <= p:
            break
        cand[row, pos] = cand[row, child]
        prio[row, pos] = prio[row, child]
        pos = child
    cand[row, pos] = j
    prio[row, pos] = p


@numba.njit(cache=True)
def nn_descent_cosine(x: np.ndarray, k: int, seed: int, n_trees: int, leaf_size: int,
                      max_candidates: int, n_iters: int,
                      delta: float) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` nearest rows of each row of unit-row ``x`` by cosine distance (itself
    first, at distance 0), sorted by distance: ``(indices int64, distances float32)``."""
    n = x.shape[0]
    ind = np.full((n, k), -1, dtype=np.int64)
    dist = np.full((n, k), np.inf, dtype=np.float64)
    flag = np.zeros((n, k), dtype=np.uint8)
    state = np.array([np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)],
                     dtype=np.uint64)
    for _ in range(n_trees):
        _tree_init(x, ind, dist, flag, state, leaf_size)
    for i in range(n):  # rows a tree left short: random points
        tries = 0
        while ind[i, 0] == -1 and tries < 4 * k:
            j = _next(state) % n
            if j != i:
                _push(ind, dist, flag, i, j, _cosine_distance(x, i, j), 1)
            tries += 1
    new_c = np.empty((n, max_candidates), dtype=np.int64)
    new_p = np.empty((n, max_candidates), dtype=np.int64)
    old_c = np.empty((n, max_candidates), dtype=np.int64)
    old_p = np.empty((n, max_candidates), dtype=np.int64)
    big = np.iinfo(np.int64).max
    for _it in range(n_iters):
        new_c[:] = -1
        old_c[:] = -1
        new_p[:] = big
        old_p[:] = big
        for i in range(n):
            for m in range(k):
                j = ind[i, m]
                if j < 0:
                    continue
                p = _next(state)
                if flag[i, m]:
                    _sample(new_c, new_p, i, j, p)
                    _sample(new_c, new_p, j, i, p)
                else:
                    _sample(old_c, old_p, i, j, p)
                    _sample(old_c, old_p, j, i, p)
        for i in range(n):  # sampled new candidates are old from now on
            for m in range(k):
                j = ind[i, m]
                if j < 0 or not flag[i, m]:
                    continue
                for t in range(max_candidates):
                    if new_c[i, t] == j:
                        flag[i, m] = 0
                        break
        changes = 0
        for i in range(n):
            for a in range(max_candidates):
                p = new_c[i, a]
                if p < 0:
                    continue
                for b in range(a + 1, max_candidates):
                    q = new_c[i, b]
                    if q < 0:
                        continue
                    d = _cosine_distance(x, p, q)
                    changes += _push(ind, dist, flag, p, q, d, 1)
                    changes += _push(ind, dist, flag, q, p, d, 1)
                for b in range(max_candidates):
                    q = old_c[i, b]
                    if q < 0 or q == p:
                        continue
                    d = _cosine_distance(x, p, q)
                    changes += _push(ind, dist, flag, p, q, d, 1)
                    changes += _push(ind, dist, flag, q, p, d, 1)
        if changes <= delta * k * n:
            break
    out_i = np.empty((n, k), dtype=np.int64)
    out_d = np.empty((n, k), dtype=np.float32)
    for i in range(n):
        order = np.argsort(dist[i], kind="mergesort")
        # the point itself first at distance 0, as umap-learn's own search returns it
        out_i[i, 0] = i
        out_d[i, 0] = 0.0
        c = 1
        for t in order:
            if c == k:
                break
            if ind[i, t] == i or ind[i, t] < 0:
                continue
            out_i[i, c] = ind[i, t]
            out_d[i, c] = dist[i, t]
            c += 1
        while c < k:
            out_i[i, c] = -1
            out_d[i, c] = np.inf
            c += 1
    return out_i, out_d


def cosine_knn(x: np.ndarray, k: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``k`` approximate nearest neighbours of every row by cosine distance (``1 - cos``),
    the row itself first: ``(indices (n, k) int64, distances (n, k) float32)``.

    The settings are pynndescent's defaults as umap-learn uses them: ``5 + round(n ** 0.25)``
    trees (at most 64), leaves of ``max(10, k)`` points, 60 candidates, ``max(5, log2 n)``
    iterations, ``delta`` 0.001."""
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    unit = np.ascontiguousarray(x / np.where(norms > 0, norms, 1.0), dtype=np.float32)
    n = unit.shape[0]
    n_trees = min(64, 5 + round(n ** 0.25))
    leaf_size = max(10, k)
    return nn_descent_cosine(unit, int(k), int(seed), n_trees, leaf_size, 60,
                             max(5, round(float(np.log2(max(n, 2))))), 0.001)
