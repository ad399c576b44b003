"""Numba kernels for generalised-kt (private), graph strategy part 3: the clustering loop.

The ``graph`` strategy keeps, instead of FastJet's one cached nearest neighbour per object,
a sparse graph of candidate pairs with *lower bounds* on their distances, and merges only a
pair whose exact key is provably the smallest. It is built for high dimension, where a
growing cluster's centroid becomes the nearest neighbour of thousands of points: ``nn`` then
sends all of them searching the whole pool again at every merge.

Slots, edges, promises
----------------------
Objects live in slots; a merge writes the new object into the heavier parent's slot (the
rule ``recombine`` uses for "heavier", so with ``wta`` that slot never moves). ``P[s]`` is
the length of the way slot s has moved, merge by merge (its drift). An edge joins an owner o
and a target t and lives on the target's side (``_kernels_graph_heap``): a slot that merges
turns all its out edges around, so the slots that keep moving (growing clusters) are the
targets of their edges. Each slot has a promise rho: every alive slot joined to it by no
edge is at least rho away (less its own drift since); the others keep it true by announcing.

Frames: a moving target updates all its bounds at once
------------------------------------------------------
A stale edge's key K gives the bound ``|x_o - x_t|^2 >= A_t K - B_t`` (``frame_bound``; the
target's frame (A, B), with a slack E_t for the rounding of the means). When t absorbs u,
the weighted mean c' = (1 - lam) c + lam u (lam = w_u / (w_t + w_u)) satisfies Stewart's
theorem, ``|o - c'|^2 = (1 - lam)|o - c|^2 + lam |o - u|^2 - lam (1 - lam)|c - u|^2``, and
every owner o not joined to u has ``|o - u| >= ell``: its own promise and u's hold both, so
ell = max(the least promise of t's owners, u's promise). One affine map of (A, B) updates
every bound of t, in O(1); the few owners joined to u are taken out before and re-keyed by
the triangle inequality (``_exceptions``). When u is joined to many (two growing clusters
merge), ell = 0 instead, which holds for every owner. A growing centroid thus moves without touching
the thousands of edges around it; only those whose bound falls below the smallest key get
looked at again.

What covers every pair, and why the history is the reference's
---------------------------------------------------------------
Every pair (a, b) is covered by an item whose key is at most the pair's key
``(min(wp) dist2, dist2, lo id, hi id)``:

* a stale edge: its target's stale heap, min(wp) * bound^2 of its top edge (the min of wp
  over the heap's owners and the target: exact for p = 0);
* a resolved edge: its exact key, in its target's heap of resolved pairs;
* no edge: both promises hold, so the lighter end's promise bound wp * rho^2 covers it
  (FastJet's argument: for the pair to be the smallest, it is the lighter end's to answer).

A tournament over the slots holds each slot's smallest item. Bounds sort before exact keys
of the same value (as in the other strategies), so when the smallest item is an exact key,
no pair has a smaller key, nor an equal one with smaller ids: it is the merge the reference
makes, and ``recombine`` makes the same object. The exact keys are the canonical ones (the
coordinates summed in order), so every merge of the history, ties and rounding included, is
the reference's. Otherwise the smallest item is worked on, until an exact key is:

* a stale edge is sharpened: to a TIGHT bound (an eight-lane sum, within (D + 3) u of the
  distance, lowered by 1e-12), and a fresh TIGHT one to the EXACT canonical dist2; it is then
  resolved (within R and past the cosine cut) or parked until one of its ends moves;
* a promise is refilled: its slot is joined to the nearest slots it is not joined to (pivot
  cells find them) until its promise has grown by at least ``gap``, or to R.

Each step either merges, sharpens an edge (at most twice until an end moves) or grows a
promise, so the loop ends. All bounds carry a relative margin of 1e-9 (``REL``).

Announcing and the skin
-----------------------
A slot that has moved by more than the skin S since it last announced, announces: every slot
k without an edge to it and nearer than rho_k + S gets one. A refill promises rho only when
nothing off its list is nearer than rho + S, so a slot moving less than S breaks no promise.
The first lists and promises come from a blocked Gram pass (``_graph``) whose rounding error
is bounded: nothing anywhere relies on an approximation.
"""

from __future__ import annotations

import math

import numpy as np

