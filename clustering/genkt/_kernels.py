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

Files: ``_kernels_common`` (compilation, table layouts, canonical arithmetic, tournament,
cached neighbours, the merge step every loop shares: ``record_merge``, ``detach_pair``,
``recombine``), ``_kernels_brute`` (the ``nn`` back end),
``_kernels_tree`` (the k-d tree), ``_kernels_caches`` (neighbour caches and the tree's
forward/reverse queries), this module (the clustering loop, history utilities; the names the
estimator uses), the ``plane`` strategy (2-D, no cosine cut: the k-d tree with climbing
searches and slab-limited or, for p = 0, no reverse queries; its own loop) in
``_kernels_plane``, and the ``graph`` strategy's own loop, ``_kernels_graph`` (with
``_kernels_graph_heap`` and ``_kernels_graph_index``; see there).

Every kernel is cached on disk by numba. numba invalidates a cached function when *its own*
file changes, but the machine code cached for ``cluster`` contains the kernels it calls from
the other files, and the constants it imports from them; so each kernel file is stamped with
a digest of its sources: its own file and, transitively, every kernel file it imports names
from (:func:`module_digests`). A change drops the caches of the files that depend on it and
no others (:func:`refresh_disk_cache`): an edit to the graph kernels recompiles the graph
strategy, not ``nn``/``tree`` and ``plane``. The cache is turned on and checked on first use
(:func:`ensure_fresh`), never at import: importing the kernels reads and writes no file.
:func:`prepare` also announces a strategy's first compilation on a machine the way UMAP's is
announced.
"""

from __future__ import annotations

import ast
import hashlib
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memmaint.clustering.genkt import (
    _kernels_brute,
    _kernels_caches,
    _kernels_common,
    _kernels_graph,
    _kernels_graph_heap,
    _kernels_graph_index,
    _kernels_plane,
    _kernels_tree,
)
from memmaint.clustering.genkt._kernels_brute import (
    brute_init,
    brute_nn,
    brute_reverse,
)
from memmaint.clustering.genkt._kernels_caches import (
    cache_free,
    tree_forward,
    tree_reverse,
)
from memmaint.clustering.genkt._kernels_common import (
    CCOUNT,
    CLIST,
    CPOS,
    KERNELS,
    LAZY,
    NONE,
    TOP,
    TSLOT,
    detach_pair,
    history_new,
    kernel,
    loop_result,
    merge_into,
    nodes_new,
    quantise,
    recombine,
    set_nn,
    slot_init,
    slots_new,
    tour_build,
    tour_update,
)
from memmaint.clustering.genkt._kernels_tree import (
    bump_maxr,
    permute_rows,
    rev_radius,
    tree_build,
    tree_delete,
    tree_insert,
    tree_nn,
    tree_tighten_all,
)

__all__ = ["cluster", "ensure_fresh", "labels_from_history", "module_digests", "prepare",
           "refresh_disk_cache", "replay"]

log = logging.getLogger(__name__)


# ---------------------------------------------------------------- the clustering loop

@kernel
def cluster(x, e, w, twop, R2, cos_cut, use_cos, rec, use_tree, tune, max_steps):
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
    I, F = slots_new(n)
    if use_tree:
        T, FN, B, nodes, depth, perm = tree_build(x, leaf_size, I)
        permute_rows(x, perm)
        permute_rows(e, perm)
        ncache = max(1, min(cache_cap, n))
    else:
        T, FN = nodes_new(1, np.int64(0))
        B, nodes, depth = np.zeros((1, 2 * D)), 1, 0
        perm = np.arange(n)
        ncache = 1
    for s in range(n):
        slot_init(s, perm[s], w[perm[s]], twop, R2, I, F)
        I[s].apos = s
        I[s].scan = 0
        I[s].budget = tune[5]
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
    m_max, hist = history_new(n, max_steps)
    L = np.empty(n, dtype=np.int64)
    st_nd = np.empty(nodes + 2 * depth + 8, dtype=np.int64)  # stacks, and the search heap
    st_lb = np.empty(nodes + 2 * depth + 8)
    st_fl = np.empty(2 * depth + 8, dtype=np.int64)
    CI = np.full((ncache, CLIST + cache_k), -1, dtype=np.int64)
    for c in range(ncache):
        CI[c, CCOUNT] = 0
    CF = np.zeros((ncache, CPOS + D + E))
    clk = np.zeros(1, dtype=np.int64)
    cd = np.empty(cache_k)
    cj = np.empty(cache_k, dtype=np.int64)

    # ---- initial neighbours
    if use_tree:
        for s in range(n):
            b, bd, scanned = tree_nn(s, x, ev, use_cos, cos_cut, R2, I, T, B, st_nd, st_lb,
                                     I[s].budget, -1.0)
            I[s].scan = scanned
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
    steps = np.int64(0)  # (not a literal: see _kernels_common's merge step)
    while steps < m_max:
        s = ti[TOP, TSLOT]
        if s < 0 or I[s].nn == NONE:
            break
        if I[s].nn == LAZY:  # its lower bound is the smallest key: search further
            b, bd = tree_forward(s, x, ev, use_cos, cos_cut, R2, I, F, T, B, st_nd, st_lb,
                                 CI, CF, clk, cd, cj, tune[4], np.bool_(True))
            set_nn(s, b, bd, I, F)
            bump_maxr(T, FN, I[s].leaf, rev_radius(F, s))
            tour_update(tk, ti, size, s, I, F)
            continue
        step = steps
        t = I[s].nn
        q, d2 = F[s].cq, F[s].nnd2
        steps += 1
        nL = detach_pair(s, t, R2, I, F, L)  # slots whose neighbour dies, listed in L
        if use_tree:
            tree_delete(s, x, I, T, B)
            tree_delete(t, x, I, T, B)
            if I[t].cid >= 0:
                cache_free(I[t].cid, CI, I, F)
        else:
            for which in range(2):
                p = I[s if which == 0 else t].apos
                last = alist[na - 1]
                alist[p] = last
                I[last].apos = p
                na -= 1
        merge_into(step, s, t, q, d2, hist, x, xh, h, ev, I, F, tmp, rec, twop, n)
        I[s].budget = tune[5]
        tour_update(tk, ti, size, t, I, F)
        # the new object's neighbour, then its entry in the spatial structure
        if use_tree:
            b, bd = tree_forward(s, x, ev, use_cos, cos_cut, R2, I, F, T, B, st_nd, st_lb,
                                 CI, CF, clk, cd, cj, tune[4], np.bool_(False))
        else:
            b, bd = brute_nn(s, x, xh, h, ev, use_cos, cos_cut, R2, I, alist, na)
        set_nn(s, b, bd, I, F)
        tour_update(tk, ti, size, s, I, F)
        if use_tree:
            tree_insert(s, x, I, T, FN, B)
            bump_maxr(T, FN, I[s].leaf, rev_radius(F, s))
        else:
            alist[na] = s
            I[s].apos = na
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
                                     st_lb, CI, CF, clk, cd, cj, tune[4], np.bool_(False))
                set_nn(r, b, bd, I, F)
                bump_maxr(T, FN, I[r].leaf, rev_radius(F, r))
            else:
                b, bd = brute_nn(r, x, xh, h, ev, use_cos, cos_cut, R2, I, alist, na)
                set_nn(r, b, bd, I, F)
            tour_update(tk, ti, size, r, I, F)

    return loop_result(hist, steps, I, F, x)


# ---------------------------------------------------------------- history utilities

@kernel
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


@kernel
def replay(x, e, w, lo, hi, m, rec, twop):
    """Slots alive after the first m merges and all slot weights (x, e overwritten)."""
    n = x.shape[0]
    I, F = slots_new(n)
    slot_of = np.empty(n + m, dtype=np.int64)
    for s in range(n):
        slot_init(s, s, w[s], twop, 0.0, I, F)
        slot_of[s] = s
    tmp = np.empty(e.shape[1])
    ev = (e, np.zeros((n, e.shape[1]), dtype=np.int8), np.zeros(n))
    for t in range(m):
        sa = slot_of[lo[t]]
        sb = slot_of[hi[t]]
        recombine(sa, sa, sb, x, x, np.int64(0), ev, I, F, tmp, rec, twop, n + t)
        I[sb].alive = 0
        slot_of[n + t] = sa
    keep = np.empty(n - m, dtype=np.int64)
    ws = np.empty(n)
    a = 0
    for s in range(n):
        ws[s] = F[s].w
        if I[s].alive == 1:
            keep[a] = s
            a += 1
    return keep, ws


# ---------------------------------------------------------------- the disk cache

_STAMP = "genkt_kernels.sources"  # JSON: kernel file -> digest its cached kernels were built from


def _short(module: str) -> str:
    return module.rsplit(".", 1)[-1]


def module_digests() -> dict[str, str]:
    """sha256 per kernel file (by module name, ``_kernels_graph`` ...) of what its compiled
    kernels depend on: its own source and, transitively, the sources of every kernel file it
    imports names from (callees, and constants numba freezes into the machine code)."""
    modules = (_kernels_common, _kernels_brute, _kernels_tree, _kernels_caches, _kernels_plane,
               _kernels_graph_heap, _kernels_graph_index, _kernels_graph, sys.modules[__name__])
    src = {_short(m.__name__): Path(str(m.__file__)).read_bytes() for m in modules}
    direct = {name: {_short(node.module) for node in ast.walk(ast.parse(text))
                     if isinstance(node, ast.ImportFrom) and node.module
                     and _short(node.module) in src}
              for name, text in src.items()}
    digests = {}
    for name in src:
        deps, todo = {name}, [name]
        while todo:
            for dep in direct[todo.pop()] - deps:
                deps.add(dep)
                todo.append(dep)
        h = hashlib.sha256()
        for dep in sorted(deps):
            h.update(dep.encode() + b"\0" + src[dep])
        digests[name] = h.hexdigest()
    return digests


def _disk_caches(kernels: Sequence[Any]) -> list[tuple[str, Any]]:
    """(kernel file, on-disk numba cache) of each kernel that has one (none under
    ``NUMBA_DISABLE_JIT``)."""
    out = []
    for k in kernels:
        cache = getattr(k, "_cache", None)
        if cache is not None and hasattr(cache, "flush") and hasattr(cache, "cache_path"):
            out.append((_short(getattr(getattr(k, "py_func", None), "__module__", "") or ""),
                        cache))
    return out


def refresh_disk_cache(kernels: Sequence[Any], digests: dict[str, str]) -> set[str]:
    """Drop the on-disk cache of every kernel in ``kernels`` whose file's digest (``digests``,
    see :func:`module_digests`) is not the one the stamp file next to the caches recorded;
    then record ``digests``.

    Returns the kernel files whose caches were dropped. Without a cache
    (``NUMBA_DISABLE_JIT``) or in a read-only cache folder nothing happens (numba's own
    per-file check still applies).
    """
    caches = _disk_caches(kernels)
    if not caches:
        return set()
    stamp = Path(caches[0][1].cache_path) / _STAMP
    try:
        old = json.loads(stamp.read_text(encoding="ascii"))
    except (OSError, ValueError):  # none yet, or the one-digest stamp of earlier versions
        old = {}
    if not isinstance(old, dict):
        old = {}
    stale = {name for name, digest in digests.items() if old.get(name) != digest}
    if not stale:
        return set()
    try:
        for name, cache in caches:
            if name in stale:
                cache.flush()  # an empty index: every signature recompiles once, then is cached
        stamp.parent.mkdir(parents=True, exist_ok=True)
        tmp = stamp.with_name(f"{_STAMP}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({**old, **digests}, sort_keys=True), encoding="ascii")
        os.replace(tmp, stamp)
    except OSError as exc:
        log.debug("genkt kernels: cannot refresh the numba cache in %s: %s",
                  stamp.parent, exc)
        return set()
    log.debug("genkt kernels: sources changed, dropped the numba cache of %s in %s",
              ", ".join(sorted(stale)), stamp.parent)
    return stale


_prepared: dict[str, Any] = {}  # "digests" once the cache was checked in this process

#: how long a strategy's first compilation takes on 2 cores (what the notice says)
_COMPILE_TIME = {"graph": "about 30-60 s on 2 cores", "plane": "about 5-10 s on 2 cores"}
_FAMILY = {"nn": "cluster", "tree": "cluster"}
#: the kernel file of each family's loop (its digest names the family's compile marker)
_LOOP_FILE = {"cluster": "_kernels", "plane": "_kernels_plane", "graph": "_kernels_graph"}


def ensure_fresh() -> None:
    """Once per process, before the first kernel call (:func:`prepare` calls it): turn the
    kernels' disk cache on (``_kernels_common.enable_disk_cache``) and check it against their
    sources (a kernel file's caches are dropped when it or a file it imports from changed)."""
    if "digests" not in _prepared:
        _kernels_common.enable_disk_cache()
        _prepared["digests"] = module_digests()
        refresh_disk_cache(KERNELS, _prepared["digests"])


def prepare(strategy: str) -> Any:
    """Before the first clustering of a process: drop stale kernel caches
    (:func:`refresh_disk_cache`), then return a
    :class:`~memmaint.clustering.reduce._numba_cache.CompileNotice` for ``strategy``: it logs
    (warning) that the kernels are compiling when this machine has not compiled them for
    these sources yet, and, on ``done()``, how long that took (a marker file next to the
    cache remembers it)."""
    from memmaint.clustering.reduce._numba_cache import CompileNotice

    ensure_fresh()
    caches = _disk_caches(KERNELS)
    if not caches:  # no disk cache (NUMBA_DISABLE_JIT): nothing compiles, nothing to say
        return CompileNotice(None)
    family = _FAMILY.get(strategy, strategy)  # strategies sharing one loop share its compile
    digest = _prepared["digests"][_LOOP_FILE.get(family, "_kernels")]
    marker = Path(caches[0][1].cache_path) / f"genkt-{digest[:16]}-{family}.compiled"
    return CompileNotice(marker, f"GenKT's numba kernels ({strategy} strategy)",
                         _COMPILE_TIME.get(strategy, "about 20-40 s on 2 cores"))
