"""Dimensionality reducers: ``none``, ``pca``, ``tsne`` and ``umap``, all z-scored per axis.

Every reducer has the same shape: ``make_reducer(method, n_components, seed, **params)``
returns an object whose ``fit_transform(X)`` gives a float64 array ``(n, k)`` in which each axis
has mean 0 and standard deviation 1 (an axis without variance is all 0, never NaN).
``k`` is ``n_components``, except for ``none``, which keeps the input's dimensions.

The map is the same on every machine (:mod:`memmaint.clustering.reduce.grid`): identical
embeddings get identical coordinates, and coordinates are rounded to multiples of ``2**-20``
(about 1e-6 of an axis's standard deviation), so the BLAS kernel, the thread count and the CPU
move no plan.

Small pools never crash:

- ``n = 0`` and rows with NaN or inf raise :class:`~memmaint.maintenance.core.errors.InputError`;
- ``n_components`` larger than ``min(n, d)`` is clamped with a logged warning; the missing axes
  are returned as columns of zeros, so the shape is always ``(n, n_components)`` and distances
  are unchanged;
- UMAP's ``n_neighbors`` is clamped to ``n - 1`` and t-SNE's perplexity to ``(n - 1) / 3``;
  when even that is not enough (UMAP below ``max(4, k + 2)`` points, t-SNE below 4 points) the
  reducer falls back to PCA with a logged warning and records why in ``fallback_``.

Reducers are pluggable: :func:`register_reducer` adds a name to the registry that
:func:`make_reducer` reads.
"""

from __future__ import annotations

import dataclasses
import logging
import warnings
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np

from memmaint.clustering.reduce.grid import quantise, share_duplicates
from memmaint.maintenance.core.config import ReductionConfig
from memmaint.maintenance.core.errors import ConfigError, InputError, require
from memmaint.maintenance.core.registry import REDUCERS

__all__ = [
    "REDUCERS",
    "NoneReducer",
    "PCAReducer",
    "Reducer",
    "TSNEReducer",
    "UMAPReducer",
    "check_matrix",
    "make_reducer",
    "reduce",
    "reducer_from_config",
    "register_reducer",
    "standardise",
]

log = logging.getLogger(__name__)

# Reducer parameters that ReductionConfig declares take their defaults and allowed values
# from it (its field metadata), so the config loader and the reducers agree.
_DEFAULTS = ReductionConfig()
_FIELDS = {f.name: f for f in dataclasses.fields(ReductionConfig)}

# An axis whose standard deviation is below this fraction of the largest axis's is numerical
# noise (e.g. the second PCA axis of two points, ~1e-17): it is set to 0 rather than blown up.
_RELATIVE_ZERO_STD = 1e-8


@runtime_checkable
class Reducer(Protocol):
    """What every reducer offers.

    ``fallback_`` is set by ``fit_transform``: ``None``, or one line saying which method was
    used instead and why (e.g. too few points for UMAP).
    """

    fallback_: str | None

    def fit_transform(self, X: Any) -> np.ndarray:
        """Reduce ``X`` (n, d) to a z-scored float64 array (n, k)."""
        ...


# -- shared helpers ------------------------------------------------------------------------

def _row_list(rows: np.ndarray, limit: int = 5) -> str:
    shown = ", ".join(str(int(r)) for r in rows[:limit])
    more = f" and {len(rows) - limit} more" if len(rows) > limit else ""
    return shown + more


