"""Every GenKT strategy reproduces the numpy reference merge sequence bit for bit."""

from __future__ import annotations

import itertools
import zlib

import numpy as np
import pytest

from memmaint.clustering.genkt import estimator as G
from memmaint.clustering.genkt.estimator import GenKTDefinition, genkt_cluster

FAST = ("nn", "tree")
# speed knobs shrunk to the bone so that small inputs reach every kernel path: one-point
# leaves, a one-coordinate prefix, neighbour caches of 1-3 slots that overflow, a single
# cache evicted over and over, caches for every search, and searches that go lazy at once.
TUNINGS = {
    "default": dict(G._TUNING),
    "tiny": {"leaf_size": 1, "head": 1, "cache_k": 1, "cache_cap": 1, "cache_scan": 0,
             "budget": 0},
    "small": {"leaf_size": 2, "head": 3, "cache_k": 3, "cache_cap": 4, "cache_scan": 0,
              "budget": 4},
}


@pytest.fixture(scope="module", autouse=True)
def _warm():
    """Compile (or load) the kernels once, outside any single test's time."""
    x = np.random.default_rng(0).normal(size=(20, 2))
    for s in FAST:
        genkt_cluster(x, strategy=s)
        genkt_cluster(x, np.abs(x) + 0.1, definition=GenKTDefinition(cos_cut=0.3), strategy=s)


@pytest.fixture(params=sorted(TUNINGS))
def tuning(request, monkeypatch):
    monkeypatch.setattr(G, "_TUNING", dict(TUNINGS[request.param]))
    return request.param


def assert_same_history(ref, got):
    np.testing.assert_array_equal(got.merged_pairs, ref.merged_pairs)
    np.testing.assert_array_equal(got.dij, ref.dij)  # exact: canonical arithmetic
    np.testing.assert_array_equal(got.distance, ref.distance)
    np.testing.assert_array_equal(got.final_ids, ref.final_ids)
    np.testing.assert_array_equal(got.final_weights, ref.final_weights)
    np.testing.assert_array_equal(got.final_positions, ref.final_positions)
    np.testing.assert_array_equal(got.labels(), ref.labels())


def _case(seed, D, weighted, cos, ties=False):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 121))
    X = rng.normal(size=(n, D))
    w = rng.uniform(0.01, 1.0, n) if weighted else None
    if ties:  # a coarse grid and rounded weights make many keys tie exactly
        X = np.round(X * 2) / 2
        w = None if w is None else np.round(w, 1)
    E = rng.normal(size=(n, 6)) if cos else None
    dist = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))[np.triu_indices(n, 1)]
    R = max(float(np.quantile(dist, rng.choice([0.02, 0.1, 0.3]))), 0.3)  # some merging
    return X, E, w, R


@pytest.mark.parametrize("recombination", ["weighted", "wta"])
@pytest.mark.parametrize("cos", [False, True], ids=["nocos", "cos"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("D", [1, 2, 3, 10])
@pytest.mark.parametrize("p", [-2.0, -1.0, 0.0, 1.0])
def test_strategies_match_reference(p, D, weighted, cos, recombination):
    seed = zlib.crc32(repr((p, D, weighted, cos, recombination)).encode())
    X, E, w, R = _case(seed, D, weighted, cos)
    d = GenKTDefinition(p=p, R=R, cos_cut=0.2, recombination=recombination)
    ref = genkt_cluster(X, E, w, d, strategy="reference")
    assert ref.n_merges > 0
    for s in FAST:
        assert_same_history(ref, genkt_cluster(X, E, w, d, strategy=s))


@pytest.mark.parametrize("p", [-1.0, 0.0, 1.0])
@pytest.mark.parametrize("seed", range(3))
def test_strategies_match_reference_with_ties(p, seed, tuning):
    """Exactly equal distances and weights: the (d_ij, dist2, lowest id pair) tie-break."""
    for D, cos in [(1, False), (2, True), (3, False), (10, False)]:
        X, E, w, R = _case(1000 + seed, D, weighted=seed > 0, cos=cos, ties=True)
        d = GenKTDefinition(p=p, R=R, cos_cut=0.0)
        ref = genkt_cluster(X, E, w, d, strategy="reference")
        for s in FAST:
            assert_same_history(ref, genkt_cluster(X, E, w, d, strategy=s))


@pytest.mark.parametrize("p", [-1.0, 0.0])
def test_kernel_paths_match_reference(p, tuning):
    """Growing clusters (caches), wide leaves, cosine cut: all tunings, same history."""
    rng = np.random.default_rng(7)
    n = 200
    X = np.concatenate([rng.normal(0, 0.3, (n // 2, 2)), rng.normal(2, 0.6, (n // 2, 2))])
    w = rng.lognormal(size=n)
    E = rng.normal(size=(n, 4)) + 2.0
    for emb in (None, E):
        d = GenKTDefinition(p=p, R=1.0, cos_cut=0.5)
        ref = genkt_cluster(X, emb, w, d, strategy="reference")
        for s in FAST:
            assert_same_history(ref, genkt_cluster(X, emb, w, d, strategy=s))


def test_identical_points_merge_in_index_order():
    X = np.zeros((6, 2))
    for s in ("reference",) + FAST:
        cs = genkt_cluster(X, strategy=s)
        # all pair keys are (0, 0, lo, hi): (0,1) -> 6, then (2,3) -> 7, (4,5) -> 8, ...
        np.testing.assert_array_equal(cs.merged_pairs,
                                      [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]])
        np.testing.assert_array_equal(cs.labels(), np.zeros(6))


def test_single_point_and_far_pair():
    for s in ("reference",) + FAST:
        one = genkt_cluster([[1.0, 2.0]], strategy=s)
        assert one.n_merges == 0 and one.labels().tolist() == [0]
        far = genkt_cluster([[0.0], [5.0]], strategy=s)
        assert far.n_merges == 0 and far.labels().tolist() == [0, 1]


@pytest.mark.parametrize("D,strategy", list(itertools.product([2, 10], FAST)))
def test_high_dimensional_embeddings_cosine_cut(D, strategy):
    """384-d embeddings under the cut, as in production; the prefix trick for D > head."""
    rng = np.random.default_rng(D)
    n = 80
    topics = rng.normal(size=(4, 384))
    lab = rng.integers(0, 4, n)
    E = topics[lab] + rng.normal(size=(n, 384)) * 1.5
    X = rng.normal(size=(n, D)) * 0.5 + lab[:, None]
    d = GenKTDefinition(p=-1.0, R=1.0 * np.sqrt(D), cos_cut=0.26)
    ref = genkt_cluster(X, E, None, d, strategy="reference")
    assert_same_history(ref, genkt_cluster(X, E, None, d, strategy=strategy))
