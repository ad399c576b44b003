"""Numba kernels for generalised-kt (private), graph strategy part 2: the pivot cells that
answer range queries in any dimension, the announcements and refills that use them, and the
candidate lists of the first pass. The algorithm is described in
:mod:`memmaint.clustering.genkt._kernels_graph`.

Pivot cells
-----------
Kc pivots c_a (k-means centres of a sample, ``_graph._pivots``) partition the slots into
cells: the nearest pivot (the slot's *home*) when the cells are made, except that slots
farther than R + skin from every pivot (background one-offs) go to an extra cell Kc that is
never pruned as a whole (they would make every cell's ranges useless). A slot keeps its cell
and home. Every slot has a row ``T[s, a] = |x_s - c_a|^2`` taken at its last announcement.
For two pivots a != b, ``f_ab(x) = |x - c_a|^2 - |x - c_b|^2 = const - 2 x.(c_a - c_b)``, so
``|f_ab(x) - f_ab(y)| <= 2 |x - y| |c_a - c_b|``: the rows give the projection of every slot on
every pivot-pivot direction for Kc numbers a slot. In high dimension that is what separates
topics (points of a topic differ from its centre in random directions: their projections on
any fixed direction are tight), where balls around pivots prune nothing. Each cell keeps the
range [lo_ab, hi_ab] of f_ab over its members (ranges only widen), so a query prunes whole
cells first, then members one by one. All bounds carry a margin for rounding: ``eps_t``
bounds the error of every stored T entry.
"""

from __future__ import annotations

import math

import numpy as np

from memmaint.clustering.genkt._kernels_common import (
    INF,
    kernel,
)
from memmaint.clustering.genkt._kernels_graph_heap import (
    CELL,
    CNEXT,
    CPREV,
    GP,
    GPA,
    GPREF,
    GRHO,
    HOME,
    LAST,
    MARK,
    NIN,
    OHEAD,
    ON,
    OWN,
    REL,
    SSTAMP,
    TGT,
    d2fast,
    e_new,
    in_edges,
    rho_eff,
    tight_bound,
)


@kernel
def trow_fill(x, s, C, out):
    """out[a] = |x_s - c_a|^2 (coordinates summed in order)."""
    D = x.shape[1]
    for a in range(C.shape[0]):
        acc = 0.0
        for k in range(D):
            t = x[s, k] - C[a, k]
            acc += t * t
        out[a] = acc


@kernel
def cell_widen(T, lo, hi, a, s):
    """Widen cell a's ranges to cover slot s's row (the outlier cell has none)."""
    if a >= T.shape[1]:
        return
    for b in range(T.shape[1]):
        f = T[s, a] - T[s, b]
        lo[a, b] = min(lo[a, b], f)
        hi[a, b] = max(hi[a, b], f)


@kernel
def cell_link(GI, chead, s, a):
    h = chead[a]
    GI[s, CELL] = a
    GI[s, CNEXT] = h
    GI[s, CPREV] = -1
    if h >= 0:
        GI[h, CPREV] = s
    chead[a] = s


@kernel
def cell_unlink(GI, chead, s):
    a = GI[s, CELL]
    nx = GI[s, CNEXT]
    pv = GI[s, CPREV]
    if pv >= 0:
        GI[pv, CNEXT] = nx
    else:
        chead[a] = nx
    if nx >= 0:
        GI[nx, CPREV] = pv
    GI[s, CNEXT] = -1
    GI[s, CPREV] = -1


@kernel
def nearest_pivots(qrow, piv):
    """The len(piv) pivots nearest the query, into piv (fewer if there are fewer pivots)."""
    m = min(piv.shape[0], qrow.shape[0])
    for i in range(m):
        best = -1
        for a in range(qrow.shape[0]):
            taken = False
            for j in range(i):
                if piv[j] == a:
                    taken = True
            if not taken and (best < 0 or qrow[a] < qrow[best]):
                best = a
        piv[i] = best
    return m


@kernel
def _proj_lb(df, ccab, eps_t):
    """Lower bound on |x - y| from f_ab(x) - f_ab(y) = df."""
    g = abs(df) - 4.0 * eps_t
    if g <= 0.0 or ccab <= 0.0:
        return 0.0
    return g / (2.0 * ccab * (1.0 + REL)) * (1.0 - REL)


