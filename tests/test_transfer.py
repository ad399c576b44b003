"""Issue #20: parameters that mean the same on every pool, the one-off guard, transfer tuning."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memmaint.clustering.density.hdbscan_adapter import HDBSCANClusterer
from memmaint.clustering.pipeline import (
    GenKTClusterer,
    fit_labels,
    guard_singletons,
    make_clusterer,
)
from memmaint.clustering.scale import best_cosines, lone_rows, nn_distances, pool_scale
from memmaint.maintenance.core.config import (
    ClusteringConfig,
    ConfigError,
    GenKTConfig,
    HDBSCANConfig,
    config_from_dict,
)
from memmaint.optimize.transfer import (
    bar_by_corpus,
    corpus_of,
    format_bar,
    loco,
    oneoffs_alone,
    pareto_front,
)


def _same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal up to renaming, noise (-1) kept as noise."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or not np.array_equal(a < 0, b < 0):
        return False
    pairs = {(int(x), int(y)) for x, y in zip(a, b) if x >= 0}
    return len(pairs) == len({x for x, _ in pairs}) == len({y for _, y in pairs})


def _blobs(seed: int, n_classes: int = 5, per: int = 4, dim: int = 8):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n_classes, dim)) * 4
    X = np.repeat(centres, per, axis=0) + rng.normal(size=(n_classes * per, dim)) * 0.5
    E = X / np.linalg.norm(X, axis=1, keepdims=True)
    return X[:, :2].copy(), E


RELATIVE = [
    ClusteringConfig(algorithm="genkt", singleton_cos=0.5, genkt=GenKTConfig(
        p=0.0, R_mode="relative", R_rel=2.5, cos_cut=0.3, use_weights=False)),
    ClusteringConfig(algorithm="genkt", singleton_cos=-1.0, genkt=GenKTConfig(
        p=-1.0, R_mode="relative", R_rel=4.0, cos_cut=-1.0, use_weights=False)),
    ClusteringConfig(algorithm="hdbscan", singleton_cos=0.5, hdbscan=HDBSCANConfig(
        min_cluster_size=2, min_samples=1, epsilon_mode="relative", epsilon_rel=1.5,
        cluster_selection_method="leaf")),
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), factor=st.floats(1e-3, 1e3), which=st.integers(0, 2))
def test_partition_is_unchanged_when_coordinates_are_scaled(seed, factor, which):
    X, E = _blobs(seed)
    cfg = RELATIVE[which]
    base = fit_labels(X, E, None, cfg)
    scaled = fit_labels(X * factor, E, None, cfg)
    assert _same_partition(base, scaled)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), which=st.integers(0, 1))
def test_partition_is_stable_when_the_pool_is_duplicated_far_apart(seed, which):
    X, E = _blobs(seed)
    cfg = RELATIVE[which]  # GenKT: a copy far away, embeddings orthogonal to the first's
    base = fit_labels(X, E, None, cfg)
    far = X + 1e6
    zeros = np.zeros_like(E)
    X2 = np.vstack([X, far])
    E2 = np.vstack([np.hstack([E, zeros]), np.hstack([zeros, E])])
    both = fit_labels(X2, E2, None, cfg)
    n = len(X)
    assert _same_partition(base, both[:n]) and _same_partition(base, both[n:])
    assert not set(both[:n][both[:n] >= 0]) & set(both[n:][both[n:] >= 0])


def test_pool_scale_is_homogeneous_and_ignores_duplicates():
    X, _ = _blobs(1)
    s = pool_scale(X)
    assert pool_scale(3.0 * X) == pytest.approx(3.0 * s)
    assert pool_scale(np.vstack([X, X[:5]])) == pytest.approx(
        np.quantile(nn_distances(np.vstack([X, X[:5]]))[nn_distances(
            np.vstack([X, X[:5]])) > 0], 0.5, method="lower"))
    assert pool_scale(np.zeros((4, 2))) == 1.0
    assert pool_scale(np.zeros((1, 2))) == 1.0
    with pytest.raises(ValueError):
        pool_scale(X, 0.0)


def test_relative_radius_is_recorded_and_used():
    X, _E = _blobs(2)
    g = GenKTClusterer(p=0.0, R_mode="relative", R_rel=2.0, cos_cut=-1.0).fit(X)
    assert g.R_ == pytest.approx(2.0 * pool_scale(X))
    ref = GenKTClusterer(p=0.0, R=g.R_, cos_cut=-1.0).fit(X)
    np.testing.assert_array_equal(g.labels_, ref.labels_)
    h = HDBSCANClusterer(min_cluster_size=2, epsilon_mode="relative", epsilon_rel=1.0).fit(X)
    assert h.epsilon_ == pytest.approx(pool_scale(X))


def test_min_cluster_size_two_clusters_pairs():
    # 2 paraphrases per class: the case the old default (min_cluster_size 5) collapses on
    X, _E = _blobs(3, n_classes=8, per=2)
    labels = make_clusterer(ClusteringConfig(algorithm="hdbscan", hdbscan=HDBSCANConfig(
        min_cluster_size=2, min_samples=1, cluster_selection_method="leaf"))).fit_predict(X)
    assert len(set(labels[labels >= 0])) >= 6


def test_guard_makes_lone_memories_noise_whatever_the_map_says():
    E = np.array([[1, 0, 0], [0.99, 0.14, 0], [0, 0, 1.0]])
    labels = guard_singletons(np.array([0, 0, 0]), E, 0.5)
    np.testing.assert_array_equal(labels, [0, 0, -1])
    np.testing.assert_array_equal(guard_singletons([0, 0, 0], E, -1.0), [0, 0, 0])
    assert best_cosines(E, block_rows=1)[2] == pytest.approx(0.0)
    np.testing.assert_allclose(best_cosines(E), best_cosines(E, block_rows=2))


def test_config_keys_and_their_constraints():
    cfg = config_from_dict({"clustering": {"singleton_cos": 0.5, "genkt": {
        "R_mode": "relative", "R_rel": 3.0, "scale_quantile": 0.25},
        "hdbscan": {"epsilon_mode": "relative", "epsilon_rel": 1.0, "min_cluster_size": 2}}})
    assert cfg.clustering.genkt.R_rel == 3.0 and cfg.clustering.hdbscan.min_cluster_size == 2
    for bad in ({"singleton_cos": 1.5}, {"genkt": {"R_mode": "scaled"}},
                {"genkt": {"R_rel": 0.0}}, {"hdbscan": {"scale_quantile": 0.0}},
                {"hdbscan": {"epsilon_rel": -1.0}}):
        with pytest.raises(ConfigError):
            config_from_dict({"clustering": bad})


def test_oneoffs_alone_and_corpus_names():
    assert oneoffs_alone([0, 0, 1, 2], [5, 5, -1, 5]) == 0.5
    assert oneoffs_alone([0, 0, 1, 2], [5, 5, 6, 7]) == 1.0
    assert oneoffs_alone([0, 0], [1, 1]) is None
    assert corpus_of("train/banking77-pc2-oo20-s0") == "banking77"


class _Trial:
    def __init__(self, number, pools, params=None):
        self.number = number
        self.user_attrs = {"pools": pools, "params": params or {"x": number}}


def _pool(name, r, p, alone):
    return {"pool": name, "recall": r, "precision": p, "oneoffs_alone": alone}


def test_loco_reselects_without_the_left_out_corpus_and_pareto_front():
    trials = [
        _Trial(0, [_pool("a-1", 0.9, 0.6, 0.9), _pool("b-1", 0.5, 0.6, 0.9)]),
        _Trial(1, [_pool("a-1", 0.6, 0.6, 0.9), _pool("b-1", 0.95, 0.6, 0.9)]),
        _Trial(2, [_pool("a-1", 0.99, 0.1, 0.9), _pool("b-1", 0.99, 0.1, 0.9)]),
    ]
    rows = {r.corpus: r for r in loco(trials, floor=0.5)}
    assert rows["a"].trial == 1 and rows["a"].recall == 0.6   # chosen on b alone
    assert rows["b"].trial == 0 and rows["b"].recall == 0.5
    front = {p.trial for p in pareto_front(trials)}
    assert front == {1, 2}  # trial 0 is dominated by trial 1


def test_bar_by_corpus_groups_corpora_and_two_per_class_pools():
    pools = [_pool("a-pc2-oo20-s0", 0.95, 0.7, 0.9), _pool("a-pc4_6-oo10-s0", 0.91, 0.55, 0.7),
             _pool("b-pc2-oo10-s0", 0.80, 0.9, None), _pool("b-pc8_12-oo5-s0", 0.99, 0.45, 1.0)]
    rows = {r.group: r for r in bar_by_corpus(pools)}
    assert list(rows) == ["a", "b", "2-per-class"]
    a, b, pc2 = rows["a"], rows["b"], rows["2-per-class"]
    assert (a.pools, a.min_recall, a.worst_precision) == (2, 0.91, 0.55)
    assert a.recall == pytest.approx(0.93) and a.alone == pytest.approx(0.8)
    assert a.holds                      # 0.93 >= 0.90, 0.55 >= 0.50, 0.80 >= 0.80
    assert not b.holds                  # worst precision 0.45
    assert pc2.pools == 2 and pc2.recall == pytest.approx(0.875) and not pc2.holds
    assert not bar_by_corpus(pools, bar=(0.9, 0.5, 0.85))[0].holds  # a's one-offs now short
    assert "| 2-per-class | 2 | 0.88 |" in format_bar(list(rows.values()))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**31 - 1), st.integers(2, 60), st.sampled_from([0.0, 0.3, 0.6, 0.9]),
       st.integers(0, 6), st.booleans())
def test_lone_rows_is_best_cosines_below_the_cut_whatever_the_candidates(seed, n, cut, k,
                                                                         zeros):
    rng = np.random.default_rng(seed)
    E = rng.normal(size=(n, 5)) + rng.normal(size=(1, 5)) * 2  # some pairs near, some far
    E[rng.random(n) < 0.2] = E[0]  # exact duplicates
    if zeros:
        E[-1] = 0.0
    cand = rng.integers(-1, n, size=(n, k)) if k else None  # any candidates, even bad ones
    expect = best_cosines(E) < cut
    np.testing.assert_array_equal(lone_rows(E, cut, cand, block_rows=7), expect)


def test_guard_with_map_neighbours_gives_the_same_noise_as_without(monkeypatch):
    import memmaint.clustering.pipeline as P

    rng = np.random.default_rng(1)
    centres = rng.normal(size=(40, 16))
    E = np.repeat(centres, 6, axis=0) + 0.3 * rng.normal(size=(240, 16))
    E = np.vstack([E, rng.normal(size=(30, 16))])  # 30 one-offs
    coords = E[:, :2] + 0.01 * rng.normal(size=(270, 2))  # a crude map
    labels = np.zeros(270, dtype=np.int64)
    plain = guard_singletons(labels, E, 0.6)
    monkeypatch.setattr(P, "GUARD_CANDIDATES_FROM", 2)
    calls = []
    real = P.lone_rows
    monkeypatch.setattr(P, "lone_rows", lambda *a, **k: calls.append(a[2]) or real(*a, **k))
    np.testing.assert_array_equal(guard_singletons(labels, E, 0.6, coords), plain)
    assert calls[0] is not None and calls[0].shape == (270, 11)  # neighbours were tried
    assert 5 <= (plain < 0).sum() <= 30  # some of the one-offs, none of the paraphrases
    assert (plain[:240] == 0).all()
    with pytest.raises(ValueError, match="candidates must have shape"):
        lone_rows(E, 0.5, np.zeros((3, 2), dtype=int))
