"""Numba kernels for generalised-kt (private), part 5: the ``plane`` back end, for 2-D
coordinates without a cosine cut (any p, either recombination). See
:mod:`memmaint.clustering.genkt._kernels` for the design it shares with ``tree`` (slot tables,
canonical arithmetic, the candidate tournament, FastJet's nearest-neighbour caching).

Every pair within R is eligible here, so a search never goes lazy and no slot needs a
neighbour cache; what is left is made cheap:

* the bucket k-d tree also keeps every node's *cell* (the region its split planes give it,
  which never changes: an object always sits in the leaf whose cell holds it). A search
  starts in the slot's own leaf and climbs: at each level it reads the sibling's subtree
  (pruned by alive bounding boxes) and stops as soon as everything outside the cell it has
  read is provably farther than the best found. Most searches end in the first leaf or two;
  no heap, no descent from the root;
* the reverse query of a merge of a and b into k only visits the slab between the
  perpendicular bisectors of (a, k) and (k, b): an object r off the merge's two lists has
  ``dist2(r, nn_r) <= min(dist2(r, a), dist2(r, b))`` (a and b were alive and eligible), so
  it can only come to prefer k if it is nearer to k than to a and than to b. A box is passed
  over when one of the two (linear) differences ``|r - k|^2 - |r - a|^2`` is positive on all
  of it, with a margin far above the rounding of the distances (``SLAB_TOL``). When k is a
  or b bit for bit (``wta``, or a weighted mean that rounds onto a parent) nobody can prefer
  it and the query is skipped. The slots on the two lists are searched again anyway;
* for p = 0 there is no reverse query at all. Every pair has the key (dist2, dist2, lo id,
  hi id), so the smallest pair (P, Q) is a pair of mutual nearest neighbours by
  (dist2, id). Say Q is the younger. Its cache was last set by a search, when P was already
  alive; whatever that search found is P, or was nearer than P, hence dead by now (P is
  Q's nearest now) and then Q would have searched again. So Q's cache holds P, exactly,
  reverse updates or not; every other cache holds a real pair (a slot whose neighbour dies
  searches again), whose key can only be larger. The tournament's minimum is the merge
  every other strategy makes; caches that are only stale (a newer object is nearer) cost
  nothing. (For p != 0 the smaller end of the smallest pair by wp is the one that must know,
  and it may be the older.)

The histories are those of every other strategy, bit for bit: for p != 0 each cache still
holds the exact nearest neighbour by ``(dist2, id)``, bounds are summed in the order of the
distances (so rounding never puts a pruned point nearer than its bound) and ties still go
to ids.
"""

from __future__ import annotations

import numpy as np

from memmaint.clustering.genkt._kernels_common import (
    INF,
    TOP,
    TSLOT,
    detach_pair,
    history_new,
    kernel,
    loop_result,
    merge_into,
    set_nn,
    slot_init,
    slots_new,
    tour_build,
    tour_update,
)
from memmaint.clustering.genkt._kernels_tree import (
    bump_maxr,
    permute_rows,
    tree_build,
    tree_delete,
    tree_insert,
    tree_tighten_all,
)

#: relative margin of the slab test: the rounding of two distances and of the test itself is
#: below 1e-14 of R^2 (plus the test's own terms); this is a hundred times that
SLAB_TOL = 1e-12


@kernel
def plane_cells(T, FN, nodes):
    """Cells (lo0, lo1, hi0, hi1) of every node: the root's is the plane, a left child's
    ends below its parent's split value (x[d] < v), a right child's starts at it."""
    C = np.empty((nodes, 4))
    C[0, 0] = -INF
    C[0, 1] = -INF
    C[0, 2] = INF
    C[0, 3] = INF
    for nd in range(nodes):  # children have larger ids than their parent
        a = T[nd].left
        if a < 0:
            continue
        b = T[nd].right
        for k in range(4):
            C[a, k] = C[nd, k]
            C[b, k] = C[nd, k]
        d = T[nd].sdim
        C[a, 2 + d] = FN[nd].sval
        C[b, d] = FN[nd].sval
    return C


@kernel
def _lb2(x0, x1, B, nd):
    """Lower bound on dist2 from (x0, x1) to node nd's alive points (the order of dist2)."""
    s = 0.0
    if x0 < B[nd, 0]:
        t = B[nd, 0] - x0
        s += t * t
    elif x0 > B[nd, 2]:
        t = x0 - B[nd, 2]
        s += t * t
    if x1 < B[nd, 1]:
        t = B[nd, 1] - x1
        s += t * t
    elif x1 > B[nd, 3]:
        t = x1 - B[nd, 3]
        s += t * t
    return s


