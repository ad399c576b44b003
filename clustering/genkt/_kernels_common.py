"""Numba kernels for generalised-kt (private), part 1: how kernels are compiled, the layout
of the slot and node tables, the canonical arithmetic, the candidate tournament and the cached
neighbours. The design, and why every strategy gives bit-identical results, is described in
:mod:`memmaint.clustering.genkt._kernels`.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from memmaint.clustering.reduce._numba_cache import cache_dir

log = logging.getLogger(__name__)

#: numba's decorator, typed once: its stubs have no overload for options given as ``**kwargs``
#: and decorated functions are dispatchers, not the functions mypy sees
njit: Callable[..., Any] = numba.njit
_compile = njit(nogil=True)

#: every kernel defined so far (``_kernels`` keeps their disk cache consistent)
KERNELS: list[Any] = []


def kernel(fn: Callable[..., Any]) -> Any:
    """Compile ``fn`` as a kernel: nopython mode, GIL released. Its on-disk cache is turned on
    by :func:`enable_disk_cache` on first use, not here: importing the kernels touches no
    folder."""
    dispatcher = _compile(fn)
    KERNELS.append(dispatcher)
    return dispatcher


def enable_disk_cache() -> None:
    """Turn numba's on-disk cache on for every kernel (idempotent), in memmaint's cache folder
    (:func:`~memmaint.clustering.reduce._numba_cache.cache_dir`, UMAP's too) whatever was
    imported first, so every process of a machine shares one compiled copy;
    ``NUMBA_CACHE_DIR``, when set, wins (numba's own rule). numba creates the folder here.
    ``_kernels.ensure_fresh`` calls it before the first kernel call of a process."""
    folder = None if os.environ.get("NUMBA_CACHE_DIR") else str(cache_dir())
    before = numba.config.CACHE_DIR  # type: ignore[attr-defined]
    try:
        if folder is not None:
            numba.config.CACHE_DIR = folder  # type: ignore[attr-defined]
        for dispatcher in KERNELS:
            cache = getattr(dispatcher, "_cache", None)
            if cache is not None and type(cache).__name__ == "NullCache":
                dispatcher.enable_caching()  # the cache's folder is chosen here, once
    except RuntimeError as exc:  # no folder numba may write: compile in this process
        log.info("genkt kernels: no numba disk cache (%s); compiling in this process", exc)
    finally:
        numba.config.CACHE_DIR = before  # type: ignore[attr-defined]


DBL_MAX = 1.7976931348623157e308
INF = math.inf
BIG = 2**62
EPS = 1e-9  # relative safety margin of the cache proofs (rounding errors are ~1e-15)
COS_SLACK = 0.1  # caches keep slots this close to the cut: the owner's embedding may drift
FILL_EXT = 1.5625  # caches look (1.25 R)^2 far so they stay valid while their owner moves

# The slot and node tables are numpy record arrays (numba reads ``I[s].nn`` as one load at a
# fixed offset). Their dtypes are ``align=True``: numba types an array of a packed dtype as
# unaligned, and loads from it are slower (the plane strategy took 13% longer).
# The int64 slot table I (n,): object id, cached neighbour, head/next/previous of the
# back-pointer list of the slots caching this one, next/previous slot in its k-d leaf and the
# leaf, position in the nn back end's alive list, the cached pair's lower and higher object
# ids, alive flag, neighbour cache (-1: none), points its last search read, points its next
# search may read before going lazy
SLOT_I = np.dtype([(f, np.int64) for f in ("oid", "nn", "rhead", "rnext", "rprev", "lnext",
                                           "lprev", "leaf", "apos", "clo", "chi", "alive",
                                           "cid", "scan", "budget")], align=True)
# nn >= 0: the cached neighbour's slot; NONE: no eligible neighbour within R; LAZY: none
# within sqrt(nnd2) < R (the search stopped at its budget), to be resumed only if needed
NONE, LAZY = -1, -2
# the float64 slot table F (n,): weight, weight^2p, the cached neighbour's dist2, the cached
# pair's d_ij numerator, the neighbour cache's reverse radius^2 (0: none)
SLOT_F = np.dtype([(f, np.float64) for f in ("w", "wp", "nnd2", "cq", "crr")], align=True)
# the k-d tree's int64 node table T (m,): children, parent, alive points, a leaf's first slot,
# split dimension; and its float node table FN (m,): split value, largest reverse radius below
NODE_T = np.dtype([(f, np.int64) for f in ("left", "right", "parent", "cnt", "head", "sdim")],
                  align=True)
NODE_F = np.dtype([(f, np.float64) for f in ("sval", "maxr")], align=True)
# columns of the neighbour caches' tables: CI (caches, CLIST + k), the owner slot, how many
# slots it lists and the list, nearest first; CF (caches, CPOS + D + E), the promised radius^2,
# the largest cosine bound among the slots left out as clearly ineligible, and the owner's
# position then embedding when it was filled
COWNER, CCOUNT, CLIST = range(3)
CBOUND, CMAXCOS, CPOS = range(3)
# columns of the candidate tournament (every loop's): the keys tk (., 2), the pair's d_ij
# numerator and dist2, and the ids ti (., 3), the candidate's slot and the pair's lower and
# higher object ids; entry TOP holds the smallest pair
KQ, KD2 = range(2)
TSLOT, TLO, THI = range(3)
TOP = 1


@kernel
def slots_new(n):
    """The slot tables (I, F) of n slots: every int field -1, every float field 0."""
    I = np.empty(n, dtype=SLOT_I)
    F = np.empty(n, dtype=SLOT_F)
    for s in range(n):
        r = I[s]
        r.oid = r.nn = r.rhead = r.rnext = r.rprev = r.lnext = r.lprev = r.leaf = -1
        r.apos = r.clo = r.chi = r.alive = r.cid = r.scan = r.budget = -1
        g = F[s]
        g.w = g.wp = g.nnd2 = g.cq = g.crr = 0.0
    return I, F


@kernel
def nodes_new(m, fill):
    """The node tables (T, FN) of m nodes: every int field ``fill``, every float field 0."""
    T = np.empty(m, dtype=NODE_T)
    FN = np.empty(m, dtype=NODE_F)
    for a in range(m):
        r = T[a]
        r.left = r.right = r.parent = r.cnt = r.head = r.sdim = fill
        g = FN[a]
        g.sval = g.maxr = 0.0
    return T, FN


@kernel
def wpow(w, twop):
    """``w ** (2p)``, clamped to the largest finite double so products never become NaN."""
    v = math.pow(w, twop)
    return min(v, DBL_MAX)


@kernel
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


@kernel
def copy_row(a, dst, b, src):
    for k in range(a.shape[1]):
        a[dst, k] = b[src, k]


@kernel
def final_objects(I, F, x):
    """The objects still alive at the end, in slot order: (ids, weights, positions)."""
    n, D = x.shape
    nf = 0
    for s in range(n):
        nf += I[s].alive
    fids = np.empty(nf, dtype=np.int64)
    fw = np.empty(nf)
    fx = np.empty((nf, D))
    a = np.int64(0)  # (not a literal: see the merge step below)
    for s in range(n):
        if I[s].alive == 1:
            fids[a] = I[s].oid
            fw[a] = F[s].w
            copy_row(fx, a, x, s)
            a += 1
    return fids, fw, fx


@kernel
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


@kernel
def quantise(ev, s):
    """Row s's int8 sketch: codes round(127 e / max|e|) and the scale max|e| / 127."""
    e, q, qs = ev
    m = 0.0
    for k in range(e.shape[1]):
        m = max(m, abs(e[s, k]))
    qs[s] = m / 127.0
    for k in range(e.shape[1]):
        q[s, k] = np.int8(round(e[s, k] / m * 127.0)) if m > 0 else np.int8(0)


@kernel
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


@kernel
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


@kernel
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

@kernel
def _tour_less(tk, ti, a, b):
    """Is entry a's pair key smaller than entry b's? (ties: False)"""
    if tk[a, KQ] != tk[b, KQ]:
        return tk[a, KQ] < tk[b, KQ]
    if tk[a, KD2] != tk[b, KD2]:
        return tk[a, KD2] < tk[b, KD2]
    if ti[a, TLO] != ti[b, TLO]:
        return ti[a, TLO] < ti[b, TLO]
    return ti[a, THI] < ti[b, THI]


@kernel
def _tour_pull(tk, ti, pos):
    a = 2 * pos
    if _tour_less(tk, ti, a + 1, a):
        a += 1
    tk[pos, KQ] = tk[a, KQ]
    tk[pos, KD2] = tk[a, KD2]
    ti[pos, TSLOT] = ti[a, TSLOT]
    ti[pos, TLO] = ti[a, TLO]
    ti[pos, THI] = ti[a, THI]


@kernel
def _tour_leaf(tk, ti, size, s, n, I, F):
    pos = size + s
    if s < n and I[s].alive == 1 and I[s].nn >= 0:
        tk[pos, KQ] = F[s].cq
        tk[pos, KD2] = F[s].nnd2
        ti[pos, TSLOT] = s
        ti[pos, TLO] = I[s].clo
        ti[pos, THI] = I[s].chi
    elif s < n and I[s].alive == 1 and I[s].nn == LAZY:
        # a lower bound wp_s * rho^2 on the pairs this slot answers for; it sorts before
        # real pairs of equal d_ij, so it is resumed before any pair it could beat is merged
        tk[pos, KQ] = F[s].cq
        tk[pos, KD2] = -1.0
        ti[pos, TSLOT] = s
        ti[pos, TLO] = -1
        ti[pos, THI] = -1
    else:  # no candidate: sorts after every real pair (real dist2 values are finite)
        tk[pos, KQ] = INF
        tk[pos, KD2] = INF
        ti[pos, TSLOT] = -1
        ti[pos, TLO] = BIG
        ti[pos, THI] = BIG


@kernel
def tour_update(tk, ti, size, s, I, F):
    """Re-enter slot s's candidate; entry 1 holds the smallest pair key."""
    _tour_leaf(tk, ti, size, s, I.shape[0], I, F)
    pos = (size + s) >> 1
    while pos >= 1:
        _tour_pull(tk, ti, pos)
        pos >>= 1


@kernel
def tour_build(tk, ti, size, I, F):
    for s in range(size):
        _tour_leaf(tk, ti, size, s, I.shape[0], I, F)
    for pos in range(size - 1, 0, -1):
        _tour_pull(tk, ti, pos)


# ---------------------------------------------------------------- cached neighbours

@kernel
def set_nn(i, j, d2, I, F):
    """Point slot i's cached neighbour at slot j (NONE: d2 = R^2; LAZY: d2 = rho^2)."""
    old = I[i].nn
    if old >= 0:  # unlink from old's back-pointer list
        nx = I[i].rnext
        pv = I[i].rprev
        if pv >= 0:
            I[pv].rnext = nx
        else:
            I[old].rhead = nx
        if nx >= 0:
            I[nx].rprev = pv
    I[i].nn = j
    if j >= 0:
        h = I[j].rhead
        I[i].rnext = h
        I[i].rprev = -1
        if h >= 0:
            I[h].rprev = i
        I[j].rhead = i
        F[i].cq = min(F[i].wp, F[j].wp) * d2
        I[i].clo = min(I[i].oid, I[j].oid)
        I[i].chi = max(I[i].oid, I[j].oid)
    elif j == LAZY:
        F[i].cq = F[i].wp * d2
    F[i].nnd2 = d2


# ---------------------------------------------------------------- the merge step
# What every strategy's loop does when it merges, written once (FastJet's one recombination
# step): ``merge_into`` records the merge in the history, recombines the pair into one slot
# and retires the other; the slot-table loops (nn/tree, plane) first detach the pair
# (``detach_pair``). Slots start with ``slot_init``, the history with ``history_new``, and
# every loop returns ``loop_result``.
# Literals: numba compiles a kernel once more for every literal constant it is called with,
# also for a loop variable whose first value is a literal (while it infers the variable's
# type); the loops start their step counters and pass their zeros as ``np.int64(0)`` (and
# tree_forward's flag as ``np.bool_``) so that the merge step's kernels compile once each.

@kernel
def slot_init(s, oid, w, twop, R2, I, F):
    """Slot ``s`` holds input ``oid`` of weight ``w``, alive, with no neighbour within R."""
    I[s].oid = oid
    I[s].alive = 1
    F[s].w = w
    F[s].wp = wpow(w, twop)
    F[s].nnd2 = R2


@kernel
def history_new(n, max_steps):
    """(most merges, history): room for ``max_steps`` merges of ``n`` inputs (all: < 0), as
    the merged ids (lower, higher), d_ij numerators ``q`` and squared distances."""
    m = n - 1 if max_steps < 0 else min(max_steps, n - 1)
    return m, (np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64), np.empty(m),
               np.empty(m))


@kernel
def record_merge(step, oa, ob, q, d2, hist):
    """Merge ``step`` of the history: the two objects' ids (lower first), its d_ij numerator
    ``q`` and squared distance ``d2``."""
    hist[0][step] = min(oa, ob)
    hist[1][step] = max(oa, ob)
    hist[2][step] = q
    hist[3][step] = d2


@kernel
def heavier(sa, sb, I, F):
    """The heavier of slots sa and sb (equal weights: the lower object id)."""
    wa = F[sa].w
    wb = F[sb].w
    return sa if (wa > wb or (wa == wb and I[sa].oid < I[sb].oid)) else sb


@kernel
def merge_into(step, dst, other, q, d2, hist, x, xh, h, ev, I, F, tmp, rec, twop, n):
    """The merge step every loop makes: merge ``step`` (key numerator ``q``, squared distance
    ``d2``) joins the objects in slots ``dst`` and ``other``; it is recorded, the new object
    n + step is written into ``dst`` under scheme ``rec`` and ``other`` dies."""
    record_merge(step, I[dst].oid, I[other].oid, q, d2, hist)
    recombine(dst, dst, other, x, xh, h, ev, I, F, tmp, rec, twop, n + step)
    I[other].alive = 0


@kernel
def loop_result(hist, steps, I, F, x):
    """What every loop returns: (lo_id, hi_id, q, dist2) of its ``steps`` merges and the
    final objects' (ids, weights, positions) in slot order."""
    fids, fw, fx = final_objects(I, F, x)
    return hist[0][:steps], hist[1][:steps], hist[2][:steps], hist[3][:steps], fids, fw, fx


@kernel
def detach_pair(s, t, R2, I, F, L):
    """Before slots ``s`` (survivor) and ``t`` merge: every other slot whose cached neighbour
    is s or t loses it and is listed in ``L`` for a new search (the pair's back-pointer lists
    are dropped wholesale), t's own neighbour entry is released, and both slots' links are
    cleared. Returns how many slots ``L`` lists."""
    nL = 0
    for which in range(2):
        r = I[s if which == 0 else t].rhead
        while r >= 0:
            if r != s and r != t:
                L[nL] = r
                nL += 1
                I[r].nn = -1
            r = I[r].rnext
    if I[t].nn >= 0 and I[t].nn != s:
        set_nn(t, I[t].nn * 0 + NONE, R2, I, F)
    I[s].rhead = -1
    I[t].rhead = -1
    I[s].nn = -1
    I[t].nn = -1
    return nL


@kernel
def accept(x, xh, h, ev, use_cos, cos_cut, I, i, j, best_oid, bd, skip2):
    """dist2 of j if it beats the current best (bd, best_oid; -1: none) as i's neighbour,
    else -1. Nearer than sqrt(skip2) nothing is eligible (known already)."""
    d2 = dist2_thr(x, xh, h, i, j, bd)
    better = (d2 < bd or (d2 == bd and I[j].oid < best_oid)) and d2 >= skip2
    return d2 if better and eligible(ev, use_cos, cos_cut, i, j) else -1.0


# ---------------------------------------------------------------- recombination

#: recombination schemes (the kernels' ``rec`` argument): weighted mean of the coordinates,
#: the heavier member's (winner takes all), and the weighted mean renormalised to unit length
#: (``sphere``: positions are unit embeddings and stay on the sphere; its embeddings are
#: plain weighted means, so that a dot product is the members' average cosine)
WEIGHTED, WTA, SPHERE = 0, 1, 2


@kernel
def recombine(dst, sa, sb, x, xh, h, ev, I, F, tmp, rec, twop, new_id):
    """Write the merge of slots sa and sb into slot dst (one of them) under scheme ``rec``."""
    e = ev[0]
    wa = F[sa].w
    wb = F[sb].w
    wn = wa + wb
    heavy = heavier(sa, sb, I, F)
    D = x.shape[1]
    E = e.shape[1]
    if rec == WTA:
        if heavy != dst:
            copy_row(x, dst, x, heavy)
            copy_row(e, dst, e, heavy)
    else:
        if rec == SPHERE:  # the embeddings' arithmetic: v = wa x_a + wb x_b, then v / |v|
            nrm2 = 0.0
            for k in range(D):
                v = wa * x[sa, k] + wb * x[sb, k]
                nrm2 += v * v
            if nrm2 > 0.0:  # (v recomputed: the same bits, and dst may be sa or sb)
                nrm = math.sqrt(nrm2)
                for k in range(D):
                    x[dst, k] = (wa * x[sa, k] + wb * x[sb, k]) / nrm
            elif heavy != dst:  # antipodal positions of equal weight: keep the heavier's
                copy_row(x, dst, x, heavy)
        else:
            for k in range(D):
                x[dst, k] = (wa * x[sa, k] + wb * x[sb, k]) / wn
        if rec == SPHERE:  # the plain mean: a dot product of two is the average cosine
            for k in range(E):
                e[dst, k] = (wa * e[sa, k] + wb * e[sb, k]) / wn
        else:
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
    F[dst].w = wn
    F[dst].wp = wpow(wn, twop)
    I[dst].oid = new_id
