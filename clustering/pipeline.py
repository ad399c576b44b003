"""From embeddings to cluster labels: validate, reduce, cluster.

:func:`cluster_embeddings` clusters one block: reduce, cluster, the one-off guard.
:func:`memmaint.clustering.stage.cluster_pool`, the reduce-and-cluster stage the job and
every executor run, calls it, or shards the pool first. Clusterers are pluggable through
a :class:`Clusterer` protocol and a registry keyed by ``ClusteringConfig.algorithm``:
``hdbscan`` (:class:`~memmaint.clustering.density.hdbscan_adapter.HDBSCANClusterer`) and ``genkt``
(:class:`GenKTClusterer`, a thin wrapper over :class:`memmaint.clustering.genkt.estimator.GenKT`).
Both are scikit-learn estimators whose parameters are declared once, in their config section
(``HDBSCANConfig``, ``GenKTConfig``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin

from memmaint.clustering._estimators import (
    importance_weights,
    parameter_constraints,
    validate_params,
)
from memmaint.clustering.density.hdbscan_adapter import HDBSCANClusterer
from memmaint.clustering.genkt.estimator import GenKT
from memmaint.clustering.history import MergeHistory, history_of
from memmaint.clustering.reduce.reducers import check_matrix, reducer_from_config
from memmaint.clustering.scale import lone_rows, pool_scale
from memmaint.maintenance.core.config import (
    ClusteringConfig,
    GenKTConfig,
    ReductionConfig,
)
from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.core.registry import CLUSTERERS

__all__ = [
    "CLUSTERERS",
    "Clusterer",
    "ClusteringResult",
    "GenKTClusterer",
    "cluster_embeddings",
    "fit_labels",
    "fit_labels_and_history",
    "guard_singletons",
    "make_clusterer",
    "register_clusterer",
    "resolve_R",
]


@runtime_checkable
class Clusterer(Protocol):
    """Anything that turns reduced coordinates into one integer label per row (noise -1)."""

    def fit_predict(self, X: Any, *, embeddings: Any = None,
                    sample_weight: Any = None) -> np.ndarray:
        ...


_GENKT = GenKTConfig()


def resolve_R(X: Any, R: float, R_mode: str = "absolute", R_rel: float = _GENKT.R_rel,
              scale_quantile: float = _GENKT.scale_quantile) -> float:
    """The radius GenKT uses on coordinates ``X``: ``R`` (``R_mode="absolute"``) or
    ``R_rel`` times :func:`~memmaint.clustering.scale.pool_scale` (``"relative"``)."""
    if R_mode != "relative":
        return float(R)
    return float(R_rel) * pool_scale(X, float(scale_quantile))


class GenKTClusterer(ClusterMixin, BaseEstimator):
    """Generalised-kt sequential recombination as a :class:`Clusterer`: ``[clustering.genkt]``
    as a scikit-learn estimator.

    Its parameters are the fields of :class:`~memmaint.maintenance.core.config.GenKTConfig`,
    with the same defaults and constraints. ``fit`` calls ``GenKT(p, R, cos_cut,
    recombination).fit(X, sample_weight=..., embeddings=...)``, passing the weights only when
    ``use_weights`` is true; without ``embeddings`` GenKT skips the cosine cut. Every item
    gets a label >= 0 (no noise). ``fit_predict``, the :class:`Clusterer` entry point, takes
    memory importances: all zero means equal weights (passed as ``None``).

    ``R_mode="relative"`` replaces ``R`` by ``R_rel`` times the pool's scale (see
    :func:`resolve_R`); ``R_`` holds the radius used.
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **parameter_constraints(GenKTConfig)}

    def __init__(self, p: float = _GENKT.p, R: float = _GENKT.R,
                 cos_cut: float = _GENKT.cos_cut, recombination: str = _GENKT.recombination,
                 use_weights: bool = _GENKT.use_weights, R_mode: str = _GENKT.R_mode,
                 R_rel: float = _GENKT.R_rel,
                 scale_quantile: float = _GENKT.scale_quantile) -> None:
        self.p = p
        self.R = R
        self.cos_cut = cos_cut
        self.recombination = recombination
        self.use_weights = use_weights
        self.R_mode = R_mode
        self.R_rel = R_rel
        self.scale_quantile = scale_quantile

    def fit(self, X: Any, y: Any = None, sample_weight: Any = None,
            embeddings: Any = None) -> GenKTClusterer:
        """Cluster ``X``; ``labels_``, ``n_clusters_`` and ``sequence_`` as :class:`GenKT`'s."""
        from sklearn.utils.validation import _check_sample_weight

        validate_params(self)
        R = self.R
        if self.R_mode == "relative":
            try:
                R = resolve_R(np.asarray(X, dtype=np.float64), self.R, self.R_mode, self.R_rel,
                              self.scale_quantile)
            except (TypeError, ValueError):  # malformed X: GenKT.fit says how, below
                R = self.R
        self.R_ = float(R)
        model = GenKT(p=self.p, R=R, cos_cut=self.cos_cut,
                      recombination=self.recombination)
        model.fit(X, sample_weight=sample_weight if self.use_weights else None,
                  embeddings=embeddings)
        if sample_weight is not None and not self.use_weights:  # unused, but must fit X
            _check_sample_weight(sample_weight, np.empty((model.labels_.shape[0], 0)),
                                 ensure_non_negative=True)
        for name in ("n_features_in_", "feature_names_in_"):
            if hasattr(model, name):
                setattr(self, name, getattr(model, name))
        self.labels_ = np.asarray(model.labels_, dtype=np.int64)
        self.n_clusters_ = model.n_clusters_
        self.sequence_ = model.sequence_
        self.history_ = MergeHistory.from_genkt(model.sequence_)
        return self

    def fit_predict(self, X: Any, y: Any = None, *, embeddings: Any = None,
                    sample_weight: Any = None) -> np.ndarray:
        """Cluster ``X`` and return the int64 labels (all-zero importances: equal weights)."""
        return self.fit(X, sample_weight=importance_weights(sample_weight),
                        embeddings=embeddings).labels_


