"""Where the nightly job's parallel work runs: in this process, on threads, or on a Dask cluster.

An :class:`Executor` is anything with an order-preserving ``map(fn, items) -> list``, a
``workers`` count and ``close()``. The job hands it three kinds of independent work, and the
results are the same whichever executor runs them (same seed, same config):

- **embedding** of new memories (:class:`ExecutorEmbedder`): the texts the cache lacks are cut
  into the same ``embedding.batch_size`` batches the local path uses, and batches go to
  workers, each of which builds the configured embedder once and keeps it;
- **reduce and cluster**, one task per namespace (:func:`cluster_namespaces`, the job's only
  path, the local executor included); a namespace larger than ``sharding.max_shard_size``
  (with ``sharding.enabled``) is itself cut into shards that run as tasks
  (:func:`memmaint.clustering.stage.cluster_pool`);
- **per-cluster agent work** (:func:`plan_on`): the rule-based agents plan one cluster at a
  time, so the clusters are dealt out in contiguous chunks and the chunk plans concatenated
  in the order the local planner would have produced. The LLM backend keeps its own
  concurrency (``llm.max_concurrency``) and is not spread.

Executors (registry :data:`EXECUTORS`, :func:`make_executor`): ``local`` (in this thread),
``threads`` (a thread pool) and ``dask`` (extra ``distributed``: ``dask.distributed.Client``
on ``scheduler`` such as ``tcp://10.0.0.5:8786``, or a ``LocalCluster`` of ``workers``
processes when no scheduler is given).
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from memmaint.maintenance.core.config import Config, EmbeddingConfig
from memmaint.maintenance.core.errors import ConfigError, UserError, require
from memmaint.maintenance.core.records import Memory, new_id, to_utc, utcnow

if TYPE_CHECKING:
    from typing_extensions import Self

    from memmaint.clustering.pipeline import ClusteringResult

log = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")

__all__ = [
    "EXECUTORS",
    "DaskExecutor",
    "Executor",
    "ExecutorEmbedder",
    "LocalExecutor",
    "ThreadExecutor",
    "cluster_namespaces",
    "make_executor",
    "plan_on",
    "register_executor",
]


@runtime_checkable
class Executor(Protocol):
    """Runs independent tasks; ``map`` returns results in the order of ``items``."""

    name: str

    @property
    def workers(self) -> int:
        """How many tasks may run at once (sizes the chunks work is cut into)."""

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]: ...

    def close(self) -> None: ...


class LocalExecutor:
    """Every task in the calling thread, one after another (the default)."""

    name = "local"
    workers = 1

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        return [fn(item) for item in items]

    def close(self) -> None:
        return None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ThreadExecutor:
    """A thread pool of ``workers`` threads (numba, BLAS and onnxruntime release the GIL)."""

    name = "threads"

    def __init__(self, workers: int = 2) -> None:
        if workers < 1:
            raise UserError(f"--workers must be at least 1, got {workers}")
        self.workers = int(workers)
        self._pool = ThreadPoolExecutor(max_workers=self.workers,
                                        thread_name_prefix="memmaint")

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        return list(self._pool.map(fn, items))

    def close(self) -> None:
        self._pool.shutdown(wait=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class DaskExecutor:
    """Tasks on a Dask cluster (extra ``distributed``).

    Args:
        scheduler: address of a running scheduler (``tcp://HOST:8786``); every worker needs
            memmaint installed (same version) and, for the default embedder, its model
            package. ``None`` starts a ``LocalCluster`` on this machine.
        workers: LocalCluster workers (ignored with a scheduler).
        processes: LocalCluster workers as processes (``True``) or threads in this process.
        client: an existing ``distributed.Client`` to use instead (not closed by ``close``).
    """

    name = "dask"

    def __init__(self, scheduler: str | None = None, *, workers: int = 2,
                 processes: bool = True, client: Any = None, timeout: float = 30.0) -> None:
        distributed = require("distributed", "distributed")
        self._cluster = None
        self._own_client = client is None
        if client is not None:
            self.client = client
        elif scheduler:
            try:
                self.client = distributed.Client(scheduler, timeout=timeout)
            except (OSError, TimeoutError, ValueError) as exc:
                raise UserError(f"cannot reach the Dask scheduler at {scheduler}: "
                                f"{str(exc).splitlines()[0] if str(exc) else exc!r}") from None
        else:
            if workers < 1:
                raise UserError(f"--workers must be at least 1, got {workers}")
            self._cluster = distributed.LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=processes,
                dashboard_address=None, silence_logs=logging.WARNING)
            self.client = distributed.Client(self._cluster)
        self.scheduler = scheduler or self.client.scheduler.address

    @property
    def workers(self) -> int:
        """Worker threads the scheduler knows now (at least 1)."""
        info = self.client.scheduler_info()
        return max(1, sum(int(w.get("nthreads", 1)) for w in info.get("workers", {}).values()))

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        items = list(items)
        if not items:
            return []
        # Scatter first: tasks carry arrays, which Dask would otherwise embed in the graph.
        data = self.client.scatter(items, hash=False)
        futures = self.client.map(fn, data, pure=False)
        return list(self.client.gather(futures))

    def close(self) -> None:
        if self._own_client:
            self.client.close()
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"DaskExecutor({self.scheduler!r})"


ExecutorFactory = Callable[..., Executor]

EXECUTORS: dict[str, ExecutorFactory] = {
    "local": lambda scheduler=None, workers=None, **kw: LocalExecutor(),
    "threads": lambda scheduler=None, workers=None, **kw: ThreadExecutor(workers or 2),
    "dask": lambda scheduler=None, workers=None, **kw: DaskExecutor(
        scheduler, workers=workers or 2, **kw),
}


def register_executor(name: str, factory: ExecutorFactory) -> None:
    """Make :func:`make_executor` build ``factory(scheduler=..., workers=...)`` for ``name``."""
    EXECUTORS[name] = factory


def make_executor(name: str = "local", *, scheduler: str | None = None,
                  workers: int | None = None, **options: Any) -> Executor:
    """The executor ``name`` names (``local``, ``threads``, ``dask``)."""
    try:
        factory = EXECUTORS[name]
    except KeyError:
        raise ConfigError(f"unknown executor {name!r} (valid: "
                          f"{', '.join(sorted(EXECUTORS))})") from None
    if scheduler and name != "dask":
        raise UserError("--scheduler only applies to --executor dask")
    return factory(scheduler=scheduler, workers=workers, **options)


# -- embedding ------------------------------------------------------------------------------

_EMBEDDERS = threading.local()


def _worker_embedder(config: EmbeddingConfig) -> Any:
    """The embedder for ``config``, built once per worker thread (an embedder keeps
    per-call state such as ``last_truncated``, so threads do not share one)."""
    cache = getattr(_EMBEDDERS, "by_config", None)
    if cache is None:
        cache = _EMBEDDERS.by_config = {}
    embedder = cache.get(config)
    if embedder is None:
        from memmaint.maintenance.embed.base import get_embedder

        embedder = cache[config] = get_embedder(config)
    return embedder


def _embed_batches(task: tuple[EmbeddingConfig, list[list[str]]]
                   ) -> tuple[np.ndarray, int, str]:
    config, batches = task
    embedder = _worker_embedder(config)
    out, truncated = [], 0
    for texts in batches:
        out.append(np.asarray(embedder.embed(texts), dtype=np.float32))
        truncated += int(getattr(embedder, "last_truncated", 0) or 0)
    return np.concatenate(out), truncated, embedder.model_id


class ExecutorEmbedder:
    """An :class:`~memmaint.maintenance.embed.base.Embedder` that spreads ``embed`` calls.

    ``embed(texts)`` cuts ``texts`` into batches of ``batch_size`` (exactly the batches
    ``embed_memories(..., batch_size)`` would send one at a time), deals contiguous runs of
    batches to the executor's workers and concatenates the vectors in order. Call
    ``embed_memories(store, this, memories, batch_size=this.call_size)`` so each call carries
    one round of batches for every worker.
    """

    def __init__(self, embedder: Any, config: EmbeddingConfig, executor: Executor) -> None:
        self.embedder = embedder
        self.config = config
        self.executor = executor
        self.model_id = embedder.model_id
        self.dim = embedder.dim
        self.max_tokens = getattr(embedder, "max_tokens", None)
        self.batch_size = config.batch_size
        self.call_size = config.batch_size * max(1, executor.workers)
        self.last_truncated = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        batches = [texts[s:s + self.batch_size] for s in range(0, len(texts), self.batch_size)]
        per = math.ceil(len(batches) / max(1, self.executor.workers)) if batches else 1
        tasks = [(self.config, batches[s:s + per]) for s in range(0, len(batches), per)]
        results = self.executor.map(_embed_batches, tasks)
        self.last_truncated = sum(r[1] for r in results)
        for _vecs, _t, model_id in results:
            if model_id != self.model_id:
                raise UserError(f"a worker embeds with {model_id}, this process with "
                                f"{self.model_id}: install the same model on every worker")
        if not results:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.concatenate([r[0] for r in results])


# -- reduce and cluster, one task per namespace ---------------------------------------------

def _cluster_namespace(task: tuple[str, np.ndarray, np.ndarray, Config]
                       ) -> tuple[str, ClusteringResult]:
    from memmaint.clustering.stage import cluster_pool

    ns, vectors, weights, config = task
    # sharding=None: a namespace that needs shards is sharded by the driver, whose shards are
    # tasks of their own (cluster_namespaces)
    return ns, cluster_pool(vectors, weights, config.reduction, config.clustering)


def _cluster_batch(tasks: list[tuple[str, np.ndarray, np.ndarray, Config]]
                   ) -> list[tuple[str, ClusteringResult]]:
    return [_cluster_namespace(t) for t in tasks]


def batch_tasks(sizes: Sequence[int], n_batches: int) -> list[list[int]]:
    """Task positions dealt into at most ``n_batches`` contiguous runs of about equal total
    size (many small namespaces cost one task each otherwise: on Dask, a scatter, a
    scheduling round and a result each)."""
    n_batches = max(1, min(n_batches, len(sizes)))
    target = sum(sizes) / n_batches
    out: list[list[int]] = [[]]
    acc = 0.0
    for i, size in enumerate(sizes):
        if out[-1] and acc >= target * len(out) and len(out) < n_batches:
            out.append([])
        out[-1].append(i)
        acc += size
    return [b for b in out if b]


def cluster_namespaces(executor: Executor, vectors: np.ndarray,
                       by_namespace: Mapping[str, np.ndarray], weights: np.ndarray,
                       config: Config, on_done: Callable[[str, int], None] | None = None,
                       cluster_one: Callable[[np.ndarray, np.ndarray, Config],
                                             ClusteringResult] | None = None,
                       ) -> dict[str, ClusteringResult]:
    """The reduce-and-cluster stage over every namespace on its own (clusters never cross
    namespaces): namespace -> :class:`~memmaint.clustering.pipeline.ClusteringResult`.

    Namespaces are dealt into about four tasks per worker (:func:`batch_tasks`, by rows);
    one that :func:`~memmaint.clustering.stage.should_shard` (``[sharding]``) is sharded by
    :func:`~memmaint.clustering.stage.cluster_pool`, its shards running as tasks. On an
    executor with one worker (the local one) namespaces run one at a time and
    ``on_done(namespace, rows)`` is called after each, for progress; elsewhere after all of
    them. ``cluster_one(vectors, weights, config)``, when given, clusters each namespace that
    is not sharded, here, in place of ``cluster_pool`` (a faster path to the same labels: the
    tuner's caches); the sharding decision stays this function's.
    """
    if not by_namespace:  # an incremental night: nothing to import (the clustering stack)
        return {}
    from memmaint.clustering.stage import cluster_pool, should_shard

    out: dict[str, ClusteringResult] = {}
    tasks = []
    for ns, idx in by_namespace.items():
        if should_shard(config.sharding, len(idx)):
            out[ns] = cluster_pool(vectors[idx], weights[idx], config.reduction,
                                   config.clustering, config.sharding, executor=executor)
            if on_done is not None:
                on_done(ns, len(idx))
        elif cluster_one is not None:
            out[ns] = cluster_one(vectors[idx], weights[idx], config)
            if on_done is not None:
                on_done(ns, len(idx))
        else:
            tasks.append((ns, vectors[idx], weights[idx], config))
    if executor.workers <= 1:
        for task in tasks:
            ns, result = executor.map(_cluster_namespace, [task])[0]
            out[ns] = result
            if on_done is not None:
                on_done(ns, len(by_namespace[ns]))
    else:
        runs = batch_tasks([len(t[1]) for t in tasks], 4 * executor.workers)
        for part in executor.map(_cluster_batch, [[tasks[i] for i in run] for run in runs]):
            for ns, result in part:
                out[ns] = result
                if on_done is not None:
                    on_done(ns, len(by_namespace[ns]))
    return {ns: out[ns] for ns in by_namespace}


# -- per-cluster agent work -----------------------------------------------------------------

def _plan_chunk(task: tuple[list[Memory], np.ndarray, np.ndarray, Any, datetime, str,
                            Any, Any]) -> Any:
    from memmaint.maintenance.agents.rules import plan

    memories, labels, vectors, config, now, plan_id, priors, siblings = task
    return plan(memories, labels, vectors, config, now=now, plan_id=plan_id,
                priors=priors, siblings=siblings)


def _group_order(memories: Sequence[Memory], labels: np.ndarray) -> list[list[int]]:
    """Row indices per (namespace, label) in order of first appearance; each noise row is a
    group of its own (the grouping the rule-based planner uses)."""
    groups: dict[tuple[str, Any], list[int]] = {}
    for i, (m, label) in enumerate(zip(memories, labels)):
        key = (m.namespace, ("noise", i) if label < 0 else int(label))
        groups.setdefault(key, []).append(i)
    return list(groups.values())


def plan_on(executor: Executor, memories: Sequence[Memory], labels: Any, vectors: Any,
            config: Config, now: datetime | None = None, plan_id: str | None = None,
            siblings: Mapping[tuple[str, str], Sequence[str]] | None = None) -> Any:
    """The plan of the configured backend (:mod:`memmaint.maintenance.agents.dispatch`, the one
    switch); a backend that :func:`~memmaint.maintenance.agents.dispatch.plans_in_chunks`
    (the rules) has its clusters planned on ``executor`` in contiguous chunks (about four per
    worker). ``siblings``: the serve history's (``agents.outcome_rules.served_siblings``).

    Gives the plan the local planner gives for the same ``now`` and ``plan_id``: clusters in
    the same order, the same actions and merged-memory ids. Any other backend (or an empty
    pool, or one worker) is planned here, in one call.
    """
    from memmaint.maintenance.agents.dispatch import plan as dispatch_plan
    from memmaint.maintenance.agents.dispatch import plans_in_chunks
    from memmaint.maintenance.agents.rules import agents_config_hash
    from memmaint.maintenance.plan.model import Plan

    now = to_utc(now) if now is not None else utcnow()
    pid = plan_id or new_id()
    labels_arr = np.asarray(labels, dtype=np.int64).reshape(-1)
    agents = config.agents
    if not plans_in_chunks(config) or executor.workers <= 1 or len(memories) == 0 \
            or len(labels_arr) != len(memories):
        return dispatch_plan(memories, labels_arr, vectors, config, now=now, plan_id=pid,
                             siblings=siblings)
    vecs = np.asarray(vectors)
    groups = _group_order(memories, labels_arr)
    n_chunks = min(len(groups), 4 * executor.workers)
    target = math.ceil(len(memories) / n_chunks)
    chunks: list[list[int]] = [[]]
    for g in groups:
        if len(chunks[-1]) >= target:
            chunks.append([])
        chunks[-1].extend(g)
    from memmaint.maintenance.agents.outcome_rules import namespace_priors

    priors = namespace_priors(memories, agents, now)  # the whole pool's, as a local plan
    tasks = []
    for rows in chunks:
        idx = np.sort(np.asarray(rows, dtype=np.int64))
        keys = {(memories[i].namespace, memories[i].id) for i in idx}
        # the whole config: its [embedding] section gives the merges' clause vectors
        tasks.append(([memories[i] for i in idx], labels_arr[idx], vecs[idx], config, now,
                      pid, priors, {k: v for k, v in (siblings or {}).items() if k in keys}))
    parts = executor.map(_plan_chunk, tasks)
    clusters = tuple(c for p in parts for c in p.clusters)
    report: dict[str, Any] = {"clusters": 0, "singletons": 0, "memories": 0, "flagged": {}}
    for p in parts:
        for key in ("clusters", "singletons", "memories"):
            report[key] += int(p.report.get(key, 0))
        for k, v in (p.report.get("flagged") or {}).items():
            report["flagged"][k] = report["flagged"].get(k, 0) + int(v)
    result = Plan(clusters=clusters, config_hash=agents_config_hash(agents), plan_id=pid,
                  created_at=now, backend="rules")
    report["actions"] = result.summary()
    report = {k: report[k] for k in ("clusters", "singletons", "memories", "actions",
                                     "flagged")}
    log.info("planned %d memories in %d clusters on %d %s workers: %s", len(memories),
             len(clusters), executor.workers, executor.name, report["actions"])
    return Plan(clusters=clusters, config_hash=result.config_hash, plan_id=pid,
                created_at=now, backend="rules", report=report)
