"""Every GenKT strategy reproduces the numpy reference merge sequence bit for bit."""

from __future__ import annotations

import itertools
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from memmaint.clustering.genkt import estimator as G
from memmaint.clustering.genkt.estimator import GenKTDefinition, genkt_cluster

FAST = ("nn", "tree", "graph")
PLANE = "plane"  # 2-D without a cosine cut only


def fast_for(X, E=None, cos_cut=-1.0):
    """The fast strategies that take this input (``plane``: 2-D, no cosine cut)."""
    plane = np.shape(X)[1] == 2 and (E is None or cos_cut <= -1.0)
    return FAST + ((PLANE,) if plane else ())

# speed knobs shrunk to the bone so that small inputs reach every kernel path: one-point
# leaves, a one-coordinate prefix, neighbour caches of 1-3 slots that overflow, a single
# cache evicted over and over, caches for every search, and searches that go lazy at once;
# for the graph strategy first-pass lists of 1-3, skins from tiny (announce at every move)
# to wide, refills of 1-2 slots growing the promise by a hair, 2-8 pivots (data points, or
# centres after 2 Lloyd steps; most slots sit in crowded cells or the outlier cell) and the
# many-pivots retry at every size (pivots sampled in rounds), Gram
# tiles of a few rows, and the paths of big clusters (no re-keying of the absorbed slot's
# neighbours; join tests that start walking out edges and switch to in-edge marks);
# "small" also runs the Gram tiles multi-threaded at every size.
TUNINGS = {
    "default": dict(G._TUNING),
    "tiny": {"leaf_size": 1, "head": 1, "cache_k": 1, "cache_cap": 1, "cache_scan": 0,
             "budget": 0, "graph_k": 1, "graph_skin": 0.001, "graph_gap": 0.001,
             "graph_refill": 1, "graph_cells": 2, "graph_lloyd": 0, "graph_pivots": 1,
             "graph_tile": 3, "graph_exc": 0, "graph_walk": 0,
             "graph_outliers": 0.0, "graph_cells_many": 4},
    "small": {"leaf_size": 2, "head": 3, "cache_k": 3, "cache_cap": 4, "cache_scan": 0,
              "budget": 4, "graph_k": 3, "graph_skin": 0.3, "graph_gap": 0.2,
              "graph_refill": 2, "graph_cells": 8, "graph_lloyd": 2, "graph_pivots": 4,
              "graph_tile": 16, "graph_exc": 2, "graph_walk": 3,
              # more pivots whenever a slot is an outlier (the many-topics path)
              "graph_outliers": 0.0, "graph_cells_many": 16,
              # Gram tiles in BLAS's own thread count at every size (rounding may differ
              # from one thread's; the lists only propose pairs, so histories may not)
              "graph_threads": None, "graph_threads_from": 1},
}


@pytest.fixture(scope="module", autouse=True)
def _warm():
    """Compile (or load) the kernels once, outside any single test's time."""
    x = np.random.default_rng(0).normal(size=(20, 2))
    for s in FAST:
        genkt_cluster(x, strategy=s)
        genkt_cluster(x, np.abs(x) + 0.1, definition=GenKTDefinition(cos_cut=0.3), strategy=s)
    genkt_cluster(x, strategy=PLANE)


@pytest.fixture(params=sorted(TUNINGS))
def tuning(request, monkeypatch):
    monkeypatch.setattr(G, "_TUNING", {**G._TUNING, **TUNINGS[request.param]})
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
@pytest.mark.parametrize("D", [1, 2, 3, 10, 40])
@pytest.mark.parametrize("p", [-2.0, -1.0, 0.0, 1.0])
def test_strategies_match_reference(p, D, weighted, cos, recombination):
    seed = zlib.crc32(repr((p, D, weighted, cos, recombination)).encode())
    X, E, w, R = _case(seed, D, weighted, cos)
    d = GenKTDefinition(p=p, R=R, cos_cut=0.2, recombination=recombination)
    ref = genkt_cluster(X, E, w, d, strategy="reference")
    assert ref.n_merges > 0
    for s in fast_for(X, E, d.cos_cut):
        assert_same_history(ref, genkt_cluster(X, E, w, d, strategy=s))


