"""Sharded clustering: partition sizes, reconciliation of clusters cut by shard borders, and
agreement with the unsharded result on pools small enough to do both."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memmaint.clustering.pipeline import cluster_embeddings
from memmaint.clustering.sharding import (
    agreement,
    cluster_sharded,
    partition,
    reconcile,
    reconcile_threshold,
    shard_centroids,
)
from memmaint.maintenance.core.config import config_from_dict
from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.job.executors import ThreadExecutor

CFG = config_from_dict({"reduction": {"method": "none"},
                        "clustering": {"algorithm": "hdbscan",
                                       "hdbscan": {"min_cluster_size": 5}}})


def blobs(n_blobs: int, size: int, dim: int = 16, spread: float = 0.04,
          seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors around ``n_blobs`` random directions: (embeddings, true blob per row)."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((n_blobs, dim))
    truth = np.repeat(np.arange(n_blobs), size)
    X = centres[truth] / np.linalg.norm(centres[truth], axis=1, keepdims=True)
    X = X + spread * rng.standard_normal(X.shape)
    order = rng.permutation(len(X))
    X, truth = X[order], truth[order]
    return (X / np.linalg.norm(X, axis=1, keepdims=True)).astype(np.float32), truth


# -- partition ------------------------------------------------------------------------------

def test_partition_respects_the_size_limit_and_is_deterministic():
    X, _ = blobs(12, 50)
    shards = partition(X, 130, seed=3)
    sizes = np.bincount(shards)
    assert sizes.sum() == len(X) and sizes.max() <= 130 and len(sizes) >= 5
    assert sizes.min() > 0
    np.testing.assert_array_equal(shards, partition(X, 130, seed=3))
    # numbered by first row
    firsts = [int(np.flatnonzero(shards == s)[0]) for s in range(len(sizes))]
    assert firsts == sorted(firsts)


def test_partition_of_a_small_pool_is_one_shard():
    X, _ = blobs(3, 10)
    assert set(partition(X, 30).tolist()) == {0}


def test_partition_cuts_identical_rows_too():
    X = np.ones((100, 4), np.float32)
    sizes = np.bincount(partition(X, 30))
    assert sizes.sum() == 100 and sizes.max() <= 30


def test_partition_keeps_blobs_together():
    X, truth = blobs(10, 40, spread=0.02)
    shards = partition(X, 120, seed=0)
    for b in range(10):
        assert len(set(shards[truth == b].tolist())) == 1


# -- reconcile ------------------------------------------------------------------------------

def test_reconcile_joins_across_shards_only():
    e = np.eye(4, dtype=np.float32)
    near = (e[0] + 0.05 * e[1]).astype(np.float32)
    centres = np.stack([e[0], near, e[0], e[2], e[3]])
    shard_of = np.array([0, 0, 1, 1, 2])
    group, merges = reconcile(shard_of, centres, 0.9)
    # 0 and 1 are alike but in one shard: kept apart; shard 1's first cluster joins the
    # closest one (cluster 0, cosine 1.0), not both
    assert merges == 1
    assert group[0] == group[2] and group[1] != group[0]
    assert len(set(group.tolist())) == 4
    group, merges = reconcile(shard_of, centres, 1.01)
    assert merges == 0 and len(set(group.tolist())) == 5
    group, merges = reconcile(shard_of, centres, 0.9, shard_pairs=[(1, 2)])
    assert merges == 0


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 40), st.integers(1, 5), st.floats(0.0, 0.99), st.integers(0, 10**6))
def test_reconcile_invariants(k, n_shards, threshold, seed):
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((k, 3)).astype(np.float32)
    shard_of = rng.integers(0, n_shards, size=k)
    group, merges = reconcile(shard_of, centres, threshold)
    assert len(set(group.tolist())) == k - merges
    for g in set(group.tolist()):
        members = np.flatnonzero(group == g)
        assert len(set(shard_of[members].tolist())) == len(members)  # one per shard
        if len(members) > 1:  # joined through eligible pairs: each has an eligible partner
            unit = centres[members] / np.linalg.norm(centres[members], axis=1, keepdims=True)
            sims = unit @ unit.T
            np.fill_diagonal(sims, -2)
            assert (sims.max(axis=1) >= np.float32(threshold) - 1e-6).all()
    assert list(dict.fromkeys(group.tolist())) == list(range(k - merges))


def test_shard_centroids():
    X = np.array([[1, 0], [1, 0], [0, 1], [0, 1], [1, 1]], np.float32)
    shard, label, centre, radius = shard_centroids(X, np.array([0, 0, 0, 1, 1]),
                                           np.array([4, 4, 7, 7, -1]))
    assert shard.tolist() == [0, 0, 1] and label.tolist() == [4, 7, 7]
    np.testing.assert_allclose(centre, [[1, 0], [0, 1], [0, 1]], atol=1e-6)
    np.testing.assert_allclose(radius, [0, 0, 0], atol=1e-3)
    _, _, _, radius = shard_centroids(np.array([[1, 0], [0, 1]], np.float32), np.zeros(2, int),
                                      np.zeros(2, int))
    # members at 45 degrees from the centre: distance sqrt(2 - 2 cos 45)
    np.testing.assert_allclose(radius, [np.sqrt(2 - np.sqrt(2))], rtol=1e-5)


def test_reconcile_needs_touching_clusters():
    """Two shards' clusters pointing the same way but far apart for their size stay apart."""
    centres = np.array([[1.0, 0.0], [np.cos(0.2), np.sin(0.2)]], np.float32)
    shard_of = np.array([0, 1])
    dist = float(np.linalg.norm(centres[0] - centres[1]))
    group, merges = reconcile(shard_of, centres, 0.9, radius=np.array([0.05, 0.05]))
    assert merges == 0 and dist > 0.1
    group, merges = reconcile(shard_of, centres, 0.9, radius=np.array([0.15, 0.15]))
    assert merges == 1 and group.tolist() == [0, 0]


