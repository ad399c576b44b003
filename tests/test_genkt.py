"""GenKT: definition, hand-checked histories, labels, re-cutting, the estimator, properties."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from memmaint.clustering.genkt.estimator import (
    GenKT,
    GenKTDefinition,
    GenKTInputError,
    InvalidDefinition,
    genkt_cluster,
)
from memmaint.maintenance.core.errors import InputError, UserError


@pytest.fixture(scope="module", autouse=True)
def _warm():
    x = np.random.default_rng(0).normal(size=(20, 2))
    genkt_cluster(x, definition=GenKTDefinition(p=0.0)).labels(0.5)
    seq = genkt_cluster(x, definition=GenKTDefinition(p=-1.0))
    for R_cut in (0.5, 0.01):
        try:
            seq.labels(R_cut)  # compiles the replay used by the validity check
        except ValueError:
            pass


def partition(labels) -> set[frozenset[int]]:
    groups: dict[int, set[int]] = {}
    for i, lab in enumerate(labels):
        groups.setdefault(int(lab), set()).add(i)
    return {frozenset(g) for g in groups.values()}


# ---------------------------------------------------------------- definition

def test_definition_is_frozen_and_described():
    d = GenKTDefinition()
    assert (d.p, d.R, d.cos_cut, d.recombination) == (-1.0, 1.2, 0.26, "weighted")
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.R = 2.0  # type: ignore[misc]
    text = d.description()
    assert "anti-kt" in text and "R = 1.2" in text and "no beam distance" in text
    assert "cos(e_i, e_j) >= 0.26" in text and "weighted mean" in text
    assert "Cambridge/Aachen" in GenKTDefinition(p=0).description()
    assert "kt (p = 1)" in GenKTDefinition(p=1).description()
    assert "generalised-kt (p = -1.69)" in GenKTDefinition(p=-1.69).description()
    wta = GenKTDefinition(recombination="wta", cos_cut=-1.0).description()
    assert "winner-takes-all" in wta and "no cosine cut" in wta


@pytest.mark.parametrize("kwargs,fragment", [
    ({"R": 0.0}, "R must be"), ({"R": -1.0}, "R must be"), ({"R": float("inf")}, "R must be"),
    ({"R": float("nan")}, "R must be"), ({"p": float("nan")}, "p must be"),
    ({"p": True}, "p must be"), ({"p": 99.0}, "p must be"), ({"cos_cut": 1.5}, "cos_cut"),
    ({"recombination": "E_scheme"}, "recombination"), ({"R": "1"}, "R must be"),
])
def test_definition_rejects_bad_values(kwargs, fragment):
    with pytest.raises(InvalidDefinition, match=fragment) as info:
        GenKTDefinition(**kwargs)
    assert isinstance(info.value, UserError) and isinstance(info.value, ValueError)
    assert "\n" not in str(info.value)


# ---------------------------------------------------------------- hand-checked histories

X3 = np.array([[0.0], [0.6], [1.0]])
W3 = np.array([1.0, 0.1, 0.1])


def test_cambridge_aachen_merges_the_closest_pair_first():
    cs = genkt_cluster(X3, weights=W3, definition=GenKTDefinition(p=0.0, R=1.0))
    # (1,2) at 0.4 -> object 3 at 0.8; then (0,3) at 0.8 (0-2 at exactly R was not eligible)
    np.testing.assert_array_equal(cs.merged_pairs, [[1, 2], [0, 3]])
    np.testing.assert_array_equal(cs.new_objects, [3, 4])
    np.testing.assert_allclose(cs.distance, [0.4, 0.8])
    np.testing.assert_allclose(cs.dij, [0.16, 0.64])
    np.testing.assert_array_equal(cs.step, [0, 1])
    np.testing.assert_array_equal(cs.labels(), [0, 0, 0])
    np.testing.assert_allclose(cs.final_weights, [1.2])
    np.testing.assert_allclose(cs.final_positions, [[(0.6 * 0.1 + 1.0 * 0.1 + 0) / 1.2]])


def test_the_history_is_one_record_per_merge_with_named_fields():
    """``history`` (issue #31): FastJet's history entries as numpy records; the plain arrays
    are views of its fields, the same for every strategy and the reference."""
    from memmaint.clustering.genkt.estimator import MERGE

    x = np.hstack([X3, np.zeros((3, 1))])  # 2-D, for the plane strategy too
    for strategy in ("reference", "nn", "tree", "plane", "graph"):
        cs = genkt_cluster(x, weights=W3, definition=GenKTDefinition(p=0.0, R=1.0),
                           strategy=strategy)
        h = cs.history
        assert h.dtype == MERGE and h.dtype.names == ("step", "i", "j", "k", "dij", "dist2")
        assert h["step"].tolist() == [0, 1] and h["k"].tolist() == [3, 4]
        assert h[["i", "j"]].tolist() == [(1, 2), (0, 3)]
        np.testing.assert_array_equal(cs.merged_pairs, np.stack([h["i"], h["j"]], axis=1))
        np.testing.assert_array_equal(cs.dij, h["dij"])
        np.testing.assert_array_equal(cs.distance, np.sqrt(h["dist2"]))
        np.testing.assert_allclose(h["dist2"], [0.16, 0.64])
        assert cs.merged_pairs.flags.c_contiguous and cs.merged_pairs.dtype == np.int64


def test_anti_kt_lets_the_heavy_item_attract():
    cs = genkt_cluster(X3, weights=W3, definition=GenKTDefinition(p=-1.0, R=1.0))
    # wp = w^-2 = (1, 100, 100): d(0,1) = 0.36 beats d(1,2) = 100 * 0.16
    np.testing.assert_array_equal(cs.merged_pairs, [[0, 1], [2, 3]])
    x3 = 0.6 * 0.1 / 1.1
    np.testing.assert_allclose(cs.dij, [0.36, 1.1 ** -2 * (1.0 - x3) ** 2])
    kt = genkt_cluster(X3, weights=W3, definition=GenKTDefinition(p=1.0, R=1.0))
    np.testing.assert_array_equal(kt.merged_pairs[0], [1, 2])  # wp = w^2: soft pairs first


def test_winner_takes_all_keeps_the_heavier_position():
    cs = genkt_cluster(X3, weights=W3,
                       definition=GenKTDefinition(p=-1.0, R=1.0, recombination="wta"))
    # object 3 stays at 0.0, so item 2 is exactly R away: not eligible
    np.testing.assert_array_equal(cs.merged_pairs, [[0, 1]])
    np.testing.assert_array_equal(cs.labels(), [0, 0, 1])
    np.testing.assert_array_equal(cs.final_ids, [2, 3])  # final objects in id order
    np.testing.assert_array_equal(cs.final_positions, [[1.0], [0.0]])


def test_cosine_cut_and_its_absence():
    X = np.array([[0.0], [0.5]])
    E = np.array([[1.0, 0.0], [0.0, 3.0]])  # orthogonal (normalised internally)
    d = GenKTDefinition(p=0.0, R=1.0, cos_cut=0.2)
    assert genkt_cluster(X, E, definition=d).n_merges == 0
    assert genkt_cluster(X, None, definition=d).n_merges == 1  # no embeddings: no cut
    assert genkt_cluster(X, E, definition=dataclasses.replace(d, cos_cut=0.0)).n_merges == 1


def test_weighted_embedding_recombination_blocks_a_later_merge():
    # 0 and 1 merge (cos 0.8 >= 0.5); their weighted mean embedding is then too far from 2's
    X = np.array([[0.0], [0.1], [0.3]])
    E = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]])
    cs = genkt_cluster(X, E, [1.0, 1.0, 1.0], GenKTDefinition(p=0.0, R=1.0, cos_cut=0.5))
    assert cs.merged_pairs.tolist() == [[0, 1]]
    assert cs.labels().tolist() == [0, 0, 1]


def test_weights_are_scaled_by_their_maximum_and_clipped():
    X = np.array([[0.0], [0.1], [5.0]])
    cs = genkt_cluster(X, weights=[10.0, 0.0, 20.0], definition=GenKTDefinition(R=1.0))
    np.testing.assert_allclose(sorted(cs.final_weights), [0.5 + 1e-6, 1.0])


def test_labels_numbered_in_order_of_first_appearance():
    X = np.array([[5.0], [0.0], [5.1], [0.1], [9.0]])
    cs = genkt_cluster(X, definition=GenKTDefinition(p=0.0, R=0.5))
    np.testing.assert_array_equal(cs.labels(), [0, 1, 0, 1, 2])
    assert cs.n_clusters() == 3


# ---------------------------------------------------------------- re-cutting

@pytest.mark.parametrize("recombination", ["weighted", "wta"])
@pytest.mark.parametrize("cos", [False, True])
def test_recut_equals_fresh_clustering_for_p0(recombination, cos):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(150, 2))
    E = rng.normal(size=(150, 5)) + 1.0 if cos else None
    w = rng.lognormal(size=150)
    d = GenKTDefinition(p=0.0, R=1.5, cos_cut=0.3, recombination=recombination)
    seq = genkt_cluster(X, E, w, d)
    for R_cut in (1.2, 0.7, 0.3, 0.05):
        fresh = genkt_cluster(X, E, w, dataclasses.replace(d, R=R_cut))
        np.testing.assert_array_equal(seq.labels(R_cut), fresh.labels())
        assert seq.n_clusters(R_cut) == fresh.n_clusters()
    np.testing.assert_array_equal(seq.labels(1.5), seq.labels())


def test_recut_is_not_dropping_merges_beyond_the_cut():
    """A merge at >= R_cut can bring centroids closer; the history is cut there, whole."""
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, 0.9]])  # 2 is 1.03 from both, 0.9 from mid
    seq = genkt_cluster(X, definition=GenKTDefinition(p=0.0, R=1.5))
    assert seq.merged_pairs.tolist() == [[0, 1], [2, 3]]
    assert seq.distance[1] < seq.distance[0]  # non-monotone
    np.testing.assert_array_equal(seq.labels(0.95), [0, 1, 2])  # not [0, 0, 0] or [0, 1, 1]
    np.testing.assert_array_equal(
        genkt_cluster(X, definition=GenKTDefinition(p=0.0, R=0.95)).labels(), [0, 1, 2])


def test_recut_for_p_nonzero_checks_validity():
    # anti-kt: the heavy item takes its neighbour at distance 1 first, while the light pair
    # 0.1 apart waits (its d_ij is 100); at R_cut = 0.5 that pair would merge instead
    X = np.array([[0.0], [1.0], [1.1]])
    w = np.array([1.0, 0.01, 0.01])
    seq = genkt_cluster(X, weights=w, definition=GenKTDefinition(p=-1.0, R=2.0))
    assert seq.merged_pairs[0].tolist() == [0, 1]
    with pytest.raises(ValueError, match="re-cluster"):
        seq.labels(0.5)
    fresh = genkt_cluster(X, weights=w, definition=GenKTDefinition(p=-1.0, R=0.5))
    assert fresh.labels().tolist() == [0, 1, 1]
    # valid case: after the merges below the cut no pair closer than R_cut is left
    X2, w2 = np.array([[0.0], [0.1], [5.0]]), np.array([1.0, 0.5, 1.0])
    seq2 = genkt_cluster(X2, weights=w2, definition=GenKTDefinition(p=-1.0, R=10.0))
    assert seq2.n_merges == 2
    np.testing.assert_array_equal(seq2.labels(1.0), [0, 0, 1])
    np.testing.assert_array_equal(
        genkt_cluster(X2, weights=w2, definition=GenKTDefinition(p=-1.0, R=1.0)).labels(),
        [0, 0, 1])


@pytest.mark.parametrize("p", [-1.0, 1.0])
def test_recut_for_p_nonzero_is_exact_whenever_allowed(p):
    rng = np.random.default_rng(11)
    outcomes = set()
    for trial in range(6):
        X = np.concatenate([rng.normal(c, 0.2, size=(25, 2)) for c in (0.0, 3.0, 6.0)])
        w = rng.lognormal(size=75)
        E = rng.normal(size=(75, 3)) + 1.0 if trial % 2 else None
        d = GenKTDefinition(p=p, R=2.0, cos_cut=0.2)
        seq = genkt_cluster(X, E, w, d)
        for R_cut in (1.0, 0.4, 0.1):
            try:
                got = seq.labels(R_cut)
            except ValueError:
                outcomes.add("refused")
                continue
            outcomes.add("cut")
            fresh = genkt_cluster(X, E, w, dataclasses.replace(d, R=R_cut))
            np.testing.assert_array_equal(got, fresh.labels())
    assert "cut" in outcomes


@pytest.mark.parametrize("bad", [0.0, -1.0, 1.3, "x"])
def test_recut_rejects_bad_radius(bad):
    seq = genkt_cluster(np.zeros((3, 1)), definition=GenKTDefinition(R=1.2))
    with pytest.raises(ValueError, match="R_cut"):
        seq.labels(bad)


# ---------------------------------------------------------------- input errors

@pytest.mark.parametrize("X,E,w,fragment", [
    (np.zeros(3), None, None, "2-D"),
    (np.zeros((0, 2)), None, None, "at least one"),
    (np.array([[0.0], [np.nan]]), None, None, "NaN"),
    (np.zeros((2, 1)), np.zeros((2, 3)), None, "all-zero"),
    (np.zeros((2, 1)), np.ones((3, 3)), None, "embeddings must have shape"),
    (np.zeros((2, 1)), np.array([[1.0], [np.inf]]), None, "embeddings contain"),
    (np.zeros((2, 1)), None, [0.0, 0.0], "all be zero"),
    (np.zeros((2, 1)), None, [1.0, -1.0], "non-negative"),
    (np.zeros((2, 1)), None, [1.0, 2.0, 3.0], "weights must have shape"),
])
def test_bad_input_is_a_one_line_input_error(X, E, w, fragment):
    with pytest.raises(GenKTInputError, match=fragment) as info:
        genkt_cluster(X, E, w)
    assert isinstance(info.value, InputError) and "\n" not in str(info.value)


def test_unknown_strategy_and_definition_type():
    with pytest.raises(InvalidDefinition, match="strategy"):
        genkt_cluster(np.zeros((2, 1)), strategy="tiled")
    with pytest.raises(TypeError):
        genkt_cluster(np.zeros((2, 1)), definition={"p": 0})  # type: ignore[arg-type]


def test_inputs_are_not_modified():
    rng = np.random.default_rng(0)
    X, E, w = rng.normal(size=(40, 2)), rng.normal(size=(40, 4)), rng.uniform(size=40)
    copies = X.copy(), E.copy(), w.copy()
    genkt_cluster(X, E, w, GenKTDefinition(R=2.0))
    for a, b in zip((X, E, w), copies):
        np.testing.assert_array_equal(a, b)


# ---------------------------------------------------------------- estimator

# (sklearn's estimator checks: tests/test_estimators.py)

def test_estimator_matches_the_function():
    rng = np.random.default_rng(5)
    X, E, w = rng.normal(size=(60, 3)), rng.normal(size=(60, 8)), rng.lognormal(size=60)
    est = GenKT(p=-1.5, R=1.0, cos_cut=0.1, recombination="wta").fit(
        X, sample_weight=w, embeddings=E)
    seq = genkt_cluster(X, E, w, GenKTDefinition(p=-1.5, R=1.0, cos_cut=0.1,
                                                 recombination="wta"))
    np.testing.assert_array_equal(est.labels_, seq.labels())
    np.testing.assert_array_equal(est.sequence_.merged_pairs, seq.merged_pairs)
    assert est.n_clusters_ == seq.n_clusters() and est.labels_.dtype == np.int64
    np.testing.assert_array_equal(
        GenKT(p=-1.5, R=1.0).fit_predict(X, sample_weight=w),
        genkt_cluster(X, None, w, GenKTDefinition(p=-1.5, R=1.0)).labels())


@pytest.mark.parametrize("params,fit_kwargs,X", [
    ({"R": -1.0}, {}, np.zeros((3, 2))),
    ({"strategy": "fast"}, {}, np.zeros((3, 2))),
    ({}, {}, np.array([[0.0, np.nan]])),
    ({}, {"sample_weight": [1.0, -1.0]}, np.zeros((2, 2))),
    ({}, {"embeddings": np.ones((3, 2))}, np.zeros((2, 2))),
])
def test_estimator_errors_are_value_errors(params, fit_kwargs, X):
    with pytest.raises(ValueError):
        GenKT(**params).fit(X, **fit_kwargs)


# ---------------------------------------------------------------- properties

points = st.integers(1, 40).flatmap(lambda n: st.integers(1, 3).flatmap(
    lambda D: arrays(np.float64, (n, D), elements=st.floats(-10, 10, width=32))))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(X=points, data=st.data(), p=st.sampled_from([-2.0, -1.0, 0.0, 0.5, 1.0]),
       R=st.floats(0.1, 8.0), rec=st.sampled_from(["weighted", "wta"]))
def test_properties_weights_labels_stopping(X, data, p, R, rec):
    n = X.shape[0]
    w = data.draw(arrays(np.float64, n, elements=st.floats(0, 100, width=32)))
    w[data.draw(st.integers(0, n - 1))] = 50.0  # some weight is positive
    seq = genkt_cluster(X, None, w, GenKTDefinition(p=p, R=R, recombination=rec))
    scaled = np.maximum(w / w.max(), 1e-6)
    lab = seq.labels()
    # every input labelled, labels 0..K-1 in order of first appearance
    assert lab.shape == (n,) and lab.min() == 0 and seq.n_clusters() == lab.max() + 1
    _, first = np.unique(lab, return_index=True)
    assert np.all(np.diff(first) > 0)
    assert seq.n_merges + seq.n_clusters() == n
    # weight conservation, overall and per cluster
    np.testing.assert_allclose(seq.final_weights.sum(), scaled.sum(), rtol=1e-12)
    np.testing.assert_allclose(np.sort(seq.final_weights),
                               np.sort(np.bincount(lab, weights=scaled)), rtol=1e-12)
    # no beam distance: it stops only when no pair of final objects is closer than R
    fp = seq.final_positions
    d2 = ((fp[:, None, :] - fp[None, :, :]) ** 2).sum(-1)[np.triu_indices(len(fp), 1)]
    assert np.all(d2 >= R * R * (1 - 1e-12))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 60), D=st.integers(1, 3),
       p=st.sampled_from([-1.0, 0.0, 1.0]), cos=st.booleans())
def test_partition_is_permutation_equivariant(seed, n, D, p, cos):
    rng = np.random.default_rng(seed)
    X, w = rng.normal(size=(n, D)), rng.lognormal(size=n)  # distinct distances (a.s.)
    E = rng.normal(size=(n, 4)) if cos else None
    d = GenKTDefinition(p=p, R=1.0, cos_cut=0.0)
    perm = rng.permutation(n)
    base = genkt_cluster(X, E, w, d).labels()
    moved = genkt_cluster(X[perm], None if E is None else E[perm], w[perm], d).labels()
    # moved item i is original item perm[i]
    assert {frozenset(int(perm[i]) for i in g) for g in partition(moved)} == partition(base)


# ---------------------------------------------------------------- the kernels' disk cache

def test_every_kernel_is_disk_cached_and_stamped_with_its_kernel_files():
    import json
    from pathlib import Path

    from memmaint.clustering.genkt import _kernels as K
    from memmaint.clustering.genkt import _kernels_common as C

    K.ensure_fresh()
    modules = {k.py_func.__module__.rsplit(".", 1)[1] for k in C.KERNELS}
    assert modules == {"_kernels", "_kernels_common", "_kernels_brute", "_kernels_tree",
                       "_kernels_caches", "_kernels_plane", "_kernels_graph",
                       "_kernels_graph_heap", "_kernels_graph_index"}
    assert all(k._cache.__class__.__name__ == "FunctionCache" for k in C.KERNELS)
    assert len({k._cache.cache_path for k in C.KERNELS}) == 1
    stamp = Path(C.KERNELS[0]._cache.cache_path) / "genkt_kernels.sources"
    if stamp.exists():  # (not when the cache folder is read-only)
        assert json.loads(stamp.read_text()) == K.module_digests()


def test_a_kernel_files_digest_covers_the_kernel_files_it_imports_from(monkeypatch):
    """A kernel file's cached code holds its callees and the constants it imports, from other
    files: its digest changes with them, and with nothing else (issue #31: an edit to the
    graph kernels no longer recompiles the other strategies)."""
    from pathlib import Path

    from memmaint.clustering.genkt import _kernels as K
    from memmaint.clustering.genkt import _kernels_graph_heap, _kernels_plane

    before = K.module_digests()
    read = Path.read_bytes
    for module in (_kernels_graph_heap, _kernels_plane):
        monkeypatch.setattr(Path, "read_bytes", lambda self, path=module.__file__:
                            read(self) + b"# edited\n" if str(self) == path else read(self))
        after = K.module_digests()
        monkeypatch.undo()
        changed = {name for name in before if before[name] != after[name]}
        if module is _kernels_plane:
            assert changed == {"_kernels_plane"}
        else:  # the graph's heap: the graph index and loop import from it
            assert changed == {"_kernels_graph_heap", "_kernels_graph_index", "_kernels_graph"}


def test_importing_the_kernels_touches_no_cache(tmp_path):
    """The disk cache is turned on and its stamp checked on first use, not at import: an
    import creates no folder and reads no stamp (issue #31)."""
    import os
    import subprocess
    import sys

    code = ("import memmaint.clustering.genkt._kernels as K, memmaint.clustering.genkt._graph; "
            "import memmaint.clustering.genkt._kernels_common as C; print(sorted(K._prepared), "
            "sorted({type(k._cache).__name__ for k in C.KERNELS}))")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["MEMMAINT_CACHE_DIR"] = str(tmp_path / "cache")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=env).stdout.strip()
    assert out == "[] ['NullCache']"
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize("strategy", ["nn", "tree", "plane", "graph"])
def test_every_strategy_checks_the_kernel_cache_and_announces_its_compile(strategy,
                                                                         monkeypatch):
    """Every strategy's path (the graph driver included: numba checks each function's own
    file only, so a change to a callee's file would otherwise run stale inlined code) checks
    the stamp before its first kernel call, and goes through ``prepare``."""
    from memmaint.clustering.genkt import _kernels as K

    calls = []
    real_fresh, real_prepare = K.ensure_fresh, K.prepare
    monkeypatch.setattr(K, "ensure_fresh", lambda: (calls.append("fresh"), real_fresh())[1])
    monkeypatch.setattr(K, "prepare", lambda s: (calls.append(s), real_prepare(s))[1])
    X = np.random.default_rng(1).normal(size=(30, 2 if strategy == "plane" else 3))
    genkt_cluster(X, definition=GenKTDefinition(p=-1.0, R=1.0), strategy=strategy)
    assert strategy in calls and "fresh" in calls


def test_a_strategys_first_compile_is_announced_once(tmp_path, monkeypatch, caplog):
    import logging

    from memmaint.clustering.genkt import _kernels as K

    class FakeCache:
        cache_path = str(tmp_path)

        def flush(self):
            pass

    class FakeKernel:
        _cache = FakeCache()

    monkeypatch.setattr(K, "KERNELS", [FakeKernel()])
    monkeypatch.setattr(K, "_prepared", {})
    with caplog.at_level(logging.WARNING, logger="memmaint"):
        notice = K.prepare("tree")
        notice.done()
        assert "compiling GenKT's numba kernels (tree strategy) for this machine" in caplog.text
        assert "compiled GenKT's numba kernels (tree strategy) in" in caplog.text
        assert list(tmp_path.glob("genkt-*-cluster.compiled"))
        caplog.clear()
        K.prepare("tree").done()  # compiled before: silent
        assert caplog.text == ""
        K.prepare("graph")  # another strategy compiles other kernels
        assert "(graph strategy)" in caplog.text


def test_a_change_to_a_kernel_file_drops_the_caches_that_depend_on_it(tmp_path):
    import json
    from types import SimpleNamespace

    from memmaint.clustering.genkt import _kernels as K

    class FakeCache:
        cache_path = str(tmp_path)

        def __init__(self):
            self.flushed = 0

        def flush(self):
            self.flushed += 1

    class FakeKernel:
        def __init__(self, module):
            self._cache = FakeCache()
            self.py_func = SimpleNamespace(__module__=f"memmaint.clustering.genkt.{module}")

    kernels = [FakeKernel("_kernels"), FakeKernel("_kernels_graph")]
    stamp = tmp_path / "genkt_kernels.sources"
    stamp.write_text("0123abc")  # the one-digest stamp of earlier versions
    digests = {"_kernels": "a1", "_kernels_graph": "g1"}
    assert K.refresh_disk_cache(kernels, digests) == {"_kernels", "_kernels_graph"}
    assert [k._cache.flushed for k in kernels] == [1, 1]
    assert K.refresh_disk_cache(kernels, digests) == set()  # same sources: kept
    assert K.refresh_disk_cache(kernels, {**digests, "_kernels_graph": "g2"}) == {
        "_kernels_graph"}  # the graph kernels changed: only their caches go
    assert [k._cache.flushed for k in kernels] == [1, 2]
    assert json.loads(stamp.read_text()) == {"_kernels": "a1", "_kernels_graph": "g2"}
    assert K.refresh_disk_cache([object()], {"x": "1"}) == set()  # no cache (DISABLE_JIT)


def test_slot_and_node_tables_are_named_records_initialised_like_the_old_arrays():
    """The slot tables (I, F) and the k-d tree's node tables (T, FN) are record arrays with
    named fields: a new slot has every int field -1 and every float field 0 (the 2-D arrays
    they replaced were np.full(-1) and np.zeros); nodes take the fill they are given."""
    from memmaint.clustering.genkt import _kernels_common as C

    # aligned: numba types arrays of a packed dtype as unaligned, and reads them slower
    assert all(d.isalignedstruct for d in (C.SLOT_I, C.SLOT_F, C.NODE_T, C.NODE_F))
    I, F = C.slots_new(4)
    assert I.dtype == C.SLOT_I and F.dtype == C.SLOT_F
    assert {"oid", "nn", "rhead", "alive", "budget"} <= set(I.dtype.names)
    assert all((I[f] == -1).all() for f in I.dtype.names)
    assert all((F[f] == 0.0).all() for f in F.dtype.names)
    T, FN = C.nodes_new(3, np.int64(-1))
    assert T.dtype == C.NODE_T and FN.dtype == C.NODE_F
    assert all((T[f] == -1).all() for f in T.dtype.names)
    assert all((FN[f] == 0.0).all() for f in FN.dtype.names)