@kernel
def cell_query(qrow, piv, npiv, lo, hi, cc, T, I, GI, GF, chead, eps_t, radius, slack,
               skip, stamp, out_k, out_lb):
    """Alive slots k != skip, neither marked nor last joined to skip, that may lie nearer
    than ``radius`` to the query (its pivot row qrow), with a lower bound on that distance
    (already less the slot's drift since its announcement). Every slot drifted by at most
    ``slack`` since its row was taken. Returns how many were written to out_k / out_lb."""
    Kc = T.shape[1]
    m = 0
    for a in range(Kc + 1):
        if chead[a] < 0:
            continue
        lb = 0.0
        for i in range(npiv if a < Kc else 0):
            b = piv[i]
            if b != a:
                f = qrow[a] - qrow[b]
                g = max(lo[a, b] - f, f - hi[a, b])
                if g > 0.0:
                    lb = max(lb, _proj_lb(g, cc[a, b], eps_t))
        if lb - slack >= radius:
            continue
        k = chead[a]
        while k >= 0:
            if (k != skip and GI[k, MARK] != stamp and GI[k, LAST] != skip
                    and I[k].alive == 1):
                h = GI[k, HOME]
                lb = 0.0
                for i in range(npiv):
                    b = piv[i]
                    if b != h:
                        lb = max(lb, _proj_lb((T[k, h] - T[k, b]) - (qrow[h] - qrow[b]),
                                              cc[h, b], eps_t))
                lb -= (GF[k, GP] - GF[k, GPA]) * (1.0 + REL)
                if lb < radius:
                    out_k[m] = k
                    out_lb[m] = lb
                    m += 1
            k = GI[k, CNEXT]
    return m


# ---------------------------------------------------------------- announcements and refills

@kernel
def mark_adjacent(s, EI, GI, st, stk, buf, walk_max, jt):
    """Mark the slots joined to s (GI[., MARK] = a fresh stamp): those of its out edges, and
    those of its in edges when there are at most walk_max of them. Returns the stamp, and
    sets up ``jt``, the state of ``is_joined`` for the candidates a query leaves."""
    st[SSTAMP] += 1
    stamp = st[SSTAMP]
    jt[0] = 0
    jt[1] = GI[s, NIN]
    jt[2] = 0
    if GI[s, NIN] <= walk_max:
        _mark_in(s, EI, GI, stk, buf, stamp)
        jt[2] = 1
    f = GI[s, OHEAD]
    while f >= 0:
        GI[EI[f, TGT], MARK] = stamp
        f = EI[f, ON]
    GI[s, MARK] = stamp
    return stamp


@kernel
def _mark_in(s, EI, GI, stk, buf, stamp):
    """Mark the owners of the edges into s."""
    m = in_edges(EI, GI, s, stk, buf)
    for a in range(m):
        GI[EI[buf[a], OWN], MARK] = stamp


@kernel
def is_joined(s, k, EI, GI, stk, buf, stamp, jt):
    """Is k joined to s? (Slots s owns an edge to are marked by ``mark_adjacent``.) Told by
    walking k's out edges, until those walks, added up over one query's candidates, have
    cost more than walking s's in edges once (``jt``: edges walked, s's in-degree, whether
    s's in edges are marked): then s's in edges mark their owners and the marks tell. A
    slot that announcements joined to many growing clusters owns many edges, and a growing
    cluster is the target of thousands, so neither walk is the cheap one for every query;
    this costs at most about twice the cheaper."""
    if jt[2] == 1:
        return GI[k, MARK] == stamp
    f = GI[k, OHEAD]
    while f >= 0:
        jt[0] += 1
        if EI[f, TGT] == s:
            GI[k, LAST] = s
            return True
        f = EI[f, ON]
    if jt[0] > jt[1]:
        _mark_in(s, EI, GI, stk, buf, stamp)
        jt[2] = 1
    return False


@kernel
def locate(s, x, C, T, lo, hi, GI, GF, qrow, piv):
    """Take slot s's pivot row at its current position (an announcement's bookkeeping)."""
    trow_fill(x, s, C, qrow)
    for a in range(T.shape[1]):
        T[s, a] = qrow[a]
    cell_widen(T, lo, hi, GI[s, CELL], s)
    GF[s, GPA] = GF[s, GP]
    return nearest_pivots(qrow, piv)


