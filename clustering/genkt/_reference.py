"""Plain numpy reference for generalised-kt clustering (private, for tests).

Deliberately obvious: full pairwise matrices over every object ever created, and each step
picks the smallest key among all eligible live pairs with ``np.lexsort``. It follows the
canonical arithmetic of ``_kernels`` (sequential sums over coordinates, the four-lane
dot product, ``math.pow`` for the weight powers), so every strategy must reproduce it bit
for bit.
"""

from __future__ import annotations

import math

import numpy as np

_DBL_MAX = np.finfo(np.float64).max


def _wpow(w: float, twop: float) -> float:
    return min(math.pow(w, twop), _DBL_MAX)


def _d2(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Squared distances between rows of a and b, coordinates summed in index order."""
    acc = np.zeros((a.shape[0], b.shape[0]))
    for k in range(a.shape[1]):
        t = a[:, None, k] - b[None, :, k]
        acc = acc + t * t
    return acc


def _dot4(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The kernels' dot product: lanes k % 4 summed in order, then (l0 + l1) + (l2 + l3)."""
    lanes = [np.zeros((a.shape[0], b.shape[0])) for _ in range(4)]
    for k in range(a.shape[1]):
        lanes[k % 4] = lanes[k % 4] + a[:, None, k] * b[None, :, k]
    return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])


def _unit_mean(a: np.ndarray, b: np.ndarray, wa: float, wb: float,
               heavy: np.ndarray) -> np.ndarray:
    """(wa a + wb b) / |wa a + wb b|, the norm summed in order as the kernel; the heavier
    member's row when the sum is zero (antipodal, equal weights)."""
    v = wa * a + wb * b
    nrm2 = 0.0
    for k in range(v.shape[0]):
        nrm2 += v[k] * v[k]
    return v / math.sqrt(nrm2) if nrm2 > 0 else heavy


def reference_cluster(x, e, w, twop, R2, cos_cut, use_cos, wta, sphere=False):
    """Return (lo_id, hi_id, q, dist2) per merge and the final (ids, weights, positions).

    ``wta``: the heavier member's position; else the weighted mean, renormalised to unit
    length when ``sphere`` (the ``sphere`` recombination, whose embeddings are plain weighted
    means; else the embeddings' mean is renormalised)."""
    n, D = x.shape
    cap = 2 * n - 1
    X = np.zeros((cap, D))
    Em = np.zeros((cap, e.shape[1]))
    Wt = np.zeros(cap)
    WP = np.zeros(cap)
    alive = np.zeros(cap, dtype=bool)
    X[:n] = x
    Em[:n] = e
    Wt[:n] = w
    WP[:n] = [_wpow(v, twop) for v in w]
    alive[:n] = True
    D2 = np.full((cap, cap), np.inf)
    COS = np.full((cap, cap), np.inf)
    D2[:n, :n] = _d2(x, x)
    COS[:n, :n] = _dot4(e, e)
    ids = np.arange(cap)
    out_lo, out_hi, out_q, out_d2 = [], [], [], []
    for step in range(n - 1):
        live = np.flatnonzero(alive)
        d2 = D2[np.ix_(live, live)]
        elig = d2 < R2
        if use_cos:
            elig &= COS[np.ix_(live, live)] >= cos_cut
        elig &= np.triu(np.ones_like(elig), 1)  # pairs a < b (ids are increasing in live)
        ia, ib = np.nonzero(elig)
        if ia.size == 0:
            break
        a, b = live[ia], live[ib]
        q = np.minimum(WP[a], WP[b]) * D2[a, b]
        k = np.lexsort((ids[b], ids[a], D2[a, b], q))[0]
        a, b = int(a[k]), int(b[k])
        out_lo.append(a)
        out_hi.append(b)
        out_q.append(q[k])
        out_d2.append(D2[a, b])
        c = n + step
        wa, wb = Wt[a], Wt[b]
        heavy = a if wa >= wb else b  # a < b, so ties go to the lower id
        if wta:
            X[c], Em[c] = X[heavy], Em[heavy]
        else:
            X[c] = (_unit_mean(X[a], X[b], wa, wb, X[heavy]) if sphere else
                    (wa * X[a] + wb * X[b]) / (wa + wb))
            Em[c] = ((wa * Em[a] + wb * Em[b]) / (wa + wb) if sphere else
                     _unit_mean(Em[a], Em[b], wa, wb, Em[heavy]))
        Wt[c] = wa + wb
        WP[c] = _wpow(Wt[c], twop)
        alive[a] = alive[b] = False
        live = np.flatnonzero(alive)
        D2[c, live] = D2[live, c] = _d2(X[live], X[c:c + 1])[:, 0]
        COS[c, live] = COS[live, c] = _dot4(Em[live], Em[c:c + 1])[:, 0]
        alive[c] = True
    fin = np.flatnonzero(alive)
    return (np.array(out_lo, dtype=np.int64), np.array(out_hi, dtype=np.int64),
            np.array(out_q, dtype=float), np.array(out_d2, dtype=float),
            fin.astype(np.int64), Wt[fin].copy(), X[fin].copy())
