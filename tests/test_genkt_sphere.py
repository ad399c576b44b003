"""GenKT on the sphere (issue #35): the ``sphere`` recombination keeps positions unit
vectors, ``weighted`` becomes it when the coordinates are the embeddings, and every strategy
reproduces the reference's history bit for bit with it."""

from __future__ import annotations

import dataclasses
import zlib

import numpy as np
import pytest
from test_genkt_strategies import TUNINGS, assert_same_history

from memmaint.clustering.genkt import estimator as G
from memmaint.clustering.genkt.estimator import GenKTDefinition, InvalidDefinition, genkt_cluster

FAST = ("nn", "tree", "graph")


@pytest.fixture(params=sorted(TUNINGS))
def tuning(request, monkeypatch):
    monkeypatch.setattr(G, "_TUNING", {**G._TUNING, **TUNINGS[request.param]})
    return request.param


def _unit(a):
    return a / np.linalg.norm(a, axis=1, keepdims=True)


def _topics(seed, D, n=None, spread=None):
    """Unit vectors in topics (some tight, some loose) plus a few one-offs, and R with
    some merging."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(40, 131)) if n is None else n
    k = int(rng.integers(3, 9))
    c = _unit(rng.normal(size=(k, D)))
    sp = rng.uniform(0.1, 0.8, k) if spread is None else np.full(k, spread)
    t = rng.integers(0, k, n)
    E = _unit(c[t] + rng.normal(size=(n, D)) * (sp[t] / np.sqrt(D))[:, None])
    lone = rng.random(n) < 0.1
    E[lone] = _unit(rng.normal(size=(int(lone.sum()), D)))
    dist = np.sqrt(np.maximum(2 - 2 * E @ E.T, 0))[np.triu_indices(n, 1)]
    R = max(float(np.quantile(dist, rng.choice([0.05, 0.2, 0.5]))), 0.2)
    return E, rng.uniform(0.05, 1.0, n), R


def test_cosine_mode_picks_the_sphere():
    E, _, _ = _topics(1, 8, n=60)
    d = GenKTDefinition(p=0.0, R=0.9, cos_cut=-1.0)
    assert genkt_cluster(E, E, definition=d).recombination == "sphere"
    assert genkt_cluster(E.astype(np.float32), E.astype(np.float32),
                         definition=d).recombination == "sphere"
    # coordinates that are not the embeddings, or no embeddings: the plain weighted mean
    assert genkt_cluster(E, None, definition=d).recombination == "weighted"
    assert genkt_cluster(E * 2.0, E, definition=d).recombination == "weighted"
    for rec in ("wta", "sphere"):
        assert genkt_cluster(E, E, definition=dataclasses.replace(
            d, recombination=rec)).recombination == rec
    seq = genkt_cluster(E, E, definition=d)
    assert seq.n_merges > 0
    np.testing.assert_allclose(np.linalg.norm(seq.final_positions, axis=1), 1.0, atol=1e-12)
    assert "sphere" in dataclasses.replace(d, recombination="sphere").description()


def test_plain_mean_shrinks_into_an_unrelated_point_the_sphere_does_not():
    """a, b 80 degrees apart merge (R = 1.3); their plain mean has length cos 40 = 0.77 and
    lies within R of c, orthogonal to both; the unit mean is sqrt(2) from c."""
    th = np.deg2rad(80.0)
    X = np.array([[1.0, 0.0, 0.0], [np.cos(th), np.sin(th), 0.0], [0.0, 0.0, 1.0]])
    d = GenKTDefinition(p=0.0, R=1.3, cos_cut=-1.0)
    for s in ("reference",) + FAST:
        plain = genkt_cluster(X, None, definition=d, strategy=s)
        assert plain.recombination == "weighted" and plain.n_merges == 2
        sphere = genkt_cluster(X, X, definition=d, strategy=s)
        assert sphere.n_merges == 1
        np.testing.assert_array_equal(sphere.labels(), [0, 0, 1])
        mean = (X[0] + X[1]) / np.linalg.norm(X[0] + X[1])
        np.testing.assert_allclose(sphere.final_positions[1], mean, atol=1e-15)


def test_explicit_sphere_normalises_the_coordinates():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 5)) * rng.uniform(0.5, 3.0, (50, 1))
    d = GenKTDefinition(p=0.0, R=0.8, cos_cut=-1.0, recombination="sphere")
    seq = genkt_cluster(X, None, definition=d)
    assert seq.recombination == "sphere"
    same = genkt_cluster(_unit(X), None, definition=d)
    np.testing.assert_array_equal(seq.merged_pairs, same.merged_pairs)
    with pytest.raises(G.GenKTInputError, match="all-zero"):
        genkt_cluster(np.zeros((3, 2)), definition=d)
    with pytest.raises(InvalidDefinition, match="sphere"):
        genkt_cluster(_unit(X[:, :2]), definition=d, strategy="plane")


@pytest.mark.parametrize("cos", [False, True], ids=["nocut", "cut"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("D", [2, 3, 10, 40])
@pytest.mark.parametrize("p", [-1.0, 0.0, 1.0])
def test_sphere_strategies_match_reference(p, D, weighted, cos):
    seed = zlib.crc32(repr((p, D, weighted, cos, "sphere")).encode())
    E, w, R = _topics(seed, D)
    d = GenKTDefinition(p=p, R=R, cos_cut=min(1.0 - R * R / 2.0 + 0.05, 0.99) if cos else -1.0)
    ww = w if weighted else None
    ref = genkt_cluster(E, E, ww, d, strategy="reference")
    assert ref.recombination == "sphere" and ref.n_merges > 0
    for s in FAST:
        assert_same_history(ref, genkt_cluster(E, E, ww, d, strategy=s))


@pytest.mark.parametrize("p", [-1.0, 0.0, 1.0])
def test_sphere_graph_matches_reference_with_every_tuning(p, tuning):
    """The graph strategy's frames on the sphere, every path: small and wide radii (R up to
    1.9, where merging pairs are far apart and the frame falls back to the triangle
    inequality), one tight topic that grows one cluster, separate embeddings."""
    for D, spread, Rq in [(3, None, None), (12, 0.3, None), (40, None, None),
                          (6, 1.5, 1.9), (24, 0.05, None)]:
        seed = zlib.crc32(repr((p, D, spread, "sphere-graph")).encode())
        E, w, R = _topics(seed, D, spread=spread)
        R = R if Rq is None else Rq
        d = GenKTDefinition(p=p, R=R, cos_cut=-1.0)
        ref = genkt_cluster(E, E, w, d, strategy="reference")
        assert_same_history(ref, genkt_cluster(E, E, w, d, strategy="graph"))
        # explicit sphere with embeddings of their own and a cosine cut
        rng = np.random.default_rng(seed)
        emb = E + rng.normal(size=E.shape) * 0.2
        ds = dataclasses.replace(d, recombination="sphere", cos_cut=0.2)
        ref = genkt_cluster(E, emb, w, ds, strategy="reference")
        assert_same_history(ref, genkt_cluster(E, emb, w, ds, strategy="graph"))


@pytest.mark.parametrize("p", [0.0, -1.0])
def test_sphere_recut(p):
    """Re-cutting a sphere history replays sphere recombinations."""
    E, w, _ = _topics(11, 8, n=80)
    d = GenKTDefinition(p=p, R=1.0, cos_cut=-1.0)
    seq = genkt_cluster(E, E, w, d)
    for R_cut in (0.5, 0.7, 0.9):
        fresh = genkt_cluster(E, E, w, dataclasses.replace(d, R=R_cut))
        try:
            got = seq.labels(R_cut)
        except ValueError:
            assert p != 0
            continue
        np.testing.assert_array_equal(got, fresh.labels())


def test_sphere_frame_bounds_every_owner_and_is_tight():
    """The graph strategy's frame after a sphere merge: for owners o keyed by their squared
    distance to the old position c, sqrt(A K - B) - E never exceeds |o - c'| (c' the unit
    mean), and with Stewart's terms exact (one owner, ell = |o - u|) it is that distance."""
    from memmaint.clustering.genkt._kernels_graph import _frame_sphere
    from memmaint.clustering.genkt._kernels_graph_heap import GA, GE, N_GFCOLS, frame_bound

    rng = np.random.default_rng(5)
    for trial in range(300):
        D = int(rng.integers(2, 40))
        c = _unit(rng.normal(size=(1, D)))[0]
        u = _unit((c + rng.normal(size=D) * rng.uniform(0.05, 1.5) / np.sqrt(D))[None])[0]
        lam = float(rng.uniform(0.001, 0.999))
        owners = _unit(c + rng.normal(size=(20, D)) * rng.uniform(0.1, 2.0) / np.sqrt(D))
        new = (1 - lam) * c + lam * u
        new = new / np.linalg.norm(new)
        x = np.stack([new, u])
        K = ((owners - c) ** 2).sum(1)
        true = np.sqrt(((owners - new) ** 2).sum(1))
        cu = float(np.linalg.norm(c - u))
        delta = float(np.linalg.norm(new - c))
        for one in (False, True):
            o = owners[:1] if one else owners
            ell = float(np.sqrt(((o - u) ** 2).sum(1)).min())
            GF = np.zeros((1, N_GFCOLS))
            GF[0, GA] = 1.0
            _frame_sphere(0, 1, lam, cu, ell, c.copy(), x, GF, delta)
            got = np.array([frame_bound(GF, 0, k, 1.0) for k in K[:len(o)]])
            assert (got <= true[:len(o)] + 1e-12).all(), trial
            if one and GF[0, GE] < 1e-6:  # not the triangle-inequality fallback
                np.testing.assert_allclose(got, true[:1], atol=1e-6)


@pytest.mark.parametrize("strategy", ("reference",) + FAST)
def test_sphere_cut_reads_the_average_cosine(strategy):
    """In cosine mode the embeddings recombine as plain means: every merge joins clusters
    whose members' average cosine is at least the cut, so each cluster's average pairwise
    cosine is too (average linkage's criterion), and the centroid alone would merge more."""
    E, _, _ = _topics(21, 12, n=120, spread=0.9)
    cut = 0.55
    d = GenKTDefinition(p=0.0, R=float(np.sqrt(2 - 2 * cut)), cos_cut=cut)
    seq = genkt_cluster(E, E, definition=d, strategy=strategy)
    lab = seq.labels()
    S = E @ E.T
    for c in np.unique(lab):
        m = np.flatnonzero(lab == c)
        if m.size > 1:
            assert S[np.ix_(m, m)][np.triu_indices(m.size, 1)].mean() >= cut - 1e-9
    nocut = genkt_cluster(E, E, definition=dataclasses.replace(d, cos_cut=-1.0),
                          strategy=strategy)
    assert nocut.n_merges > seq.n_merges
