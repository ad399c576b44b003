"""HDBSCAN through the ``hdbscan`` library, as a scikit-learn style clusterer.

The ``hdbscan`` package is used rather than :class:`sklearn.cluster.HDBSCAN` because it is much
faster on low-dimensional data (measured for issue 3: 100k 2-D points in about 2 s against
40 s). Noise is label ``-1``. Importance weights and embeddings are accepted, so the adapter
fits the :class:`~memmaint.clustering.pipeline.Clusterer` protocol, but HDBSCAN uses neither.
"""

from __future__ import annotations

import logging
from numbers import Integral
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin

from memmaint.clustering._estimators import (
    importance_weights,
    parameter_constraints,
    validate_params,
)
from memmaint.clustering.reduce.reducers import check_matrix
from memmaint.clustering.scale import pool_scale
from memmaint.maintenance.core.config import HDBSCANConfig
from memmaint.maintenance.core.errors import InputError

if TYPE_CHECKING:
    from memmaint.clustering.history import MergeHistory

__all__ = ["HDBSCANClusterer", "HDBSCANInputError"]

log = logging.getLogger(__name__)

# the parameters HDBSCANConfig declares: defaults and constraints come from there
_DEFAULTS = HDBSCANConfig()


class HDBSCANInputError(InputError, ValueError):
    """``X`` or ``sample_weight`` is malformed (also a ``ValueError`` for scikit-learn)."""


