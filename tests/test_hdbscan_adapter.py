"""HDBSCAN adapter: same labels as the library, small pools, parameters, sklearn conventions."""

from __future__ import annotations

import hdbscan
import numpy as np
import pytest
from sklearn.base import clone

from memmaint.clustering._estimators import InvalidParameter
from memmaint.clustering.density.hdbscan_adapter import HDBSCANClusterer, HDBSCANInputError
from memmaint.maintenance.core.config import HDBSCANConfig
from memmaint.maintenance.core.errors import InputError, UserError


@pytest.fixture(scope="module")
def three_blobs() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    centres = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]])
    truth = np.repeat(np.arange(3), 30)
    X = centres[truth] + rng.normal(size=(90, 2)) * 0.5
    X = np.vstack([X, [[30.0, 30.0], [-30.0, 25.0]]])  # two far outliers
    return X, np.concatenate([truth, [-1, -1]])


def test_finds_blobs_and_marks_outliers_as_noise(three_blobs):
    X, truth = three_blobs
    labels = HDBSCANClusterer(min_cluster_size=5).fit_predict(X)
    assert labels.dtype == np.int64 and labels.shape == (92,)
    assert labels[-1] == -1 and labels[-2] == -1
    # each true blob maps to one predicted cluster (allowing a few noise points)
    for k in range(3):
        got = labels[truth == k]
        values, counts = np.unique(got[got >= 0], return_counts=True)
        assert len(values) == 1 and counts[0] >= 27
    assert len(set(labels[labels >= 0])) == 3


@pytest.mark.parametrize("params", [
    {"min_cluster_size": 5},
    {"min_cluster_size": 8, "min_samples": 3},
    {"min_cluster_size": 5, "cluster_selection_method": "leaf"},
    {"min_cluster_size": 5, "cluster_selection_epsilon": 3.0},
])
def test_same_labels_as_the_library(three_blobs, params):
    X, _ = three_blobs
    ours = HDBSCANClusterer(**params).fit_predict(X)
    theirs = hdbscan.HDBSCAN(**params).fit_predict(X)
    np.testing.assert_array_equal(ours, theirs)


def test_parameters_change_the_result(three_blobs):
    X, _ = three_blobs
    eom = HDBSCANClusterer(min_cluster_size=5).fit_predict(X)
    big = HDBSCANClusterer(min_cluster_size=50).fit_predict(X)
    assert len(set(big[big >= 0])) < len(set(eom[eom >= 0]))


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_fewer_points_than_min_cluster_size_is_all_noise(n):
    X = np.random.default_rng(n).normal(size=(n, 2))
    model = HDBSCANClusterer(min_cluster_size=5)
    labels = model.fit_predict(X)
    np.testing.assert_array_equal(labels, np.full(n, -1))
    assert labels.dtype == np.int64


@pytest.mark.parametrize("n", [2, 3, 5])
def test_tiny_pools_reach_the_library_without_crashing(n):
    X = np.random.default_rng(n).normal(size=(n, 3))
    labels = HDBSCANClusterer(min_cluster_size=2, min_samples=10).fit_predict(X)
    assert labels.shape == (n,)
    assert labels.min() >= -1


def test_duplicates_and_weights_and_embeddings_are_accepted():
    X = np.vstack([np.zeros((10, 2)), np.ones((10, 2))])
    emb = np.random.default_rng(0).normal(size=(20, 8))
    labels = HDBSCANClusterer(min_cluster_size=5).fit_predict(
        X, embeddings=emb, sample_weight=np.arange(20.0))
    assert len(set(labels[:10])) == 1 and len(set(labels[10:])) == 1
    assert labels[0] != labels[10] and labels.min() >= 0


def test_sklearn_conventions(three_blobs):
    X, _ = three_blobs
    model = HDBSCANClusterer(min_cluster_size=7, min_samples=2)
    assert clone(model).get_params() == model.get_params()
    assert model.fit(X) is model
    assert model.labels_.shape == (92,) and model.probabilities_.shape == (92,)
    assert model.n_features_in_ == 2


@pytest.mark.parametrize("params, message", [
    ({"min_cluster_size": 1}, ("'min_cluster_size' parameter of HDBSCANClusterer must be an "
                              r"int in the range \[2, inf\)")),
    ({"min_samples": 0}, ("'min_samples' parameter of HDBSCANClusterer must be an int in the "
                         r"range \[1, inf\) or None")),
    ({"cluster_selection_epsilon": -1.0}, "'cluster_selection_epsilon' parameter"),
    ({"cluster_selection_epsilon": float("inf")}, "'cluster_selection_epsilon' parameter"),
    ({"cluster_selection_method": "best"}, "'cluster_selection_method' parameter"),
    ({"min_cluster_size": True}, "'min_cluster_size' parameter"),
])
def test_bad_parameters(params, message):
    with pytest.raises(InvalidParameter, match=message) as info:
        HDBSCANClusterer(**params).fit(np.zeros((10, 2)))
    assert isinstance(info.value, UserError) and isinstance(info.value, ValueError)
    assert "\n" not in str(info.value)


def test_defaults_are_the_config_defaults():
    c = HDBSCANConfig()
    model = HDBSCANClusterer()
    assert (model.min_cluster_size, model.min_samples, model.cluster_selection_epsilon,
            model.cluster_selection_method) == (c.min_cluster_size, c.min_samples,
                                                c.cluster_selection_epsilon,
                                                c.cluster_selection_method)


def test_bad_input():
    with pytest.raises(InputError, match="empty pool") as info:
        HDBSCANClusterer().fit_predict(np.zeros((0, 2)))
    assert isinstance(info.value, ValueError)
    X = np.zeros((10, 2))
    X[4, 0] = np.nan
    with pytest.raises(InputError, match="X row 4 contains NaN") as info:
        HDBSCANClusterer().fit_predict(X)
    assert isinstance(info.value, HDBSCANInputError) and isinstance(info.value, ValueError)
    with pytest.raises(ValueError, match="2D array"):
        HDBSCANClusterer().fit(np.zeros(10))


def test_read_only_input(three_blobs):
    X, _ = three_blobs
    ro = X.copy()
    ro.flags.writeable = False
    np.testing.assert_array_equal(HDBSCANClusterer().fit_predict(ro),
                                  HDBSCANClusterer().fit_predict(X))


def test_sample_weight_is_checked_but_not_used(three_blobs):
    X, _ = three_blobs
    plain = HDBSCANClusterer().fit_predict(X)
    w = np.random.default_rng(0).uniform(size=len(X))
    np.testing.assert_array_equal(HDBSCANClusterer().fit(X, sample_weight=w).labels_, plain)
    # importances passed to fit_predict (the Clusterer protocol): all zero is equal weights
    np.testing.assert_array_equal(
        HDBSCANClusterer().fit_predict(X, sample_weight=np.zeros(len(X))), plain)
    with pytest.raises(ValueError, match="zero"):
        HDBSCANClusterer().fit(X, sample_weight=np.zeros(len(X)))
    with pytest.raises(ValueError):
        HDBSCANClusterer().fit(X, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="[Nn]egative"):
        HDBSCANClusterer().fit(X, sample_weight=-w)
