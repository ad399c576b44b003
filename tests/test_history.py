"""The merge history carried from clustering to the plan and the report (issue #31 item 2)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.cluster.hierarchy import fcluster, linkage

from memmaint.clustering.density.hdbscan_adapter import HDBSCANClusterer
from memmaint.clustering.history import MergeHistory
from memmaint.clustering.pipeline import GenKTClusterer, cluster_embeddings
from memmaint.maintenance.core.config import ClusteringConfig, ReductionConfig


def _joined_reference(h: MergeHistory) -> tuple[list[int], list[float]]:
    steps, dists = [-1] * h.n_inputs, [float("nan")] * h.n_inputs
    for k, (a, b) in enumerate(h.pairs.tolist()):
        for obj in (a, b):
            if obj < h.n_inputs and steps[obj] < 0:
                steps[obj], dists[obj] = k, float(h.distance[k])
    return steps, dists


def _members(h: MergeHistory, obj: int) -> set[int]:
    if obj < h.n_inputs:
        return {obj}
    a, b = h.pairs[obj - h.n_inputs]
    return _members(h, int(a)) | _members(h, int(b))


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 40), st.integers(0, 10_000), st.integers(1, 12))
def test_joined_and_split_on_random_trees(n, seed, max_size):
    X = np.random.default_rng(seed).normal(size=(n, 2))
    h = MergeHistory.from_linkage(linkage(X, "single"))
    step, dist = h.joined()
    want_step, want_dist = _joined_reference(h)
    assert step.tolist() == want_step
    np.testing.assert_array_equal(dist, np.asarray(want_dist))
    labels = fcluster(linkage(X, "single"), t=2, criterion="maxclust").astype(np.int64) - 1
    labels[::5] = -1  # some noise, as HDBSCAN leaves
    split = h.split(labels, max_size)
    assert (split[labels < 0] == -1).all()  # noise stays noise
    for label in np.unique(labels[labels >= 0]):
        rows = labels == label
        pieces = np.unique(split[rows])
        assert not set(pieces.tolist()) & set(split[~rows].tolist())  # pieces stay inside
        sizes = [int((split == p).sum()) for p in pieces]
        if rows.sum() <= max_size:
            assert pieces.tolist() == [label]  # within the limit: untouched
        else:
            assert max(sizes) <= max_size
            assert label in pieces  # the first piece keeps the label


def test_split_keeps_the_tightest_groups():
    # two tight triples and a pair joined last: cut at 3, the triples come out whole
    X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.2], [9.0], [9.1]])
    h = MergeHistory.from_linkage(linkage(X, "single"))
    split = h.split(np.zeros(8, dtype=np.int64), 3)
    groups = {frozenset(np.flatnonzero(split == p).tolist()) for p in np.unique(split)}
    assert groups == {frozenset({0, 1, 2}), frozenset({3, 4, 5}), frozenset({6, 7})}


def test_clusterers_keep_their_history():
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(size=(15, 3)), rng.normal(size=(15, 3)) + 6])
    hdb = HDBSCANClusterer(min_cluster_size=3).fit(X)
    assert hdb.history_.n_inputs == 30 and hdb.history_.n_merges == 29
    assert _members(hdb.history_, 30 + 28) == set(range(30))  # the root holds every point
    gkt = GenKTClusterer(p=-1.0, R=2.0, cos_cut=-1.0).fit(X)
    h = gkt.history_
    assert h.n_inputs == 30 and h.n_merges == gkt.sequence_.n_merges
    np.testing.assert_array_equal(h.pairs, gkt.sequence_.merged_pairs)


def test_cluster_embeddings_carries_the_history():
    rng = np.random.default_rng(4)
    emb = rng.normal(size=(40, 8))
    res = cluster_embeddings(emb, None, ReductionConfig(method="pca", n_components=2),
                             ClusteringConfig(algorithm="hdbscan"))
    assert isinstance(res.history, MergeHistory) and res.history.n_inputs == 40


@pytest.mark.parametrize("max_size", [0, 100])
def test_split_without_anything_to_cut_is_a_copy(max_size):
    h = MergeHistory.from_linkage(linkage(np.arange(6.0)[:, None], "single"))
    labels = np.array([0, 0, 0, 1, 1, -1])
    out = h.split(labels, max_size)
    np.testing.assert_array_equal(out, labels)
    assert out is not labels


def test_the_report_says_where_each_decided_memory_joined(tmp_path):
    from datetime import datetime, timezone

    from memmaint.datasets.pools import make_memory_pool
    from memmaint.maintenance.cli.maint import decisions_table
    from memmaint.maintenance.core.config import config_from_dict
    from memmaint.maintenance.job.run import run_job
    from memmaint.maintenance.report.model import RunReport
    from memmaint.maintenance.store.sqlite import SQLiteStore

    now = datetime(2025, 1, 1, tzinfo=timezone.utc)
    pool = make_memory_pool("support", n_classes=6, per_class=(3, 6), seed=2, now=now)
    cfg = config_from_dict({"embedding": {"model": "hashing", "dim": 64},
                            "reduction": {"method": "pca", "n_components": 3},
                            "clustering": {"hdbscan": {"min_cluster_size": 2}},
                            "job": {"min_new_memories": 0}})
    with SQLiteStore(tmp_path / "s.db") as store:
        store.add_memories(pool.memories)
        report = run_job(store, cfg, now=now, dry_run=True)
    out = RunReport.from_json(report.to_json()).primary  # survives the stored form
    assert out is not None and out.decisions
    keys = {f"{d.namespace}\x1f{d.memory_id}" for d in out.decisions}
    assert out.joined and set(out.joined) <= keys
    steps = sorted(step for step, _ in out.joined.values())
    assert all(0 <= s < len(pool.memories) - 1 for s in steps)
    assert all(d >= 0 for _, d in out.joined.values())
    step, dist = next(iter(out.joined.values()))
    table = decisions_table(out, width=200)
    assert "joined" in table.splitlines()[0] and f"step {step}, d={dist:.3g}" in table


def test_split_large_without_a_history_uses_the_clusters_own_embeddings():
    from memmaint.clustering.history import split_large

    rng = np.random.default_rng(9)
    centres = rng.normal(size=(3, 16))
    E = np.vstack([c + 0.01 * rng.normal(size=(10, 16)) for c in centres])
    labels = np.r_[np.zeros(30, dtype=np.int64), [-1, 1, 1]]
    E = np.vstack([E, rng.normal(size=(3, 16))])
    out = split_large(labels, E, 10)
    assert (out[30:] == labels[30:]).all()  # noise and the small cluster untouched
    groups = {frozenset(np.flatnonzero(out == p).tolist()) for p in np.unique(out[:30])}
    assert groups == {frozenset(range(10)), frozenset(range(10, 20)),
                      frozenset(range(20, 30))}  # the three tight groups, whole
    assert not set(out[:30].tolist()) & {-1, 1}


def test_a_cluster_above_linkage_max_is_halved_first_then_cut_to_size(monkeypatch):
    """A cluster too large for an average linkage of its own is cut by seeded 2-means into
    parts within LINKAGE_MAX first; every piece ends within the limit, labels stay unique, and
    the tight groups still end whole."""
    from memmaint.clustering import history
    from memmaint.clustering.history import split_large

    rng = np.random.default_rng(4)
    centres = rng.normal(size=(8, 16))
    E = np.vstack([c + 0.01 * rng.normal(size=(10, 16)) for c in centres])
    labels = np.r_[np.zeros(80, dtype=np.int64), [-1, 1, 1]]
    E = np.vstack([E, rng.normal(size=(3, 16))])
    monkeypatch.setattr(history, "LINKAGE_MAX", 25)
    out = split_large(labels, E, 10)
    assert (out[80:] == labels[80:]).all()
    sizes = np.bincount(out[:80])
    assert sizes[sizes > 0].max() <= 10 and not set(out[:80].tolist()) & {-1, 1}
    groups = {frozenset(np.flatnonzero(out == p).tolist()) for p in np.unique(out[:80])}
    assert groups == {frozenset(range(10 * g, 10 * g + 10)) for g in range(8)}
    assert np.array_equal(split_large(labels, E, 10), out)  # seeded: the same cut again


def test_the_rules_are_handed_clusters_of_at_most_rules_max_cluster():
    from memmaint.maintenance.agents.dispatch import cluster_size_limit
    from memmaint.maintenance.agents.rules import RULES_MAX_CLUSTER
    from memmaint.maintenance.core.config import Config

    assert cluster_size_limit(Config()) == RULES_MAX_CLUSTER == 8192
