"""Numba kernels for generalised-kt (private), graph strategy part 1: the edge pool, pairing
heaps of edges, the edge lists of a slot and the tournament over slots. The algorithm is
described in :mod:`memmaint.clustering.genkt._kernels_graph`.

An edge joins two alive slots, its *owner* and its *target*; it is stored on the target's
side. It is in exactly one of three places:

* ``STALE``: in the target's pairing heap, keyed by ``K`` such that ``A K - B`` is a lower
  bound on the squared distance, (A, B) the target's *frame*: a target that moves updates
  its frame and so all its bounds at once, without touching them;
* ``RES`` (resolved): its EXACT dist2 is fresh (neither end merged since) and the pair is
  eligible: in the target's heap of resolved pairs, keyed by the pair key
  ``(min(wp) dist2, dist2, lo id, hi id)``;
* ``PARK`` (parked): fresh but not mergeable (beyond R or under the cosine cut); in the
  target's parked list until one of its ends merges.

Every edge is also in its owner's out list. Heaps are pairing heaps threaded through the
edge table (insert and meld O(1), delete O(log n) amortised).
"""

from __future__ import annotations

import math

import numpy as np

from memmaint.clustering.genkt._kernels_common import (
    INF,
    KD2,
    KQ,
    THI,
    TLO,
    TSLOT,
    _tour_pull,
    kernel,
)

REL = 1e-9  # relative safety margin of every bound (rounding errors are ~1e-13 at most)

# int64 edge table EI (m, .): ends, heap links (child, next sibling, previous sibling or
# parent), out-list links, parked-list links, state, the versions of owner and target when
# D2 was computed and what D2 is then: TIGHT (a fast sum, within 1e-12 of the distance) or
# EXACT (the canonical sum)
OWN, TGT, HC, HS, HP, ON, OP, LN, LP, ST, VO, VT, LV = range(13)
N_ECOLS = 13
TIGHT, EXACT = 1, 2
# float64 edge table EF (m, .): stale key, exact dist2 (valid while fresh), resolved pair key
EK, ED2, EQ = range(3)
N_EFCOLS = 3
FREE, STALE, RES, PARK = -1, 0, 1, 2
# int64 slot table GI (n, .): stale and resolved heap roots, parked and out list heads,
# version (merges so far), cell, cell-list links, adjacency mark, home pivot, the slot it
# was last joined to (so joined to it now: edges between alive slots never go), number of
# edges it is the target of
HROOT, RROOT, PHEAD, OHEAD, VER, CELL, CNEXT, CPREV, MARK, HOME, LAST, NIN = range(12)
N_GICOLS = 12
# float64 slot table GF (n, .): drift P (the length of the way the slot has moved, merge by
# merge), P at its last announcement, promise radius rho and P when rho was set, min wp and
# min promise of the owners of its edges, its edges' frame (A, B: a key k bounds the squared
# distance by A k - B) and the rounding slack E of that frame
GP, GPA, GRHO, GPREF, GHW, GHR, GA, GB, GE = range(9)
N_GFCOLS = 9
# int64 state vector: free-list head, mark stamp, edges in use
SFREE, SSTAMP, SUSED = range(3)
N_STATE = 3


# ---------------------------------------------------------------- edge pool

@kernel
def pool_new(m):
    """An edge pool of m free edges (tables, scratch stack)."""
    EI = np.full((m, N_ECOLS), -1, dtype=np.int64)
    EF = np.zeros((m, N_EFCOLS))
    for e in range(m - 1):
        EI[e, OWN] = e + 1
    st = np.zeros(N_STATE, dtype=np.int64)
    st[SFREE] = 0 if m > 0 else -1
    return EI, EF, st, np.empty(max(m, 1), dtype=np.int64)


@kernel
def pool_grow(EI, EF, st, m_new):
    """Copies of the tables with room for m_new edges (the new ones free)."""
    m = EI.shape[0]
    EI2 = np.full((m_new, N_ECOLS), -1, dtype=np.int64)
    EF2 = np.zeros((m_new, N_EFCOLS))
    EI2[:m] = EI
    EF2[:m] = EF
    for e in range(m, m_new - 1):
        EI2[e, OWN] = e + 1
    EI2[m_new - 1, OWN] = st[SFREE]
    st[SFREE] = m
    return EI2, EF2, np.empty(m_new, dtype=np.int64)


@kernel
def edge_alloc(EI, st):
    e = st[SFREE]
    st[SFREE] = EI[e, OWN]
    for c in range(N_ECOLS):
        EI[e, c] = -1
    st[SUSED] += 1
    return e


@kernel
def edge_free(EI, st, e):
    for c in range(N_ECOLS):
        EI[e, c] = -1
    EI[e, ST] = FREE
    EI[e, OWN] = st[SFREE]
    st[SFREE] = e
    st[SUSED] -= 1


# ---------------------------------------------------------------- pairing heaps

