"""Numba kernels for generalised-kt (private), part 3: the dynamic bucket k-d tree of the
``tree`` back end (build, insert, delete, reverse-radius bounds) and its best-first nearest
neighbour search. See :mod:`memmaint.clustering.genkt._kernels`.
"""

from __future__ import annotations

import numpy as np

from memmaint.clustering.genkt._kernels_common import (
    INF,
    LAZY,
    accept,
    box_lb,
    copy_row,
    kernel,
    nodes_new,
)


@kernel
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


@kernel
def tree_build(x, leaf_size, I):
    """Median-split bucket k-d tree over the rows of x, split at x[d] < v | x[d] >= v.

    Returns the node tables T and FN, the bounding boxes B (lo | hi), the number of nodes,
    the maximal depth and the leaf order ``perm``: leaf lists hold positions in ``perm``, so
    the caller must move row perm[a] to slot a.
    """
    n = x.shape[0]
    D = x.shape[1]
    cap = 2 * n + 1  # every split leaves both sides non-empty
    T, FN = nodes_new(cap, np.int64(-1))
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
        T[nd].cnt = e - s
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
            T[nd].head = s
            for a in range(s, e):
                I[a].leaf = nd
                I[a].lprev = a - 1 if a > s else -1
                I[a].lnext = a + 1 if a + 1 < e else -1
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
        T[nd].left = left
        T[nd].right = left + 1
        T[nd].sdim = dim
        T[left].parent = nd
        T[left + 1].parent = nd
        FN[nd].sval = v
        st[sp, 0], st[sp, 1], st[sp, 2], st[sp, 3] = left + 1, b, e, dep + 1
        st[sp + 1, 0], st[sp + 1, 1], st[sp + 1, 2], st[sp + 1, 3] = left, s, b, dep + 1
        sp += 2
    return T[:nodes].copy(), FN[:nodes].copy(), B[:nodes].copy(), nodes, depth, perm


@kernel
def permute_rows(a, perm):
    """In place: row s becomes old row perm[s] (cycle by cycle, one spare row)."""
    n, m = a.shape
    if m == 0:
        return
    done = np.zeros(n, dtype=np.bool_)
    tmp = np.empty((1, m))
    zero = np.int64(0)  # (not a literal: see _kernels_common's merge step)
    for start in range(n):
        if done[start]:
            continue
        copy_row(tmp, zero, a, start)
        j = start
        while True:
            done[j] = True
            src = perm[j]
            if src == start:
                copy_row(a, j, tmp, zero)
                break
            copy_row(a, j, a, src)
            j = src


@kernel
def tree_insert(sl, x, I, T, FN, B):
    D = x.shape[1]
    nd = 0
    while True:
        T[nd].cnt += 1
        for k in range(D):
            B[nd, k] = min(B[nd, k], x[sl, k])
            B[nd, D + k] = max(B[nd, D + k], x[sl, k])
        if T[nd].left < 0:
            break
        nd = T[nd].left if x[sl, T[nd].sdim] < FN[nd].sval else T[nd].right
    h = T[nd].head
    I[sl].lnext = h
    I[sl].lprev = -1
    if h >= 0:
        I[h].lprev = sl
    T[nd].head = sl
    I[sl].leaf = nd


@kernel
def tree_delete(sl, x, I, T, B):
    """Unlink slot sl; shrink the bounding boxes up the path while they change."""
    D = x.shape[1]
    nd = I[sl].leaf
    nx = I[sl].lnext
    pv = I[sl].lprev
    if pv >= 0:
        I[pv].lnext = nx
    else:
        T[nd].head = nx
    if nx >= 0:
        I[nx].lprev = pv
    for k in range(D):
        B[nd, k] = INF
        B[nd, D + k] = -INF
    j = T[nd].head
    while j >= 0:
        for k in range(D):
            B[nd, k] = min(B[nd, k], x[j, k])
            B[nd, D + k] = max(B[nd, D + k], x[j, k])
        j = I[j].lnext
    T[nd].cnt -= 1
    changed = True
    nd = T[nd].parent
    while nd >= 0:
        T[nd].cnt -= 1
        if changed:
            a = T[nd].left
            b = T[nd].right
            changed = False
            for k in range(2 * D):
                v = min(B[a, k], B[b, k]) if k < D else max(B[a, k], B[b, k])
                if v != B[nd, k]:
                    changed = True
                    B[nd, k] = v
        nd = T[nd].parent


@kernel
def rev_radius(F, s):
    """Reverse radius^2 of slot s: the reverse query must reach it within this."""
    return max(F[s].nnd2, F[s].crr)


@kernel
def bump_maxr(T, FN, nd, v):
    """Make every ancestor's reverse-radius bound at least v (bounds only ever over-cover)."""
    while nd >= 0 and FN[nd].maxr < v:
        FN[nd].maxr = v
        nd = T[nd].parent


@kernel
def tree_tighten_all(I, F, T, FN, nodes):
    """Exact bounds, children before parents (children have larger ids)."""
    for nd in range(nodes - 1, -1, -1):
        if T[nd].left < 0:
            m = -1.0
            j = T[nd].head
            while j >= 0:
                m = max(m, rev_radius(F, j))
                j = I[j].lnext
            FN[nd].maxr = m
        else:
            FN[nd].maxr = max(FN[T[nd].left].maxr, FN[T[nd].right].maxr)



@kernel
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


@kernel
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


@kernel
def tree_nn(i, x, ev, use_cos, cos_cut, R2, I, T, B, hn, hl, budget, skip2):
    """Nearest eligible neighbour of slot i by (dist2, id), and how many points it read.

    Best-first: nodes come off a heap in order of their lower bound. With nothing eligible
    found after reading ``budget`` points it stops and returns (LAZY, rho^2), rho^2 being
    the smallest bound left: nothing nearer is eligible. Points nearer than sqrt(skip2) are
    known to be ineligible (a resumed lazy search) and are not checked again.
    """
    best = I[i].nn * 0 - 1
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
        if T[nd].left >= 0:
            for c in range(T[nd].left, T[nd].left + 2):  # siblings are adjacent
                if T[c].cnt > 0:
                    lb = box_lb(x, i, B, c)
                    if lb < bd or (lb == bd and best_oid >= 0):
                        size = _heap_push(hn, hl, size, c, lb)
            continue
        j = T[nd].head
        while j >= 0:
            if j != i:
                scanned += 1
                d2 = accept(x, x, D, ev, use_cos, cos_cut, I, i, j, best_oid, bd, skip2)
                if d2 >= 0.0:
                    best = j
                    best_oid = I[j].oid
                    bd = d2
            j = I[j].lnext
        if best_oid < 0 and scanned >= budget and size > 0 and hl[0] < R2:
            return best * 0 + LAZY, hl[0], scanned
    return best, bd, scanned

