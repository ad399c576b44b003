"""Numba kernels for generalised-kt sequential recombination (private).

Everything hot lives here; :mod:`memmaint.clustering.genkt.estimator` validates inputs and wraps the
results. The arithmetic is canonical so that every strategy (and the numpy reference in
``_reference``) produces bit-identical merge sequences:

* ``dist2(i, j) = sum_k (x_ik - x_jk)^2`` accumulated in order k = 0..D-1;
* ``cos(i, j) = (l0 + l1) + (l2 + l3)``, lane l summing ``e_ik e_jk`` over k = l mod 4 in
  order (unit embeddings; four independent sums run four times faster than one);
* ``wp_i = math.pow(w_i, 2p)`` clamped to the largest finite double;
* the pair key is ``(min(wp_i, wp_j) * dist2, dist2, min(id_i, id_j), max(id_i, id_j))``.

Storage is slot based: the N input slots are reused, a merge writes the new object into the
slot of the tournament winner. Object ids (inputs 0..N-1, merge k creates N + k) decide ties,
slots never do. With the tree the slots are first put in k-d leaf order (for locality).

FastJet's nearest-neighbour heuristic: each slot caches its nearest *eligible* neighbour by
``(dist2, id)``; the minimal pair is always among these N candidates (proof in ``genkt``). A
tournament tree holds the candidates' keys (minimum in O(1), update in O(log N)); back-pointer
lists give the slots whose neighbour died; a reverse query from the new object finds the
slots for which it is now the nearest (and the caches it enters).

Two back ends answer the neighbour queries:

* ``nn``: scans of the alive slots with partial-distance early exit (any dimension; in high
  dimension the first coordinates live in a contiguous copy and reject most pairs);
* ``tree``: a bucket k-d tree with dynamic membership. Nodes keep alive counts, tight
  bounding boxes of their alive points (a region emptied by a growing cluster costs nothing)
  and an upper bound on their points' reverse radii (for the reverse query). Three devices
  keep searches short, none of which changes a result:
  - lazy searches: a search that has read its budget of points without meeting an eligible
    one stops with "nothing eligible nearer than rho" and enters the tournament with the
    lower bound wp_i rho^2 (sorted before real pairs of equal d_ij); it is resumed, with a
    larger budget and without re-checking what is nearer than rho, only if that bound
    becomes the smallest key. Objects with no partner (one-offs under a cosine cut) thus
    wait until the pool around them has thinned;
  - neighbour caches: a growing cluster sits in a hole whose rim is nearly equidistant
    from it, so a plain search would read the whole rim at every step. A slot whose search
    was expensive keeps its nearest slots that are not clearly ineligible; the list answers
    while the triangle inequality (for positions and for embeddings, with a 1e-9 relative
    safety margin) proves that no slot off the list can be nearer and eligible;
  - candidates are checked for the cosine cut only when they beat the current best, in
    order of distance, with a four-lane dot product.
Bounding-box lower bounds are summed in the same order as distances, so rounding can never
make a pruned point nearer than its box's bound.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

_JIT = {"cache": True, "nogil": True}

DBL_MAX = 1.7976931348623157e308
INF = math.inf
BIG = 2**62
EPS = 1e-9  # relative safety margin of the cache proofs (rounding errors are ~1e-15)
COS_SLACK = 0.1  # caches keep slots this close to the cut: the owner's embedding may drift
FILL_EXT = 1.5625  # caches look (1.25 R)^2 far so they stay valid while their owner moves

# columns of the int64 slot table I (n, .)
OID, NN, RHEAD, RNEXT, RPREV, LNEXT, LPREV, LEAF, APOS, CLO, CHI, ALIVE, CID, SCAN, BUDGET = \
    range(15)
N_ICOLS = 15
# NN >= 0: the cached neighbour's slot; NONE: no eligible neighbour within R; LAZY: none
# within sqrt(NND2) < R (the search stopped at its budget), to be resumed only if needed
NONE, LAZY = -1, -2
# columns of the float64 slot table F (n, .): CRR is the cache's reverse radius^2 (0: none)
W, WP, NND2, CQ, CRR = range(5)
N_FCOLS = 5
# columns of the int64 node table T (m, .) and the float node table FN (m, .)
LEFT, RIGHT, PARENT, CNT, HEAD, SDIM = range(6)
N_TCOLS = 6
SVAL, MAXR = range(2)


@njit(**_JIT)
def wpow(w, twop):
    """``w ** (2p)``, clamped to the largest finite double so products never become NaN."""
    v = math.pow(w, twop)
    return min(v, DBL_MAX)


@njit(**_JIT)
def dist2_thr(x, xh, h, i, j, thr):
    """Squared distance, or a partial sum already larger than ``thr`` (then: rejected).

    ``xh`` holds a contiguous copy of the first ``h`` coordinates; the order of summation
    never changes.
    """
    s = 0.0
    for k in range(h):  # no early exit in the prefix: branch-free is faster
        t = xh[i, k] - xh[j, k]
        s += t * t
    if s > thr:
        return s
    for k in range(h, x.shape[1]):
        t = x[i, k] - x[j, k]
        s += t * t
        if s > thr:
            return s
    return s


@njit(**_JIT)
def copy_row(a, dst, b, src):
    for k in range(a.shape[1]):
        a[dst, k] = b[src, k]


@njit(**_JIT)
def dot(e, i, j):
    """Four interleaved sums (lane k % 4), then (s0 + s1) + (s2 + s3): fast and canonical."""
    E = e.shape[1]
    s0 = s1 = s2 = s3 = 0.0
    k = 0
    while k + 4 <= E:
        s0 += e[i, k] * e[j, k]
        s1 += e[i, k + 1] * e[j, k + 1]
        s2 += e[i, k + 2] * e[j, k + 2]
        s3 += e[i, k + 3] * e[j, k + 3]
        k += 4
    if k < E:
        s0 += e[i, k] * e[j, k]
    if k + 1 < E:
        s1 += e[i, k + 1] * e[j, k + 1]
    if k + 2 < E:
        s2 += e[i, k + 2] * e[j, k + 2]
    return (s0 + s1) + (s2 + s3)


@njit(**_JIT)
def quantise(ev, s):
    """Row s's int8 sketch: codes round(127 e / max|e|) and the scale max|e| / 127."""
    e, q, qs = ev
    m = 0.0
    for k in range(e.shape[1]):
        m = max(m, abs(e[s, k]))
    qs[s] = m / 127.0
    for k in range(e.shape[1]):
        q[s, k] = np.int8(round(e[s, k] / m * 127.0)) if m > 0 else np.int8(0)