@pytest.mark.parametrize("recombination", ["weighted", "wta"])
@pytest.mark.parametrize("p", [-1.0, 0.0, 1.0])
def test_graph_matches_reference_with_every_tuning(p, recombination, tuning):
    """Random inputs in low and high dimension, with the graph strategy's knobs shrunk so
    that refills, announcements, the outlier cell and tiny Gram tiles all come into play."""
    for D, cos in [(1, False), (3, True), (12, False), (40, True)]:
        seed = zlib.crc32(repr((p, D, cos, recombination, "graph")).encode())
        X, E, w, R = _case(seed, D, weighted=True, cos=cos)
        d = GenKTDefinition(p=p, R=R, cos_cut=0.1, recombination=recombination)
        ref = genkt_cluster(X, E, w, d, strategy="reference")
        assert_same_history(ref, genkt_cluster(X, E, w, d, strategy="graph"))


@pytest.mark.parametrize("p", [-1.0, 0.0, 1.0])
@pytest.mark.parametrize("seed", range(3))
def test_strategies_match_reference_with_ties(p, seed, tuning):
    """Exactly equal distances and weights: the (d_ij, dist2, lowest id pair) tie-break."""
    for D, cos in [(1, False), (2, True), (2, False), (3, False), (10, False)]:
        X, E, w, R = _case(1000 + seed, D, weighted=seed > 0, cos=cos, ties=True)
        d = GenKTDefinition(p=p, R=R, cos_cut=0.0)
        ref = genkt_cluster(X, E, w, d, strategy="reference")
        for s in fast_for(X, E, d.cos_cut):
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
        for s in fast_for(X, emb, d.cos_cut):
            assert_same_history(ref, genkt_cluster(X, emb, w, d, strategy=s))


def test_identical_points_merge_in_index_order():
    X = np.zeros((6, 2))
    for s in ("reference",) + fast_for(X):
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
    one = genkt_cluster([[1.0, 2.0]], strategy=PLANE)
    assert one.n_merges == 0 and one.labels().tolist() == [0]
    far = genkt_cluster([[0.0, 1.0], [5.0, 1.0]], strategy=PLANE)
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


def _topics(seed, n, dim=64, spread=(0.3, 0.7), dup=0.1):
    """Unit embeddings in topics (as benchmarks/genkt_scaling.py makes them), with exact
    duplicates and background one-offs: the growing-centroid case the graph strategy is for."""
    rng = np.random.default_rng(seed)
    K = 4
    c = rng.normal(size=(K, dim))
    c /= np.linalg.norm(c, axis=1, keepdims=True)
    topic = rng.choice(K, n, p=[0.6, 0.2, 0.1, 0.1])
    s = rng.uniform(*spread, K)[topic]
    E = c[topic] + rng.normal(size=(n, dim)) * (s / np.sqrt(dim))[:, None]
    noise = rng.random(n) < 0.05
    E[noise] = rng.normal(size=(int(noise.sum()), dim))
    d = np.flatnonzero(rng.random(n) < dup)
    E[d] = E[rng.integers(0, n, d.size)]
    return E / np.linalg.norm(E, axis=1, keepdims=True)


@pytest.mark.parametrize("p", [-1.0, 0.0, 1.0])
def test_graph_growing_centroids_match_reference(p, tuning):
    """Topics that merge into one growing centroid each: the moving frames, exceptions (owners
    joined to the absorbed point) and resolution stages; with and without weights."""
    E = _topics(int(p) + 5, 150)
    w = np.random.default_rng(3).lognormal(size=len(E))
    for weights in (None, w):
        d = GenKTDefinition(p=p, R=0.8, cos_cut=0.26)
        ref = genkt_cluster(E, E, weights, d, strategy="reference")
        assert ref.n_merges > 40
        assert_same_history(ref, genkt_cluster(E, E, weights, d, strategy="graph"))


