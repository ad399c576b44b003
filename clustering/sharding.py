"""Clustering pools too large to reduce and cluster at once: partition, cluster shards,
reconcile.

1. **Partition** (:func:`partition`): MiniBatchKMeans on the embeddings cuts the pool into
   ``ceil(n / max_shard_size)`` coarse cells; a cell larger than ``max_shard_size`` is cut
   again (recursively), and small cells are packed into the cell with the nearest centre
   while the result stays within the limit. Near-duplicates sit close together in embedding
   space, so they almost always land in the same shard.
2. **Cluster** each shard on its own with the configured reducer and clusterer
   (:func:`~memmaint.clustering.pipeline.cluster_embeddings`), as independent tasks on an
   executor (anything with an order-preserving ``map(fn, items)``: see
   :mod:`memmaint.maintenance.job.executors`; the default runs them one after another).
3. **Reconcile** clusters that straddle shard borders (:func:`reconcile`): every shard cluster
   becomes one object whose centre is the normalised mean of its members' unit embeddings.
   Objects of different shards are merged when they pass the eligibility rule, taken in
   order of decreasing cosine: the centres' cosine is at least ``reconcile_cos`` (and, for
   GenKT, at least its ``cos_cut``: the cosine half of GenKT's own pair eligibility), and the
   two clusters touch: the distance between their centres is at most ``reconcile_overlap``
   times the sum of their radii (root mean square distance of members to the centre). This
   plays the part of GenKT's radius in embedding space, where all shards can be compared
   (each shard has its own reduced coordinates). The halves of a group cut by a border
   overlap; two distinct neighbouring groups do not, however close their directions. A
   reconciled cluster never holds two clusters of the same shard: the shard's clusterer
   already said they are apart. Only shards whose k-means centres are among each other's
   ``neighbours`` nearest are compared. Noise (label -1) stays noise.

:func:`agreement` measures how far a sharded labelling is from an unsharded one (B-cubed of
one against the other, noise as singletons).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memmaint.clustering.metrics import BCubed, bcubed
from memmaint.maintenance.core.config import ClusteringConfig, ReductionConfig
from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.core.linalg import gram

__all__ = [
    "ShardedResult",
    "agreement",
    "cluster_sharded",
    "partition",
    "reconcile",
    "shard_centroids",
]

log = logging.getLogger(__name__)

_KMEANS_BATCH = 4096
_BLOCK = 2048  # centroid rows per similarity block in reconcile
_THREADED_KMEANS = 200_000


def _unit(X: np.ndarray) -> np.ndarray:
    X = np.asarray(X, dtype=np.float32)
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return X / norms


def _kmeans(X: np.ndarray, k: int, seed: int) -> np.ndarray:
    from sklearn.cluster import MiniBatchKMeans
    from threadpoolctl import threadpool_limits

    km = MiniBatchKMeans(n_clusters=k, random_state=seed, n_init=3,
                         batch_size=min(len(X), _KMEANS_BATCH), max_no_improvement=10)
    # Small inputs: BLAS/OpenMP thread start-up costs more than the work (seconds on a
    # busy machine); large ones may use every core.
    with threadpool_limits(limits=1 if len(X) < _THREADED_KMEANS else None):
        return np.asarray(km.fit_predict(X), dtype=np.int64)


def _split(X: np.ndarray, idx: np.ndarray, max_size: int, seed: int,
           depth: int = 0) -> list[np.ndarray]:
    """Cut the rows ``idx`` into cells of at most ``max_size`` rows."""
    if len(idx) <= max_size:
        return [idx]
    k = math.ceil(len(idx) / max_size)
    labels = _kmeans(X[idx], k, seed + depth) if depth < 8 else None
    groups = [] if labels is None else [idx[labels == c] for c in range(k)]
    groups = [g for g in groups if len(g)]
    if len(groups) < 2:  # k-means could not cut (identical rows): cut in row order
        groups = [idx[s:s + max_size] for s in range(0, len(idx), max_size)]
    out: list[np.ndarray] = []
    for g in groups:
        out.extend(_split(X, g, max_size, seed, depth + 1))
    return out


def partition(embeddings: Any, max_shard_size: int, *, seed: int = 0) -> np.ndarray:
    """Shard index per row: a coarse k-means partition into shards of at most
    ``max_shard_size`` rows, numbered in order of their first row. Deterministic for a seed.
    """
    X = _unit(embeddings)
    n = len(X)
    if max_shard_size < 1:
        raise InputError(f"max_shard_size must be >= 1, got {max_shard_size}")
    if n <= max_shard_size:
        return np.zeros(n, dtype=np.int64)
    cells = _split(X, np.arange(n), max_shard_size, seed)
    cells = _pack(X, cells, max_shard_size)
    cells.sort(key=lambda c: int(c.min()))
    shard = np.empty(n, dtype=np.int64)
    for s, c in enumerate(cells):
        shard[c] = s
    return shard


def _pack(X: np.ndarray, cells: list[np.ndarray], max_size: int) -> list[np.ndarray]:
    """Merge each cell smaller than half the limit into the nearest cell it fits in."""
    sums = [X[c].sum(axis=0, dtype=np.float64) for c in cells]
    cells = list(cells)
    while len(cells) > 1:
        sizes = np.array([len(c) for c in cells])
        small = int(np.argmin(sizes))
        if sizes[small] * 2 >= max_size:
            break
        centres = _unit(np.stack(sums))
        sims = centres @ centres[small]
        sims[small] = -np.inf
        sims[sizes + sizes[small] > max_size] = -np.inf
        target = int(np.argmax(sims))
        if not np.isfinite(sims[target]):
            break
        cells[target] = np.sort(np.concatenate([cells[target], cells[small]]))
        sums[target] = sums[target] + sums[small]
        del cells[small], sums[small]
    return cells


def shard_centroids(embeddings: Any, shards: np.ndarray, labels: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(shard, label, centre, radius)`` of every (shard, label >= 0) cluster, in sorted
    order: the centre is the normalised mean of the members' unit embeddings, the radius the
    root mean square distance of the members to it (``sqrt(2 - 2 |mean|)``)."""
    from scipy import sparse

    X = _unit(embeddings)
    keep = np.flatnonzero(labels >= 0)
    if keep.size == 0:
        return (np.zeros(0, np.int64), np.zeros(0, np.int64),
                np.zeros((0, X.shape[1]), np.float32), np.zeros(0, np.float32))
    pairs, inverse = np.unique(np.stack([shards[keep], labels[keep]], axis=1), axis=0,
                               return_inverse=True)
    inverse = inverse.reshape(-1)
    member = sparse.csr_matrix((np.ones(keep.size, np.float32), (inverse, keep)),
                               shape=(len(pairs), len(X)))
    sums = np.asarray(member @ X, dtype=np.float64)
    counts = np.bincount(inverse, minlength=len(pairs)).astype(np.float64)
    mean_norm = np.linalg.norm(sums, axis=1) / counts
    radius = np.sqrt(np.clip(2.0 - 2.0 * mean_norm, 0.0, None)).astype(np.float32)
    return (pairs[:, 0].astype(np.int64), pairs[:, 1].astype(np.int64), _unit(sums),
            radius)