def hdbscan_from_config(config: ClusteringConfig) -> Clusterer:
    """The ``hdbscan`` entry of the clusterer registry."""
    c = config.hdbscan
    return HDBSCANClusterer(min_cluster_size=c.min_cluster_size, min_samples=c.min_samples,
                            cluster_selection_epsilon=c.cluster_selection_epsilon,
                            cluster_selection_method=c.cluster_selection_method,
                            epsilon_mode=c.epsilon_mode, epsilon_rel=c.epsilon_rel,
                            scale_quantile=c.scale_quantile)


def genkt_from_config(config: ClusteringConfig) -> Clusterer:
    """The ``genkt`` entry of the clusterer registry."""
    c = config.genkt
    return GenKTClusterer(p=c.p, R=c.R, cos_cut=c.cos_cut, recombination=c.recombination,
                          use_weights=c.use_weights, R_mode=c.R_mode, R_rel=c.R_rel,
                          scale_quantile=c.scale_quantile)


ClustererFactory = Callable[[ClusteringConfig], Clusterer]


def register_clusterer(name: str, factory: ClustererFactory) -> None:
    """Make ``[clustering] algorithm = name`` build ``factory(config.clustering)``."""
    CLUSTERERS.register(name, factory)


def make_clusterer(config: ClusteringConfig) -> Clusterer:
    """The clusterer ``config.algorithm`` names, set up from its config section."""
    return CLUSTERERS.get(config.algorithm)(config)


#: the guard tries map neighbours first from this many memories on, on maps of at most this
#: many dimensions (a k-d tree's range), this many neighbours each
GUARD_CANDIDATES_FROM = 2048
GUARD_MAP_DIMS = 10
GUARD_MAP_NEIGHBOURS = 10


def guard_singletons(labels: Any, embeddings: Any, singleton_cos: float,
                     coords: Any = None) -> np.ndarray:
    """The one-off guard: ``labels`` (int64 copy) with every memory whose best cosine to any
    other memory of ``embeddings`` (the original space, not the reduced map) is below
    ``singleton_cos`` set to noise (-1). ``singleton_cos <= -1`` turns it off.

    Reduced maps (UMAP, t-SNE) place every point somewhere, and clusterers absorb one-offs
    into the nearest cluster; a cosine in the embedding space keeps them alone. With the
    reduced ``coords`` (at most :data:`GUARD_MAP_DIMS` dimensions, from
    :data:`GUARD_CANDIDATES_FROM` memories on), each memory's nearest neighbours on the map
    are tried first and only the memories they do not settle are compared with every other
    one (:func:`~memmaint.clustering.scale.lone_rows`): the same answer, without the
    quadratic pass over a pool whose memories mostly have a close paraphrase.
    """
    out = np.array(labels, dtype=np.int64, copy=True)
    if singleton_cos <= -1.0 or out.size < 2:
        return out
    candidates = None
    if coords is not None and out.size >= GUARD_CANDIDATES_FROM:
        X = np.asarray(coords, dtype=np.float64)
        if X.ndim == 2 and X.shape[0] == out.size and X.shape[1] <= GUARD_MAP_DIMS:
            from sklearn.neighbors import NearestNeighbors

            k = min(GUARD_MAP_NEIGHBOURS + 1, out.size)
            candidates = NearestNeighbors(n_neighbors=k).fit(X).kneighbors(
                X, return_distance=False)
    out[lone_rows(embeddings, singleton_cos, candidates)] = -1
    return out