@kernel
def h_less(kind, EI, EF, I, a, b):
    """Heap order: stale heaps (kind 0) by K, the resolved heap (kind 1) by pair key."""
    if kind == 0:
        if EF[a, EK] != EF[b, EK]:
            return EF[a, EK] < EF[b, EK]
        return a < b
    if EF[a, EQ] != EF[b, EQ]:
        return EF[a, EQ] < EF[b, EQ]
    if EF[a, ED2] != EF[b, ED2]:
        return EF[a, ED2] < EF[b, ED2]
    a1 = I[EI[a, OWN]].oid
    a2 = I[EI[a, TGT]].oid
    b1 = I[EI[b, OWN]].oid
    b2 = I[EI[b, TGT]].oid
    if min(a1, a2) != min(b1, b2):
        return min(a1, a2) < min(b1, b2)
    return max(a1, a2) < max(b1, b2)


@kernel
def h_meld(kind, EI, EF, I, a, b):
    """Meld two heap roots (-1: empty); returns the root."""
    if a < 0:
        return b
    if b < 0:
        return a
    if h_less(kind, EI, EF, I, b, a):
        a, b = b, a
    c = EI[a, HC]
    EI[b, HS] = c
    if c >= 0:
        EI[c, HP] = b
    EI[b, HP] = a
    EI[a, HC] = b
    return a


@kernel
def h_pop(kind, EI, EF, I, root, stk):
    """Detach the root; returns the new root of its children (two-pass pairing)."""
    c = EI[root, HC]
    EI[root, HC] = -1
    EI[root, HS] = -1
    EI[root, HP] = -1
    m = 0
    while c >= 0:
        a = c
        b = EI[a, HS]
        c = EI[b, HS] if b >= 0 else -1
        EI[a, HS] = -1
        EI[a, HP] = -1
        if b >= 0:
            EI[b, HS] = -1
            EI[b, HP] = -1
            a = h_meld(kind, EI, EF, I, a, b)
        stk[m] = a
        m += 1
    r = -1
    while m > 0:
        m -= 1
        r = h_meld(kind, EI, EF, I, stk[m], r)
    return r


@kernel
def h_remove(kind, EI, EF, I, root, e, stk):
    """Remove edge e from the heap with this root; returns the new root."""
    if e == root:
        return h_pop(kind, EI, EF, I, root, stk)
    p = EI[e, HP]
    s = EI[e, HS]
    if EI[p, HC] == e:
        EI[p, HC] = s
    else:
        EI[p, HS] = s
    if s >= 0:
        EI[s, HP] = p
    EI[e, HP] = -1
    EI[e, HS] = -1
    return h_meld(kind, EI, EF, I, root, h_pop(kind, EI, EF, I, e, stk))


@kernel
def h_insert(kind, EI, EF, I, root, e):
    EI[e, HC] = -1
    EI[e, HS] = -1
    EI[e, HP] = -1
    return h_meld(kind, EI, EF, I, root, e)


# ---------------------------------------------------------------- lists

@kernel
def l_push(EI, GI, col, s, e, nc, pc):
    """Push edge e onto slot s's list (head GI[s, col], links nc / pc)."""
    h = GI[s, col]
    EI[e, nc] = h
    EI[e, pc] = -1
    if h >= 0:
        EI[h, pc] = e
    GI[s, col] = e


@kernel
def l_unlink(EI, GI, col, s, e, nc, pc):
    nx = EI[e, nc]
    pv = EI[e, pc]
    if pv >= 0:
        EI[pv, nc] = nx
    else:
        GI[s, col] = nx
    if nx >= 0:
        EI[nx, pc] = pv
    EI[e, nc] = -1
    EI[e, pc] = -1


# ---------------------------------------------------------------- placing edges

@kernel
def e_detach(EI, EF, I, GI, st, stk, e):
    """Take edge e out of its target's heaps or list (it stays in its owner's out list)."""
    t = EI[e, TGT]
    s = EI[e, ST]
    if s == STALE:
        GI[t, HROOT] = h_remove(0, EI, EF, I, GI[t, HROOT], e, stk)
    elif s == RES:
        GI[t, RROOT] = h_remove(1, EI, EF, I, GI[t, RROOT], e, stk)
    elif s == PARK:
        l_unlink(EI, GI, PHEAD, t, e, LN, LP)
    EI[e, ST] = FREE


@kernel
def d2fast(x, i, j):
    """The squared distance summed in eight lanes (fast; any order of summation is within
    (D + 3) u of the exact value, so ``tight_bound`` of it is a lower bound)."""
    D = x.shape[1]
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    k = 0
    while k + 8 <= D:
        t0 = x[i, k] - x[j, k]
        t1 = x[i, k + 1] - x[j, k + 1]
        t2 = x[i, k + 2] - x[j, k + 2]
        t3 = x[i, k + 3] - x[j, k + 3]
        t4 = x[i, k + 4] - x[j, k + 4]
        t5 = x[i, k + 5] - x[j, k + 5]
        t6 = x[i, k + 6] - x[j, k + 6]
        t7 = x[i, k + 7] - x[j, k + 7]
        s0 += t0 * t0
        s1 += t1 * t1
        s2 += t2 * t2
        s3 += t3 * t3
        s4 += t4 * t4
        s5 += t5 * t5
        s6 += t6 * t6
        s7 += t7 * t7
        k += 8
    while k < D:
        t0 = x[i, k] - x[j, k]
        s0 += t0 * t0
        k += 1
    return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))


