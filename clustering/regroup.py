"""Noise regrouping: near-duplicates the clusterer left as noise reach the agents together.

Density clusterers leave small groups unclustered: with HDBSCAN ``min_cluster_size = 5`` on a
2-D UMAP map, a pair of contradicting memories or three copies of one fact are noise
(label ``-1``), or one copy is noise while its twin sits in a cluster; GenKT leaves such items
as singletons. The maintenance agents decide noise one memory at a time, so those memories
would never be merged or superseded. :func:`regroup_noise` works in the *original* embedding
space, over the *candidates*: the noise memories (and, with ``singletons=True``, the members
of one-member clusters).

1. **Components**: the connected components of "cosine(e_i, e_j) >= threshold" among the
   candidates only (single linkage at a cut).
2. **Size limit** (``max_size``): a component larger than that (a chain of paraphrases of
   different things) is re-cut at a threshold raised by :data:`SPLIT_STEP` per round
   (:func:`split_components`); members a split leaves alone are single again.
3. **Attach** (``attach=True``): a component (single ones included) whose best cosine to a
   memory of a real cluster reaches the threshold joins that cluster, the one of its single
   best link; two real clusters are never joined.
4. Every other component of two or more becomes a new cluster, labelled above the largest
   existing label; a candidate left alone keeps its label (noise stays noise).

Real clusters only grow (by attached noise); their members never move.

It scales to tens of thousands of candidates exactly: cosines are computed in row blocks of
the upper triangle (about :data:`BLOCK_ENTRIES` at a time, float32), edges are kept compressed
to a spanning forest, ``scipy.sparse.csgraph.connected_components`` finds the components, and
attaching is a nearest-neighbour search tiled over rows and columns (a running best per row);
no ``m x m`` matrix is ever built.

**Above** :data:`EXACT_MAX` **cosines** (the components: ``m (m - 1) / 2`` for ``m``
candidates; the attach search: candidates x clustered memories) each step is approximate,
sub-quadratic, through the inverted-file cells of :mod:`memmaint.clustering.cells` (seeded):

- components: the candidates are cut into cells (each in its ``cells.PROBES`` nearest) and
  only pairs sharing a cell are compared: every edge found is a true one, an edge whose ends
  share no cell is missed (a component may come out in pieces);
- attach: the clustered memories are cut into ``sqrt(m x ATTACH_PROBES)`` cells and each
  candidate compared with the members of its :data:`ATTACH_PROBES` nearest ones (a best link
  outside them is missed, a worse one taken).

Every test, golden plan and decision set is far below the threshold; a first run of 1M
memories in one namespace (363,136 candidates against 636,864) is far above it.
``tests/test_regroup_cells.py`` measures the agreement with the exact regrouping.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from memmaint.maintenance.core.errors import InputError

__all__ = ["ATTACH_PROBES", "BLOCK_ENTRIES", "EXACT_MAX", "SPLIT_STEP", "TOLERANCE", "regroup_for_agents", "regroup_noise",
           "regroup_threshold", "similarity_components", "split_components"]

log = logging.getLogger(__name__)

#: Cosines computed per block (float32: 16 MiB).
BLOCK_ENTRIES = 1 << 22
#: How much :func:`split_components` raises the threshold per round.
SPLIT_STEP = 0.02
#: float32 rounding allowance on cosines (exact copies reach a threshold of 1).
TOLERANCE = 1e-6
#: Above this many cosines a step (components, attach search) is approximate (the cells of
#: :mod:`memmaint.clustering.cells`); up to it, exact. As large as the place stage's largest
#: exact search (10,000 changed x ``PLACE_EXACT_MAX`` = 200,000): about 15-30 s of float32
#: products on 2 cores.
EXACT_MAX = 2_000_000_000
#: Cells of clustered memories each candidate is compared with in the approximate attach.
ATTACH_PROBES = 16
#: Side of the attach search's column tiles (and its row blocks, at most).
TILE = 2048


def regroup_threshold(agents: Any) -> float:
    """The cosine threshold for an ``AgentsConfig``: ``regroup_threshold`` when set, else the
    lower of ``merge_threshold`` and ``cover_threshold`` (every pair the agents could pair by
    cosine is then in one cluster)."""
    value = getattr(agents, "regroup_threshold", None)
    if value is not None:
        return float(value)
    return float(min(agents.merge_threshold, agents.cover_threshold))


def regroup_for_agents(labels: Any, embeddings: Any, agents: Any, *,
                       partitions: Iterable[Any] | None = None) -> np.ndarray:
    """:func:`regroup_noise` as an ``AgentsConfig`` sets it up (``regroup_threshold``,
    ``regroup_attach``, ``regroup_max_size``; singletons included). Labels are returned
    unchanged when ``regroup_noise`` is off."""
    lab = np.asarray(labels, dtype=np.int64).reshape(-1)
    if not getattr(agents, "regroup_noise", True):
        return lab.copy()
    return regroup_noise(lab, embeddings, regroup_threshold(agents),
                         attach=bool(getattr(agents, "regroup_attach", False)),
                         max_size=getattr(agents, "regroup_max_size", None),
                         partitions=partitions)


def _unit_float32(embeddings: Any) -> np.ndarray:
    vecs = np.asarray(embeddings, dtype=np.float32)
    if vecs.ndim != 2:
        raise InputError(f"embeddings must be a 2-D array, got shape {vecs.shape}")
    bad = np.flatnonzero(~np.all(np.isfinite(vecs), axis=1))
    if bad.size:
        raise InputError(f"embedding row {int(bad[0])} contains NaN or infinite values")
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    # a zero row stays zero: its cosine with anything is taken as 0
    return np.divide(vecs, norms, out=np.zeros_like(vecs), where=norms > 0)


def _compress(n: int, rows: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A spanning star per component: the same components with at most ``n - 1`` edges."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(rows.size, dtype=np.int8), (rows, cols)), shape=(n, n))
    _k, comp = connected_components(graph, directed=False)
    first = np.full(comp.max() + 1 if n else 0, n, dtype=np.int64)
    np.minimum.at(first, comp, np.arange(n, dtype=np.int64))
    root = first[comp]
    keep = root != np.arange(n)
    return np.flatnonzero(keep).astype(np.int64), root[keep]


class _Forest:
    """Edges among ``n`` rows, kept compressed to a spanning forest as they come (memory
    bounded whatever the density)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.rows: list[np.ndarray] = []
        self.cols: list[np.ndarray] = []
        self.held = 0

    def add(self, rows: np.ndarray, cols: np.ndarray) -> None:
        if not rows.size:
            return
        self.rows.append(rows.astype(np.int64))
        self.cols.append(cols.astype(np.int64))
        self.held += rows.size
        if self.held > 4 * self.n:
            r, c = _compress(self.n, np.concatenate(self.rows), np.concatenate(self.cols))
            self.rows, self.cols, self.held = [r], [c], r.size

    def components(self) -> np.ndarray:
        """Component ids numbered in order of first row (:func:`_renumber`)."""
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        r = np.concatenate(self.rows) if self.rows else np.zeros(0, dtype=np.int64)
        c = np.concatenate(self.cols) if self.cols else np.zeros(0, dtype=np.int64)
        graph = coo_matrix((np.ones(r.size, dtype=np.int8), (r, c)), shape=(self.n, self.n))
        _k, comp = connected_components(graph, directed=False)
        # numbered by first row, so the numbering depends only on the partition and row order
        return _renumber(comp)