def fit_labels(coords: Any, embeddings: Any, weights: Any,
               clustering: ClusteringConfig) -> np.ndarray:
    """Cluster reduced ``coords`` as ``clustering`` says, then apply the one-off guard
    (``clustering.singleton_cos``) in the original ``embeddings``: the one function the
    pipeline, the job, its executors and the tuner call."""
    return fit_labels_and_history(coords, embeddings, weights, clustering)[0]


def fit_labels_and_history(coords: Any, embeddings: Any, weights: Any,
                           clustering: ClusteringConfig) -> tuple[np.ndarray, Any]:
    """:func:`fit_labels`, with the clusterer's merge history
    (:class:`~memmaint.clustering.history.MergeHistory`, or ``None`` for a clusterer that
    keeps none)."""
    clusterer = make_clusterer(clustering)
    labels = clusterer.fit_predict(coords, embeddings=embeddings, sample_weight=weights)
    labels = guard_singletons(labels, embeddings, clustering.singleton_cos, coords)
    return labels, history_of(clusterer)


@dataclass(frozen=True)
class ClusteringResult:
    """Labels (int64, noise -1), the reduced z-scored coordinates, and the reducer's fallback
    (``None``, or one line saying which reducer was used instead and why).

    ``reduce_seconds`` and ``cluster_seconds`` time the two steps (a sharded pool reports its
    whole time as clustering; ``n_shards`` says into how many shards it was cut); ``history``
    is the clusterer's :class:`~memmaint.clustering.history.MergeHistory` (GenKT's merges,
    HDBSCAN's single-linkage tree), ``None`` for a sharded pool or a clusterer without one.
    """

    labels: np.ndarray
    reduced: np.ndarray
    reduction_fallback: str | None = None
    reduce_seconds: float = 0.0
    cluster_seconds: float = 0.0
    history: Any = field(default=None, compare=False)
    n_shards: int = 1
    #: the process's CPU seconds during each step (on a thread pool, other tasks' too)
    reduce_cpu_seconds: float = 0.0
    cluster_cpu_seconds: float = 0.0

    @property
    def n_clusters(self) -> int:
        """Clusters other than noise."""
        return int(np.unique(self.labels[self.labels >= 0]).size)


def _check_weights(weights: Any, n: int) -> np.ndarray | None:
    if weights is None:
        return None
    try:
        w = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError("weights must be numbers") from None
    if w.ndim != 1 or w.shape[0] != n:
        raise InputError(f"weights has shape {w.shape} but there are {n} embeddings")
    bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
    if bad.size:
        i = int(bad[0])
        raise InputError(f"weight of memory row {i} is {w[i]} (must be finite and >= 0)")
    return w


def cluster_embeddings(embeddings: Any, weights: Any, reduction: ReductionConfig,
                       clustering: ClusteringConfig) -> ClusteringResult:
    """Reduce ``embeddings`` (n, dim) as ``reduction`` says, then cluster as ``clustering`` says
    (a clusterer with ``embedding_space = True``, such as ``linkage``, clusters the embeddings
    themselves: no reducer runs and ``reduced`` is the embeddings).

    ``weights`` (importance, n values >= 0, or ``None``) go to the clusterer (GenKT uses them
    when ``clustering.genkt.use_weights``); the original embeddings go along for GenKT's cosine
    cut. Raises :class:`InputError` for an empty pool, NaN/inf rows ("embedding row 3 contains
    NaN") or bad weights, and :class:`ConfigError` for an unknown method or algorithm.
    """
    emb = check_matrix(embeddings, "embedding")
    w = _check_weights(weights, emb.shape[0])
    t0, c0 = time.perf_counter(), time.process_time()
    if getattr(make_clusterer(clustering), "embedding_space", False):
        reducer, reduced = None, np.asarray(emb, dtype=np.float64)  # it reads the embeddings
    else:
        reducer = reducer_from_config(reduction)
        reduced = np.asarray(reducer.fit_transform(emb), dtype=np.float64)
    t1, c1 = time.perf_counter(), time.process_time()
    labels, history = fit_labels_and_history(reduced, emb, w, clustering)
    t2, c2 = time.perf_counter(), time.process_time()
    return ClusteringResult(labels=np.asarray(labels, dtype=np.int64), reduced=reduced,
                            reduction_fallback=getattr(reducer, "fallback_", None),
                            reduce_seconds=t1 - t0, cluster_seconds=t2 - t1,
                            history=history, reduce_cpu_seconds=c1 - c0,
                            cluster_cpu_seconds=c2 - c1)