def _neighbour_shards(embeddings: np.ndarray, shards: np.ndarray, n_shards: int,
                      neighbours: int) -> set[tuple[int, int]]:
    """Pairs (s, t), s < t, of shards whose centres are among each other's nearest."""
    from scipy import sparse

    X = _unit(embeddings)
    member = sparse.csr_matrix((np.ones(len(X), np.float32), (shards, np.arange(len(X)))),
                               shape=(n_shards, len(X)))
    centres = _unit(np.asarray(member @ X))
    sims = gram(centres)
    np.fill_diagonal(sims, -np.inf)
    pairs: set[tuple[int, int]] = set()
    m = min(neighbours, n_shards - 1)
    for s in range(n_shards):
        for t in np.argsort(-sims[s], kind="stable")[:m]:
            pairs.add((min(s, int(t)), max(s, int(t))))
    return pairs


def reconcile(shard_of: np.ndarray, centres: np.ndarray, threshold: float,
              shard_pairs: Iterable[tuple[int, int]] | None = None,
              radius: np.ndarray | None = None, overlap: float = 1.0
              ) -> tuple[np.ndarray, int]:
    """Group shard clusters across shards: ``(group per cluster, merges made)``.

    Clusters ``i`` and ``j`` of different shards are *eligible* when
    ``cos(centres[i], centres[j]) >= threshold``, their shards are in ``shard_pairs`` (when
    given) and, with ``radius``, they touch: the distance between the (unit) centres is at
    most ``overlap * (radius[i] + radius[j])``. Eligible pairs are taken by decreasing cosine (ties by index) and joined
    unless the joined group would hold two clusters of one shard. Groups are numbered in
    order of their first cluster.
    """
    k = len(shard_of)
    parent = np.arange(k)
    members: dict[int, set[int]] = {i: {int(shard_of[i])} for i in range(k)}
    if k < 2:
        return np.zeros(k, dtype=np.int64), 0
    C = _unit(centres)
    allowed = None if shard_pairs is None else set(shard_pairs)
    cand_i: list[np.ndarray] = []
    cand_j: list[np.ndarray] = []
    cand_s: list[np.ndarray] = []
    for start in range(0, k, _BLOCK):
        block = C[start:start + _BLOCK] @ C.T
        rows, cols = np.nonzero(block >= np.float32(threshold))
        rows = rows + start
        keep = (cols > rows) & (shard_of[rows] != shard_of[cols])
        rows, cols = rows[keep], cols[keep]
        if radius is not None and len(rows):
            dist = np.sqrt(np.clip(2.0 - 2.0 * block[rows - start, cols], 0.0, None))
            touch = dist <= overlap * (radius[rows] + radius[cols]) + 1e-6
            rows, cols = rows[touch], cols[touch]
        if allowed is not None and len(rows):
            a = np.minimum(shard_of[rows], shard_of[cols])
            b = np.maximum(shard_of[rows], shard_of[cols])
            ok = np.fromiter(((int(x), int(y)) in allowed for x, y in zip(a, b)),
                             dtype=bool, count=len(a))
            rows, cols = rows[ok], cols[ok]
        cand_i.append(rows)
        cand_j.append(cols)
        cand_s.append(block[rows - start, cols])
    ii = np.concatenate(cand_i) if cand_i else np.zeros(0, np.int64)
    jj = np.concatenate(cand_j) if cand_j else np.zeros(0, np.int64)
    ss = np.concatenate(cand_s) if cand_s else np.zeros(0, np.float32)
    order = np.lexsort((jj, ii, -ss))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = int(parent[x])
        return x

    merges = 0
    for o in order:
        a, b = find(int(ii[o])), find(int(jj[o]))
        if a == b or members[a] & members[b]:
            continue
        if b < a:
            a, b = b, a
        parent[b] = a
        members[a] |= members.pop(b)
        merges += 1
    roots = np.array([find(i) for i in range(k)])
    _, group = np.unique(roots, return_inverse=True)
    # renumber by first appearance
    first: dict[int, int] = {}
    out = np.empty(k, dtype=np.int64)
    for i, g in enumerate(group.reshape(-1)):
        out[i] = first.setdefault(int(g), len(first))
    return out, merges