@kernel
def _out2(x0, x1, C, nd):
    """Lower bound on dist2 from (x0, x1), inside node nd's cell, to any point outside it:
    a point beyond a side differs by at least the gap in that coordinate (rounding is
    monotone), and the other coordinate only adds."""
    m = INF
    if C[nd, 0] > -INF:
        t = x0 - C[nd, 0]
        m = min(m, t * t)
    if C[nd, 2] < INF:
        t = C[nd, 2] - x0
        m = min(m, t * t)
    if C[nd, 1] > -INF:
        t = x1 - C[nd, 1]
        m = min(m, t * t)
    if C[nd, 3] < INF:
        t = C[nd, 3] - x1
        m = min(m, t * t)
    return m


@kernel
def _scan_leaf(i, x0, x1, x, I, T, nd, best, best_oid, bd):
    """Offer node nd's points to slot i's search (nearest by (dist2, id), below bd)."""
    j = T[nd].head
    while j >= 0:
        if j != i:
            t = x0 - x[j, 0]
            d2 = t * t
            if d2 <= bd:
                t = x1 - x[j, 1]
                d2 += t * t
                if d2 < bd or (d2 == bd and I[j].oid < best_oid):
                    best = j
                    best_oid = I[j].oid
                    bd = d2
        j = I[j].lnext
    return best, best_oid, bd


@kernel
def plane_nn(i, x, I, T, B, C, R2, st_nd, st_lb):
    """Nearest neighbour of slot i (in the tree) by (dist2, id) within R: its own leaf, then
    the siblings' subtrees on the way up, until nothing outside is near enough."""
    x0 = x[i, 0]
    x1 = x[i, 1]
    best = I[i].nn * 0 - 1
    best_oid = best
    bd = R2
    child = I[i].leaf
    best, best_oid, bd = _scan_leaf(i, x0, x1, x, I, T, child, best, best_oid, bd)
    nd = T[child].parent
    while nd >= 0:
        out = _out2(x0, x1, C, child)
        if out > bd or (best_oid < 0 and out >= bd):
            break
        sib = T[nd].left
        if sib == child:
            sib = T[nd].right
        if T[sib].cnt > 0:
            st_nd[0] = sib
            st_lb[0] = _lb2(x0, x1, B, sib)
            sp = 1
            while sp > 0:
                sp -= 1
                a = st_nd[sp]
                lb = st_lb[sp]
                if lb > bd or (lb == bd and best_oid < 0):
                    continue
                if T[a].left < 0:
                    best, best_oid, bd = _scan_leaf(i, x0, x1, x, I, T, a, best, best_oid, bd)
                    continue
                c = T[a].left
                d = T[a].right
                lc = _lb2(x0, x1, B, c) if T[c].cnt > 0 else INF
                ld = _lb2(x0, x1, B, d) if T[d].cnt > 0 else INF
                if lc < ld:  # the nearer child on top
                    c, d, lc, ld = d, c, ld, lc
                if ld < INF:
                    st_nd[sp] = d
                    st_lb[sp] = ld
                    sp += 1
                if lc < INF:
                    st_nd[sp] = c
                    st_lb[sp] = lc
                    sp += 1
        child = nd
        nd = T[nd].parent
    return best, bd


@kernel
def _slab_out(B, nd, k0, k1, u0, u1, uu, R2):
    """Is ``|r - k|^2 - |r - a|^2 = 2 (r - k).u - |u|^2`` (u = a - k) clearly positive for
    every r in node nd's box? Its minimum over the box is at a corner. "Clearly": above
    the rounding of the test (a few ulps of its terms) and of two distances to r within
    about R of k (a few ulps of R^2; farther slots cannot prefer k anyway)."""
    v0 = (B[nd, 0] if u0 > 0.0 else B[nd, 2]) - k0
    v1 = (B[nd, 1] if u1 > 0.0 else B[nd, 3]) - k1
    p0 = 2.0 * v0 * u0
    p1 = 2.0 * v1 * u1
    return p0 + p1 - uu > SLAB_TOL * (abs(p0) + abs(p1) + uu + R2)