@kernel
def join(o, t, d2, I, F, GI, GF, EI, EF, st, scl):
    """A new edge between o and t (not yet joined) with fresh dist2 d2: target t."""
    e_new(EI, EF, I, GI, GF, F, st, o, t, d2, scl)


@kernel
def announce(s, x, R, S, scl, C, T, lo, hi, cc, eps_t, chead, I, F, GI, GF, EI, EF, st,
             stk, buf, qrow, piv, ck, clb, walk_max, jt):
    """Slot s moved by more than the skin since it last announced: every slot whose promise
    it may now break gets an edge to it (s is their target). Returns whether any did."""
    stamp = mark_adjacent(s, EI, GI, st, stk, buf, walk_max, jt)
    npiv = locate(s, x, C, T, lo, hi, GI, GF, qrow, piv)
    m = cell_query(qrow, piv, npiv, lo, hi, cc, T, I, GI, GF, chead, eps_t, R + S, S, s,
                   stamp, ck, clb)
    added = False
    for a in range(m):
        k = ck[a]
        lim = rho_eff(GF, k, scl) + S
        if clb[a] >= lim or is_joined(s, k, EI, GI, stk, buf, stamp, jt):
            continue
        d2 = d2fast(x, k, s)
        if tight_bound(d2) * (1.0 - REL) < lim:
            join(k, s, d2, I, F, GI, GF, EI, EF, st, scl)
            added = True
    return added


@kernel
def refill(j, x, R, S, scl, gap, B, C, T, lo, hi, cc, eps_t, chead, I, F, GI, GF, EI, EF,
           st, stk, buf, qrow, piv, ck, clb, cd, cv, tch, nt, walk_max, jt):
    """Slot j's promise is the smallest item: join j to its nearest unjoined slots so that
    its promise grows (by at least ``gap``; to R when at most B slots are within R + 2S). An
    announcement of j on the way. Returns the new number of touched slots."""
    r_old = max(rho_eff(GF, j, scl), 0.0)
    stamp = mark_adjacent(j, EI, GI, st, stk, buf, walk_max, jt)
    npiv = locate(j, x, C, T, lo, hi, GI, GF, qrow, piv)
    m = cell_query(qrow, piv, npiv, lo, hi, cc, T, I, GI, GF, chead, eps_t, R + 2.0 * S, S,
                   j, stamp, ck, clb)
    if jt[2] == 0:  # drop the candidates joined to j after all
        c = 0
        for a in range(m):
            if not is_joined(j, ck[a], EI, GI, stk, buf, stamp, jt):
                ck[c] = ck[a]
                clb[c] = clb[a]
                c += 1
        m = c
    for a in range(m):
        k = ck[a]
        cd[a] = d2fast(x, k, j)  # v: how near k was to j when k last announced, at least
        cv[a] = tight_bound(cd[a]) * (1.0 - REL) - (GF[k, GP] - GF[k, GPA]) * (1.0 + REL)
    theta = INF
    if m > B:
        tmp = cv[:m].copy()
        tmp.sort()
        theta = max(r_old + S + gap, tmp[B])
    full = theta >= R + S
    for a in range(m):
        k = ck[a]
        if full or cv[a] < theta or tight_bound(cd[a]) * (1.0 - REL) < rho_eff(GF, k, scl) + S:
            if F[k].w > F[j].w:  # the heavier end is the target: it is the one to move
                join(j, k, cd[a], I, F, GI, GF, EI, EF, st, scl)
                tch[nt] = k
                nt += 1
            else:
                join(k, j, cd[a], I, F, GI, GF, EI, EF, st, scl)
    GF[j, GRHO] = R if full else min(R, theta - S)
    GF[j, GPREF] = GF[j, GP]
    tch[nt] = j
    return nt + 1


# ---------------------------------------------------------------- the first pass

@kernel
def permute_rows(a, order):
    """a[i] = (a before)[order[i]] for every row i, in place (one row of extra memory)."""
    n = a.shape[0]
    done = np.zeros(n, dtype=np.bool_)
    row = np.empty(a.shape[1], dtype=a.dtype)
    for start in range(n):
        if done[start]:
            continue
        row[:] = a[start]
        i = start
        while True:
            done[i] = True
            j = order[i]
            if j == start:
                a[i] = row
                break
            a[i] = a[j]
            i = j