def test_graph_counts_show_every_stage_was_used():
    """The tiny knobs really do send the graph strategy through refills and announcements
    (the counters: resolutions, refills, announcements, exact resolutions)."""
    from memmaint.clustering.genkt._graph import graph_cluster

    E = _topics(1, 150)
    stats = np.zeros(4, dtype=np.int64)
    tune = {**G._TUNING, **TUNINGS["tiny"]}
    # (rec as the estimator passes it, an int: a bool would compile the loop a second time)
    out = graph_cluster(E.copy(), np.zeros((150, 0)), np.ones(150), 0.0, 0.64, -1.0, False,
                        0, tune, stats=stats)
    assert out[0].size > 40 and (stats > 0).all()
    ref = genkt_cluster(E, definition=GenKTDefinition(p=0.0, R=0.8, cos_cut=-1.0),
                        strategy="reference")
    np.testing.assert_array_equal(np.stack([out[0], out[1]], axis=1), ref.merged_pairs)


def test_graph_permute_rows_in_place_matches_fancy_indexing():
    """The slots go into cell order in place (no second copy of the inputs); every cycle of
    the permutation, fixed points and one long cycle included."""
    from memmaint.clustering.genkt._kernels_graph_index import permute_rows

    rng = np.random.default_rng(2)
    for order in (rng.permutation(97), np.arange(10), np.roll(np.arange(50), 1)):
        a = rng.normal(size=(order.size, 5))
        want = a[order]
        permute_rows(a, order.astype(np.int64))
        np.testing.assert_array_equal(a, want)


def test_graph_large_coordinates_use_the_float64_gram():
    """Tight groups far apart (norms 1e4 times R, even about the mean): float32 Gram tiles
    could not bound the distances well, the first pass switches to float64; same history.
    (An offset alone does not: the pass centres the points.)"""
    rng = np.random.default_rng(11)
    centres = rng.normal(size=(6, 8)) * 30.0
    X = 1e4 + centres[rng.integers(0, 6, 120)] + rng.normal(size=(120, 8)) * 1e-3
    d = GenKTDefinition(p=-1.0, R=3e-3, cos_cut=-1.0)
    w = rng.lognormal(size=120)
    ref = genkt_cluster(X, None, w, d, strategy="reference")
    assert ref.n_merges > 0
    assert_same_history(ref, genkt_cluster(X, None, w, d, strategy="graph"))


def test_graph_pivots_are_centres_that_keep_a_topic_in_its_cell():
    """In 384-d a topic's points are farther apart (here cosine ~0.61, distance ~0.88) than
    R + skin (0.82), so data points as pivots (no Lloyd step) leave most of them in the
    outlier cell that nothing prunes; centres (cosine ~0.78 to their points) keep them in
    cells. A regression guard for the first pass's pruning, not a timing."""
    from memmaint.clustering.genkt import _graph as GR

    rng = np.random.default_rng(3)
    centres = rng.normal(size=(20, 384))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    x = centres[rng.integers(0, 20, 2000)] + rng.normal(size=(2000, 384)) * 0.8 / np.sqrt(384)
    x /= np.linalg.norm(x, axis=1, keepdims=True)

    def outlier_share(lloyd: int) -> float:
        C, _T, cell, *_ = GR._cells(x, 20, 0.8 * 1.02, lloyd)
        return float(np.mean(cell == C.shape[0]))

    assert outlier_share(0) > 0.5
    assert outlier_share(5) < 0.2  # 0.98 and 0.08 here


def test_graph_recut_validity_check_in_high_dimension():
    """labels(R_cut) for p != 0 replays and re-clusters with auto (the graph strategy above
    five dimensions): same answers as with the reference's history."""
    E = _topics(2, 120, dim=16)
    w = np.random.default_rng(5).lognormal(size=120)
    d = GenKTDefinition(p=-1.0, R=0.9, cos_cut=-1.0)
    seq = genkt_cluster(E, None, w, d)
    assert seq.strategy == "graph"
    for R_cut in (0.3, 0.5, 0.7):
        fresh = genkt_cluster(E, None, w, GenKTDefinition(p=-1.0, R=R_cut, cos_cut=-1.0),
                              strategy="reference")
        try:
            lab = seq.labels(R_cut)
        except ValueError:
            continue
        np.testing.assert_array_equal(lab, fresh.labels())


