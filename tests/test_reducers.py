"""Reducers: shape, dtype, z-scoring, determinism, small pools, fallbacks and bad input."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from memmaint.clustering.reduce.grid import COORDINATE_GRID
from memmaint.clustering.reduce.reducers import (
    REDUCERS,
    Reducer,
    make_reducer,
    reduce,
    reducer_from_config,
    register_reducer,
    standardise,
)
from memmaint.maintenance.core.config import ReductionConfig
from memmaint.maintenance.core.errors import ConfigError, InputError

# Fast settings for the slow methods: t-SNE with Barnes-Hut and few iterations.
FAST = {
    "none": {},
    "pca": {},
    "umap": {"n_neighbors": 10},
    "tsne": {"gradient": "bh", "perplexity": 10.0, "n_iter": 100,
             "early_exaggeration_iter": 50},
}
METHODS = list(FAST)


@pytest.fixture(scope="module")
def blobs() -> tuple[np.ndarray, np.ndarray]:
    """Three well-separated groups of unit vectors in 24-D (60 points)."""
    rng = np.random.default_rng(7)
    centres = rng.normal(size=(3, 24)) * 4
    labels = np.repeat(np.arange(3), 20)
    X = centres[labels] + rng.normal(size=(60, 24)) * 0.3
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, labels


def assert_zscored(Y: np.ndarray) -> None:
    assert Y.dtype == np.float64
    assert np.isfinite(Y).all()
    # z-scored, then rounded to the grid: exact up to the grid's spacing
    np.testing.assert_allclose(Y.mean(axis=0), 0.0, atol=COORDINATE_GRID)
    std = Y.std(axis=0)
    assert np.all(np.isclose(std, 1.0) | np.isclose(std, 0.0))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("k", [1, 2, 3])
def test_shape_dtype_zscore(blobs, method, k):
    X, _ = blobs
    reducer = make_reducer(method, n_components=k, seed=0, **FAST[method])
    assert isinstance(reducer, Reducer)
    Y = reducer.fit_transform(X)
    assert Y.shape == (60, 24 if method == "none" else k)
    assert_zscored(Y)
    np.testing.assert_allclose(Y.std(axis=0), 1.0, atol=COORDINATE_GRID)
    assert reducer.fallback_ is None


@pytest.mark.parametrize("method", METHODS)
def test_same_seed_same_output(blobs, method):
    X, _ = blobs
    a = make_reducer(method, 2, seed=3, **FAST[method]).fit_transform(X)
    b = make_reducer(method, 2, seed=3, **FAST[method]).fit_transform(X)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("method", ["umap", "tsne"])
def test_different_seed_different_layout(blobs, method):
    X, _ = blobs
    a = make_reducer(method, 2, seed=1, **FAST[method]).fit_transform(X)
    b = make_reducer(method, 2, seed=2, **FAST[method]).fit_transform(X)
    assert not np.allclose(a, b)


@pytest.mark.parametrize("method", ["pca", "umap", "tsne"])
def test_groups_stay_apart(blobs, method):
    # every point's nearest neighbour in the reduced space is in its own group
    X, labels = blobs
    Y = make_reducer(method, 2, seed=0, **FAST[method]).fit_transform(X)
    d = np.linalg.norm(Y[:, None] - Y[None], axis=2)
    np.fill_diagonal(d, np.inf)
    assert (labels[d.argmin(axis=1)] == labels).mean() > 0.95


def test_standardise_zero_variance_axis_is_zero_not_nan():
    Y = np.array([[1.0, 5.0, 0.0], [3.0, 5.0, 1e-20], [5.0, 5.0, 0.0]])
    Z = standardise(Y)
    np.testing.assert_allclose(Z[:, 0], [-1.2247448713915890, 0.0, 1.2247448713915890])
    np.testing.assert_array_equal(Z[:, 1], 0.0)
    # 1e-20 against an axis of std 1.6: floating-point noise, not a direction
    np.testing.assert_array_equal(Z[:, 2], 0.0)


def test_pca_matches_sklearn_up_to_scale(blobs):
    from sklearn.decomposition import PCA

    X, _ = blobs
    ref = PCA(n_components=2, random_state=0).fit_transform(X)
    Y = make_reducer("pca", 2).fit_transform(X)
    np.testing.assert_allclose(Y, ref / ref.std(axis=0), atol=COORDINATE_GRID / 2 + 1e-9)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_tiny_pools_never_crash(method, n, k, caplog):
    X = np.random.default_rng(n).normal(size=(n, 6))
    reducer = make_reducer(method, k, seed=0, **FAST[method])
    with caplog.at_level(logging.WARNING, logger="memmaint"):
        Y = reducer.fit_transform(X)
    assert Y.shape == (n, 6 if method == "none" else k)
    assert_zscored(Y)
    if n == 1:  # one point: the origin, exactly, whatever the method
        np.testing.assert_array_equal(Y, 0.0)
        assert reducer.fallback_ is None
    elif method in ("umap", "tsne"):
        assert reducer.fallback_ is not None and "used pca" in reducer.fallback_
        assert reducer.fallback_ in caplog.text
    else:
        assert reducer.fallback_ is None


def test_umap_small_pool_clamps_neighbours_without_fallback(caplog):
    X = np.random.default_rng(0).normal(size=(8, 6))
    reducer = make_reducer("umap", 2, seed=0, n_neighbors=15)
    with caplog.at_level(logging.WARNING, logger="memmaint"):
        Y = reducer.fit_transform(X)
    assert reducer.fallback_ is None
    assert "n_neighbors=15 is too many for 8 points; using 7" in caplog.text
    assert_zscored(Y)


def test_umap_falls_back_when_too_few_points_for_components(caplog):
    X = np.random.default_rng(0).normal(size=(4, 6))
    reducer = make_reducer("umap", 3, seed=0)
    with caplog.at_level(logging.WARNING, logger="memmaint"):
        Y = reducer.fit_transform(X)
    assert reducer.fallback_ == "umap needs at least 5 points for a 3-D layout (got 4); used pca"
    assert Y.shape == (4, 3)


def test_tsne_clamps_perplexity(caplog):
    X = np.random.default_rng(0).normal(size=(10, 6))
    reducer = make_reducer("tsne", 2, seed=0, **{**FAST["tsne"], "perplexity": 30.0})
    with caplog.at_level(logging.WARNING, logger="memmaint"):
        Y = reducer.fit_transform(X)
    assert "perplexity 30 is too high for 10 points; using 3" in caplog.text
    assert reducer.fallback_ is None
    assert_zscored(Y)


def test_tsne_fft_gradient_default(blobs):
    # the default gradient is FFT interpolation (fixed cost of a few seconds: few iterations)
    X, _ = blobs
    reducer = make_reducer("tsne", 2, seed=0, perplexity=10.0, n_iter=50,
                           early_exaggeration_iter=50)
    assert reducer.gradient == "fft"
    Y = reducer.fit_transform(X)
    assert_zscored(Y)
    np.testing.assert_allclose(Y.std(axis=0), 1.0, atol=COORDINATE_GRID)


@pytest.mark.parametrize("method", METHODS)
def test_identical_rows_map_to_origin(method):
    X = np.tile(np.arange(6.0), (12, 1))
    Y = make_reducer(method, 2, seed=0, **FAST[method]).fit_transform(X)
    assert np.isfinite(Y).all()
    np.testing.assert_array_equal(Y, 0.0)


@pytest.mark.parametrize("method", ["pca", "umap", "tsne"])
def test_components_beyond_data_rank_are_zero_columns(method, caplog):
    X = np.random.default_rng(0).normal(size=(40, 2))  # d = 2 < k = 3
    with caplog.at_level(logging.WARNING, logger="memmaint"):
        Y = make_reducer(method, 3, seed=0, **FAST[method]).fit_transform(X)
    assert Y.shape == (40, 3)
    np.testing.assert_array_equal(Y[:, 2], 0.0)
    np.testing.assert_allclose(Y[:, :2].std(axis=0), 1.0, atol=COORDINATE_GRID)
    assert "n_components=3 is more than min(n=40, d=2)" in caplog.text


@pytest.mark.parametrize("method", METHODS)
def test_empty_pool(method):
    with pytest.raises(InputError, match="empty pool"):
        make_reducer(method, 2).fit_transform(np.zeros((0, 5)))


@pytest.mark.parametrize("bad, message", [
    (np.nan, "input row 3 contains NaN"),
    (np.inf, "input row 3 contains inf"),
])
def test_non_finite_rows_are_named(bad, message):
    X = np.ones((5, 4))
    X[3, 1] = bad
    with pytest.raises(InputError, match=message):
        make_reducer("pca", 2).fit_transform(X)


def test_many_bad_rows_are_listed():
    X = np.ones((20, 3))
    X[[2, 4, 6, 8, 10, 12, 14], 0] = np.nan
    with pytest.raises(InputError, match=r"input rows 2, 4, 6, 8, 10 and 2 more contain NaN"):
        make_reducer("none").fit_transform(X)


def test_not_a_matrix():
    with pytest.raises(InputError, match="2-D"):
        make_reducer("pca").fit_transform(np.ones(5))


@pytest.mark.parametrize("call, message", [
    (lambda: make_reducer("lda"), "unknown reduction method 'lda'"),
    (lambda: make_reducer("pca", 0), "pca: n_components must be an integer >= 1, got 0"),
    (lambda: make_reducer("pca", 2.0), "n_components must be an integer"),
    (lambda: make_reducer("tsne", 4), "n_components=4 is not supported"),
    (lambda: make_reducer("tsne", 2, gradient="exact"), "gradient 'exact'"),
    (lambda: make_reducer("umap", 2, n_neighbors=1), "n_neighbors must be an integer >= 2"),
    (lambda: make_reducer("umap", 2, min_dist=1.5), "umap: min_dist must be >= 0 and <= 1"),
    (lambda: make_reducer("tsne", 2, perplexity=0.5), "tsne: perplexity must be >= 1 and finite"),
    (lambda: make_reducer("pca", 2, perplexity=5), "pca: bad parameters"),
])
def test_config_errors(call, message):
    with pytest.raises(ConfigError, match=message):
        call()


def test_registry_accepts_new_reducer(blobs):
    class FirstAxes:
        def __init__(self, n_components=2, seed=0):
            self.n_components = n_components
            self.fallback_ = None

        def fit_transform(self, X):
            return standardise(np.asarray(X, dtype=float)[:, : self.n_components])

    register_reducer("first-axes", FirstAxes)
    try:
        Y = make_reducer("first-axes", 2).fit_transform(blobs[0])
        assert Y.shape == (60, 2)
    finally:
        REDUCERS.unregister("first-axes")


def test_reduce_from_config_passes_method_parameters(blobs):
    X, _ = blobs
    cfg = ReductionConfig(method="umap", n_components=2, seed=5, n_neighbors=7, min_dist=0.3,
                          metric="euclidean")
    reducer = reducer_from_config(cfg)
    assert (reducer.n_neighbors, reducer.min_dist, reducer.metric, reducer.seed) == \
        (7, 0.3, "euclidean", 5)
    assert reducer_from_config(ReductionConfig(method="tsne", perplexity=12.0)).perplexity == 12
    Y = reduce(X, ReductionConfig(method="pca", n_components=3))
    assert Y.shape == (60, 3)
    assert_zscored(Y)


def test_reducer_defaults_are_the_config_defaults():
    from memmaint.clustering.reduce.reducers import TSNEReducer, UMAPReducer

    c = ReductionConfig()
    u, t = UMAPReducer(), TSNEReducer()
    assert (u.n_components, u.seed, u.n_neighbors, u.min_dist, u.metric) == \
        (c.n_components, c.seed, c.n_neighbors, c.min_dist, c.metric)
    assert (t.n_components, t.perplexity, t.gradient) == \
        (c.n_components, c.perplexity, c.tsne_gradient)


def _clustered_unit(n: int, dim: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((max(2, n // 20), dim))
    x = centers[rng.integers(len(centers), size=n)] + 0.6 * rng.standard_normal((n, dim))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


@pytest.mark.parametrize("seed", [0, 1])
def test_cached_nn_descent_finds_the_nearest_neighbours(seed):
    """The cached NN-descent against the exact neighbours (the slow, obvious reference)."""
    from memmaint.clustering.reduce._knn import cosine_knn

    x = _clustered_unit(3000, 48, seed)
    idx, dist = cosine_knn(x, 15, seed)
    assert idx.shape == dist.shape == (3000, 15)
    assert np.array_equal(idx[:, 0], np.arange(3000)) and np.all(dist[:, 0] == 0)
    assert np.all(np.diff(dist, axis=1) >= 0)  # sorted
    rows = np.arange(3000)[:, None]
    np.testing.assert_allclose(dist[:, 1:], 1 - np.sum(x[rows] * x[idx[:, 1:]], axis=2),
                               atol=1e-5)
    exact = np.argsort(-(x @ x.T), axis=1, kind="stable")[:, :15]
    recall = np.mean([len(set(exact[i]) & set(idx[i])) / 15 for i in range(3000)])
    assert recall >= 0.97
    again = cosine_knn(x, 15, seed)
    assert np.array_equal(again[0], idx) and np.array_equal(again[1], dist)


def test_umap_takes_the_cached_neighbour_graph_on_large_pools(monkeypatch):
    from memmaint.clustering.reduce import _knn, reducers

    calls = []
    real = _knn.cosine_knn

    def spy(x, k, seed=0):
        calls.append((len(x), k, seed))
        return real(x, k, seed)

    monkeypatch.setattr(_knn, "cosine_knn", spy)
    x = _clustered_unit(600, 32, 0)
    monkeypatch.setattr(reducers, "APPROXIMATE_KNN_FROM", 500)
    y = make_reducer("umap", 2, seed=0).fit_transform(x)
    assert calls == [(600, 15, 0)] and y.shape == (600, 2) and np.isfinite(y).all()
    monkeypatch.setattr(reducers, "APPROXIMATE_KNN_FROM", 10_000)
    make_reducer("umap", 2, seed=0).fit_transform(x)
    assert len(calls) == 1  # below the switch, umap-learn's exact neighbours