@kernel
def _hpush(hv, hid, hc, thr, kk, i, v, j):
    """Offer candidate j at approximate dist2 v to row i's max-heap of the kk smallest."""
    c = hc[i]
    if c < kk:
        pos = c
        while pos > 0:
            par = (pos - 1) >> 1
            if hv[i, par] >= v:
                break
            hv[i, pos] = hv[i, par]
            hid[i, pos] = hid[i, par]
            pos = par
        hv[i, pos] = v
        hid[i, pos] = j
        hc[i] = c + 1
        if c + 1 == kk:
            thr[i] = hv[i, 0]
        return
    pos = 0
    while True:
        ch = 2 * pos + 1
        if ch >= kk:
            break
        if ch + 1 < kk and hv[i, ch + 1] > hv[i, ch]:
            ch += 1
        if hv[i, ch] <= v:
            break
        hv[i, pos] = hv[i, ch]
        hid[i, pos] = hid[i, ch]
        pos = ch
    hv[i, pos] = v
    hid[i, pos] = j
    thr[i] = hv[i, 0]


@kernel
def _row_hits(g, ni, nj, tj, ti, b0, hit):
    """The entries of a tile row that may beat the row's or their column's threshold, into
    hit: a branch-free float32 screen (thresholds carry a margin for its rounding)."""
    m = 0
    for b in range(b0, g.shape[0]):
        v = (ni + nj[b]) - np.float32(2.0) * g[b]
        hit[m] = b
        m += v < max(ti, tj[b])
    return m


@kernel
def tile_update(G, rows, cols, diag, nrm, hv, hid, hc, thr, kk, m32):
    """Offer every pair of a Gram tile G = X[rows] X[cols]^T (float32) to both rows' heaps
    (with diag, rows == cols and only pairs above the diagonal). Positions are in the pass's
    order. ``m32`` bounds the rounding of the float32 screening."""
    nc = cols.shape[0]
    nj = np.empty(nc, dtype=np.float32)
    tj = np.empty(nc, dtype=np.float32)  # the columns' thresholds (+ margin), kept current
    hit = np.empty(nc + 1, dtype=np.int64)
    for b in range(nc):
        nj[b] = nrm[cols[b]]
        tj[b] = thr[cols[b]] + m32
    for a in range(rows.shape[0]):
        i = rows[a]
        b0 = a + 1 if diag else 0
        m = _row_hits(G[a], np.float32(nrm[i]), nj, tj, np.float32(thr[i] + m32), b0, hit)
        ni = nrm[i]
        for h in range(m):
            b = hit[h]
            j = cols[b]
            v = ni + nrm[j] - 2.0 * np.float64(G[a, b])
            if v < thr[i]:
                _hpush(hv, hid, hc, thr, kk, i, v, j)
                if diag:
                    tj[a] = thr[i] + m32
            if v < thr[j]:
                _hpush(hv, hid, hc, thr, kk, j, v, i)
                tj[b] = thr[j] + m32


@kernel
def lists_finish(hv, hid, hc, kk, err, S, R, rho):
    """Each row's list (all heap entries but the largest when the heap is full) as pairs of
    rows (lo, hi), and each row's promise rho: every row off its list is at least rho + S
    away (R: the list holds everything within R + S)."""
    n = hv.shape[0]
    tot = 0
    for i in range(n):
        tot += hc[i] - (1 if hc[i] == kk else 0)
    keys = np.empty(tot, dtype=np.int64)
    m = 0
    for i in range(n):
        full = hc[i] == kk
        for a in range(1 if full else 0, hc[i]):
            j = hid[i, a]
            keys[m] = min(i, j) * n + max(i, j)
            m += 1
        if full:
            r = math.sqrt(max(hv[i, 0] - err, 0.0)) * (1.0 - REL) - S
            rho[i] = min(R, r)
        else:
            rho[i] = R
    keys.sort()
    u = 0
    for a in range(tot):
        if a == 0 or keys[a] != keys[a - 1]:
            keys[u] = keys[a]
            u += 1
    lo = np.empty(u, dtype=np.int64)
    hi = np.empty(u, dtype=np.int64)
    for a in range(u):
        lo[a] = keys[a] // n
        hi[a] = keys[a] % n
    return lo, hi