grid = st.integers(3, 40).flatmap(lambda n: st.integers(1, 12).flatmap(
    lambda D: arrays(np.float64, (n, D), elements=st.integers(-3, 3).map(lambda v: v / 2))))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(X=grid, data=st.data(), p=st.sampled_from([-2.0, -1.0, 0.0, 0.5, 1.0]),
       R=st.floats(0.3, 3.0), rec=st.sampled_from(["weighted", "wta"]),
       knobs=st.sampled_from(sorted(TUNINGS)))
def test_graph_property_same_history_as_reference(X, data, p, R, rec, knobs):
    """Points on a coarse grid (many exact ties and duplicates), random weights, any knobs:
    the graph strategy's history is the reference's, bit for bit."""
    n = X.shape[0]
    w = data.draw(arrays(np.float64, n, elements=st.sampled_from([0.1, 0.5, 1.0, 2.0])))
    old = G._TUNING
    G._TUNING = {**old, **TUNINGS[knobs]}
    try:
        d = GenKTDefinition(p=p, R=R, cos_cut=-1.0, recombination=rec)
        ref = genkt_cluster(X, None, w, d, strategy="reference")
        assert_same_history(ref, genkt_cluster(X, None, w, d, strategy="graph"))
    finally:
        G._TUNING = old


def test_plane_is_auto_in_2d_without_a_cosine_cut():
    """``auto`` takes ``plane`` where it applies, for p >= 0; asked for where it does not
    apply, it is refused."""
    rng = np.random.default_rng(4)
    X2, X3, E = rng.normal(size=(50, 2)), rng.normal(size=(50, 3)), rng.normal(size=(50, 4))
    for p in (0.0, 0.5, 1.0):
        assert genkt_cluster(X2, definition=GenKTDefinition(p=p)).strategy == PLANE
    assert genkt_cluster(X2, definition=GenKTDefinition(p=-1.0)).strategy == "tree"
    assert genkt_cluster(X2, E, definition=GenKTDefinition(p=0.0, cos_cut=-1.0)).strategy == PLANE
    assert genkt_cluster(X2, E, definition=GenKTDefinition(p=0.0, cos_cut=0.2)).strategy == "tree"
    assert genkt_cluster(X3).strategy == "tree"
    with pytest.raises(G.InvalidDefinition, match="plane"):
        genkt_cluster(X3, strategy=PLANE)
    with pytest.raises(G.InvalidDefinition, match="plane"):
        genkt_cluster(X2, E, definition=GenKTDefinition(cos_cut=0.2), strategy=PLANE)