@kernel
def tight_bound(d2):
    """A lower bound on the distance from a TIGHT dist2 (also below the canonical one)."""
    return math.sqrt(d2 * (1.0 - 1e-12))


@kernel
def rho_eff(GF, k, scl):
    """Slot k's promise now: every alive slot joined to k by no edge is at least this far."""
    r = GF[k, GRHO]
    return r - (GF[k, GP] - GF[k, GPREF]) - REL * (abs(r) + GF[k, GP] + scl)


@kernel
def frame_bound(GF, t, key, scl):
    """The lower bound on a distance that key K gives in target t's frame:
    sqrt(A K - B) - E (E: how far rounding may have put t from where exact arithmetic
    would have; A K - B bounds the squared distance to that exact place)."""
    a = GF[t, GA] * key
    v = a - GF[t, GB] - REL * (abs(a) + abs(GF[t, GB]) + scl * scl)
    if v <= 0.0:
        return 0.0
    return max(math.sqrt(v) * (1.0 - REL) - GF[t, GE], 0.0)


@kernel
def frame_key(GF, t, b):
    """The key of a lower bound b on a distance in target t's frame."""
    c = b + GF[t, GE]
    return (c * c + GF[t, GB]) / GF[t, GA]


@kernel
def e_stale(EI, EF, I, GI, GF, F, e, key, scl):
    """Put detached edge e into its target's stale heap with key K."""
    t = EI[e, TGT]
    EF[e, EK] = key
    EI[e, ST] = STALE
    GI[t, HROOT] = h_insert(0, EI, EF, I, GI[t, HROOT], e)
    o = EI[e, OWN]
    GF[t, GHW] = min(GF[t, GHW], F[o].wp)
    GF[t, GHR] = min(GF[t, GHR], max(rho_eff(GF, o, scl), 0.0))


@kernel
def e_new(EI, EF, I, GI, GF, F, st, own, tgt, d2, scl):
    """A new stale edge owner -> target whose TIGHT dist2 d2 is fresh."""
    e = edge_alloc(EI, st)
    EI[e, OWN] = own
    EI[e, TGT] = tgt
    EI[e, VO] = GI[own, VER]
    EI[e, VT] = GI[tgt, VER]
    EI[e, LV] = TIGHT
    EF[e, ED2] = d2
    l_push(EI, GI, OHEAD, own, e, ON, OP)
    e_stale(EI, EF, I, GI, GF, F, e, frame_key(GF, tgt, tight_bound(d2)), scl)
    GI[own, LAST] = tgt
    GI[tgt, LAST] = own
    GI[tgt, NIN] += 1
    return e


@kernel
def heap_walk(EI, root, stk, out, m):
    """Append every edge of the heap with this root to out[m:]; returns the new length."""
    if root < 0:
        return m
    sp = 0
    stk[sp] = root
    sp += 1
    while sp > 0:
        sp -= 1
        e = stk[sp]
        out[m] = e
        m += 1
        c = EI[e, HC]
        while c >= 0:
            stk[sp] = c
            sp += 1
            c = EI[c, HS]
    return m



@kernel
def in_edges(EI, GI, s, stk, out):
    """Write every edge into slot s (its stale heap, its resolved heap, its parked list) to
    out[0:]; returns how many."""
    m = heap_walk(EI, GI[s, HROOT], stk, out, 0)
    m = heap_walk(EI, GI[s, RROOT], stk, out, m)
    f = GI[s, PHEAD]
    while f >= 0:
        out[m] = f
        m += 1
        f = EI[f, LN]
    return m

# ---------------------------------------------------------------- tournament over slots

@kernel
def gt_set(tk, ti, size, pos, q, d2, lo, hi):
    """Set tournament leaf pos to the key (q, d2, lo, hi) and update its ancestors."""
    p = size + pos
    tk[p, KQ] = q
    tk[p, KD2] = d2
    ti[p, TSLOT] = pos
    ti[p, TLO] = lo
    ti[p, THI] = hi
    p >>= 1
    while p >= 1:
        _tour_pull(tk, ti, p)
        p >>= 1


@kernel
def gt_clear(tk, ti, size, pos):
    """Empty tournament leaf pos (sorts after every real key) and update its ancestors."""
    p = size + pos
    tk[p, KQ] = INF
    tk[p, KD2] = INF
    ti[p, TSLOT] = -1
    ti[p, TLO] = 2**62
    ti[p, THI] = 2**62
    p >>= 1
    while p >= 1:
        _tour_pull(tk, ti, p)
        p >>= 1


@kernel
def gt_init(tk, ti, size):
    for p in range(size, 2 * size):
        tk[p, KQ] = INF
        tk[p, KD2] = INF
        ti[p, TSLOT] = -1
        ti[p, TLO] = 2**62
        ti[p, THI] = 2**62
    for p in range(size - 1, 0, -1):
        _tour_pull(tk, ti, p)
