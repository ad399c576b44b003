"""The reduce-and-cluster stage: one function the job, every executor and evaluation call.

:func:`cluster_pool` takes one pool (one namespace) from embeddings to labels: sharded when
``[sharding]`` says so (:func:`should_shard`; :func:`~memmaint.clustering.sharding.cluster_sharded`),
else in one block (:func:`~memmaint.clustering.pipeline.cluster_embeddings`). A setting such as
``[sharding] enabled = true`` therefore means the same with no executor, the local one,
threads or Dask.
"""

from __future__ import annotations

import time
from typing import Any

from memmaint.clustering.pipeline import ClusteringResult, cluster_embeddings
from memmaint.maintenance.core.config import ClusteringConfig, ReductionConfig, ShardingConfig

__all__ = ["cluster_pool", "should_shard"]


def should_shard(sharding: ShardingConfig | None, n: int) -> bool:
    """True when ``sharding`` is enabled and ``n`` memories exceed its ``max_shard_size``."""
    return bool(sharding is not None and sharding.enabled and n > sharding.max_shard_size)


def cluster_pool(embeddings: Any, weights: Any, reduction: ReductionConfig,
                 clustering: ClusteringConfig, sharding: ShardingConfig | None = None, *,
                 executor: Any = None) -> ClusteringResult:
    """The reduce-and-cluster stage for one pool (one namespace): sharded when
    :func:`should_shard` says so (its shards run on ``executor``, anything with an
    order-preserving ``map``; ``None``: one after another), else :func:`cluster_embeddings`.
    A sharded pool has no single merge history (``history`` is ``None``)."""
    n = len(embeddings)
    if not should_shard(sharding, n):
        return cluster_embeddings(embeddings, weights, reduction, clustering)
    from memmaint.clustering.sharding import cluster_sharded

    assert sharding is not None
    t0, c0 = time.perf_counter(), time.process_time()
    res = cluster_sharded(embeddings, weights, reduction, clustering,
                          max_shard_size=sharding.max_shard_size,
                          reconcile_cos=sharding.reconcile_cos, neighbours=sharding.neighbours,
                          seed=reduction.seed, executor=executor)
    return ClusteringResult(labels=res.labels, reduced=res.reduced,
                            reduction_fallback="; ".join(res.fallbacks) or None,
                            cluster_seconds=time.perf_counter() - t0, n_shards=res.n_shards,
                            cluster_cpu_seconds=time.process_time() - c0)