@kernel
def plane_reverse(k, a0, a1, b0, b1, R2, x, I, F, tk, ti, size, T, FN, B, st_nd, st_fl):
    """Point every slot r with dist2(r, k) < its cached distance at k, k having just replaced
    a and b: only the slab where r is nearer to k than to a and to b is visited (see the
    module docstring). Tightens the reverse bounds of visited nodes on the way up."""
    k0 = x[k, 0]
    k1 = x[k, 1]
    ua0 = a0 - k0
    ua1 = a1 - k1
    ub0 = b0 - k0
    ub1 = b1 - k1
    uua = ua0 * ua0 + ua1 * ua1
    uub = ub0 * ub0 + ub1 * ub1
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
        if T[nd].cnt == 0 or _lb2(k0, k1, B, nd) >= FN[nd].maxr:
            continue
        if _slab_out(B, nd, k0, k1, ua0, ua1, uua, R2) or \
                _slab_out(B, nd, k0, k1, ub0, ub1, uub, R2):
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
            nn2 = F[r].nnd2
            if r != k:
                t = x[r, 0] - k0
                d2 = t * t
                if d2 < nn2:
                    t = x[r, 1] - k1
                    d2 += t * t
                    if d2 < nn2:
                        set_nn(r, k, d2, I, F)
                        tour_update(tk, ti, size, r, I, F)
                        nn2 = d2
            m = max(m, nn2)
            r = I[r].lnext
        FN[nd].maxr = m


@kernel
def plane_cluster(x, w, twop, R2, rec, leaf_size, max_steps):
    """The ``plane`` strategy's clustering (x is overwritten: slot storage); the same
    outputs as ``_kernels.cluster``: (lo_id, hi_id, q, dist2) of every merge and the final
    objects' (ids, weights, positions) in slot order."""
    n = x.shape[0]
    I, F = slots_new(n)
    T, FN, B, nodes, depth, perm = tree_build(x, leaf_size, I)
    permute_rows(x, perm)
    C = plane_cells(T, FN, nodes)
    for s in range(n):
        slot_init(s, perm[s], w[perm[s]], twop, R2, I, F)
    size = 1
    while size < n:
        size *= 2
    tk = np.empty((2 * size, 2))
    ti = np.empty((2 * size, 3), dtype=np.int64)
    e = np.zeros((n, 0))
    ev = (e, np.zeros((n, 0), dtype=np.int8), np.zeros(n))  # no embeddings
    tmp = np.empty(0)
    m_max, hist = history_new(n, max_steps)
    L = np.empty(n, dtype=np.int64)
    st_nd = np.empty(nodes + 2 * depth + 8, dtype=np.int64)
    st_lb = np.empty(nodes + 2 * depth + 8)
    st_fl = np.empty(nodes + 2 * depth + 8, dtype=np.int64)

    reverse = twop != 0.0  # p = 0 needs no reverse queries (module docstring)
    for s in range(n):
        b, bd = plane_nn(s, x, I, T, B, C, R2, st_nd, st_lb)
        set_nn(s, b, bd, I, F)
    if reverse:
        tree_tighten_all(I, F, T, FN, nodes)
    tour_build(tk, ti, size, I, F)

    steps = np.int64(0)  # (not a literal: see _kernels_common's merge step)
    while steps < m_max:
        s = ti[TOP, TSLOT]
        if s < 0 or I[s].nn < 0:
            break
        step = steps
        t = I[s].nn
        q, d2 = F[s].cq, F[s].nnd2
        steps += 1
        nL = detach_pair(s, t, R2, I, F, L)  # slots whose neighbour dies, listed in L
        a0 = x[s, 0]
        a1 = x[s, 1]
        b0 = x[t, 0]
        b1 = x[t, 1]
        tree_delete(s, x, I, T, B)
        tree_delete(t, x, I, T, B)
        merge_into(step, s, t, q, d2, hist, x, x, np.int64(0), ev, I, F, tmp, rec, twop, n)
        tour_update(tk, ti, size, t, I, F)
        tree_insert(s, x, I, T, FN, B)
        b, bd = plane_nn(s, x, I, T, B, C, R2, st_nd, st_lb)
        set_nn(s, b, bd, I, F)
        tour_update(tk, ti, size, s, I, F)
        k0 = x[s, 0]
        k1 = x[s, 1]
        if reverse:
            bump_maxr(T, FN, I[s].leaf, F[s].nnd2)
            if not ((k0 == a0 and k1 == a1) or (k0 == b0 and k1 == b1)):
                plane_reverse(s, a0, a1, b0, b1, R2, x, I, F, tk, ti, size, T, FN, B,
                              st_nd, st_fl)
        for a in range(nL):
            r = L[a]
            b, bd = plane_nn(r, x, I, T, B, C, R2, st_nd, st_lb)
            set_nn(r, b, bd, I, F)
            if reverse:
                bump_maxr(T, FN, I[r].leaf, F[r].nnd2)
            tour_update(tk, ti, size, r, I, F)

    return loop_result(hist, steps, I, F, x)