def _upper_edges(forest: _Forest, vecs: np.ndarray, members: np.ndarray, thr: np.float32,
                 block_entries: int) -> None:
    """Pairs ``i < j`` of ``vecs`` (rows ``members`` of the forest) at cosine >= ``thr``, in
    row blocks of the upper triangle."""
    m = vecs.shape[0]
    step = max(1, int(block_entries) // m)
    for r0 in range(0, m, step):
        sims = vecs[r0:r0 + step] @ vecs[r0:].T  # upper triangle only: columns from r0
        i, j = np.nonzero(sims >= thr)
        i = i + r0
        j = j + r0
        keep = j > i
        forest.add(members[i[keep]], members[j[keep]])


def similarity_components(embeddings: Any, threshold: float, *,
                          block_entries: int = BLOCK_ENTRIES,
                          exact_max: int | None = None) -> np.ndarray:
    """Connected components of "cosine(e_i, e_j) >= threshold" (single linkage at a cut).

    Cosines are float32 and compared with :data:`TOLERANCE` to spare (exact copies reach a
    threshold of 1).

    Args:
        embeddings: ``(m, dim)`` vectors (normalised here; a zero row links to nothing).
        threshold: cosine in ``[-1, 1]``.
        block_entries: cosines computed at once; rows per block = ``block_entries // m``.
        exact_max: above this many pairs (``m (m - 1) / 2``) only pairs sharing a cell of
            :func:`memmaint.clustering.cells.cells` are compared (seeded; an edge between
            two rows that share no cell is missed). ``None``: :data:`EXACT_MAX`.

    Returns:
        int64 component ids, numbered ``0, 1, ...`` in order of each component's first row.
    """
    if not -1.0 <= float(threshold) <= 1.0:
        raise InputError(f"regroup threshold must be a cosine in [-1, 1], got {threshold!r}")
    unit = _unit_float32(embeddings)
    m = unit.shape[0]
    if m == 0:
        return np.zeros(0, dtype=np.int64)
    alive = np.flatnonzero(np.linalg.norm(unit, axis=1) > 0)  # a zero row links to nothing
    thr = np.float32(float(threshold) - TOLERANCE)
    forest = _Forest(m)
    limit = EXACT_MAX if exact_max is None else int(exact_max)
    if m * (m - 1) // 2 <= limit:
        _upper_edges(forest, unit[alive], alive, thr, block_entries)
        return forest.components()
    from memmaint.clustering.cells import CELL, cells

    aim = max(CELL, math.isqrt(alive.size))
    pieces = cells(unit, alive, np.random.default_rng(0), aim, spill=True)
    for members in pieces:
        if members.size > 1:
            members = np.sort(members)
            _upper_edges(forest, unit[members], members, thr, block_entries)
    log.info("regroup components over %d candidates: approximate, %d cells", m, len(pieces))
    return forest.components()


def _renumber(comp: np.ndarray) -> np.ndarray:
    """Component ids ``0, 1, ...`` in order of each component's first row."""
    _uniq, inverse = np.unique(comp, return_inverse=True)
    _u, first = np.unique(inverse, return_index=True)
    order = np.empty(first.size, dtype=np.int64)
    order[np.argsort(first, kind="stable")] = np.arange(first.size)
    return order[inverse.reshape(-1)]


def split_components(embeddings: Any, comp: np.ndarray, threshold: float, max_size: int, *,
                     block_entries: int = BLOCK_ENTRIES,
                     exact_max: int | None = None) -> np.ndarray:
    """Split every component larger than ``max_size`` at higher thresholds.

    A large component is re-cut at ``threshold + SPLIT_STEP``, its pieces that are still
    too large at the next step, and so on up to a cosine of 1 (exact copies stay together
    whatever their number). Returns component ids renumbered in order of first row.
    """
    if max_size < 1:
        raise InputError(f"max_size must be at least 1, got {max_size!r}")
    unit = _unit_float32(embeddings)
    comp = np.asarray(comp, dtype=np.int64).copy()
    if comp.size == 0:
        return comp
    sizes = np.bincount(comp)
    pending = [(np.flatnonzero(comp == c), float(threshold)) for c in
               np.flatnonzero(sizes > max_size)]
    next_id = int(comp.max()) + 1
    while pending:
        rows, thr = pending.pop()
        if thr >= 1.0:
            continue
        thr = min(1.0, thr + SPLIT_STEP)
        pieces = similarity_components(unit[rows], thr, block_entries=block_entries,
                                       exact_max=exact_max)
        for k in range(int(pieces.max()) + 1):
            piece = rows[pieces == k]
            comp[piece] = next_id
            next_id += 1
            if piece.size > max_size:
                pending.append((piece, thr))
    return _renumber(comp)


def _nearest(unit: np.ndarray, rows: np.ndarray, cols: np.ndarray,
             block_entries: int) -> tuple[np.ndarray, np.ndarray]:
    """For each of ``rows``: the best cosine to one of ``cols`` and which row gives it (ties:
    the first of ``cols``), exactly. Tiled over rows and columns: a block of rows is
    multiplied with one tile of at most :data:`TILE` columns at a time (about
    ``block_entries`` cosines), keeping a running best per row that a later tile replaces
    only when strictly better, so the result is the one of a single ``argmax`` over all
    columns, whatever the tiles; the clustered vectors are read once per row block, not once
    per handful of rows."""
    best = np.full(rows.size, -np.inf, dtype=np.float32)
    arg = np.zeros(rows.size, dtype=np.int64)
    cols = cols[np.any(unit[cols] != 0, axis=1)]  # a zero row is near nothing
    if rows.size == 0 or cols.size == 0:
        return best, arg
    target = unit[cols]
    width = min(cols.size, TILE, max(1, int(block_entries)))
    height = max(1, int(block_entries) // width)
    for r0 in range(0, rows.size, height):
        block = unit[rows[r0:r0 + height]]
        here = np.arange(block.shape[0])
        top = np.full(block.shape[0], -np.inf, dtype=np.float32)
        at = np.zeros(block.shape[0], dtype=np.int64)
        for c0 in range(0, cols.size, width):
            sims = block @ target[c0:c0 + width].T
            pick = np.argmax(sims, axis=1)
            value = sims[here, pick]
            better = value > top  # strictly: an earlier tile keeps a tie
            top[better] = value[better]
            at[better] = pick[better] + c0
        best[r0:r0 + height] = top
        arg[r0:r0 + height] = cols[at]
    best[~np.any(unit[rows] != 0, axis=1)] = -np.inf
    return best, arg


def _nearest_cells(unit: np.ndarray, rows: np.ndarray,
                   cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_nearest`, approximately: each of ``rows`` compared with the members of its
    :data:`ATTACH_PROBES` nearest cells of ``cols`` (``cells.nearest_in_cells``, seeded); a
    best link outside them is missed (a worse one, or none: -inf)."""
    from memmaint.clustering.cells import nearest_in_cells

    best = np.full(rows.size, -np.inf, dtype=np.float32)
    arg = np.zeros(rows.size, dtype=np.int64)
    cols = cols[np.any(unit[cols] != 0, axis=1)]
    if rows.size == 0 or cols.size == 0:
        return best, arg
    best, at = nearest_in_cells(unit[rows], unit[cols], probes=ATTACH_PROBES, block=1024)
    best[~np.any(unit[rows] != 0, axis=1)] = -np.inf
    log.info("regroup attach search of %d candidates against %d clustered memories: "
             "approximate", rows.size, cols.size)
    return best, cols[at]


def _regroup_one(labels: np.ndarray, unit: np.ndarray, threshold: float, singletons: bool,
                 attach: bool, max_size: int | None, block_entries: int,
                 exact_max: int | None) -> tuple[np.ndarray, int, int, int]:
    """Regroup one partition: (labels, memories moved, new clusters, memories attached)."""
    out = labels.copy()
    real = labels[labels >= 0]
    candidate = labels < 0
    if singletons and real.size:
        values, counts = np.unique(real, return_counts=True)
        candidate |= np.isin(labels, values[counts == 1])
    idx = np.flatnonzero(candidate)
    if idx.size == 0:
        return out, 0, 0, 0
    comp = similarity_components(unit[idx], threshold, block_entries=block_entries,
                                 exact_max=exact_max)
    if max_size is not None:
        comp = split_components(unit[idx], comp, threshold, max_size,
                                block_entries=block_entries, exact_max=exact_max)
    sizes = np.bincount(comp)
    target = np.full(sizes.size, -1, dtype=np.int64)  # component -> label it gets (-1: none)
    attached = 0
    if attach:
        others = np.flatnonzero(~candidate)
        if idx.size * others.size <= (EXACT_MAX if exact_max is None else exact_max):
            best, arg = _nearest(unit, idx, others, block_entries)
        else:
            best, arg = _nearest_cells(unit, idx, others)
        # a component joins the cluster of its members' single best link, if close enough
        order = np.lexsort((np.arange(idx.size), -best.astype(np.float64), comp))
        first = np.ones(order.size, dtype=bool)
        first[1:] = comp[order][1:] != comp[order][:-1]
        lead = order[first]  # per component (ascending id): its member with the best link
        ok = best[lead] >= np.float32(float(threshold) - TOLERANCE)
        target[comp[lead[ok]]] = labels[arg[lead[ok]]]
        attached = int(sizes[comp[lead[ok]]].sum())
    fresh = np.flatnonzero((sizes >= 2) & (target < 0))  # in order of first member
    base = int(real.max()) + 1 if real.size else 0
    target[fresh] = base + np.arange(fresh.size)
    moved = target[comp] >= 0
    out[idx[moved]] = target[comp[moved]]
    return out, int(moved.sum()), int(fresh.size), attached


def regroup_noise(labels: Any, embeddings: Any, threshold: float, *, singletons: bool = True,
                  attach: bool = False, max_size: int | None = None,
                  partitions: Iterable[Any] | None = None,
                  block_entries: int = BLOCK_ENTRIES,
                  exact_max: int | None = None) -> np.ndarray:
    """Group noise (and singleton) memories whose cosine chains reach ``threshold``.

    Args:
        labels: one integer label per row, noise ``-1``.
        embeddings: ``(n, dim)`` vectors aligned with ``labels`` (the original space, not the
            reduced one).
        threshold: cosine in ``[-1, 1]``; e.g. :func:`regroup_threshold` of the agents config.
        singletons: also regroup members of one-member clusters (GenKT leaves no noise).
        attach: a component (of one or more candidates) whose best cosine to a memory of a
            real cluster reaches ``threshold`` joins that cluster instead (the cluster of its
            single best link; two real clusters are never joined).
        max_size: a component larger than this (single linkage chains) is split by raising
            the threshold in steps of :data:`SPLIT_STEP` until every piece fits or the
            threshold reaches 1; members a split leaves alone stay candidates. ``None``: no
            limit.
        partitions: row-index arrays regrouped independently (e.g. one per namespace, whose
            labels are namespace-local): a component never crosses partitions and new labels
            start above the partition's own largest label. Rows in no partition keep their
            label. Default: all rows are one partition.
        block_entries: cosines computed at once (memory bound; the result does not depend
            on it).
        exact_max: above this many cosines the components and the attach search of a
            partition are approximate (module docstring); ``None``: :data:`EXACT_MAX`.

    Returns:
        A new int64 label array: each component of two or more candidates is a new cluster
        labelled above the largest existing label (in order of its first row); every other
        label is unchanged.

    Raises:
        InputError: misaligned labels and embeddings, NaN rows, a threshold outside [-1, 1].
    """
    lab = np.asarray(labels, dtype=np.int64).reshape(-1)
    unit = _unit_float32(embeddings)
    if unit.shape[0] != lab.size:
        raise InputError(f"{lab.size} labels but {unit.shape[0]} embedding rows")
    if not -1.0 <= float(threshold) <= 1.0:
        raise InputError(f"regroup threshold must be a cosine in [-1, 1], got {threshold!r}")
    parts = [np.arange(lab.size)] if partitions is None else \
        [np.asarray(p, dtype=np.int64).reshape(-1) for p in partitions]
    out = lab.copy()
    moved = clusters = attached = 0
    for part in parts:
        if part.size == 0:
            continue
        new, n_moved, n_clusters, n_attached = _regroup_one(
            lab[part], unit[part], threshold, singletons, attach, max_size, block_entries,
            exact_max)
        out[part] = new
        moved += n_moved
        clusters += n_clusters
        attached += n_attached
    if moved:
        log.info("regrouped %d noise/singleton memories (cosine >= %.3f): %d into %d new "
                 "clusters, %d into existing ones", moved, threshold, moved - attached,
                 clusters, attached)
    return out