from memmaint.clustering.genkt._kernels_common import (
    INF,
    KD2,
    KQ,
    SPHERE,
    THI,
    TLO,
    TOP,
    TSLOT,
    eligible,
    heavier,
    history_new,
    kernel,
    loop_result,
    merge_into,
    quantise,
    slot_init,
    slots_new,
)
from memmaint.clustering.genkt._kernels_graph_heap import (
    ED2,
    EK,
    EQ,
    EXACT,
    GA,
    GB,
    GE,
    GHR,
    GHW,
    GP,
    GPA,
    GPREF,
    GRHO,
    HOME,
    HROOT,
    LAST,
    LN,
    LP,
    LV,
    MARK,
    N_GFCOLS,
    N_GICOLS,
    NIN,
    OHEAD,
    ON,
    OP,
    OWN,
    PARK,
    PHEAD,
    REL,
    RES,
    RROOT,
    ST,
    STALE,
    SUSED,
    TGT,
    TIGHT,
    VER,
    VO,
    VT,
    d2fast,
    e_detach,
    e_stale,
    edge_free,
    frame_bound,
    frame_key,
    gt_clear,
    gt_init,
    gt_set,
    h_insert,
    h_meld,
    h_pop,
    heap_walk,
    in_edges,
    l_push,
    l_unlink,
    pool_grow,
    pool_new,
    rho_eff,
    tight_bound,
)
from memmaint.clustering.genkt._kernels_graph_index import (
    announce,
    cell_link,
    cell_unlink,
    join,
    refill,
)


@kernel
def d2full(x, i, j):
    """The canonical squared distance (coordinates summed in order)."""
    s = 0.0
    for k in range(x.shape[1]):
        t = x[i, k] - x[j, k]
        s += t * t
    return s


@kernel
def _own_key(s, F, GF, R, scl):
    """(finite?, key) of slot s's promise bound wp * rho_eff^2."""
    r = GF[s, GRHO]
    drift = GF[s, GP] - GF[s, GPREF]
    if r >= R and drift == 0.0:
        return False, INF
    r = r - drift - REL * (abs(r) + GF[s, GP] + scl)
    if r >= R:
        return False, INF
    r = max(r, 0.0)
    return True, F[s].wp * r * r * (1.0 - REL)


@kernel
def _stale_key(s, F, GI, GF, EF, R, scl):
    """(finite?, key) of slot s's stale heap: min(wp) * bound^2 of its top edge."""
    h = GI[s, HROOT]
    if h < 0:
        if GI[s, RROOT] < 0 and GI[s, PHEAD] < 0:  # no edges left in its frame
            GF[s, GHW] = INF
            GF[s, GHR] = INF
        return False, INF
    b = frame_bound(GF, s, EF[h, EK], scl)
    if b >= R:
        return False, INF
    b = max(b, 0.0)
    return True, min(GF[s, GHW], F[s].wp) * b * b * (1.0 - REL)


@kernel
def _item(s, I, F, GI, GF, EI, EF, R, scl):
    """Slot s's smallest item: (kind, q, d2, lo id, hi id); kind 0 its promise, 1 its stale
    heap, 2 its best resolved pair, -1 none. Bounds sort before exact keys of equal q."""
    fo, qo = _own_key(s, F, GF, R, scl)
    fs, qs = _stale_key(s, F, GI, GF, EF, R, scl)
    kind = -1
    q = INF
    if fs:
        kind = 1
        q = qs
    if fo and (kind < 0 or qo < q):
        kind = 0
        q = qo
    r = GI[s, RROOT]
    if r >= 0 and (kind < 0 or EF[r, EQ] < q):
        a = I[EI[r, OWN]].oid
        b = I[EI[r, TGT]].oid
        return 2, EF[r, EQ], EF[r, ED2], min(a, b), max(a, b)
    return kind, q, -1.0, -1, -1


@kernel
def _key_less(q, d2, lo, hi, q2, d22, lo2, hi2):
    if q != q2:
        return q < q2
    if d2 != d22:
        return d2 < d22
    if lo != lo2:
        return lo < lo2
    return hi < hi2


@kernel
def _others(tk, ti, size, s):
    """The smallest key of the tournament without leaf s."""
    q, d2, lo, hi = INF, INF, 2**62, 2**62
    p = size + s
    while p > 1:
        c = p ^ 1
        if _key_less(tk[c, KQ], tk[c, KD2], ti[c, TLO], ti[c, THI], q, d2, lo, hi):
            q, d2, lo, hi = tk[c, KQ], tk[c, KD2], ti[c, TLO], ti[c, THI]
        p >>= 1
    return q, d2, lo, hi