@njit(**_JIT)
def cos_bounds(ev, i, j):
    """(lower, upper) bounds on the cosine from the int8 sketches. Each code is within half a
    step (m/254) of its value, so |e_i.e_j - sketch| <= (m_i + m_j) sqrt(E) / 254
    + m_i m_j E / 254^2 for unit vectors (Cauchy-Schwarz), padded for rounding."""
    q, qs = ev[1], ev[2]
    E = q.shape[1]
    acc = 0
    for k in range(E):
        acc += np.int32(q[i, k]) * np.int32(q[j, k])
    mi = qs[i] * 127.0
    mj = qs[j] * 127.0
    approx = acc * qs[i] * qs[j]
    err = ((mi + mj) * math.sqrt(E) / 254.0 + mi * mj * E / 64516.0) * (1.0 + 1e-6) + 1e-9
    return approx - err, approx + err


@njit(**_JIT)
def eligible(ev, use_cos, cos_cut, i, j):
    """cos(e_i, e_j) >= cos_cut, the canonical dot product deciding only near the cut."""
    if not use_cos:
        return True
    lo, hi = cos_bounds(ev, i, j)
    if hi < cos_cut:
        return False
    if lo >= cos_cut:
        return True
    return dot(ev[0], i, j) >= cos_cut


@njit(**_JIT)
def box_lb(x, i, B, nd):
    """Lower bound on dist2 from slot i to node nd's alive points (same summation order)."""
    D = x.shape[1]
    s = 0.0
    for k in range(D):
        v = x[i, k]
        if v < B[nd, k]:
            t = B[nd, k] - v
            s += t * t
        elif v > B[nd, D + k]:
            t = v - B[nd, D + k]
            s += t * t
    return s


# ---------------------------------------------------------------- candidate tournament

@njit(**_JIT)
def _tour_less(tk, ti, a, b):
    """Is entry a's pair key smaller than entry b's? (ties: False)"""
    if tk[a, 0] != tk[b, 0]:
        return tk[a, 0] < tk[b, 0]
    if tk[a, 1] != tk[b, 1]:
        return tk[a, 1] < tk[b, 1]
    if ti[a, 1] != ti[b, 1]:
        return ti[a, 1] < ti[b, 1]
    return ti[a, 2] < ti[b, 2]


@njit(**_JIT)
def _tour_pull(tk, ti, pos):
    a = 2 * pos
    if _tour_less(tk, ti, a + 1, a):
        a += 1
    tk[pos, 0] = tk[a, 0]
    tk[pos, 1] = tk[a, 1]
    ti[pos, 0] = ti[a, 0]
    ti[pos, 1] = ti[a, 1]
    ti[pos, 2] = ti[a, 2]


@njit(**_JIT)
def _tour_leaf(tk, ti, size, s, n, I, F):
    pos = size + s
    if s < n and I[s, ALIVE] == 1 and I[s, NN] >= 0:
        tk[pos, 0] = F[s, CQ]
        tk[pos, 1] = F[s, NND2]
        ti[pos, 0] = s
        ti[pos, 1] = I[s, CLO]
        ti[pos, 2] = I[s, CHI]
    elif s < n and I[s, ALIVE] == 1 and I[s, NN] == LAZY:
        # a lower bound wp_s * rho^2 on the pairs this slot answers for; it sorts before
        # real pairs of equal d_ij, so it is resumed before any pair it could beat is merged
        tk[pos, 0] = F[s, CQ]
        tk[pos, 1] = -1.0
        ti[pos, 0] = s
        ti[pos, 1] = -1
        ti[pos, 2] = -1
    else:  # no candidate: sorts after every real pair (real dist2 values are finite)
        tk[pos, 0] = INF
        tk[pos, 1] = INF
        ti[pos, 0] = -1
        ti[pos, 1] = BIG
        ti[pos, 2] = BIG


@njit(**_JIT)
def tour_update(tk, ti, size, s, I, F):
    """Re-enter slot s's candidate; entry 1 holds the smallest pair key."""
    _tour_leaf(tk, ti, size, s, I.shape[0], I, F)
    pos = (size + s) >> 1
    while pos >= 1:
        _tour_pull(tk, ti, pos)
        pos >>= 1


@njit(**_JIT)
def tour_build(tk, ti, size, I, F):
    for s in range(size):
        _tour_leaf(tk, ti, size, s, I.shape[0], I, F)
    for pos in range(size - 1, 0, -1):
        _tour_pull(tk, ti, pos)


# ---------------------------------------------------------------- cached neighbours

