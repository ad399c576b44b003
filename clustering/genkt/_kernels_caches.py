"""Numba kernels for generalised-kt (private), part 4: the neighbour caches of growing
clusters, and the ``tree`` back end's forward and reverse queries that use them. See
:mod:`memmaint.clustering.genkt._kernels`.
"""

from __future__ import annotations

import math

from memmaint.clustering.genkt._kernels_common import (
    CBOUND,
    CCOUNT,
    CLIST,
    CMAXCOS,
    COS_SLACK,
    COWNER,
    CPOS,
    EPS,
    FILL_EXT,
    INF,
    LAZY,
    NONE,
    box_lb,
    cos_bounds,
    dist2_thr,
    eligible,
    kernel,
    set_nn,
    tour_update,
)
from memmaint.clustering.genkt._kernels_tree import (
    rev_radius,
    tree_nn,
)

# A cache c (rows of CI = [owner, count, slots...], CF = [r2, mc, centre x..., centre e...])
# promises: every alive slot not in its list either has dist2 >= r2 from the centre x, or a
# cosine <= mc < cos_cut - COS_SLACK with the centre e (the owner's embedding at fill time;
# mc = -2 without a cut). While the owner has moved by dx and its embedding by de, slots off
# the list are farther than r - dx or have cosine <= mc + de with it: ineligible. New objects
# within the owner's reverse radius crr >= ((r + dx)(1 + EPS))^2 join the list (reverse query).

@kernel
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



@kernel
def cache_free(c, CI, I, F):
    o = CI[c, COWNER]
    if o >= 0:
        I[o].cid = -1
        F[o].crr = 0.0
    CI[c, COWNER] = -1
    CI[c, CCOUNT] = 0


@kernel
def cache_add(c, k, CI, I, F):
    cnt = CI[c, CCOUNT]
    for a in range(cnt):
        if CI[c, CLIST + a] == k:
            return
    if cnt == CI.shape[1] - CLIST:  # full: the promise cannot be kept, drop the cache
        cache_free(c, CI, I, F)
    else:
        CI[c, CLIST + cnt] = k
        CI[c, CCOUNT] = cnt + 1


@kernel
def tree_fill(i, c, x, ev, use_cos, cos_cut, R2x, I, T, B, st_nd, st_lb, CI, CF, cd):
    """Cache c := the nearest alive slots to slot i within R2x that are not clearly
    ineligible (cosine >= cos_cut - COS_SLACK); the others seen nearer go into mc."""
    K = CI.shape[1] - CLIST
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
        if T[nd].cnt == 0 or st_lb[sp] >= bound:
            continue
        if T[nd].left >= 0:
            sp = _push2(st_nd, st_lb, sp, x, i, B, T[nd].left, T[nd].right)
            continue
        j = T[nd].head
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
                        CI[c, CLIST + pos] = CI[c, CLIST - 1 + pos]
                        pos -= 1
                    cd[pos] = d2
                    CI[c, CLIST + pos] = j
                    cnt = min(cnt + 1, K)
                    if cnt == K:
                        bound = cd[K - 1]
            j = I[j].lnext
    CI[c, CCOUNT] = cnt
    CF[c, CBOUND] = bound
    CF[c, CMAXCOS] = mc
    for k in range(D):
        CF[c, CPOS + k] = x[i, k]
    e = ev[0]
    for k in range(e.shape[1]):
        CF[c, CPOS + D + k] = e[i, k]