@kernel
def _leaf(s, tk, ti, size, I, F, GI, GF, EI, EF, R, scl):
    """Refresh slot s's tournament leaf."""
    kind, q, d2, a, b = _item(s, I, F, GI, GF, EI, EF, R, scl)
    if I[s].alive == 1 and kind >= 0:
        gt_set(tk, ti, size, s, q, d2, a, b)
    else:
        gt_clear(tk, ti, size, s)


@kernel
def _resolve(s, x, ev, use_cos, cos_cut, R2, I, F, GI, GF, EI, EF, stk, scl):
    """Slot s's stale heap has the smallest item: sharpen its top edge. A stale bound becomes
    a TIGHT one (fast sum); a fresh TIGHT one becomes EXACT (the canonical sum the other
    strategies use), and the pair is resolved (eligible, within R) or parked."""
    f = GI[s, HROOT]
    GI[s, HROOT] = h_pop(0, EI, EF, I, f, stk)
    o = EI[f, OWN]
    if EI[f, VO] != GI[o, VER] or EI[f, VT] != GI[s, VER]:
        d2 = d2fast(x, o, s)
        EF[f, ED2] = d2
        EI[f, VO] = GI[o, VER]
        EI[f, VT] = GI[s, VER]
        EI[f, LV] = TIGHT
        e_stale(EI, EF, I, GI, GF, F, f, frame_key(GF, s, tight_bound(d2)), scl)
        return
    if EI[f, LV] != EXACT:
        EF[f, ED2] = d2full(x, o, s)
        EI[f, LV] = EXACT
    d2 = EF[f, ED2]
    EF[f, EK] = frame_key(GF, s, math.sqrt(d2))
    if d2 < R2 and eligible(ev, use_cos, cos_cut, o, s):
        EF[f, EQ] = min(F[o].wp, F[s].wp) * d2
        EI[f, ST] = RES
        GI[s, RROOT] = h_insert(1, EI, EF, I, GI[s, RROOT], f)
    else:
        EI[f, ST] = PARK
        l_push(EI, GI, PHEAD, s, f, LN, LP)


@kernel
def _exceptions(s, u, EI, EF, GI, GF, st, stk, buf, I, xe, xb, scl):
    """Before s absorbs u: take out the edges o -> s whose owner o is joined to u (the frame
    update assumes |o - u| >= o's promise), with a lower bound on |x_o - x_s| each, into
    xe / xb. Returns how many."""
    m = in_edges(EI, GI, u, stk, buf)
    for a in range(m):
        buf[a] = EI[buf[a], OWN]
    f = GI[u, OHEAD]
    while f >= 0:
        buf[m] = EI[f, TGT]
        m += 1
        f = EI[f, ON]
    nx = 0
    for a in range(m):
        o = buf[a]  # (u has one edge at most with each slot)
        if o == s:
            continue
        f = GI[o, OHEAD]
        while f >= 0:
            if EI[f, TGT] == s:
                if EI[f, ST] == STALE:
                    xb[nx] = frame_bound(GF, s, EF[f, EK], scl)
                else:
                    xb[nx] = math.sqrt(EF[f, ED2]) * (1.0 - REL)
                xe[nx] = f
                nx += 1
                e_detach(EI, EF, I, GI, st, stk, f)
                break
            f = EI[f, ON]
    return nx


@kernel
def _bury(u, I, GI, EI, EF, st, stk, buf, chead, tch, nt):
    """Slot u dies: free all its edges. Returns the new number of touched slots."""
    m = in_edges(EI, GI, u, stk, buf)
    GI[u, HROOT] = -1
    GI[u, RROOT] = -1
    GI[u, PHEAD] = -1
    for a in range(m):  # its heaps and list go as a whole
        f = buf[a]
        l_unlink(EI, GI, OHEAD, EI[f, OWN], f, ON, OP)
        edge_free(EI, st, f)
    f = GI[u, OHEAD]
    while f >= 0:
        g = EI[f, ON]
        tch[nt] = EI[f, TGT]
        nt += 1
        GI[EI[f, TGT], NIN] -= 1
        e_detach(EI, EF, I, GI, st, stk, f)
        edge_free(EI, st, f)
        f = g
    GI[u, OHEAD] = -1
    I[u].alive = 0
    cell_unlink(GI, chead, u)
    return nt