@njit(**_JIT)
def set_nn(i, j, d2, I, F):
    """Point slot i's cached neighbour at slot j (NONE: d2 = R^2; LAZY: d2 = rho^2)."""
    old = I[i, NN]
    if old >= 0:  # unlink from old's back-pointer list
        nx = I[i, RNEXT]
        pv = I[i, RPREV]
        if pv >= 0:
            I[pv, RNEXT] = nx
        else:
            I[old, RHEAD] = nx
        if nx >= 0:
            I[nx, RPREV] = pv
    I[i, NN] = j
    if j >= 0:
        h = I[j, RHEAD]
        I[i, RNEXT] = h
        I[i, RPREV] = -1
        if h >= 0:
            I[h, RPREV] = i
        I[j, RHEAD] = i
        F[i, CQ] = min(F[i, WP], F[j, WP]) * d2
        I[i, CLO] = min(I[i, OID], I[j, OID])
        I[i, CHI] = max(I[i, OID], I[j, OID])
    elif j == LAZY:
        F[i, CQ] = F[i, WP] * d2
    F[i, NND2] = d2


@njit(**_JIT)
def accept(x, xh, h, ev, use_cos, cos_cut, I, i, j, best_oid, bd, skip2):
    """dist2 of j if it beats the current best (bd, best_oid; -1: none) as i's neighbour,
    else -1. Nearer than sqrt(skip2) nothing is eligible (known already)."""
    d2 = dist2_thr(x, xh, h, i, j, bd)
    better = (d2 < bd or (d2 == bd and I[j, OID] < best_oid)) and d2 >= skip2
    return d2 if better and eligible(ev, use_cos, cos_cut, i, j) else -1.0


# ---------------------------------------------------------------- brute-force back end

@njit(**_JIT)
def brute_nn(i, x, xh, h, ev, use_cos, cos_cut, R2, I, alist, na):
    best = I[i, NN] * 0 - 1  # an int64 variable, not a literal: one compiled signature
    best_oid = best
    bd = R2
    for a in range(na):
        j = alist[a]
        if j != i:
            d2 = accept(x, xh, h, ev, use_cos, cos_cut, I, i, j, best_oid, bd, -1.0)
            if d2 >= 0.0:
                best = j
                best_oid = I[j, OID]
                bd = d2
    return best, bd


@njit(**_JIT)
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
            ci = d2 < bd[i] or (d2 == bd[i] and best[i] >= 0 and I[j, OID] < I[best[i], OID])
            cj = d2 < bd[j] or (d2 == bd[j] and best[j] >= 0 and I[i, OID] < I[best[j], OID])
            if (ci or cj) and eligible(ev, use_cos, cos_cut, i, j):
                if ci:
                    best[i] = j
                    bd[i] = d2
                if cj:
                    best[j] = i
                    bd[j] = d2


@njit(**_JIT)
def brute_reverse(k, x, xh, h, ev, use_cos, cos_cut, I, F, tk, ti, size, alist, na):
    for a in range(na):
        r = alist[a]
        if r != k:
            thr = F[r, NND2]
            d2 = dist2_thr(x, xh, h, r, k, thr)
            if d2 < thr and eligible(ev, use_cos, cos_cut, r, k):
                set_nn(r, k, d2, I, F)
                tour_update(tk, ti, size, r, I, F)


# ---------------------------------------------------------------- k-d tree back end

