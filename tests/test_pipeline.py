"""cluster_embeddings: validate, reduce, cluster; the clusterer registry and the GenKT wrapper."""

from __future__ import annotations

import numpy as np
import pytest

from memmaint.clustering.density.hdbscan_adapter import HDBSCANClusterer
from memmaint.clustering.genkt.estimator import GenKT
from memmaint.clustering.metrics import bcubed
from memmaint.clustering.pipeline import (
    CLUSTERERS,
    Clusterer,
    ClusteringResult,
    GenKTClusterer,
    cluster_embeddings,
    genkt_from_config,
    make_clusterer,
    register_clusterer,
)
from memmaint.maintenance.core.config import (
    ClusteringConfig,
    GenKTConfig,
    HDBSCANConfig,
    ReductionConfig,
)
from memmaint.maintenance.core.errors import ConfigError, InputError

PCA2 = ReductionConfig(method="pca", n_components=2)
HDB = ClusteringConfig(algorithm="hdbscan", hdbscan=HDBSCANConfig(min_cluster_size=5))


@pytest.fixture(scope="module")
def pool() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Four topics of 25 unit embeddings in 32-D, with importance weights."""
    rng = np.random.default_rng(11)
    centres = rng.normal(size=(4, 32))
    truth = np.repeat(np.arange(4), 25)
    emb = centres[truth] + rng.normal(size=(100, 32)) * 0.15
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    weights = rng.uniform(0.5, 5.0, 100)
    return emb, weights, truth


def test_hdbscan_pipeline_recovers_topics(pool):
    emb, weights, truth = pool
    result = cluster_embeddings(emb, weights, PCA2, HDB)
    assert isinstance(result, ClusteringResult)
    assert result.labels.dtype == np.int64 and result.labels.shape == (100,)
    assert result.reduced.shape == (100, 2)
    np.testing.assert_allclose(result.reduced.std(axis=0), 1.0)
    assert result.reduction_fallback is None
    assert result.n_clusters == 4
    score = bcubed(truth, result.labels)
    assert score.precision > 0.95 and score.recall > 0.9


def test_pipeline_equals_reduce_then_cluster(pool):
    from memmaint.clustering.reduce.reducers import reduce

    emb, weights, _ = pool
    result = cluster_embeddings(emb, weights, PCA2, HDB)
    reduced = reduce(emb, PCA2)
    np.testing.assert_array_equal(result.reduced, reduced)
    np.testing.assert_array_equal(result.labels,
                                  HDBSCANClusterer(min_cluster_size=5).fit_predict(reduced))


def test_default_umap_reduction(pool):
    emb, _, truth = pool
    reduction = ReductionConfig(n_neighbors=10)  # umap, cosine, 2-D, seed 0
    a = cluster_embeddings(emb, None, reduction, HDB)
    b = cluster_embeddings(emb, None, reduction, HDB)
    np.testing.assert_array_equal(a.labels, b.labels)
    np.testing.assert_array_equal(a.reduced, b.reduced)
    assert bcubed(truth, a.labels).f1 > 0.9


@pytest.mark.parametrize("n", [1, 2, 3])
def test_tiny_pool_goes_through_with_fallback(n, pool):
    emb = pool[0][:n]
    result = cluster_embeddings(emb, np.ones(n), ReductionConfig(method="umap"), HDB)
    np.testing.assert_array_equal(result.labels, np.full(n, -1))
    assert result.reduced.shape == (n, 2)
    if n > 1:
        assert result.reduction_fallback is not None
        assert "umap needs at least" in result.reduction_fallback


def test_nan_embedding_is_named(pool):
    emb = pool[0].copy()
    emb[7, 3] = np.nan
    with pytest.raises(InputError, match="embedding row 7 contains NaN"):
        cluster_embeddings(emb, None, PCA2, HDB)


def test_empty_pool():
    with pytest.raises(InputError, match="empty pool"):
        cluster_embeddings(np.zeros((0, 8)), None, PCA2, HDB)


@pytest.mark.parametrize("weights, message", [
    ([1.0, 2.0], "weights has shape"),
    (np.r_[np.ones(99), -1.0], "weight of memory row 99 is -1.0"),
    (np.r_[np.nan, np.ones(99)], "weight of memory row 0 is nan"),
])
def test_bad_weights(pool, weights, message):
    with pytest.raises(InputError, match=message):
        cluster_embeddings(pool[0], weights, PCA2, HDB)


def test_make_clusterer_from_config():
    cfg = ClusteringConfig(algorithm="hdbscan",
                           hdbscan=HDBSCANConfig(min_cluster_size=9, min_samples=2,
                                                 cluster_selection_epsilon=0.5,
                                                 cluster_selection_method="leaf"))
    c = make_clusterer(cfg)
    assert isinstance(c, HDBSCANClusterer) and isinstance(c, Clusterer)
    assert (c.min_cluster_size, c.min_samples, c.cluster_selection_epsilon,
            c.cluster_selection_method) == (9, 2, 0.5, "leaf")
    g = make_clusterer(ClusteringConfig(algorithm="genkt", genkt=GenKTConfig(
        p=-1.69, R=0.8, cos_cut=0.3, recombination="wta", use_weights=False)))
    assert isinstance(g, GenKTClusterer) and isinstance(g, Clusterer)
    assert (g.p, g.R, g.cos_cut, g.recombination, g.use_weights) == \
        (-1.69, 0.8, 0.3, "wta", False)


def test_unknown_algorithm_and_registry(pool):
    class Everything:
        def __init__(self, config):
            self.config = config

        def fit_predict(self, X, *, embeddings=None, sample_weight=None):
            return np.zeros(len(X), dtype=np.int64)

    with pytest.raises(ConfigError, match="unknown clustering algorithm 'blob'"):
        make_clusterer(ClusteringConfig(algorithm="blob"))
    register_clusterer("blob", Everything)
    try:
        result = cluster_embeddings(pool[0], None, PCA2, ClusteringConfig(algorithm="blob"))
        assert result.n_clusters == 1
    finally:
        CLUSTERERS.unregister("blob")


# -- GenKT --------------------------------------------------------------------------------

GENKT = ClusteringConfig(algorithm="genkt", genkt=GenKTConfig(p=-1.0, R=1.0, cos_cut=0.5))


def test_genkt_pipeline_recovers_topics(pool):
    emb, weights, truth = pool
    result = cluster_embeddings(emb, weights, PCA2, GENKT)
    assert result.labels.dtype == np.int64 and result.labels.min() >= 0
    score = bcubed(truth, result.labels, weights=weights)
    assert score.precision > 0.9 and score.recall > 0.9


def test_genkt_wrapper_passes_weights_and_embeddings(pool):
    emb, weights, _ = pool
    reduced = cluster_embeddings(emb, weights, PCA2, HDB).reduced
    c = GENKT.genkt
    ref = GenKT(p=c.p, R=c.R, cos_cut=c.cos_cut, recombination=c.recombination)
    want = ref.fit(reduced, sample_weight=weights, embeddings=emb).labels_
    got = cluster_embeddings(emb, weights, PCA2, GENKT).labels
    np.testing.assert_array_equal(got, want)
    # use_weights=False: the weights never reach GenKT
    unweighted = ClusteringConfig(algorithm="genkt", genkt=GenKTConfig(
        p=-1.0, R=1.0, cos_cut=0.5, use_weights=False))
    want_u = GenKT(p=c.p, R=c.R, cos_cut=c.cos_cut, recombination=c.recombination).fit(
        reduced, sample_weight=None, embeddings=emb).labels_
    np.testing.assert_array_equal(cluster_embeddings(emb, weights, PCA2, unweighted).labels,
                                  want_u)


def test_genkt_single_memory(pool):
    result = cluster_embeddings(pool[0][:1], [1.0], PCA2, GENKT)
    np.testing.assert_array_equal(result.labels, [0])


def test_genkt_all_zero_weights_mean_equal_weights(pool):
    emb = pool[0][:30]
    zero = cluster_embeddings(emb, np.zeros(30), PCA2, GENKT).labels
    none = cluster_embeddings(emb, None, PCA2, GENKT).labels
    np.testing.assert_array_equal(zero, none)


def test_genkt_wrapper_takes_its_defaults_from_the_config():
    c, g = GenKTConfig(), GenKTClusterer()
    assert (g.p, g.R, g.cos_cut, g.recombination, g.use_weights) == \
        (c.p, c.R, c.cos_cut, c.recombination, c.use_weights) == (-1.0, 1.2, 0.26, "weighted", True)
    assert genkt_from_config(ClusteringConfig(algorithm="genkt")).get_params() == g.get_params()


def test_genkt_wrapper_is_the_estimator_with_use_weights(pool):
    emb, weights, _ = pool
    X = emb[:40, :3]
    g = GenKTClusterer(p=0.0, R=0.5, cos_cut=0.3).fit(X, sample_weight=weights[:40],
                                                       embeddings=emb[:40])
    ref = GenKT(p=0.0, R=0.5, cos_cut=0.3).fit(X, sample_weight=weights[:40], embeddings=emb[:40])
    np.testing.assert_array_equal(g.labels_, ref.labels_)
    assert g.n_clusters_ == ref.n_clusters_ and g.n_features_in_ == 3
    off = GenKTClusterer(p=-1.0, R=0.5, use_weights=False).fit_predict(
        X, sample_weight=weights[:40])
    np.testing.assert_array_equal(off, GenKT(p=-1.0, R=0.5).fit_predict(X))
