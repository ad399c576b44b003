"""The ``graph`` strategy's driver (private): pivots, the first pass, then the numba loop.

The first pass gives every input a list of its nearest inputs and a promise radius (see
:mod:`memmaint.clustering.genkt._kernels_graph`). It runs on Gram tiles from BLAS (float32,
or float64 when float32's rounding error would be as large as (R + skin)^2; one BLAS thread
below ``graph_threads_from`` inputs, the most work per CPU second, and every core from there
on, where the tiles are most of the wall time): for inputs centred on their mean,
``v = |x_i|^2 + |x_j|^2 - 2 x_i.x_j`` differs from the true squared distance by at most
``err = 4 (D + 4) u (max |x|)^2`` (u the unit roundoff of the Gram's type: the classic
dot-product bound gamma_D |x_i| |x_j| with a factor 2 to spare, the cast to float32 and the
float64 norms). A row keeps the ``k + 1`` smallest ``v``; its list is all of them but the
largest, which bounds everything off the list from below. Lists only decide which pairs
start as edges, never a merge: the loop computes every distance it merges on canonically.

Tiles between two cells that the pivots prove farther apart than R + skin are skipped (the
background points farther than R + skin from every pivot are kept out of the cells' ranges,
which they would make useless, and meet only the cells they may reach); the others are
computed in full: in high dimension a topic's points are all about equally far from each
other, and nothing exact can avoid looking at each such pair once.

The loop keeps its slots in cell order (input ids are kept for the history and every tie):
refills and announcements scan whole cells, and at 100k the slots' state is far larger than
the caches, so a scan that reads it front to back rather than at random is what keeps them
cheap (the loop 45-57 s -> 25 s at 100k on one pool, the same history).
"""

from __future__ import annotations

import math

import numpy as np

# its ensure_fresh() drops the kernels' disk cache when any kernel file changed, which
# numba's per-file check misses for kernels inlined into graph_cluster
from memmaint.clustering.genkt import _kernels

U64 = 2.0**-53
U32 = 2.0**-24


def _pivots(x: np.ndarray, kc: int, lloyd: int) -> np.ndarray:
    """kc pivots: k-means++ seeding (D^2 sampling) on a sample, then ``lloyd`` Lloyd steps
    on it; fewer when the sample has fewer distinct points. Deterministic; any choice is
    correct (the bounds hold for any pivot vectors), but centres are what make the cells
    work in high dimension: a topic's points are all about equally far from each other, so
    one of them as a pivot leaves most of its topic beyond R + skin, in the outlier cell
    that is never pruned (at 100k in 384-d, 89% of the pool), while the topic's mean is
    nearer to each of them than they are to each other."""
    rng = np.random.default_rng(0)
    n = x.shape[0]
    samp = x[rng.choice(n, min(n, 64 * kc), replace=False)] if n > 64 * kc else x
    chosen = [0]
    d2 = ((samp - samp[0]) ** 2).sum(1)
    while len(chosen) < kc:
        tot = d2.sum()
        if not tot > 0:
            break
        i = int(rng.choice(len(samp), p=d2 / tot))
        chosen.append(i)
        d2 = np.minimum(d2, ((samp - samp[i]) ** 2).sum(1))
    C = samp[chosen].copy()
    for _ in range(lloyd):
        near = np.argmin(np.einsum("ij,ij->i", C, C)[None, :] - 2.0 * (samp @ C.T), axis=1)
        onehot = np.zeros((len(C), len(samp)))
        onehot[near, np.arange(len(samp))] = 1.0
        counts = onehot.sum(1)
        sums = onehot @ samp
        kept = counts > 0  # a pivot that lost every point keeps its place
        C[kept] = sums[kept] / counts[kept, None]
    return np.ascontiguousarray(C)