@kernel
def _turn(s, delta, twop, I, F, GI, GF, EI, EF, st, stk, buf, tch, nt, scl):
    """Slot s moved by delta: its resolved and parked edges go stale, its out edges turn
    around (s becomes their target). Returns the new number of touched slots."""
    m = heap_walk(EI, GI[s, RROOT], stk, buf, 0)
    if twop == 0.0:
        # p = 0: the resolved heap, ordered by dist2, is ordered by K too (all its edges were
        # keyed in the same frame, K increasing with dist2): it joins the stale heap as it is
        for a in range(m):
            EI[buf[a], ST] = STALE
        GI[s, HROOT] = h_meld(0, EI, EF, I, GI[s, HROOT], GI[s, RROOT])
    else:
        for a in range(m):
            e_stale(EI, EF, I, GI, GF, F, buf[a], EF[buf[a], EK], scl)
    GI[s, RROOT] = -1
    f = GI[s, PHEAD]
    while f >= 0:
        g = EI[f, LN]
        EI[f, LN] = -1
        EI[f, LP] = -1
        e_stale(EI, EF, I, GI, GF, F, f, EF[f, EK], scl)
        f = g
    GI[s, PHEAD] = -1
    m = 0
    f = GI[s, OHEAD]
    while f >= 0:
        buf[m] = f
        m += 1
        f = EI[f, ON]
    GI[s, OHEAD] = -1
    for a in range(m):
        f = buf[a]
        k = EI[f, TGT]
        bound = frame_bound(GF, k, EF[f, EK], scl)  # on |x_s - x_k| before s moved
        e_detach(EI, EF, I, GI, st, stk, f)
        EI[f, ON] = -1
        EI[f, OP] = -1
        EI[f, OWN] = k
        EI[f, TGT] = s
        GI[k, NIN] -= 1
        GI[s, NIN] += 1
        GI[k, LAST] = s
        l_push(EI, GI, OHEAD, k, f, ON, OP)
        e_stale(EI, EF, I, GI, GF, F, f, frame_key(GF, s, max(bound - delta, 0.0)), scl)
        tch[nt] = k
        nt += 1
    return nt


@kernel
def _frame_sphere(s, u, lam, cu, ell, xold, x, GF, delta):
    """Slot s (at xold) absorbed u and moved to the unit mean c' = m / r, m = (1 - lam) c
    + lam u, r = |m| (``sphere``): for a unit owner o, |o - c'|^2 = (|o - m|^2 - (1 - r)^2)
    / r, increasing in Stewart's bound on |o - m|^2, so the frame stays affine. The frame's
    place c (on the sphere) is within E of xold: r is known to within dr = (1 - lam) E + eps
    (5 dr / r^2 more in B: the map's slope in r for squared distances up to 4), and the new
    place within (1 - lam) E / r + eps of the new position (projecting onto the sphere from
    outside radius r is 1 / r-Lipschitz); eps: rounding of unit rows and means. If r may be
    below 1/2 (pairs over 1.4 apart), the triangle inequality: E grows by the move."""
    D = xold.shape[0]
    mm = 0.0
    for k in range(D):
        t = (1.0 - lam) * xold[k] + lam * x[u, k]
        mm += t * t
    eps = 8.0 * 1.2e-16 * (D + 4)
    e0 = GF[s, GE]
    dr = (1.0 - lam) * e0 + eps
    r = math.sqrt(mm)
    rl = r - dr
    if rl < 0.5:
        GF[s, GE] = e0 + delta
        return
    one_r = abs(1.0 - r)
    GF[s, GA] = GF[s, GA] * (1.0 - lam) / r
    GF[s, GB] = (((1.0 - lam) * GF[s, GB] + lam * (1.0 - lam) * cu * cu - lam * ell * ell
                  + one_r * one_r + one_r * eps) / r + 5.0 * dr / (rl * rl))
    GF[s, GE] = (1.0 - lam) * e0 / rl + eps