plane_grid = st.integers(2, 60).flatmap(lambda n: arrays(
    np.float64, (n, 2), elements=st.integers(-4, 4).map(lambda v: v / 2)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(X=plane_grid, data=st.data(), p=st.sampled_from([-1.0, 0.0, 0.0, 0.5, 1.0]),
       R=st.floats(0.3, 3.0), rec=st.sampled_from(["weighted", "wta"]),
       offset=st.sampled_from([0.0, -7.0, 1e6]), scale=st.sampled_from([1.0, 1e-3]),
       knobs=st.sampled_from(sorted(TUNINGS)))
def test_plane_property_same_history_as_reference(X, data, p, R, rec, offset, scale, knobs):
    """Points on a coarse 2-D grid (exact ties, duplicates, merges whose mean rounds onto a
    parent), shifted far from the origin and shrunk (the slab test's margins), random weights,
    any leaf size: the ``plane`` history is the reference's, bit for bit."""
    n = X.shape[0]
    w = data.draw(arrays(np.float64, n, elements=st.sampled_from([0.1, 0.5, 1.0, 2.0])))
    X = offset + X * scale
    old = G._TUNING
    G._TUNING = {**old, **TUNINGS[knobs]}
    try:
        d = GenKTDefinition(p=p, R=R * scale, cos_cut=-1.0, recombination=rec)
        ref = genkt_cluster(X, None, w, d, strategy="reference")
        assert_same_history(ref, genkt_cluster(X, None, w, d, strategy=PLANE))
    finally:
        G._TUNING = old


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(200, 1500),
       p=st.sampled_from([-1.0, 0.0, 0.0, 1.0]), R=st.sampled_from([0.05, 0.4, 1.2]),
       rec=st.sampled_from(["weighted", "wta"]), leaf=st.sampled_from([1, 3, 8, 32]))
def test_plane_property_same_history_as_nn(seed, n, p, R, rec, leaf):
    """Pools like the benchmark's (topics of very different density, exact and near
    duplicates, background one-offs, log-normal weights), big enough for deep trees and
    long climbs: ``plane`` against the brute-force ``nn`` strategy, bit for bit."""
    rng = np.random.default_rng(seed)
    K = int(rng.integers(1, 12))
    centres = rng.normal(size=(K, 2)) * 2.0
    spread = rng.uniform(0.005, 0.3, K)
    topic = rng.integers(0, K, n)
    X = centres[topic] + rng.normal(size=(n, 2)) * spread[topic, None]
    noise = rng.random(n) < 0.05
    X[noise] = rng.uniform(-4.0, 4.0, size=(int(noise.sum()), 2))
    dup = np.flatnonzero(rng.random(n) < 0.08)
    X[dup] = X[rng.integers(0, n, dup.size)] + rng.normal(size=(dup.size, 2)) * 1e-3 * (
        rng.random((dup.size, 1)) < 0.5)
    w = rng.lognormal(0.0, 1.0, n)
    old = G._TUNING
    G._TUNING = {**old, "leaf_size": leaf}
    try:
        d = GenKTDefinition(p=p, R=R, cos_cut=-1.0, recombination=rec)
        slow = genkt_cluster(X, None, w, d, strategy="nn")
        assert_same_history(slow, genkt_cluster(X, None, w, d, strategy=PLANE))
    finally:
        G._TUNING = old


@pytest.mark.parametrize("side", [1.0, -1.0], ids=["a-side", "b-side"])
@pytest.mark.parametrize("leaf", [1, 2, 8])
@pytest.mark.parametrize("rec", ["weighted", "wta"])
def test_plane_reverse_query_reaches_the_edges_of_the_slab(rec, leaf, side):
    """kt (p = 1): a and b (0, 1) merge into k at the origin; r (2) keeps its neighbour c (3),
    a bit farther than k but nearer than a, and sits near the edge of the slab where a slot
    can come to prefer k (its offset along ab is 0.2 of |ab|, the edge is at 0.25). k's own
    neighbour is e (4), and k is heavier than r, so only r's cache can offer the pair (r, k),
    the next merge: the reverse query must reach r. (For p = 0 it is never needed.)"""
    h = 1.2
    X = np.array([[-0.5, 0.0], [0.5, 0.0], [-0.2, h], [-0.2, h + np.sqrt(1.5)], [0.0, -0.9]])
    X[:, 0] *= side
    w = np.sqrt([0.5, 0.5, 0.4, 1.0, 1.0])
    old = G._TUNING
    G._TUNING = {**old, "leaf_size": leaf}
    try:
        d = GenKTDefinition(p=1.0, R=3.0, cos_cut=-1.0, recombination=rec)
        ref = genkt_cluster(X, None, w, d, strategy="reference")
        assert ref.merged_pairs[0].tolist() == [0, 1]
        if rec == "weighted":
            assert ref.merged_pairs[1].tolist() == [2, 5]
        assert_same_history(ref, genkt_cluster(X, None, w, d, strategy=PLANE))
    finally:
        G._TUNING = old