class HDBSCANClusterer(ClusterMixin, BaseEstimator):
    """Density clustering with HDBSCAN; ``labels_`` holds int64 labels, noise is ``-1``;
    ``history_`` the single-linkage tree as a :class:`~memmaint.clustering.history.MergeHistory`.

    Parameters mirror ``hdbscan.HDBSCAN``: ``min_cluster_size`` (>= 2), ``min_samples``
    (``None`` means ``min_cluster_size``), ``cluster_selection_epsilon`` (>= 0 and finite),
    ``cluster_selection_method`` (``"eom"`` or ``"leaf"``), ``allow_single_cluster`` and
    ``core_dist_n_jobs``. The first four, their defaults and constraints are those of
    :class:`~memmaint.maintenance.core.config.HDBSCANConfig`; a bad value raises
    :class:`~memmaint.clustering._estimators.InvalidParameter` (a ``UserError`` and a
    ``ValueError``). Pools with fewer points than ``min_cluster_size`` (including a single
    point) are all noise; ``min_samples`` above ``n - 1`` is clamped to ``n - 1``.

    ``epsilon_mode="relative"`` replaces ``cluster_selection_epsilon`` by ``epsilon_rel`` times
    the pool's scale (:func:`~memmaint.clustering.scale.pool_scale` at ``scale_quantile``,
    the median nearest-neighbour distance by default), so the same value means the same on
    dense and sparse pools and on any scaling of the coordinates; ``epsilon_`` holds the
    epsilon used.
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **parameter_constraints(HDBSCANConfig),
        "allow_single_cluster": ["boolean"],
        "core_dist_n_jobs": [Integral],
    }

    def __init__(self, min_cluster_size: int = _DEFAULTS.min_cluster_size,
                 min_samples: int | None = _DEFAULTS.min_samples,
                 cluster_selection_epsilon: float = _DEFAULTS.cluster_selection_epsilon,
                 cluster_selection_method: str = _DEFAULTS.cluster_selection_method,
                 allow_single_cluster: bool = False, core_dist_n_jobs: int = 1,
                 epsilon_mode: str = _DEFAULTS.epsilon_mode,
                 epsilon_rel: float = _DEFAULTS.epsilon_rel,
                 scale_quantile: float = _DEFAULTS.scale_quantile) -> None:
        self.min_cluster_size = min_cluster_size
        self.min_samples = min_samples
        self.cluster_selection_epsilon = cluster_selection_epsilon
        self.cluster_selection_method = cluster_selection_method
        self.allow_single_cluster = allow_single_cluster
        self.core_dist_n_jobs = core_dist_n_jobs
        self.epsilon_mode = epsilon_mode
        self.epsilon_rel = epsilon_rel
        self.scale_quantile = scale_quantile

    def _validate_input(self, X: Any, sample_weight: Any) -> np.ndarray:
        from sklearn.utils.validation import _check_sample_weight, validate_data

        # sklearn's checks and messages for sparse, complex, object, 1-D and featureless
        # input; then memmaint's for empty pools and NaN/inf rows (naming the rows)
        X = validate_data(self, X, dtype=np.float64, ensure_all_finite=False,
                          ensure_min_samples=0)
        try:
            X = check_matrix(X, "X")
        except InputError as exc:
            raise HDBSCANInputError(str(exc)) from None
        if sample_weight is not None:  # HDBSCAN does not use weights, but they must fit X
            _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        return np.require(X, requirements=["C", "W"])  # hdbscan writes into its input

    def _selection_epsilon(self, X: np.ndarray) -> float:
        """``cluster_selection_epsilon``, or in relative mode ``epsilon_rel`` times the
        pool's own scale; kept as ``epsilon_``."""
        epsilon = float(self.cluster_selection_epsilon)
        if self.epsilon_mode == "relative":
            epsilon = float(self.epsilon_rel) * pool_scale(X, float(self.scale_quantile)) \
                if X.shape[0] >= 2 and self.epsilon_rel > 0 else 0.0
        self.epsilon_ = epsilon
        return epsilon

    def _all_noise(self, n: int, name: str) -> bool:
        """Whether ``n`` points are too few for one cluster (then every label is noise)."""
        if n >= self.min_cluster_size:
            return False
        log.info("%s: %d points is fewer than min_cluster_size=%d; all noise",
                 name, n, self.min_cluster_size)
        self.labels_ = np.full(n, -1, dtype=np.int64)
        self.probabilities_ = np.zeros(n)
        self.history_: MergeHistory | None = None
        return True

    def fit(self, X: Any, y: Any = None, sample_weight: Any = None,
            embeddings: Any = None) -> HDBSCANClusterer:
        """Cluster ``X`` (n, d). ``sample_weight`` is validated (shape, finite, >= 0, not all
        zero) but HDBSCAN does not use it; ``y`` and ``embeddings`` are ignored."""
        validate_params(self)
        X = self._validate_input(X, sample_weight)
        n = X.shape[0]
        epsilon = self._selection_epsilon(X)
        if self._all_noise(n, "hdbscan"):
            return self
        import hdbscan

        min_samples = self.min_samples
        if min_samples is not None and min_samples > n - 1:
            min_samples = n - 1
        model = hdbscan.HDBSCAN(
            min_cluster_size=int(self.min_cluster_size),
            min_samples=None if min_samples is None else int(min_samples),
            cluster_selection_epsilon=epsilon,
            cluster_selection_method=self.cluster_selection_method,
            allow_single_cluster=bool(self.allow_single_cluster),
            core_dist_n_jobs=int(self.core_dist_n_jobs),
        )
        model.fit(X)
        from memmaint.clustering.history import MergeHistory

        # the single-linkage tree HDBSCAN condenses: every merge, in mutual reachability
        self.history_ = MergeHistory.from_linkage(model.single_linkage_tree_.to_numpy(),
                                                  "mutual reachability")
        self.labels_ = np.asarray(model.labels_, dtype=np.int64)
        self.probabilities_ = np.asarray(model.probabilities_, dtype=np.float64)
        return self

    def fit_predict(self, X: Any, y: Any = None, *, embeddings: Any = None,
                    sample_weight: Any = None) -> np.ndarray:
        """Cluster ``X`` and return int64 labels (noise ``-1``).

        This is the :class:`~memmaint.clustering.pipeline.Clusterer` entry point, whose
        ``sample_weight`` are memory importances: all zero means no memory matters more than
        another, i.e. equal weights, so they are passed to :meth:`fit` as ``None``.
        """
        return self.fit(X, y, sample_weight=importance_weights(sample_weight),
                        embeddings=embeddings).labels_