def check_matrix(X: Any, name: str = "input") -> np.ndarray:
    """``X`` as a C-contiguous float64 2-D array, or :class:`InputError` naming the problem.

    Empty input (no rows) is an error ("empty pool"), as are rows holding NaN or inf; the
    message names the first offending rows, e.g. ``embedding row 3 contains NaN``.
    """
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name} is not a numeric matrix: {exc}") from None
    if arr.ndim == 1 and arr.size == 0:
        arr = arr.reshape(0, 0)
    if arr.ndim != 2:
        raise InputError(f"{name} must be a 2-D array (n, d), got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise InputError(f"empty pool: {name} has no rows")
    if arr.shape[1] == 0:
        raise InputError(f"{name} has rows of length 0")
    if not np.isfinite(arr).all():
        nan_rows = np.flatnonzero(np.isnan(arr).any(axis=1))
        if nan_rows.size:
            word = "row" if nan_rows.size == 1 else "rows"
            verb = "contains" if nan_rows.size == 1 else "contain"
            raise InputError(f"{name} {word} {_row_list(nan_rows)} {verb} NaN")
        inf_rows = np.flatnonzero(np.isinf(arr).any(axis=1))
        word = "row" if inf_rows.size == 1 else "rows"
        verb = "contains" if inf_rows.size == 1 else "contain"
        raise InputError(f"{name} {word} {_row_list(inf_rows)} {verb} inf")
    return np.ascontiguousarray(arr)


def standardise(Y: np.ndarray) -> np.ndarray:
    """Z-score each column (population std); columns without variance become 0, never NaN.

    A column counts as without variance when its std is 0 or below ``1e-8`` times the largest
    column std (floating-point noise such as a rank-deficient PCA axis).
    """
    Y = np.array(Y, dtype=np.float64, copy=True)
    if Y.size == 0:
        return Y
    Y -= Y.mean(axis=0)
    std = Y.std(axis=0)
    top = float(std.max())
    dead = (std <= _RELATIVE_ZERO_STD * top) | (std == 0.0)
    Y[:, dead] = 0.0
    live = ~dead
    Y[:, live] /= std[live]
    return Y


def _finish(X: np.ndarray, Y: np.ndarray, k: int) -> np.ndarray:
    """The reducers' last step: identical inputs share the first one's coordinates, then
    z-score, round to :data:`~memmaint.clustering.reduce.grid.COORDINATE_GRID` and pad to
    ``k`` columns, so the map does not depend on the machine's BLAS kernel or threads."""
    return _pad(quantise(standardise(share_duplicates(X, Y))), k)


def _pad(Y: np.ndarray, k: int) -> np.ndarray:
    """Append zero columns so ``Y`` has ``k`` columns (axes the data cannot support)."""
    if Y.shape[1] >= k:
        return Y
    out = np.zeros((Y.shape[0], k), dtype=np.float64)
    out[:, : Y.shape[1]] = Y
    return out


def _clamp_components(method: str, k: int, n: int, d: int) -> int:
    cap = min(n, d)
    if k > cap:
        log.warning("%s: n_components=%d is more than min(n=%d, d=%d); using %d "
                    "(the other axes are 0)", method, k, n, d, cap)
        return cap
    return k


def _check_param(method: str, name: str, value: Any, field: str | None = None) -> None:
    """:class:`ConfigError` unless ``value`` is allowed for ``ReductionConfig.<field>``
    (``field`` defaults to ``name``): ``"umap: n_neighbors must be an integer >= 2, got 1"``."""
    meta = _FIELDS[field or name].metadata
    constraint, choices = meta.get("constraint"), meta.get("choices")
    if constraint is not None and value not in constraint:
        raise ConfigError(f"{method}: {name} must be {constraint.describe()}, got {value!r}")
    if choices and value not in choices:
        raise ConfigError(f"{method}: {name} {value!r} is not one of {', '.join(choices)}")


def _check_components(method: str, n_components: int) -> int:
    _check_param(method, "n_components", n_components)
    return int(n_components)


def _all_same(X: np.ndarray) -> bool:
    """True when every row equals the first (one point, or a pool of exact duplicates)."""
    return bool((X == X[0]).all())


def _pca(X: np.ndarray, k: int, seed: int | None) -> np.ndarray:
    """Unstandardised PCA scores with ``k <= min(n, d)``; identical rows map to the origin."""
    if _all_same(X):
        return np.zeros((X.shape[0], k))
    from sklearn.decomposition import PCA

    return PCA(n_components=k, random_state=seed).fit_transform(X)


def _fallback_to_pca(reducer: Any, X: np.ndarray, reason: str) -> np.ndarray:
    reducer.fallback_ = f"{reason}; used pca"
    log.warning("%s", reducer.fallback_)
    n, d = X.shape
    k = _clamp_components("pca", reducer.n_components, n, d)
    return _finish(X, _pca(X, k, reducer.seed), reducer.n_components)


# -- the reducers --------------------------------------------------------------------------

class NoneReducer:
    """Identity: keeps every input dimension, only z-scores them (``n_components`` unused)."""

    def __init__(self, n_components: int | None = None, seed: int | None = 0) -> None:
        self.n_components = n_components
        self.seed = seed
        self.fallback_: str | None = None

    def fit_transform(self, X: Any) -> np.ndarray:
        X = check_matrix(X)
        self.fallback_ = None
        return quantise(standardise(X))  # identical rows stay identical here


class PCAReducer:
    """Principal component analysis (scikit-learn), then z-scored per axis."""

    def __init__(self, n_components: int = _DEFAULTS.n_components,
                 seed: int | None = _DEFAULTS.seed) -> None:
        self.n_components = _check_components("pca", n_components)
        self.seed = seed
        self.fallback_: str | None = None

    def fit_transform(self, X: Any) -> np.ndarray:
        X = check_matrix(X)
        self.fallback_ = None
        n, d = X.shape
        k = _clamp_components("pca", self.n_components, n, d)
        return _finish(X, _pca(X, k, self.seed), self.n_components)


class TSNEReducer:
    """t-SNE (openTSNE), then z-scored per axis.

    ``gradient="fft"`` (FFT-accelerated interpolation, the default) supports 1 or 2
    components; 3 components use Barnes-Hut (``"bh"``), the only other method openTSNE has,
    and more than 3 are refused (BH beyond 3-D is unstable in openTSNE). Pass ``gradient="bh"``
    or ``"auto"`` (BH below 10,000 points) for small pools: FFT has a fixed cost of several
    seconds however few points there are. Perplexity is clamped to ``(n - 1) / 3``; below 4
    points the reducer falls back to PCA.
    """

    def __init__(self, n_components: int = _DEFAULTS.n_components,
                 seed: int | None = _DEFAULTS.seed, *,
                 perplexity: float = _DEFAULTS.perplexity, metric: str = "euclidean",
                 gradient: str = _DEFAULTS.tsne_gradient, n_iter: int = 500,
                 early_exaggeration_iter: int = 250, n_jobs: int = 1) -> None:
        self.n_components = _check_components("tsne", n_components)
        if self.n_components > 3:
            raise ConfigError(f"tsne: n_components={self.n_components} is not supported "
                              "(openTSNE embeds in 1, 2 or 3 dimensions)")
        _check_param("tsne", "gradient", gradient, "tsne_gradient")
        _check_param("tsne", "perplexity", perplexity)
        self.seed = seed
        self.perplexity = float(perplexity)
        self.metric = metric
        self.gradient = gradient
        self.n_iter = int(n_iter)
        self.early_exaggeration_iter = int(early_exaggeration_iter)
        self.n_jobs = n_jobs
        self.fallback_: str | None = None

    def fit_transform(self, X: Any) -> np.ndarray:
        X = check_matrix(X)
        self.fallback_ = None
        n, d = X.shape
        if _all_same(X):
            return np.zeros((n, self.n_components))
        if n < 4:
            return _fallback_to_pca(self, X, f"tsne needs at least 4 points (got {n})")
        k = _clamp_components("tsne", self.n_components, n, d)
        perplexity = self.perplexity
        if 3 * perplexity + 1 > n:
            perplexity = (n - 1) / 3
            log.warning("tsne: perplexity %g is too high for %d points; using %.3g",
                        self.perplexity, n, perplexity)
        gradient = self.gradient
        if k == 3 and gradient == "fft":
            gradient = "bh"
        openTSNE = require("openTSNE", "tsne")  # an extra: the default reducer is UMAP

        tsne = openTSNE.TSNE(
            n_components=k, perplexity=perplexity, metric=self.metric,
            negative_gradient_method=gradient, n_iter=self.n_iter,
            early_exaggeration_iter=self.early_exaggeration_iter,
            random_state=self.seed, n_jobs=self.n_jobs, verbose=False,
        )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            Y = np.asarray(tsne.fit(X), dtype=np.float64)
        for w in caught:
            log.debug("openTSNE: %s", w.message)
        if not np.isfinite(Y).all():
            return _fallback_to_pca(self, X, f"tsne gave non-finite coordinates on {n} points")
        return _finish(X, Y, self.n_components)


#: Pools from which UMAP's neighbour graph is approximate (umap-learn's own switch from exact
#: neighbours to NN-descent); memmaint then computes it with its cached kernels (``_knn``).
APPROXIMATE_KNN_FROM = 4096


class UMAPReducer:
    """UMAP (umap-learn), then z-scored per axis.

    ``metric`` is any umap-learn metric (cosine by default, the natural one for embeddings).
    With an integer ``seed`` the result is reproducible, which makes umap-learn run
    single-threaded; ``seed=None`` lets it use ``n_jobs`` threads. ``n_neighbors`` is clamped
    to ``n - 1``; pools smaller than ``max(4, n_components + 2)`` fall back to PCA (UMAP's
    spectral initialisation needs more points than components).

    From :data:`APPROXIMATE_KNN_FROM` points on, with the cosine metric, the approximate
    neighbour graph comes from :func:`memmaint.clustering.reduce._knn.cosine_knn` (the same
    method as pynndescent, compiled once per machine) instead of pynndescent (compiled in
    every process); below it umap-learn computes exact neighbours itself.
    """

    def __init__(self, n_components: int = _DEFAULTS.n_components,
                 seed: int | None = _DEFAULTS.seed, *,
                 n_neighbors: int = _DEFAULTS.n_neighbors, min_dist: float = _DEFAULTS.min_dist,
                 metric: str = _DEFAULTS.metric, n_jobs: int = 1, low_memory: bool = True,
                 n_epochs: int | None = None, init: str = "spectral") -> None:
        self.n_components = _check_components("umap", n_components)
        _check_param("umap", "n_neighbors", n_neighbors)
        _check_param("umap", "min_dist", min_dist)
        self.seed = seed
        self.n_neighbors = int(n_neighbors)
        self.min_dist = float(min_dist)
        self.metric = metric
        self.n_jobs = n_jobs
        self.low_memory = low_memory
        self.n_epochs = n_epochs
        self.init = init
        self.fallback_: str | None = None

    def fit_transform(self, X: Any) -> np.ndarray:
        X = check_matrix(X)
        self.fallback_ = None
        n, d = X.shape
        if _all_same(X):
            return np.zeros((n, self.n_components))
        k = min(self.n_components, n, d)
        need = max(4, k + 2)
        if n < need:
            return _fallback_to_pca(
                self, X, f"umap needs at least {need} points for a {k}-D layout (got {n})")
        k = _clamp_components("umap", self.n_components, n, d)
        n_neighbors = self.n_neighbors
        if n_neighbors >= n:
            n_neighbors = n - 1
            log.warning("umap: n_neighbors=%d is too many for %d points; using %d",
                        self.n_neighbors, n, n_neighbors)
        from memmaint.clustering.reduce._numba_cache import ensure_umap_cache

        compiling = ensure_umap_cache()  # compiled kernels kept on disk, once per machine
        import umap

        knn: Any = (None, None, None)
        if self.metric == "cosine" and n >= APPROXIMATE_KNN_FROM:
            # our cached NN-descent instead of pynndescent's, compiled in every process
            from memmaint.clustering.reduce._knn import cosine_knn

            idx, dists = cosine_knn(X, n_neighbors, self.seed or 0)
            knn = (idx, dists, None)
        model = umap.UMAP(
            n_components=k, n_neighbors=n_neighbors, min_dist=self.min_dist,
            metric=self.metric, random_state=self.seed, transform_seed=self.seed or 0,
            n_jobs=self.n_jobs if self.seed is None else 1, low_memory=self.low_memory,
            n_epochs=self.n_epochs, init=self.init, verbose=False, precomputed_knn=knn,
        )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            Y = np.asarray(model.fit_transform(X), dtype=np.float64)
        compiling.done()
        for w in caught:
            log.debug("umap-learn: %s", w.message)
        if not np.isfinite(Y).all():
            return _fallback_to_pca(self, X, f"umap gave non-finite coordinates on {n} points")
        return _finish(X, Y, self.n_components)


# -- registry ------------------------------------------------------------------------------

ReducerFactory = Callable[..., Reducer]

def register_reducer(name: str, factory: ReducerFactory) -> None:
    """Make ``make_reducer(name, n_components, seed, **params)`` build ``factory(...)`` and
    ``[reduction] method = name`` valid."""
    REDUCERS.register(name, factory)


def make_reducer(method: str, n_components: int = 2, seed: int | None = 0,
                 **params: Any) -> Reducer:
    """Build the reducer ``method`` (``none``, ``pca``, ``tsne``, ``umap`` or a registered one).

    ``params`` go to the reducer (``perplexity`` for t-SNE; ``n_neighbors``, ``min_dist``,
    ``metric`` for UMAP). An unknown method or parameter raises :class:`ConfigError`.
    """
    factory = REDUCERS.get(method)
    try:
        return factory(n_components=n_components, seed=seed, **params)
    except TypeError as exc:
        raise ConfigError(f"{method}: bad parameters {sorted(params)}: {exc}") from None


def reducer_from_config(config: ReductionConfig) -> Reducer:
    """The reducer a :class:`~memmaint.maintenance.core.config.ReductionConfig` describes."""
    params: dict[str, Any] = {}
    if config.method == "umap":
        params = {"n_neighbors": config.n_neighbors, "min_dist": config.min_dist,
                  "metric": config.metric}
    elif config.method == "tsne":
        params = {"perplexity": config.perplexity, "gradient": config.tsne_gradient}
    return make_reducer(config.method, n_components=config.n_components, seed=config.seed,
                        **params)


def reduce(X: Any, config: ReductionConfig) -> np.ndarray:
    """Reduce ``X`` as ``config`` says; float64 ``(n, k)``, z-scored per axis."""
    return reducer_from_config(config).fit_transform(X)
