"""Numba kernels for generalised-kt (private), part 2: the brute-force back end (``nn``):
neighbour queries by scanning every alive slot. See :mod:`memmaint.clustering.genkt._kernels`.
"""

from __future__ import annotations

from memmaint.clustering.genkt._kernels_common import (
    accept,
    dist2_thr,
    eligible,
    kernel,
    set_nn,
    tour_update,
)


@kernel
def brute_nn(i, x, xh, h, ev, use_cos, cos_cut, R2, I, alist, na):
    best = I[i].nn * 0 - 1  # an int64 variable, not a literal: one compiled signature
    best_oid = best
    bd = R2
    for a in range(na):
        j = alist[a]
        if j != i:
            d2 = accept(x, xh, h, ev, use_cos, cos_cut, I, i, j, best_oid, bd, -1.0)
            if d2 >= 0.0:
                best = j
                best_oid = I[j].oid
                bd = d2
    return best, bd


@kernel
def brute_init(x, xh, h, ev, use_cos, cos_cut, R2, I, best, bd):
    """Every slot's nearest eligible neighbour, visiting each pair once."""
    n = x.shape[0]
    for i in range(n):
        best[i] = -1
        bd[i] = R2
    for i in range(n):
        for j in range(i + 1, n):
            thr = max(bd[i], bd[j])
            d2 = dist2_thr(x, xh, h, i, j, thr)
            ci = d2 < bd[i] or (d2 == bd[i] and best[i] >= 0 and I[j].oid < I[best[i]].oid)
            cj = d2 < bd[j] or (d2 == bd[j] and best[j] >= 0 and I[i].oid < I[best[j]].oid)
            if (ci or cj) and eligible(ev, use_cos, cos_cut, i, j):
                if ci:
                    best[i] = j
                    bd[i] = d2
                if cj:
                    best[j] = i
                    bd[j] = d2


@kernel
def brute_reverse(k, x, xh, h, ev, use_cos, cos_cut, I, F, tk, ti, size, alist, na):
    for a in range(na):
        r = alist[a]
        if r != k:
            thr = F[r].nnd2
            d2 = dist2_thr(x, xh, h, r, k, thr)
            if d2 < thr and eligible(ev, use_cos, cos_cut, r, k):
                set_nn(r, k, d2, I, F)
                tour_update(tk, ti, size, r, I, F)