@dataclass(frozen=True)
class ShardedResult:
    """What :func:`cluster_sharded` found.

    Attributes:
        labels: global labels (noise -1), numbered by first appearance in row order.
        shards: the shard of each row.
        reduced: each row's reduced coordinates (in its own shard's space).
        shard_sizes: rows per shard.
        shard_clusters: clusters found per shard before reconciliation.
        merges: cross-shard merges made by reconciliation.
        fallbacks: reducers' fallback messages, one per shard that fell back.
        seconds: wall time of the ``partition``, ``shards`` (reduce and cluster, on the
            executor) and ``reconcile`` steps.
    """

    labels: np.ndarray
    shards: np.ndarray
    reduced: np.ndarray
    shard_sizes: tuple[int, ...]
    shard_clusters: tuple[int, ...]
    merges: int
    fallbacks: tuple[str, ...] = ()
    seconds: Mapping[str, float] = field(default_factory=dict)

    @property
    def n_shards(self) -> int:
        return len(self.shard_sizes)

    @property
    def n_clusters(self) -> int:
        return int(np.unique(self.labels[self.labels >= 0]).size)


def _cluster_shard(task: tuple[np.ndarray, np.ndarray | None, ReductionConfig,
                               ClusteringConfig]) -> tuple[np.ndarray, np.ndarray, str | None]:
    from memmaint.clustering.pipeline import cluster_embeddings

    X, w, reduction, clustering = task
    res = cluster_embeddings(X, w, reduction, clustering)
    return res.labels, res.reduced, res.reduction_fallback


def reconcile_threshold(clustering: ClusteringConfig, reconcile_cos: float) -> float:
    """The cosine two shard clusters' centres need to be merged (see the module docstring)."""
    if clustering.algorithm == "genkt":
        return max(reconcile_cos, clustering.genkt.cos_cut)
    return reconcile_cos