def _pivots_many(x: np.ndarray, kc: int, lloyd: int) -> np.ndarray:
    """About kc pivots for pools of many small topics, in a few BLAS products: D^2 sampling
    in rounds of kc / 4 points at once (k-means||), then ``lloyd`` Lloyd steps, all on a
    sample of 8 kc points. Deterministic; what ``_pivots`` does costs kc passes over the
    sample, seconds for the hundreds of pivots such pools need."""
    rng = np.random.default_rng(0)
    n = x.shape[0]
    samp = x[np.sort(rng.choice(n, 8 * kc, replace=False))] if n > 8 * kc else x
    ns = np.einsum("ij,ij->i", samp, samp)
    chosen = [0]
    d2 = np.maximum(ns + ns[0] - 2.0 * (samp @ samp[0]), 0.0)
    per = max(1, kc // 4)
    while len(chosen) < kc:
        tot = d2.sum()
        if not tot > 0:
            break
        take = min(per, kc - len(chosen), int((d2 > 0).sum()))
        new = rng.choice(len(samp), size=take, replace=False, p=d2 / tot)
        chosen.extend(int(i) for i in new)
        d2 = np.minimum(d2, np.maximum(
            ns[:, None] + ns[new][None, :] - 2.0 * (samp @ samp[new].T), 0.0).min(1))
    C = samp[chosen].copy()
    for _ in range(lloyd):
        near = np.argmin(np.einsum("ij,ij->i", C, C)[None, :] - 2.0 * (samp @ C.T), axis=1)
        counts = np.bincount(near, minlength=len(C)).astype(float)
        sums = np.zeros_like(C)
        np.add.at(sums, near, samp)
        kept = counts > 0  # a pivot that lost every point keeps its place
        C[kept] = sums[kept] / counts[kept, None]
    return np.ascontiguousarray(C)


def _cells(x: np.ndarray, kc: int, reach: float, lloyd: int, many: bool = False):
    """Pivots C (``lloyd`` Lloyd steps, see ``_pivots``; ``_pivots_many`` if ``many``), rows
    T (n, Kc), cells (Kc: farther than ``reach`` from every pivot), homes, cell ranges lo/hi,
    pivot distances cc, eps_t; and x centred with its squared norms."""
    D = x.shape[1]
    C = (_pivots_many if many else _pivots)(x, kc, lloyd)
    mu = x.mean(0)
    xc = x - mu
    Cc = C - mu
    nx = np.einsum("ij,ij->i", xc, xc)
    ncen = np.einsum("ij,ij->i", Cc, Cc)
    T = np.ascontiguousarray(np.maximum(nx[:, None] + ncen[None, :] - 2.0 * (xc @ Cc.T), 0.0))
    scale = math.sqrt(float(nx.max(initial=0.0))) + math.sqrt(float(ncen.max(initial=0.0)))
    eps_t = 8.0 * (D + 4) * U64 * scale * scale + 1e-300
    home = np.argmin(T, axis=1).astype(np.int64)
    K = C.shape[0]
    cell = np.where(T[np.arange(len(T)), home] < reach * reach, home, K)
    lo = np.full((K, K), np.inf)
    hi = np.full((K, K), -np.inf)
    for a in np.unique(cell[cell < K]):
        M = T[cell == a]
        f = M[:, a:a + 1] - M
        lo[a] = f.min(0)
        hi[a] = f.max(0)
    if many:  # row by row: (K, K, D) at once would be gigabytes
        cc = np.stack([np.sqrt(((C - C[a]) ** 2).sum(-1)) for a in range(K)])
    else:
        cc = np.sqrt(((C[:, None, :] - C[None, :, :]) ** 2).sum(-1))
    return C, T, cell, home, lo, hi, cc, eps_t, xc, nx


def _outlier_reach(T, home, lo, hi, cc, eps_t, idx, r):
    """For outliers idx: which cells may hold a point nearer than r (K bools each), bounding
    with the projections on (pivot, cell pivot) directions for each outlier's 4 nearest
    pivots."""
    K = cc.shape[0]
    near = np.argsort(T[idx], axis=1)[:, :min(4, K)]
    reach = np.ones((len(idx), K), dtype=bool)
    for c in range(near.shape[1]):
        p = near[:, c]  # f_pb(x) = T[x, p] - T[x, b]; over cell b it lies in -[lo_bp, hi_bp]
        f = T[idx, p][:, None] - T[idx]
        g = np.maximum(-hi.T[p] - f, f + lo.T[p]) - 4.0 * eps_t
        with np.errstate(invalid="ignore", divide="ignore"):
            lb = g / (2.0 * cc[p] * (1.0 + 1e-9)) * (1.0 - 1e-9)
        reach &= ~((lb >= r * (1.0 + 1e-9)) & (cc[p] > 0))
    return reach


def _first_pass(xc, nx, T, cell, home, lo, hi, cc, eps_t, R, S, k, tile):
    """Candidate pairs (lo, hi) and promises rho from blocked Gram tiles. The inputs come in
    cell order (``cell`` sorted, as ``graph_cluster`` puts the slots): each cell is one run
    of rows."""
    from memmaint.clustering.genkt import _kernels_graph_index as GX

    n, D = xc.shape
    maxn2 = float(nx.max(initial=0.0))
    dtype, u = np.float32, U32  # the filter's slack err may reach (R + S)^2 in float32
    if 4.0 * (D + 4) * U32 * maxn2 > (R + S) ** 2:
        dtype, u = np.float64, U64
    err = 4.0 * (D + 4) * u * maxn2 + 8.0 * (D + 4) * U64 * maxn2 + 1e-300
    Xg = np.ascontiguousarray(xc, dtype=dtype)
    nrm = np.ascontiguousarray(nx)
    kk = k + 1
    hv = np.zeros((n, kk))
    hid = np.zeros((n, kk), dtype=np.int64)
    hc = np.zeros(n, dtype=np.int64)
    thr0 = (R + S) ** 2 + err
    thr = np.full(n, thr0)
    m32 = 64.0 * U32 * (maxn2 + thr0) + 1e-30  # the float32 screening's rounding
    K = cc.shape[0]
    bounds = np.searchsorted(cell, np.arange(K + 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = -(hi + hi.T) - 4.0 * eps_t
        far = gap / (2.0 * cc * (1.0 + 1e-9)) * (1.0 - 1e-9) >= (R + S) * (1.0 + 1e-9)
    far &= cc > 0

    def block(r0, r1, cols, diag):
        G = Xg[r0:r1] @ (Xg[cols[0]:cols[-1] + 1] if diag else Xg[cols]).T
        GX.tile_update(G, np.arange(r0, r1), cols, diag, nrm, hv, hid, hc, thr, kk, m32)

    for a in range(K + 1):  # each cell with itself (the outliers too)
        sa, ea = bounds[a], bounds[a + 1]
        for r0 in range(sa, ea, tile):
            for c0 in range(r0, ea, tile):
                cols = np.arange(c0, min(c0 + tile, ea))
                if c0 == r0:
                    block(r0, min(r0 + tile, ea), cols, True)
                else:
                    block(r0, min(r0 + tile, ea), cols, False)
    for a in range(K):  # a cell with the cells after it that the pivots cannot set apart
        sa, ea = bounds[a], bounds[a + 1]
        others = [np.arange(bounds[b], bounds[b + 1]) for b in range(a + 1, K)
                  if not far[a, b] and bounds[b + 1] > bounds[b]]
        if sa == ea or not others:
            continue
        cols_all = np.concatenate(others)
        for c0 in range(0, cols_all.size, tile):
            for r0 in range(sa, ea, tile):
                block(r0, min(r0 + tile, ea), cols_all[c0:c0 + tile], False)
    so, eo = bounds[K], bounds[K + 1]
    if eo > so:  # outliers with the cells they may reach, a chunk at a time
        reach = _outlier_reach(T, home, lo, hi, cc, eps_t, np.arange(so, eo), R + S)
        chunk = max(64, tile // 4)
        for r0 in range(0, eo - so, chunk):
            cells = np.flatnonzero(reach[r0:r0 + chunk].any(0))
            cols = [np.arange(bounds[b], bounds[b + 1]) for b in cells]
            if not cols:
                continue
            cols_all = np.concatenate(cols)
            for c0 in range(0, cols_all.size, tile):
                block(so + r0, min(so + r0 + chunk, eo), cols_all[c0:c0 + tile], False)
    rho = np.empty(n)
    plo, phi = GX.lists_finish(hv, hid, hc, kk, err, S, R, rho)
    return plo, phi, rho


def graph_cluster(x, e, w, twop, R2, cos_cut, use_cos, rec, tune, max_steps=-1, stats=None):
    """Cluster with the graph strategy; returns what ``_kernels.cluster`` does (x and e are
    overwritten). ``tune``: the estimator's speed knobs (never change results)."""
    from threadpoolctl import threadpool_limits

    from memmaint.clustering.genkt import _kernels_graph as KG
    from memmaint.clustering.genkt import _kernels_graph_index as GX

    _kernels.ensure_fresh()
    n = x.shape[0]
    R = math.sqrt(R2)
    S = tune["graph_skin"] * R
    kc = int(min(tune["graph_cells"], max(1, math.isqrt(n) // 2)))
    threads = tune["graph_threads"] if n >= tune["graph_threads_from"] else 1
    with threadpool_limits(limits=threads, user_api="blas"):
        lloyd = int(tune["graph_lloyd"])
        C, T, cell, home, lo, hi, cc, eps_t, xc, nx = _cells(x, kc, R + S, lloyd)
        # many small topics (more than the pivots), as on real text embeddings: most slots
        # sit in the outlier cell, which every announcement then scans; more pivots
        kmax = min(int(tune["graph_cells_many"]), n // 16)
        if (cell == C.shape[0]).mean() > tune["graph_outliers"] and kc < kmax:
            C, T, cell, home, lo, hi, cc, eps_t, xc, nx = _cells(x, kmax, R + S, lloyd, True)
        # slots in cell order: a cell's scan then reads every per-slot array front to back
        # (at 100k the slots' state is far larger than the caches); ids stay the inputs'
        order = np.argsort(cell, kind="stable")
        for a in (x, xc, T):
            GX.permute_rows(a, order)
        if use_cos:
            GX.permute_rows(e, order)
        else:  # never read, and the merges need not average it
            e = np.zeros((n, 0))
        w, cell, home, nx = w[order], cell[order], home[order], nx[order]
        plo, phi, rho = _first_pass(xc, nx, T, cell, home, lo, hi, cc, eps_t, R, S,
                                    int(tune["graph_k"]), int(tune["graph_tile"]))
        del xc
    itune = np.array([tune["graph_refill"], tune["graph_pivots"], tune["graph_exc"],
                      tune["graph_walk"]], dtype=np.int64)
    return KG.graph_cluster(x, e, w, order, twop, R2, cos_cut, use_cos, rec, plo, phi, rho,
                            C, T, cell, home, lo, hi, cc, eps_t, S, tune["graph_gap"] * R,
                            itune, max_steps,
                            np.zeros(4, dtype=np.int64) if stats is None else stats)
