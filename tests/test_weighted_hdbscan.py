"""Importance-weighted HDBSCAN (issue #35 item 6): core distances from weight mass."""

from __future__ import annotations

import hdbscan
import numpy as np
import pytest
from sklearn.neighbors import NearestNeighbors

from memmaint.clustering.density import weighted as weighted_mod
from memmaint.clustering.density.hdbscan_adapter import HDBSCANInputError
from memmaint.clustering.density.weighted import (
    WeightedHDBSCANClusterer,
    weighted_core_distances,
    weighted_mutual_reachability,
)
from memmaint.clustering.pipeline import cluster_embeddings, make_clusterer
from memmaint.maintenance.core.config import ClusteringConfig, ReductionConfig


def _blobs(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-10, 10, size=(5, 2))
    X = centres[np.repeat(np.arange(5), 40)] + rng.normal(size=(200, 2)) * 1.2
    return np.vstack([X, rng.uniform(-14, 14, size=(30, 2))])  # and scattered noise


def _same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    """The same noise and the same clusters, whatever their numbers."""
    if not np.array_equal(a < 0, b < 0):
        return False
    pairs = set(zip(a[a >= 0].tolist(), b[b >= 0].tolist()))
    return len(pairs) == len(set(a[a >= 0].tolist())) == len(set(b[b >= 0].tolist()))


@pytest.mark.parametrize("k", [1, 3, 5, 12])
def test_equal_weights_give_the_kth_neighbour_distance(k):
    X = np.random.default_rng(k).normal(size=(150, 3))
    d, _ = NearestNeighbors(n_neighbors=k + 1).fit(X).kneighbors(X)  # self first
    for include_self in (False, True):
        core = weighted_core_distances(X, np.full(150, 2.5), k, include_self=include_self)
        np.testing.assert_allclose(core, d[:, -1])
    np.testing.assert_allclose(weighted_core_distances(X, None, k), d[:, -1])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("params", [
    {"min_cluster_size": 5},
    {"min_cluster_size": 8, "min_samples": 3, "cluster_selection_method": "leaf"},
    {"min_cluster_size": 5, "min_samples": 10, "cluster_selection_epsilon": 0.5},
])
def test_equal_weights_reproduce_plain_hdbscan(seed, params):
    """Equal weights: plain HDBSCAN's clusters and noise, against the library's exact minimum
    spanning tree (its Boruvka variant breaks ties of mutual reachability its own way)."""
    X = _blobs(seed)
    theirs = hdbscan.HDBSCAN(algorithm="prims_kdtree", **params).fit_predict(X)
    for w in (None, np.full(len(X), 0.7)):
        ours = WeightedHDBSCANClusterer(**params).fit_predict(X, sample_weight=w)
        assert _same_partition(ours, theirs)
    assert _same_partition(
        WeightedHDBSCANClusterer(**params).fit_predict(X, sample_weight=np.zeros(len(X))),
        theirs)  # all-zero importances mean equal weights


def test_weight_mass_decides_density():
    """A field of light memories with a group of eight heavy ones: light memories need many
    neighbours to be dense, so fewer of the field are clustered than by count, and the heavy
    group stays one cluster."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.uniform(-10, 10, size=(200, 2)), rng.normal(size=(8, 2)) + 3.0])
    w = np.r_[np.full(200, 0.2), np.full(8, 20.0)]
    est = WeightedHDBSCANClusterer(min_cluster_size=5, min_samples=5)
    plain = est.fit_predict(X)
    heavy = est.fit_predict(X, sample_weight=w)
    assert est.core_distances_.shape == (208,)
    assert np.median(est.core_distances_[200:]) < np.median(est.core_distances_[:200])
    assert (heavy >= 0).sum() < 0.7 * (plain >= 0).sum()
    assert heavy[200] >= 0 and np.all(heavy[200:] == heavy[200])


def test_mutual_reachability_matrix():
    X = np.random.default_rng(1).normal(size=(40, 2))
    w = np.random.default_rng(2).pareto(1.5, 40)
    M, core = weighted_mutual_reachability(X, w, 4)
    d = np.linalg.norm(X[:, None] - X[None], axis=2)
    expected = np.maximum(np.maximum(d, core[:, None]), core[None, :])
    np.fill_diagonal(expected, 0.0)
    np.testing.assert_allclose(M, expected)
    # a memory holding most of the weight: the others' mass never reaches min_samples, so
    # its core distance is the farthest point
    w2 = np.r_[1000.0, np.ones(39)]
    core2 = weighted_core_distances(X, w2, 5)
    assert core2[0] == pytest.approx(d[0].max())


def test_too_large_a_pool_is_refused(monkeypatch):
    monkeypatch.setattr(weighted_mod, "WEIGHTED_MAX", 50)
    X = np.random.default_rng(0).normal(size=(60, 2))
    with pytest.raises(HDBSCANInputError, match=r"\[sharding\]"):
        WeightedHDBSCANClusterer().fit(X)


def test_registered_as_whdbscan_reading_the_hdbscan_section():
    cfg = ClusteringConfig(algorithm="whdbscan")
    est = make_clusterer(cfg)
    assert isinstance(est, WeightedHDBSCANClusterer)
    assert est.min_cluster_size == cfg.hdbscan.min_cluster_size
    emb = np.random.default_rng(0).normal(size=(60, 8)).astype(np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    res = cluster_embeddings(emb, np.random.default_rng(1).pareto(1.5, 60),
                             ReductionConfig(method="pca", n_components=2), cfg)
    assert res.labels.shape == (60,) and res.history is not None