@njit(**_JIT)
def select(vals, n, kth):
    """The kth smallest of vals[:n] (Hoare quickselect, reorders vals)."""
    lo = 0
    hi = n - 1
    while hi > lo:
        a = vals[lo]
        b = vals[(lo + hi) // 2]
        c = vals[hi]
        pivot = max(min(a, b), min(max(a, b), c))
        i = lo
        j = hi
        while i <= j:
            while vals[i] < pivot:
                i += 1
            while vals[j] > pivot:
                j -= 1
            if i <= j:
                t = vals[i]
                vals[i] = vals[j]
                vals[j] = t
                i += 1
                j -= 1
        if kth <= j:
            hi = j
        elif kth >= i:
            lo = i
        else:
            break
    return vals[kth]


@njit(**_JIT)
def tree_build(x, leaf_size, I):
    """Median-split bucket k-d tree over the rows of x, split at x[d] < v | x[d] >= v.

    Returns the node tables T and FN, the bounding boxes B (lo | hi), the number of nodes,
    the maximal depth and the leaf order ``perm``: leaf lists hold positions in ``perm``, so
    the caller must move row perm[a] to slot a.
    """
    n = x.shape[0]
    D = x.shape[1]
    cap = 2 * n + 1  # every split leaves both sides non-empty
    T = np.full((cap, N_TCOLS), -1, dtype=np.int64)
    FN = np.zeros((cap, 2))
    B = np.empty((cap, 2 * D))
    perm = np.arange(n)
    vals = np.empty(n)
    st = np.empty((n + 64, 4), dtype=np.int64)  # node, start, end, depth
    st[0, 0] = 0
    st[0, 1] = 0
    st[0, 2] = n
    st[0, 3] = 0
    sp = 1
    nodes = 1
    depth = 0
    while sp > 0:
        sp -= 1
        nd, s, e, dep = st[sp, 0], st[sp, 1], st[sp, 2], st[sp, 3]
        depth = max(depth, dep)
        T[nd, CNT] = e - s
        dim = -1
        spread = 0.0
        for k in range(D):  # bounding box; split the widest side
            mn = INF
            mx = -INF
            for a in range(s, e):
                v = x[perm[a], k]
                mn = min(mn, v)
                mx = max(mx, v)
            B[nd, k] = mn
            B[nd, D + k] = mx
            if mx - mn > spread:
                spread = mx - mn
                dim = k
        if e - s <= leaf_size or dim < 0:  # leaf; slots are positions in perm
            T[nd, HEAD] = s
            for a in range(s, e):
                I[a, LEAF] = nd
                I[a, LPREV] = a - 1 if a > s else -1
                I[a, LNEXT] = a + 1 if a + 1 < e else -1
            continue
        for a in range(s, e):
            vals[a - s] = x[perm[a], dim]
        v = select(vals, e - s, (e - s) // 2)
        if v == B[nd, dim]:  # the lower half ties with the minimum: split just above it
            nxt = INF
            for a in range(s, e):
                t = x[perm[a], dim]
                if t > v and t < nxt:
                    nxt = t
            v = nxt
        b = s
        for a in range(s, e):
            if x[perm[a], dim] < v:
                perm[a], perm[b] = perm[b], perm[a]
                b += 1
        left = nodes
        nodes += 2
        T[nd, LEFT] = left
        T[nd, RIGHT] = left + 1
        T[nd, SDIM] = dim
        T[left, PARENT] = nd
        T[left + 1, PARENT] = nd
        FN[nd, SVAL] = v
        st[sp, 0], st[sp, 1], st[sp, 2], st[sp, 3] = left + 1, b, e, dep + 1
        st[sp + 1, 0], st[sp + 1, 1], st[sp + 1, 2], st[sp + 1, 3] = left, s, b, dep + 1
        sp += 2
    return T[:nodes].copy(), FN[:nodes].copy(), B[:nodes].copy(), nodes, depth, perm


@njit(**_JIT)
def permute_rows(a, perm):
    """In place: row s becomes old row perm[s] (cycle by cycle, one spare row)."""
    n, m = a.shape
    if m == 0:
        return
    done = np.zeros(n, dtype=np.bool_)
    tmp = np.empty((1, m))
    for start in range(n):
        if done[start]:
            continue
        copy_row(tmp, 0, a, start)
        j = start
        while True:
            done[j] = True
            src = perm[j]
            if src == start:
                copy_row(a, j, tmp, 0)
                break
            copy_row(a, j, a, src)
            j = src


@njit(**_JIT)
def tree_insert(sl, x, I, T, FN, B):
    D = x.shape[1]
    nd = 0
    while True:
        T[nd, CNT] += 1
        for k in range(D):
            B[nd, k] = min(B[nd, k], x[sl, k])
            B[nd, D + k] = max(B[nd, D + k], x[sl, k])
        if T[nd, LEFT] < 0:
            break
        nd = T[nd, LEFT] if x[sl, T[nd, SDIM]] < FN[nd, SVAL] else T[nd, RIGHT]
    h = T[nd, HEAD]
    I[sl, LNEXT] = h
    I[sl, LPREV] = -1
    if h >= 0:
        I[h, LPREV] = sl
    T[nd, HEAD] = sl
    I[sl, LEAF] = nd


@njit(**_JIT)
def tree_delete(sl, x, I, T, B):
    """Unlink slot sl; shrink the bounding boxes up the path while they change."""
    D = x.shape[1]
    nd = I[sl, LEAF]
    nx = I[sl, LNEXT]
    pv = I[sl, LPREV]
    if pv >= 0:
        I[pv, LNEXT] = nx
    else:
        T[nd, HEAD] = nx
    if nx >= 0:
        I[nx, LPREV] = pv
    for k in range(D):
        B[nd, k] = INF
        B[nd, D + k] = -INF
    j = T[nd, HEAD]
    while j >= 0:
        for k in range(D):
            B[nd, k] = min(B[nd, k], x[j, k])
            B[nd, D + k] = max(B[nd, D + k], x[j, k])
        j = I[j, LNEXT]
    T[nd, CNT] -= 1
    changed = True
    nd = T[nd, PARENT]
    while nd >= 0:
        T[nd, CNT] -= 1
        if changed:
            a = T[nd, LEFT]
            b = T[nd, RIGHT]
            changed = False
            for k in range(2 * D):
                v = min(B[a, k], B[b, k]) if k < D else max(B[a, k], B[b, k])
                if v != B[nd, k]:
                    changed = True
                    B[nd, k] = v
        nd = T[nd, PARENT]


@njit(**_JIT)
def rev_radius(F, s):
    """Reverse radius^2 of slot s: the reverse query must reach it within this."""
    return max(F[s, NND2], F[s, CRR])


@njit(**_JIT)
def bump_maxr(T, FN, nd, v):
    """Make every ancestor's reverse-radius bound at least v (bounds only ever over-cover)."""
    while nd >= 0 and FN[nd, MAXR] < v:
        FN[nd, MAXR] = v
        nd = T[nd, PARENT]


@njit(**_JIT)
def tree_tighten_all(I, F, T, FN, nodes):
    """Exact bounds, children before parents (children have larger ids)."""
    for nd in range(nodes - 1, -1, -1):
        if T[nd, LEFT] < 0:
            m = -1.0
            j = T[nd, HEAD]
            while j >= 0:
                m = max(m, rev_radius(F, j))
                j = I[j, LNEXT]
            FN[nd, MAXR] = m
        else:
            FN[nd, MAXR] = max(FN[T[nd, LEFT], MAXR], FN[T[nd, RIGHT], MAXR])


@njit(**_JIT)
def _push2(st_nd, st_lb, sp, x, i, B, a, b):
    """Push children a and b with their bounds, the nearer one on top."""
    la = box_lb(x, i, B, a)
    lb = box_lb(x, i, B, b)
    if la > lb:
        a, b, la, lb = b, a, lb, la
    st_nd[sp] = b
    st_lb[sp] = lb
    st_nd[sp + 1] = a
    st_lb[sp + 1] = la
    return sp + 2


@njit(**_JIT)
def _heap_push(hn, hl, size, nd, lb):
    pos = size
    while pos > 0:
        par = (pos - 1) >> 1
        if hl[par] <= lb:
            break
        hn[pos] = hn[par]
        hl[pos] = hl[par]
        pos = par
    hn[pos] = nd
    hl[pos] = lb
    return size + 1


@njit(**_JIT)
def _heap_pop(hn, hl, size):
    """Drop the top entry; returns the new size."""
    size -= 1
    nd = hn[size]
    lb = hl[size]
    pos = 0
    while True:
        c = 2 * pos + 1
        if c >= size:
            break
        if c + 1 < size and hl[c + 1] < hl[c]:
            c += 1
        if hl[c] >= lb:
            break
        hn[pos] = hn[c]
        hl[pos] = hl[c]
        pos = c
    if size > 0:
        hn[pos] = nd
        hl[pos] = lb
    return size


@njit(**_JIT)
def tree_nn(i, x, ev, use_cos, cos_cut, R2, I, T, B, hn, hl, budget, skip2):
    """Nearest eligible neighbour of slot i by (dist2, id), and how many points it read.

    Best-first: nodes come off a heap in order of their lower bound. With nothing eligible
    found after reading ``budget`` points it stops and returns (LAZY, rho^2), rho^2 being
    the smallest bound left: nothing nearer is eligible. Points nearer than sqrt(skip2) are
    known to be ineligible (a resumed lazy search) and are not checked again.
    """
    best = I[i, NN] * 0 - 1
    best_oid = best
    bd = R2
    D = x.shape[1]
    scanned = 0
    size = _heap_push(hn, hl, 0, 0, 0.0)
    while size > 0:
        nd = hn[0]
        if hl[0] > bd or (best_oid < 0 and hl[0] >= bd):
            break
        size = _heap_pop(hn, hl, size)
        if T[nd, LEFT] >= 0:
            for c in range(T[nd, LEFT], T[nd, LEFT] + 2):  # siblings are adjacent
                if T[c, CNT] > 0:
                    lb = box_lb(x, i, B, c)
                    if lb < bd or (lb == bd and best_oid >= 0):
                        size = _heap_push(hn, hl, size, c, lb)
            continue
        j = T[nd, HEAD]
        while j >= 0:
            if j != i:
                scanned += 1
                d2 = accept(x, x, D, ev, use_cos, cos_cut, I, i, j, best_oid, bd, skip2)
                if d2 >= 0.0:
                    best = j
                    best_oid = I[j, OID]
                    bd = d2
            j = I[j, LNEXT]
        if best_oid < 0 and scanned >= budget and size > 0 and hl[0] < R2:
            return best * 0 + LAZY, hl[0], scanned
    return best, bd, scanned


# ---------------------------------------------------------------- neighbour caches
# A cache c (rows of CI = [owner, count, slots...], CF = [r2, mc, centre x..., centre e...])
# promises: every alive slot not in its list either has dist2 >= r2 from the centre x, or a
# cosine <= mc < cos_cut - COS_SLACK with the centre e (the owner's embedding at fill time;
# mc = -2 without a cut). While the owner has moved by dx and its embedding by de, slots off
# the list are farther than r - dx or have cosine <= mc + de with it: ineligible. New objects
# within the owner's reverse radius CRR >= ((r + dx)(1 + EPS))^2 join the list (reverse query).

@njit(**_JIT)
def cache_free(c, CI, I, F):
    o = CI[c, 0]
    if o >= 0:
        I[o, CID] = -1
        F[o, CRR] = 0.0
    CI[c, 0] = -1
    CI[c, 1] = 0


@njit(**_JIT)
def cache_add(c, k, CI, I, F):
    cnt = CI[c, 1]
    for a in range(cnt):
        if CI[c, 2 + a] == k:
            return
    if cnt == CI.shape[1] - 2:  # full: the promise cannot be kept, drop the cache
        cache_free(c, CI, I, F)
    else:
        CI[c, 2 + cnt] = k
        CI[c, 1] = cnt + 1


@njit(**_JIT)
def tree_fill(i, c, x, ev, use_cos, cos_cut, R2x, I, T, B, st_nd, st_lb, CI, CF, cd):
    """Cache c := the nearest alive slots to slot i within R2x that are not clearly
    ineligible (cosine >= cos_cut - COS_SLACK); the others seen nearer go into mc."""
    K = CI.shape[1] - 2
    D = x.shape[1]
    cnt = 0
    bound = R2x
    mc = -2.0
    st_nd[0] = 0
    st_lb[0] = 0.0
    sp = 1
    while sp > 0:
        sp -= 1
        nd = st_nd[sp]
        if T[nd, CNT] == 0 or st_lb[sp] >= bound:
            continue
        if T[nd, LEFT] >= 0:
            sp = _push2(st_nd, st_lb, sp, x, i, B, T[nd, LEFT], T[nd, RIGHT])
            continue
        j = T[nd, HEAD]
        while j >= 0:
            if j != i:
                d2 = dist2_thr(x, x, D, i, j, bound)
                if d2 < bound and use_cos:
                    cs = cos_bounds(ev, i, j)[1]  # an upper bound is all the promise needs
                    if cs < cos_cut - COS_SLACK:
                        mc = max(mc, cs)
                        d2 = INF
                if d2 < bound:  # insertion into the sorted list, dropping the last if full
                    pos = cnt if cnt < K else K - 1
                    while pos > 0 and cd[pos - 1] > d2:
                        cd[pos] = cd[pos - 1]
                        CI[c, 2 + pos] = CI[c, 1 + pos]
                        pos -= 1
                    cd[pos] = d2
                    CI[c, 2 + pos] = j
                    cnt = min(cnt + 1, K)
                    if cnt == K:
                        bound = cd[K - 1]
            j = I[j, LNEXT]
    CI[c, 1] = cnt
    CF[c, 0] = bound
    CF[c, 1] = mc
    for k in range(D):
        CF[c, 2 + k] = x[i, k]
    e = ev[0]
    for k in range(e.shape[1]):
        CF[c, 2 + D + k] = e[i, k]


@njit(**_JIT)
def cache_query(i, c, x, ev, use_cos, cos_cut, R2, I, F, CI, CF, cd, cj):
    """(ok, neighbour, dist2) for slot i from its cache; ok is False when the cache cannot
    prove the answer. Also refreshes the owner's reverse radius."""
    D = x.shape[1]
    d2c = 0.0
    for k in range(D):
        t = x[i, k] - CF[c, 2 + k]
        d2c += t * t
    delta = math.sqrt(d2c)
    rc = math.sqrt(CF[c, 0])
    rr = (rc + delta) * (1.0 + EPS)
    F[i, CRR] = rr * rr * (1.0 + EPS)
    if use_cos:  # slots left off for their cosine must still be clearly ineligible
        e = ev[0]
        de2 = 0.0
        for k in range(e.shape[1]):
            t = e[i, k] - CF[c, 2 + D + k]
            de2 += t * t
        if CF[c, 1] + math.sqrt(de2) * (1.0 + EPS) + EPS >= cos_cut:
            return False, I[i, NN] * 0 + NONE, R2
    lim = rc * (1.0 - EPS) - delta * (1.0 + EPS)  # slots off the list are at least this far
    m = 0
    for a in range(CI[c, 1]):
        j = CI[c, 2 + a]
        if j != i and I[j, ALIVE] == 1:
            d2 = dist2_thr(x, x, D, i, j, R2)
            if d2 < R2:
                cd[m] = d2
                cj[m] = j
                m += 1
    while m > 0:  # candidates in (dist2, id) order; the first eligible one wins
        b = 0
        for a in range(1, m):
            if cd[a] < cd[b] or (cd[a] == cd[b] and I[cj[a], OID] < I[cj[b], OID]):
                b = a
        j = cj[b]
        d2 = cd[b]
        if eligible(ev, use_cos, cos_cut, i, j):
            return math.sqrt(d2) * (1.0 + EPS) < lim, j, d2
        m -= 1
        cd[b] = cd[m]
        cj[b] = cj[m]
    if math.sqrt(R2) * (1.0 + EPS) <= lim:
        return True, I[i, NN] * 0 + NONE, R2
    rho2 = lim * lim * (1.0 - EPS)  # nothing eligible nearer: a lazy answer
    return lim > 0.0, I[i, NN] * 0 + LAZY, rho2


@njit(**_JIT)
def tree_forward(i, x, ev, use_cos, cos_cut, R2, I, F, T, B, st_nd, st_lb, CI, CF, clk, cd, cj,
                 cache_scan, resume):
    """Nearest eligible neighbour of slot i: from its cache when that proves it, else by
    a tree search (after which a slot whose search was expensive gets a cache). ``resume``
    continues a lazy search with four times the budget, without the cache."""
    c = I[i, CID]
    skip2 = -1.0
    if resume:
        I[i, BUDGET] = 4 * max(I[i, BUDGET], 1)
        skip2 = F[i, NND2]
        c = -1
    elif c >= 0:
        ok, b, bd = cache_query(i, c, x, ev, use_cos, cos_cut, R2, I, F, CI, CF, cd, cj)
        if ok:
            return b, bd
    elif I[i, SCAN] > cache_scan and not resume:
        c = clk[0]
        clk[0] = (c + 1) % CI.shape[0]
        cache_free(c, CI, I, F)
        CI[c, 0] = i
        I[i, CID] = c
    if c >= 0 and not resume:
        tree_fill(i, c, x, ev, use_cos, cos_cut, R2 * FILL_EXT, I, T, B, st_nd, st_lb, CI, CF,
                  cd)
        ok, b, bd = cache_query(i, c, x, ev, use_cos, cos_cut, R2, I, F, CI, CF, cd, cj)
        if ok:
            return b, bd
        cache_free(c, CI, I, F)
    b, bd, scanned = tree_nn(i, x, ev, use_cos, cos_cut, R2, I, T, B, st_nd, st_lb,
                             I[i, BUDGET], skip2)
    I[i, SCAN] = scanned
    return b, bd


@njit(**_JIT)
def tree_reverse(k, x, ev, use_cos, cos_cut, I, F, tk, ti, size, T, FN, B, st_nd, st_fl, CI):
    """Point every slot r with dist2(r, k) < its cached distance (and eligible) at k, and
    add k to the caches it enters. Tightens the bounds of visited nodes on the way up."""
    D = x.shape[1]
    st_nd[0] = 0
    st_fl[0] = 0
    sp = 1
    while sp > 0:
        sp -= 1
        nd = st_nd[sp]
        if st_fl[sp] == 1:
            FN[nd, MAXR] = max(FN[T[nd, LEFT], MAXR], FN[T[nd, RIGHT], MAXR])
            continue
        # (an empty node keeps its bound: bump_maxr relies on parents >= children)
        if T[nd, CNT] == 0 or box_lb(x, k, B, nd) >= FN[nd, MAXR]:
            continue
        if T[nd, LEFT] >= 0:
            st_nd[sp], st_fl[sp] = nd, 1
            st_nd[sp + 1], st_fl[sp + 1] = T[nd, LEFT], 0
            st_nd[sp + 2], st_fl[sp + 2] = T[nd, RIGHT], 0
            sp += 3
            continue
        m = -1.0
        r = T[nd, HEAD]
        while r >= 0:
            if r != k:
                nn2 = F[r, NND2]
                crr = F[r, CRR]
                d2 = dist2_thr(x, x, D, r, k, max(nn2, crr))
                if d2 < nn2 and eligible(ev, use_cos, cos_cut, r, k):
                    set_nn(r, k, d2, I, F)
                    tour_update(tk, ti, size, r, I, F)
                if d2 < crr and I[r, CID] >= 0:
                    cache_add(I[r, CID], k, CI, I, F)
            m = max(m, rev_radius(F, r))
            r = I[r, LNEXT]
        FN[nd, MAXR] = m


# ---------------------------------------------------------------- the clustering loop

@njit(**_JIT)
def recombine(dst, sa, sb, x, xh, h, ev, I, F, tmp, wta, twop, new_id):
    """Write the merge of slots sa and sb into slot dst (one of them)."""
    e = ev[0]
    wa = F[sa, W]
    wb = F[sb, W]
    wn = wa + wb
    heavy = sa if (wa > wb or (wa == wb and I[sa, OID] < I[sb, OID])) else sb
    D = x.shape[1]
    E = e.shape[1]
    if wta:
        if heavy != dst:
            copy_row(x, dst, x, heavy)
            copy_row(e, dst, e, heavy)
    else:
        for k in range(D):
            x[dst, k] = (wa * x[sa, k] + wb * x[sb, k]) / wn
        nrm2 = 0.0
        for k in range(E):
            v = wa * e[sa, k] + wb * e[sb, k]
            tmp[k] = v
            nrm2 += v * v
        if nrm2 > 0.0:
            nrm = math.sqrt(nrm2)
            for k in range(E):
                e[dst, k] = tmp[k] / nrm
        elif heavy != dst:  # antipodal embeddings of equal weight: keep the heavier's
            copy_row(e, dst, e, heavy)
    for k in range(h):
        xh[dst, k] = x[dst, k]
    if E > 0:
        quantise(ev, dst)
    F[dst, W] = wn
    F[dst, WP] = wpow(wn, twop)
    I[dst, OID] = new_id


@njit(**_JIT)
def cluster(x, e, w, twop, R2, cos_cut, use_cos, wta, use_tree, tune, max_steps):
    """Run the clustering (x and e are overwritten: slot storage).

    ``tune`` = (leaf size, nn prefix coordinates, cache size, number of caches, scan count
    that earns a cache, points a search reads before it may go lazy): speed only, never
    results.

    Returns (lo_id, hi_id, q, dist2) of every merge and the final objects' (ids, weights,
    positions) in slot order.
    """
    n, D = x.shape
    E = e.shape[1]
    leaf_size, head, cache_k, cache_cap = tune[0], tune[1], tune[2], tune[3]
    h = D if (use_tree or head >= D) else head
    xh = x
    if h < D:
        xh = np.empty((n, h))
        for s in range(n):
            for k in range(h):
                xh[s, k] = x[s, k]
    I = np.full((n, N_ICOLS), -1, dtype=np.int64)
    F = np.zeros((n, N_FCOLS))
    if use_tree:
        T, FN, B, nodes, depth, perm = tree_build(x, leaf_size, I)
        permute_rows(x, perm)
        permute_rows(e, perm)
        ncache = max(1, min(cache_cap, n))
    else:
        T, FN, B, nodes, depth = (np.zeros((1, N_TCOLS), dtype=np.int64), np.zeros((1, 2)),
                                  np.zeros((1, 2 * D)), 1, 0)
        perm = np.arange(n)
        ncache = 1
    for s in range(n):
        I[s, OID] = perm[s]
        I[s, ALIVE] = 1
        I[s, APOS] = s
        I[s, SCAN] = 0
        I[s, BUDGET] = tune[5]
        F[s, W] = w[perm[s]]
        F[s, WP] = wpow(w[perm[s]], twop)
        F[s, NND2] = R2
    size = 1
    while size < n:
        size *= 2
    tk = np.empty((2 * size, 2))
    ti = np.empty((2 * size, 3), dtype=np.int64)
    tmp = np.empty(E)
    ev = (e, np.zeros((n, E), dtype=np.int8), np.zeros(n))  # embeddings and int8 sketches
    for s in range(n if use_cos else 0):
        quantise(ev, s)
    alist = np.arange(n)
    na = n
    m_max = n - 1 if max_steps < 0 else min(max_steps, n - 1)
    hist_lo = np.empty(m_max, dtype=np.int64)
    hist_hi = np.empty(m_max, dtype=np.int64)
    hist_q = np.empty(m_max)
    hist_d2 = np.empty(m_max)
    L = np.empty(n, dtype=np.int64)
    st_nd = np.empty(nodes + 2 * depth + 8, dtype=np.int64)  # stacks, and the search heap
    st_lb = np.empty(nodes + 2 * depth + 8)
    st_fl = np.empty(2 * depth + 8, dtype=np.int64)
    CI = np.full((ncache, 2 + cache_k), -1, dtype=np.int64)
    for c in range(ncache):
        CI[c, 1] = 0
    CF = np.zeros((ncache, 2 + D + E))
    clk = np.zeros(1, dtype=np.int64)
    cd = np.empty(cache_k)
    cj = np.empty(cache_k, dtype=np.int64)

    # ---- initial neighbours
    if use_tree:
        for s in range(n):
            b, bd, scanned = tree_nn(s, x, ev, use_cos, cos_cut, R2, I, T, B, st_nd, st_lb,
                                     I[s, BUDGET], -1.0)
            I[s, SCAN] = scanned
            set_nn(s, b, bd, I, F)
        tree_tighten_all(I, F, T, FN, nodes)
    else:
        best = np.empty(n, dtype=np.int64)
        bdist = np.empty(n)
        brute_init(x, xh, h, ev, use_cos, cos_cut, R2, I, best, bdist)
        for s in range(n):
            set_nn(s, best[s], bdist[s], I, F)
    tour_build(tk, ti, size, I, F)

    # ---- merge loop
    steps = 0
    while steps < m_max:
        s = ti[1, 0]
        if s < 0 or I[s, NN] == NONE:
            break
        if I[s, NN] == LAZY:  # its lower bound is the smallest key: search further
            b, bd = tree_forward(s, x, ev, use_cos, cos_cut, R2, I, F, T, B, st_nd, st_lb,
                                 CI, CF, clk, cd, cj, tune[4], True)
            set_nn(s, b, bd, I, F)
            bump_maxr(T, FN, I[s, LEAF], rev_radius(F, s))
            tour_update(tk, ti, size, s, I, F)
            continue
        step = steps
        t = I[s, NN]
        hist_lo[step] = min(I[s, OID], I[t, OID])
        hist_hi[step] = max(I[s, OID], I[t, OID])
        hist_q[step] = F[s, CQ]
        hist_d2[step] = F[s, NND2]
        steps += 1
        # slots whose neighbour dies (their back-pointer lists are dropped wholesale)
        nL = 0
        for which in range(2):
            r = I[s if which == 0 else t, RHEAD]
            while r >= 0:
                if r != s and r != t:
                    L[nL] = r
                    nL += 1
                    I[r, NN] = -1
                r = I[r, RNEXT]
        if I[t, NN] >= 0 and I[t, NN] != s:
            set_nn(t, I[t, NN] * 0 + NONE, R2, I, F)
        I[s, RHEAD] = -1
        I[t, RHEAD] = -1
        I[s, NN] = -1
        I[t, NN] = -1
        if use_tree:
            tree_delete(s, x, I, T, B)
            tree_delete(t, x, I, T, B)
            if I[t, CID] >= 0:
                cache_free(I[t, CID], CI, I, F)
        else:
            for which in range(2):
                p = I[s if which == 0 else t, APOS]
                last = alist[na - 1]
                alist[p] = last
                I[last, APOS] = p
                na -= 1
        recombine(s, s, t, x, xh, h, ev, I, F, tmp, wta, twop, n + step)
        I[s, BUDGET] = tune[5]
        I[t, ALIVE] = 0
        tour_update(tk, ti, size, t, I, F)
        # the new object's neighbour, then its entry in the spatial structure
        if use_tree:
            b, bd = tree_forward(s, x, ev, use_cos, cos_cut, R2, I, F, T, B, st_nd, st_lb,
                                 CI, CF, clk, cd, cj, tune[4], False)
        else:
            b, bd = brute_nn(s, x, xh, h, ev, use_cos, cos_cut, R2, I, alist, na)
        set_nn(s, b, bd, I, F)
        tour_update(tk, ti, size, s, I, F)
        if use_tree:
            tree_insert(s, x, I, T, FN, B)
            bump_maxr(T, FN, I[s, LEAF], rev_radius(F, s))
        else:
            alist[na] = s
            I[s, APOS] = na
            na += 1
        # slots for which the new object is now the nearest; it also enters the caches
        # here, before any cache answers below (slots in L are recomputed afterwards anyway)
        if use_tree:
            tree_reverse(s, x, ev, use_cos, cos_cut, I, F, tk, ti, size, T, FN, B, st_nd,
                         st_fl, CI)
        else:
            brute_reverse(s, x, xh, h, ev, use_cos, cos_cut, I, F, tk, ti, size, alist, na)
        # slots that lost their neighbour
        for a in range(nL):
            r = L[a]
            if use_tree:
                b, bd = tree_forward(r, x, ev, use_cos, cos_cut, R2, I, F, T, B, st_nd,
                                     st_lb, CI, CF, clk, cd, cj, tune[4], False)
                set_nn(r, b, bd, I, F)
                bump_maxr(T, FN, I[r, LEAF], rev_radius(F, r))
            else:
                b, bd = brute_nn(r, x, xh, h, ev, use_cos, cos_cut, R2, I, alist, na)
                set_nn(r, b, bd, I, F)
            tour_update(tk, ti, size, r, I, F)

    nf = 0
    for s in range(n):
        nf += I[s, ALIVE]
    fids = np.empty(nf, dtype=np.int64)
    fw = np.empty(nf)
    fx = np.empty((nf, D))
    a = 0
    for s in range(n):
        if I[s, ALIVE] == 1:
            fids[a] = I[s, OID]
            fw[a] = F[s, W]
            copy_row(fx, a, x, s)
            a += 1
    return hist_lo[:steps], hist_hi[:steps], hist_q[:steps], hist_d2[:steps], fids, fw, fx


# ---------------------------------------------------------------- history utilities

@njit(**_JIT)
def labels_from_history(n, lo, hi, m):
    """Labels after the first m merges, numbered in order of first appearance."""
    parent = np.arange(n + m)
    for t in range(m):
        parent[lo[t]] = n + t
        parent[hi[t]] = n + t
    root = np.empty(n + m, dtype=np.int64)
    for o in range(n + m - 1, -1, -1):
        root[o] = o if parent[o] == o else root[parent[o]]
    lab_of = np.full(n + m, -1, dtype=np.int64)
    labels = np.empty(n, dtype=np.int64)
    nxt = 0
    for i in range(n):
        r = root[i]
        if lab_of[r] < 0:
            lab_of[r] = nxt
            nxt += 1
        labels[i] = lab_of[r]
    return labels


@njit(**_JIT)
def replay(x, e, w, lo, hi, m, wta, twop):
    """Slots alive after the first m merges and all slot weights (x, e overwritten)."""
    n = x.shape[0]
    I = np.full((n, N_ICOLS), -1, dtype=np.int64)
    F = np.zeros((n, N_FCOLS))
    slot_of = np.empty(n + m, dtype=np.int64)
    for s in range(n):
        I[s, OID] = s
        I[s, ALIVE] = 1
        F[s, W] = w[s]
        slot_of[s] = s
    tmp = np.empty(e.shape[1])
    ev = (e, np.zeros((n, e.shape[1]), dtype=np.int8), np.zeros(n))
    for t in range(m):
        sa = slot_of[lo[t]]
        sb = slot_of[hi[t]]
        recombine(sa, sa, sb, x, x, 0, ev, I, F, tmp, wta, twop, n + t)
        I[sb, ALIVE] = 0
        slot_of[n + t] = sa
    keep = np.empty(n - m, dtype=np.int64)
    ws = np.empty(n)
    a = 0
    for s in range(n):
        ws[s] = F[s, W]
        if I[s, ALIVE] == 1:
            keep[a] = s
            a += 1
    return keep, ws