@kernel
def graph_cluster(x, e, w, oid, twop, R2, cos_cut, use_cos, rec, plo, phi, rho0, C, T,
                  cell0, home0, lo, hi, cc, eps_t, skin, gap, itune, max_steps, stats):
    """Run the clustering with the graph strategy (x and e are overwritten: slot storage;
    T, lo and hi too). Slot s holds input ``oid[s]`` (the ids the history and every tie use;
    slot order is only where things lie in memory). ``plo``/``phi``: the first pass's
    candidate pairs (slots), ``rho0`` its
    promises; C (Kc, D) the pivots, T (n, Kc) every input's squared distances to them,
    ``cell0`` its cell (Kc: the outlier cell), ``home0`` its nearest pivot, lo/hi (Kc, Kc)
    the cells' ranges, cc the pivot distances, eps_t a
    bound on the error of any T entry. ``skin``, ``gap`` (absolute) and ``itune`` = (refill
    list size B, pivots per query, most in-edges of an absorbed slot whose owners are
    re-keyed one by one, most in-edges of a slot walked to mark its neighbours) are speed
    knobs. ``stats`` (int64, 4) counts sharpenings, refills, announcements and
    exact (canonical) sharpenings. Returns what ``_kernels.cluster`` does.
    """
    n, D = x.shape
    E = e.shape[1]
    R = math.sqrt(R2)
    scl = R
    B = itune[0]
    exc_max = itune[2]
    walk_max = itune[3]
    I, F = slots_new(n)
    GI = np.full((n, N_GICOLS), -1, dtype=np.int64)
    GF = np.zeros((n, N_GFCOLS))
    chead = np.full(C.shape[0] + 1, -1, dtype=np.int64)
    for s in range(n):
        slot_init(s, oid[s], w[s], twop, R2, I, F)
        GI[s, VER] = 0
        GI[s, MARK] = 0
        GI[s, NIN] = 0
        GF[s, GHW] = INF
        GF[s, GHR] = INF
        GF[s, GA] = 1.0
        GF[s, GRHO] = rho0[s]
        GI[s, HOME] = home0[s]
    for s in range(n - 1, -1, -1):  # each cell's list in slot order: scans run through memory
        cell_link(GI, chead, s, cell0[s])
    ev = (e, np.zeros((n, E), dtype=np.int8), np.zeros(n))
    for s in range(n if use_cos else 0):
        quantise(ev, s)
    EI, EF, st, stk = pool_new(plo.shape[0] + n + 16)  # grows as needed (below)
    buf = np.empty(EI.shape[0], dtype=np.int64)
    for a in range(plo.shape[0]):
        i, j = plo[a], phi[a]
        if F[i].w > F[j].w:
            join(j, i, d2fast(x, i, j), I, F, GI, GF, EI, EF, st, scl)
        else:
            join(i, j, d2fast(x, i, j), I, F, GI, GF, EI, EF, st, scl)
    size = 1
    while size < n:
        size *= 2
    tk = np.empty((2 * size, 2))
    ti = np.empty((2 * size, 3), dtype=np.int64)
    gt_init(tk, ti, size)
    for s in range(n):
        _leaf(s, tk, ti, size, I, F, GI, GF, EI, EF, R, scl)
    Kc = C.shape[0]
    qrow = np.empty(Kc)
    piv = np.empty(max(1, min(itune[1], Kc)), dtype=np.int64)
    ck = np.empty(n, dtype=np.int64)
    clb = np.empty(n)
    cd = np.empty(n)
    cv = np.empty(n)
    tch = np.empty(2 * n + 8, dtype=np.int64)
    tmp = np.empty(E)
    xold = np.empty(D)
    xe = np.empty(n, dtype=np.int64)
    xb = np.empty(n)
    jt = np.zeros(3, dtype=np.int64)  # the join test's state (``is_joined``)
    m_max, hist = history_new(n, max_steps)
    n_alive = n
    steps = np.int64(0)  # (not a literal: see _kernels_common's merge step)
    while steps < m_max:
        s = ti[TOP, TSLOT]
        if s < 0:
            break
        if st[SUSED] + n_alive + 8 > EI.shape[0]:  # room for the edges one step may add
            EI, EF, stk = pool_grow(EI, EF, st, 2 * EI.shape[0] + n_alive + 8)
            buf = np.empty(EI.shape[0], dtype=np.int64)
        nt = 0
        kind = _item(s, I, F, GI, GF, EI, EF, R, scl)[0]
        if kind == 1:  # sharpen s's stale edges while s stays ahead of every other slot
            oq, od, ol, oh = _others(tk, ti, size, s)
            while kind == 1:
                stats[0] += 1
                f = GI[s, HROOT]
                if (EI[f, LV] == TIGHT and EI[f, VT] == GI[s, VER]
                        and EI[f, VO] == GI[EI[f, OWN], VER]):
                    stats[3] += 1  # the canonical sum will be taken
                _resolve(s, x, ev, use_cos, cos_cut, R2, I, F, GI, GF, EI, EF, stk, scl)
                kind, q, d2, lo_id, hi_id = _item(s, I, F, GI, GF, EI, EF, R, scl)
                if not _key_less(q, d2, lo_id, hi_id, oq, od, ol, oh):
                    break
            tch[0] = s
            nt = 1
        elif kind == 0:
            stats[1] += 1
            nt = refill(s, x, R, skin, scl, gap, B, C, T, lo, hi, cc, eps_t, chead, I, F, GI,
                        GF, EI, EF, st, stk, buf, qrow, piv, ck, clb, cd, cv, tch, 0,
                        walk_max, jt)
        else:  # the smallest key is an exact pair: the merge the reference makes
            f = GI[s, RROOT]
            a = EI[f, OWN]
            b = EI[f, TGT]
            q = EF[f, EQ]
            d2su = EF[f, ED2]
            s = heavier(a, b, I, F)  # keeps the merged object (recombine's rule)
            u = b if s == a else a
            lam = F[u].w / (F[s].w + F[u].w)
            # owners not joined to u are at least their promise from u, and u's promise away;
            # when u is joined to many (a growing cluster too), ell = 0 holds for all owners
            nx = 0
            ell = 0.0
            if GI[u, NIN] <= exc_max:
                ell = max(GF[s, GHR], rho_eff(GF, u, scl), 0.0)
                nx = _exceptions(s, u, EI, EF, GI, GF, st, stk, buf, I, xe, xb, scl)
            nt = _bury(u, I, GI, EI, EF, st, stk, buf, chead, tch, 0)
            n_alive -= 1
            for k in range(D):
                xold[k] = x[s, k]
            merge_into(steps, s, u, q, d2su, hist, x, x, np.int64(0), ev, I, F, tmp, rec, twop,
                       n)
            steps += 1
            dd = 0.0
            nrm = 0.0
            for k in range(D):
                t = x[s, k] - xold[k]
                dd += t * t
                nrm = max(nrm, abs(xold[k]), abs(x[u, k]))
            delta = math.sqrt(dd) * (1.0 + REL)
            if GI[s, HROOT] < 0 and GI[s, RROOT] < 0 and GI[s, PHEAD] < 0:
                GF[s, GA] = 1.0  # no edge is keyed in s's frame: start afresh
                GF[s, GB] = 0.0
            elif delta > 0.0:  # (wta: the heavier stays where it is)
                cu = math.sqrt(d2su) * (1.0 + REL) + GF[s, GE]
                if rec == SPHERE:
                    _frame_sphere(s, u, lam, cu, ell, xold, x, GF, delta)
                else:
                    # Stewart: |o - c'|^2 = (1 - lam)|o - c|^2 + lam |o - u|^2
                    # - lam (1 - lam)|c - u|^2, and |o - u| >= ell for every owner o of an
                    # edge of s not joined to u: one affine map of the frame
                    GF[s, GA] *= 1.0 - lam
                    GF[s, GB] = ((1.0 - lam) * GF[s, GB] + lam * (1.0 - lam) * cu * cu
                                 - lam * ell * ell)
                    GF[s, GE] += 8.0 * 1.2e-16 * nrm * math.sqrt(D)  # rounding of the mean
            GF[s, GP] += delta
            GI[s, VER] += 1
            nt = _turn(s, delta, twop, I, F, GI, GF, EI, EF, st, stk, buf, tch, nt, scl)
            for a in range(nx):  # owners joined to u: the triangle inequality, one by one
                e_stale(EI, EF, I, GI, GF, F, xe[a], frame_key(GF, s, max(xb[a] - delta, 0.0)),
                        scl)
            tch[nt] = s
            tch[nt + 1] = u
            nt += 2
            if GF[s, GP] - GF[s, GPA] > skin:
                stats[2] += 1
                announce(s, x, R, skin, scl, C, T, lo, hi, cc, eps_t, chead, I, F, GI, GF, EI,
                         EF, st, stk, buf, qrow, piv, ck, clb, walk_max, jt)
        for a in range(nt):
            _leaf(tch[a], tk, ti, size, I, F, GI, GF, EI, EF, R, scl)

    return loop_result(hist, steps, I, F, x)