@kernel
def cache_query(i, c, x, ev, use_cos, cos_cut, R2, I, F, CI, CF, cd, cj):
    """(ok, neighbour, dist2) for slot i from its cache; ok is False when the cache cannot
    prove the answer. Also refreshes the owner's reverse radius."""
    D = x.shape[1]
    d2c = 0.0
    for k in range(D):
        t = x[i, k] - CF[c, CPOS + k]
        d2c += t * t
    delta = math.sqrt(d2c)
    rc = math.sqrt(CF[c, CBOUND])
    rr = (rc + delta) * (1.0 + EPS)
    F[i].crr = rr * rr * (1.0 + EPS)
    if use_cos:  # slots left off for their cosine must still be clearly ineligible
        e = ev[0]
        de2 = 0.0
        for k in range(e.shape[1]):
            t = e[i, k] - CF[c, CPOS + D + k]
            de2 += t * t
        if CF[c, CMAXCOS] + math.sqrt(de2) * (1.0 + EPS) + EPS >= cos_cut:
            return False, I[i].nn * 0 + NONE, R2
    lim = rc * (1.0 - EPS) - delta * (1.0 + EPS)  # slots off the list are at least this far
    m = 0
    for a in range(CI[c, CCOUNT]):
        j = CI[c, CLIST + a]
        if j != i and I[j].alive == 1:
            d2 = dist2_thr(x, x, D, i, j, R2)
            if d2 < R2:
                cd[m] = d2
                cj[m] = j
                m += 1
    while m > 0:  # candidates in (dist2, id) order; the first eligible one wins
        b = 0
        for a in range(1, m):
            if cd[a] < cd[b] or (cd[a] == cd[b] and I[cj[a]].oid < I[cj[b]].oid):
                b = a
        j = cj[b]
        d2 = cd[b]
        if eligible(ev, use_cos, cos_cut, i, j):
            return math.sqrt(d2) * (1.0 + EPS) < lim, j, d2
        m -= 1
        cd[b] = cd[m]
        cj[b] = cj[m]
    if math.sqrt(R2) * (1.0 + EPS) <= lim:
        return True, I[i].nn * 0 + NONE, R2
    rho2 = lim * lim * (1.0 - EPS)  # nothing eligible nearer: a lazy answer
    return lim > 0.0, I[i].nn * 0 + LAZY, rho2


@kernel
def tree_forward(i, x, ev, use_cos, cos_cut, R2, I, F, T, B, st_nd, st_lb, CI, CF, clk, cd, cj,
                 cache_scan, resume):
    """Nearest eligible neighbour of slot i: from its cache when that proves it, else by
    a tree search (after which a slot whose search was expensive gets a cache). ``resume``
    continues a lazy search with four times the budget, without the cache."""
    c = I[i].cid
    skip2 = -1.0
    if resume:
        I[i].budget = 4 * max(I[i].budget, 1)
        skip2 = F[i].nnd2
        c = -1
    elif c >= 0:
        ok, b, bd = cache_query(i, c, x, ev, use_cos, cos_cut, R2, I, F, CI, CF, cd, cj)
        if ok:
            return b, bd
    elif I[i].scan > cache_scan and not resume:
        c = clk[0]
        clk[0] = (c + 1) % CI.shape[0]
        cache_free(c, CI, I, F)
        CI[c, COWNER] = i
        I[i].cid = c
    if c >= 0 and not resume:
        tree_fill(i, c, x, ev, use_cos, cos_cut, R2 * FILL_EXT, I, T, B, st_nd, st_lb, CI, CF,
                  cd)
        ok, b, bd = cache_query(i, c, x, ev, use_cos, cos_cut, R2, I, F, CI, CF, cd, cj)
        if ok:
            return b, bd
        cache_free(c, CI, I, F)
    b, bd, scanned = tree_nn(i, x, ev, use_cos, cos_cut, R2, I, T, B, st_nd, st_lb,
                             I[i].budget, skip2)
    I[i].scan = scanned
    return b, bd


@kernel
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
            FN[nd].maxr = max(FN[T[nd].left].maxr, FN[T[nd].right].maxr)
            continue
        # (an empty node keeps its bound: bump_maxr relies on parents >= children)
        if T[nd].cnt == 0 or box_lb(x, k, B, nd) >= FN[nd].maxr:
            continue
        if T[nd].left >= 0:
            st_nd[sp], st_fl[sp] = nd, 1
            st_nd[sp + 1], st_fl[sp + 1] = T[nd].left, 0
            st_nd[sp + 2], st_fl[sp + 2] = T[nd].right, 0
            sp += 3
            continue
        m = -1.0
        r = T[nd].head
        while r >= 0:
            if r != k:
                nn2 = F[r].nnd2
                crr = F[r].crr
                d2 = dist2_thr(x, x, D, r, k, max(nn2, crr))
                if d2 < nn2 and eligible(ev, use_cos, cos_cut, r, k):
                    set_nn(r, k, d2, I, F)
                    tour_update(tk, ti, size, r, I, F)
                if d2 < crr and I[r].cid >= 0:
                    cache_add(I[r].cid, k, CI, I, F)
            m = max(m, rev_radius(F, r))
            r = I[r].lnext
        FN[nd].maxr = m

