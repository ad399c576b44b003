"""Importance-weighted HDBSCAN: core distances from the neighbours' weight mass (issue #35).

Plain HDBSCAN calls a point dense when its ``min_samples``-th nearest neighbour is close: the
core distance counts neighbours. Here a memory's neighbours count by their importance: the
core distance of ``i`` is the smallest radius at which the summed weight of the *other*
points within it (``i`` itself excluded: a memory's own importance does not make its
surroundings dense, heavy neighbours do) reaches ``min_samples`` in units of the pool's mean
weight. With equal weights that is the distance to the ``min_samples``-th nearest neighbour,
``hdbscan``'s own core distance, so the labels are plain HDBSCAN's.

The ``hdbscan`` library takes no core distances of ours, so :func:`weighted_mutual_reachability`
builds the whole matrix ``max(core_i, core_j, d_ij)`` and the library clusters it with
``metric="precomputed"`` and ``min_samples=1``: its own core distance is then each row's
smallest off-diagonal entry, never above any entry of the row, so it changes nothing and the
single-linkage tree is the weighted one. That matrix is n x n float64 (plus the library's
copy): :data:`WEIGHTED_MAX` memories at most (about 400 MB); larger pools are refused with a
message naming ``[sharding]`` (every shard is clustered on its own).

``[clustering] algorithm = "whdbscan"`` reads ``[clustering.hdbscan]``: the same
hyper-parameters, declared once in :class:`~memmaint.maintenance.core.config.HDBSCANConfig`.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from memmaint.clustering.density.hdbscan_adapter import HDBSCANClusterer, HDBSCANInputError
from memmaint.maintenance.core.config import ClusteringConfig

__all__ = [
    "WEIGHTED_MAX",
    "WeightedHDBSCANClusterer",
    "weighted_core_distances",
    "weighted_mutual_reachability",
    "whdbscan_from_config",
]

log = logging.getLogger(__name__)

#: the most points the weighted clusterer takes at once (an n x n float64 matrix and the
#: ``hdbscan`` library's copy of it: 2 x 8 x 5000^2 bytes = 400 MB)
WEIGHTED_MAX = 5000
#: rows of the distance matrix sorted at once in :func:`weighted_core_distances`
_BLOCK_ROWS = 512
#: slack on the mass comparison, so weights normalised to mean 1 in floating point still
#: reach an integer ``min_samples`` exactly where counting would
_MASS_SLACK = 1e-9


def _pairwise(X: np.ndarray) -> np.ndarray:
    """Euclidean distances, (n, n) float64, zero diagonal (exactly symmetric)."""
    from scipy.spatial.distance import pdist, squareform

    return squareform(pdist(X, metric="euclidean"))


def _unit_mean(weights: Any, n: int) -> np.ndarray:
    """Weights scaled to mean 1 (``None`` or all zero: ones)."""
    if weights is None:
        return np.ones(n)
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (n,):
        raise HDBSCANInputError(f"weights has shape {w.shape} but there are {n} points")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise HDBSCANInputError("weights must be finite and >= 0")
    total = float(w.sum())
    return np.ones(n) if total <= 0 else w * (n / total)


def weighted_core_distances(X: Any, weights: Any, min_samples: int, *,
                            distances: np.ndarray | None = None,
                            include_self: bool = False) -> np.ndarray:
    """Each point's core distance from its neighbours' weight mass.

    ``weights`` (n values >= 0, or ``None`` for equal) are scaled to mean 1; the core distance
    of ``i`` is the smallest Euclidean radius ``r`` at which the summed weight of the points
    ``j != i`` with ``d_ij <= r`` reaches ``min_samples`` (with ``include_self``, ``i``'s own
    weight counts too and the mass to reach is ``min_samples + 1``: equal weights give the
    same either way). Equal weights give the distance to the ``min_samples``-th nearest
    neighbour, the ``hdbscan`` library's core distance. When the others' whole mass falls
    short (one memory holding most of the pool's weight), it is the distance to the farthest
    point. ``distances`` may give the (n, n) matrix already computed.
    """
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    if n < 2:
        return np.zeros(n)
    if min_samples < 1:
        raise ValueError(f"min_samples must be >= 1, got {min_samples}")
    w = _unit_mean(weights, n)
    D = _pairwise(X) if distances is None else distances
    target = float(min(min_samples, n - 1)) + (1.0 if include_self else 0.0) - _MASS_SLACK
    core = np.empty(n)
    rows = np.arange(n)
    for lo in range(0, n, _BLOCK_ROWS):
        hi = min(n, lo + _BLOCK_ROWS)
        block = D[lo:hi].copy()
        if not include_self:  # i's own entry sorts last and weighs nothing
            block[rows[lo:hi] - lo, rows[lo:hi]] = np.inf
        order = np.argsort(block, axis=1, kind="stable")
        mass = np.cumsum(w[order], axis=1)
        if not include_self:
            mass[:, -1] = mass[:, -2]  # the self entry (last) adds nothing
        reach = np.argmax(mass >= target, axis=1)
        short = mass[np.arange(hi - lo), -1] < target
        last = n - 2 if not include_self else n - 1
        reach[short] = last
        core[lo:hi] = np.take_along_axis(block, order, axis=1)[np.arange(hi - lo), reach]
    return core


def weighted_mutual_reachability(X: Any, weights: Any, min_samples: int, *,
                                 include_self: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``(M, core)``: the mutual reachability matrix ``M_ij = max(core_i, core_j, d_ij)``
    (zero diagonal, float64 (n, n)) under :func:`weighted_core_distances`, and the core
    distances."""
    X = np.asarray(X, dtype=np.float64)
    D = _pairwise(X)
    core = weighted_core_distances(X, weights, min_samples, distances=D,
                                   include_self=include_self)
    np.maximum(D, core[:, None], out=D)
    np.maximum(D, core[None, :], out=D)
    np.fill_diagonal(D, 0.0)
    return D, core


class WeightedHDBSCANClusterer(HDBSCANClusterer):
    """HDBSCAN whose core distances weigh neighbours by importance
    (:func:`weighted_core_distances`); ``labels_`` (noise -1), ``probabilities_``,
    ``core_distances_`` and ``history_`` (the single-linkage tree in weighted mutual
    reachability) as :class:`HDBSCANClusterer`'s, whose parameters it takes. Without weights,
    or with equal ones, its labels are plain HDBSCAN's. Pools above :data:`WEIGHTED_MAX`
    points raise :class:`HDBSCANInputError`.
    """

    def fit(self, X: Any, y: Any = None, sample_weight: Any = None,
            embeddings: Any = None) -> WeightedHDBSCANClusterer:
        """Cluster ``X`` (n, d) with ``sample_weight`` (n values >= 0) as importance."""
        from memmaint.clustering._estimators import validate_params

        validate_params(self)
        X = self._validate_input(X, sample_weight)
        n = X.shape[0]
        if n > WEIGHTED_MAX:
            raise HDBSCANInputError(
                f"weighted HDBSCAN keeps an n x n distance matrix: {n} points is above its "
                f"limit of {WEIGHTED_MAX}; set [sharding] enabled = true with max_shard_size "
                f"<= {WEIGHTED_MAX}, or use [clustering] algorithm = \"hdbscan\"")
        epsilon = self._selection_epsilon(X)
        if self._all_noise(n, "whdbscan"):
            self.core_distances_ = np.zeros(n)
            return self
        import hdbscan

        min_samples = self.min_cluster_size if self.min_samples is None else self.min_samples
        M, core = weighted_mutual_reachability(X, sample_weight, int(min(min_samples, n - 1)))
        model = hdbscan.HDBSCAN(
            metric="precomputed", min_samples=1,
            min_cluster_size=int(self.min_cluster_size),
            cluster_selection_epsilon=epsilon,
            cluster_selection_method=self.cluster_selection_method,
            allow_single_cluster=bool(self.allow_single_cluster),
        )
        model.fit(M)
        del M
        from memmaint.clustering.history import MergeHistory

        self.history_ = MergeHistory.from_linkage(model.single_linkage_tree_.to_numpy(),
                                                  "weighted mutual reachability")
        self.core_distances_ = core
        self.labels_ = np.asarray(model.labels_, dtype=np.int64)
        self.probabilities_ = np.asarray(model.probabilities_, dtype=np.float64)
        return self


def whdbscan_from_config(config: ClusteringConfig) -> WeightedHDBSCANClusterer:
    """The ``whdbscan`` entry of the clusterer registry: ``[clustering.hdbscan]``'s settings."""
    c = config.hdbscan
    return WeightedHDBSCANClusterer(
        min_cluster_size=c.min_cluster_size, min_samples=c.min_samples,
        cluster_selection_epsilon=c.cluster_selection_epsilon,
        cluster_selection_method=c.cluster_selection_method,
        epsilon_mode=c.epsilon_mode, epsilon_rel=c.epsilon_rel,
        scale_quantile=c.scale_quantile)