# -- end to end -----------------------------------------------------------------------------

def test_small_pool_is_exactly_the_unsharded_result():
    X, _ = blobs(6, 20)
    full = cluster_embeddings(X, None, CFG.reduction, CFG.clustering).labels
    res = cluster_sharded(X, None, CFG.reduction, CFG.clustering, max_shard_size=len(X))
    assert res.n_shards == 1 and res.merges == 0
    assert agreement(full, res.labels).f1 == 1.0


def test_sharded_agrees_with_unsharded_on_a_small_pool():
    X, truth = blobs(30, 20, seed=1)
    w = np.random.default_rng(0).uniform(0.5, 2.0, len(X))
    full = cluster_embeddings(X, w, CFG.reduction, CFG.clustering).labels
    res = cluster_sharded(X, w, CFG.reduction, CFG.clustering, max_shard_size=150, seed=0)
    assert res.n_shards >= 4 and max(res.shard_sizes) <= 150
    score = agreement(full, res.labels)
    assert score.f1 >= 0.9, score
    assert agreement(truth, res.labels).f1 >= 0.9


def test_reconciliation_rejoins_clusters_cut_by_shard_borders():
    """Two shards that cut two of four blobs in halves: the halves come back together
    through reconciliation, and only through it."""
    X, truth = blobs(4, 60, seed=2)
    shards = np.zeros(len(X), dtype=np.int64)
    for b in range(4):
        rows = np.flatnonzero(truth == b)
        if b < 2:
            shards[rows[len(rows) // 2:]] = 1  # cut in two
        else:
            shards[rows] = b - 2  # whole, one in each shard
    full = cluster_embeddings(X, None, CFG.reduction, CFG.clustering).labels
    assert agreement(truth, full).f1 > 0.95
    res = cluster_sharded(X, None, CFG.reduction, CFG.clustering, max_shard_size=150,
                          shards=shards)
    assert res.shard_clusters == (3, 3) and res.merges == 2
    assert agreement(full, res.labels).f1 > 0.95
    cut = cluster_sharded(X, None, CFG.reduction, CFG.clustering, max_shard_size=150,
                          shards=shards, reconcile_cos=1.01)  # reconciliation off
    assert cut.merges == 0
    assert agreement(full, cut.labels).recall == pytest.approx(0.75, abs=0.02)  # 2 halved
    with pytest.raises(InputError, match="shards"):
        cluster_sharded(X, None, CFG.reduction, CFG.clustering, max_shard_size=150,
                        shards=shards + 1)


def test_shards_run_on_an_executor_with_the_same_result():
    X, _ = blobs(20, 15, seed=4)
    local = cluster_sharded(X, None, CFG.reduction, CFG.clustering, max_shard_size=100)
    with ThreadExecutor(2) as ex:
        spread = cluster_sharded(X, None, CFG.reduction, CFG.clustering, max_shard_size=100,
                                 executor=ex)
    np.testing.assert_array_equal(local.labels, spread.labels)
    np.testing.assert_array_equal(local.shards, spread.shards)


def test_genkt_threshold_includes_its_cosine_cut():
    g = config_from_dict({"clustering": {"algorithm": "genkt", "genkt": {"cos_cut": 0.95}}})
    assert reconcile_threshold(g.clustering, 0.9) == 0.95
    assert reconcile_threshold(CFG.clustering, 0.9) == 0.9


def test_agreement():
    assert agreement([0, 0, 1, 1], [5, 5, 2, 2]).f1 == 1.0
    assert agreement([-1, -1, 0, 0], [-1, -1, 0, 0]).f1 == 1.0  # noise rows are singletons
    assert agreement([-1, -1], [3, 3]).precision == 0.5
    with pytest.raises(InputError):
        agreement([0, 1], [0])


def test_job_shards_a_large_namespace(tmp_path):
    from datetime import datetime, timezone

    from memmaint.datasets.pools import make_memory_pool
    from memmaint.maintenance.job.run import run_job
    from memmaint.maintenance.store.sqlite import SQLiteStore

    now = datetime(2025, 1, 1, tzinfo=timezone.utc)
    pool = make_memory_pool("support", n_classes=10, per_class=(4, 8), seed=0, now=now)
    cfg = config_from_dict({"embedding": {"model": "hashing", "dim": 64},
                            "reduction": {"method": "pca", "n_components": 3},
                            "clustering": {"hdbscan": {"min_cluster_size": 3}},
                            "job": {"min_new_memories": 0},
                            "sharding": {"enabled": True, "max_shard_size": 25}})
    with SQLiteStore(tmp_path / "s.db") as store:
        store.add_memories(pool.memories)
        with ThreadExecutor(2) as ex:
            report = run_job(store, cfg, now=now, dry_run=True, executor=ex)
    assert report.status == "dry-run" and report.primary.n_memories == len(pool.memories)
    assert report.primary.n_clusters > 0