def cluster_sharded(embeddings: Any, weights: Any, reduction: ReductionConfig,
                    clustering: ClusteringConfig, *, max_shard_size: int,
                    reconcile_cos: float = 0.9, neighbours: int = 3, seed: int = 0,
                    reconcile_overlap: float = 1.0, executor: Any = None,
                    shards: Any = None) -> ShardedResult:
    """Partition, cluster every shard (on ``executor``), reconcile; see the module docstring.

    A pool of at most ``max_shard_size`` rows is one shard: the result then equals
    :func:`~memmaint.clustering.pipeline.cluster_embeddings` (labels renumbered by first
    appearance). ``executor`` is anything with an order-preserving ``map(fn, items)``
    (``None``: in this thread, one shard after another). ``shards`` (shard index per row,
    0..k-1) replaces the k-means partition, e.g. to shard by tenant or by time.

    Each shard should hold several groups: HDBSCAN never calls a whole shard one cluster.
    """
    from memmaint.clustering.reduce.reducers import check_matrix

    X = check_matrix(embeddings, "embedding").astype(np.float32)
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    if w is not None and w.shape != (len(X),):
        raise InputError(f"weights has shape {w.shape} but there are {len(X)} embeddings")
    t0 = time.perf_counter()
    if shards is None:
        shards = partition(X, max_shard_size, seed=seed)
    else:
        shards = np.asarray(shards, dtype=np.int64)
        if shards.shape != (len(X),) or shards.min() < 0 \
                or len(np.unique(shards)) != shards.max() + 1:
            raise InputError(f"shards must number every one of the {len(X)} rows 0..k-1 "
                             "with no shard empty")
    n_shards = int(shards.max()) + 1
    rows = [np.flatnonzero(shards == s) for s in range(n_shards)]
    tasks = [(X[r], None if w is None else w[r], reduction, clustering) for r in rows]
    mapper: Callable[..., Sequence[Any]] = (
        (lambda fn, items: list(map(fn, items))) if executor is None else executor.map)
    t1 = time.perf_counter()
    results = list(mapper(_cluster_shard, tasks))
    t2 = time.perf_counter()
    local = np.full(len(X), -1, dtype=np.int64)
    reduced: np.ndarray | None = None
    fallbacks: list[str] = []
    shard_clusters = []
    for s, (r, (labels, coords, fallback)) in enumerate(zip(rows, results)):
        local[r] = labels
        if reduced is None:
            reduced = np.zeros((len(X), coords.shape[1]), dtype=np.float64)
        reduced[r] = coords
        shard_clusters.append(int(np.unique(labels[labels >= 0]).size))
        if fallback:
            fallbacks.append(f"shard {s}: {fallback}")
    shard_of, label_of, centres, radius = shard_centroids(X, shards, local)
    pairs = (_neighbour_shards(X, shards, n_shards, neighbours) if n_shards > 1 else set())
    group, merges = reconcile(shard_of, centres, reconcile_threshold(clustering, reconcile_cos),
                              pairs, radius=radius, overlap=reconcile_overlap)
    # global label of every clustered row: its (shard, label) cluster's group
    lookup = {(int(s), int(lab)): int(g) for s, lab, g in zip(shard_of, label_of, group)}
    out = np.full(len(X), -1, dtype=np.int64)
    first: dict[int, int] = {}
    for i in np.flatnonzero(local >= 0):
        g = lookup[(int(shards[i]), int(local[i]))]
        out[i] = first.setdefault(g, len(first))
    log.info("sharded clustering: %d rows in %d shards (max %d), %d shard clusters, "
             "%d cross-shard merges, %d clusters", len(X), n_shards, max_shard_size,
             sum(shard_clusters), merges, len(first))
    assert reduced is not None
    seconds = {"partition": t1 - t0, "shards": t2 - t1, "reconcile": time.perf_counter() - t2}
    return ShardedResult(labels=out, shards=shards, reduced=reduced,
                         shard_sizes=tuple(len(r) for r in rows),
                         shard_clusters=tuple(shard_clusters), merges=merges,
                         fallbacks=tuple(fallbacks), seconds=seconds)


def agreement(labels_a: Any, labels_b: Any, weights: Any = None) -> BCubed:
    """B-cubed of ``labels_b`` against ``labels_a`` with every noise row (-1, on either
    side) its own singleton: F1 is 1 exactly when both group the rows the same way."""
    a = np.asarray(labels_a, dtype=np.int64)
    b = np.asarray(labels_b, dtype=np.int64)
    if a.shape != b.shape:
        raise InputError(f"labellings have different lengths: {a.shape[0]} and {b.shape[0]}")
    idx = np.arange(len(a))
    a = np.where(a >= 0, a, a.max(initial=0) + 1 + idx)
    b = np.where(b >= 0, b, b.max(initial=0) + 1 + idx)
    return bcubed(a, b, weights)
