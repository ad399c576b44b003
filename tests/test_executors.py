"""Executors: the nightly job gives the same plans on the local executor, a thread pool and a
2-worker Dask LocalCluster (threads in this process: worker processes take a minute to start
on a busy 2-core machine; the tasks are checked to pickle, as process workers need)."""

from __future__ import annotations

import dataclasses
import pickle
from datetime import datetime, timezone

import numpy as np
import pytest

from memmaint.datasets.pools import make_memory_pool
from memmaint.maintenance.agents.outcome_rules import namespace_priors
from memmaint.maintenance.agents.rules import plan
from memmaint.maintenance.core.config import config_from_dict
from memmaint.maintenance.core.errors import ConfigError, UserError
from memmaint.maintenance.embed.base import embed_memories
from memmaint.maintenance.embed.hashing import HashingEmbedder
from memmaint.maintenance.job.executors import (
    Executor,
    ExecutorEmbedder,
    LocalExecutor,
    ThreadExecutor,
    _cluster_namespace,
    _plan_chunk,
    cluster_namespaces,
    make_executor,
    plan_on,
)
from memmaint.maintenance.job.run import run_job
from memmaint.maintenance.report.model import RunReport
from memmaint.maintenance.store.sqlite import SQLiteStore

NOW = datetime(2025, 1, 1, tzinfo=timezone.utc)
CONFIG = {
    "embedding": {"model": "hashing", "dim": 64, "batch_size": 16},
    "reduction": {"method": "pca", "n_components": 3},
    "clustering": {"algorithm": "hdbscan", "hdbscan": {"min_cluster_size": 3}},
    "agents": {"merge_threshold": 0.8},
    "job": {"min_new_memories": 0},
}
NAMESPACES = ("alpha", "beta", "gamma")


def _pool_memories():
    out = []
    for k, ns in enumerate(NAMESPACES):
        p = make_memory_pool("support" if k != 1 else "mtg", n_classes=8, per_class=(3, 7),
                             seed=k, namespace=ns, now=NOW)
        out += p.memories
        # exact re-statements of every fourth memory: certain merges
        out += [dataclasses.replace(m, id=f"{m.id}-again", created_at=NOW)
                for m in p.memories[::4]]
    return out


@pytest.fixture(scope="module")
def memories():
    return _pool_memories()


@pytest.fixture
def store(tmp_path, memories):
    s = SQLiteStore(tmp_path / "pool.db")
    s.add_memories(memories)
    yield s
    s.close()


@pytest.fixture(scope="module")
def dask_executor():
    pytest.importorskip("distributed", reason="pip install 'memmaint[distributed]'")
    from memmaint.maintenance.job.executors import DaskExecutor

    ex = DaskExecutor(workers=2, processes=False)
    yield ex
    ex.close()


def _comparable(report):
    """A run's plan with what legitimately differs between two runs taken out: the random
    plan id (merged memories' ids derive from it) and the timings."""
    out = report.primary
    merged = {d.target for d in out.decisions if d.type == "merge"}
    decisions = [(d.namespace, d.memory_id, d.type, d.group,
                  "<merged>" if d.target in merged else d.target, d.agent, d.reason)
                 for d in out.decisions]
    return (decisions, out.actions_by_type, out.n_clusters, out.noise, out.cluster_sizes,
            report.embedding, report.namespaces)


def test_protocol_and_registry():
    assert isinstance(LocalExecutor(), Executor)
    with ThreadExecutor(2) as ex:
        assert isinstance(ex, Executor) and ex.workers == 2
        assert ex.map(lambda x: x * x, range(5)) == [0, 1, 4, 9, 16]
    assert make_executor("local").map(str, [1, 2]) == ["1", "2"]
    with pytest.raises(ConfigError, match="valid: dask, local, threads"):
        make_executor("spark")
    with pytest.raises(UserError, match="--scheduler"):
        make_executor("threads", scheduler="tcp://127.0.0.1:1")


def test_executor_embedder_gives_the_local_vectors(tmp_path, memories):
    cfg = config_from_dict(CONFIG)
    local = HashingEmbedder(dim=64)
    with SQLiteStore(tmp_path / "a.db") as a, SQLiteStore(tmp_path / "b.db") as b, \
            ThreadExecutor(3) as ex:
        want = embed_memories(a, local, memories, batch_size=16)
        spread = ExecutorEmbedder(local, cfg.embedding, ex)
        assert spread.call_size == 48
        got = embed_memories(b, spread, memories, batch_size=spread.call_size)
        assert got.vectors.tobytes() == want.vectors.tobytes()
        assert (got.embedded, got.cached) == (want.embedded, want.cached)
        assert a.stats()["embeddings"] == b.stats()["embeddings"]


def test_plan_on_equals_the_local_plan(memories):
    cfg = config_from_dict(CONFIG)
    vecs = HashingEmbedder(dim=64).embed([m.text for m in memories])
    # the true classes (some noise) per namespace: clusters, singletons and noise rows
    labels = np.array([m.metadata["label"] + 100 * NAMESPACES.index(m.namespace)
                       if m.metadata["label"] >= 0 else -1 for m in memories])
    want = plan(memories, labels, vecs, cfg, now=NOW, plan_id="p-1")
    with ThreadExecutor(3) as ex:
        got = plan_on(ex, memories, labels, vecs, cfg, now=NOW, plan_id="p-1")
    assert got.to_dict() == want.to_dict()
    assert want.summary()["merge"] > 0  # the plan does something worth comparing


def test_cluster_namespaces_equals_one_namespace_at_a_time(memories):
    cfg = config_from_dict(CONFIG)
    vecs = HashingEmbedder(dim=64).embed([m.text for m in memories])
    weights = np.array([m.importance for m in memories])
    by_ns = {ns: np.array([i for i, m in enumerate(memories) if m.namespace == ns])
             for ns in NAMESPACES}
    with ThreadExecutor(2) as ex:
        got = cluster_namespaces(ex, vecs, by_ns, weights, cfg)
    assert list(got) == list(NAMESPACES)
    for ns, idx in by_ns.items():
        name, alone = _cluster_namespace((ns, vecs[idx], weights[idx], cfg))
        assert name == ns
        np.testing.assert_array_equal(got[ns].labels, alone.labels)
        np.testing.assert_array_equal(got[ns].reduced, alone.reduced)


def test_tasks_pickle_for_process_workers(memories):
    cfg = config_from_dict(CONFIG)
    vecs = HashingEmbedder(dim=64).embed([m.text for m in memories[:10]])
    cases = ((_cluster_namespace, ("a", vecs, np.ones(10), cfg),
              lambda r: (r[0], r[1].labels.tolist(), r[1].reduced.tolist(),
                         r[1].reduction_fallback)),
             (_plan_chunk, (memories[:10], np.zeros(10, np.int64), vecs, cfg.agents, NOW, "p",
                           namespace_priors(memories, cfg.agents, NOW), {}),
              lambda r: r.to_dict()))
    for fn, task, result in cases:
        fn2, task2 = pickle.loads(pickle.dumps((fn, task)))
        assert fn2 is fn
        got = pickle.loads(pickle.dumps(fn2(task2)))  # results travel back pickled too
        assert result(got) == result(fn(task))


@pytest.mark.parametrize("kind", ["threads", "dask"])
def test_nightly_run_same_plans_as_local(tmp_path, memories, kind, request):
    cfg = config_from_dict(CONFIG)
    paths = []
    for name in ("local", kind):
        path = tmp_path / f"{name}.db"
        with SQLiteStore(path) as s:
            s.add_memories(memories)
        paths.append(path)
    with SQLiteStore(paths[0]) as s:
        want = run_job(s, cfg, now=NOW)
    ex = (request.getfixturevalue("dask_executor") if kind == "dask" else ThreadExecutor(2))
    try:
        with SQLiteStore(paths[1]) as s:
            got = run_job(s, cfg, now=NOW, executor=ex)
    finally:
        if kind != "dask":
            ex.close()
    assert want.status == got.status == "succeeded"
    assert sorted(got.namespaces) == list(NAMESPACES)
    assert _comparable(got) == _comparable(want)
    assert want.primary.actions_by_type["merge"] > 0
    # and the stores end the same, merged memories' random ids aside
    with SQLiteStore(paths[0]) as a, SQLiteStore(paths[1]) as b:
        def state(store):
            return sorted((m.namespace, m.text, m.status.value, m.kind, m.importance)
                          for m in store.iter_memories())
        assert a.stats() == b.stats()
        assert state(a) == state(b)


def test_dask_executor_maps_in_order(dask_executor):
    assert dask_executor.workers == 2
    assert dask_executor.map(abs, [-3, 2, -1]) == [3, 2, 1]
    assert dask_executor.map(abs, []) == []


def test_unreachable_scheduler_is_a_user_error():
    pytest.importorskip("distributed", reason="pip install 'memmaint[distributed]'")
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(UserError, match="cannot reach the Dask scheduler"):
        make_executor("dask", scheduler=f"tcp://127.0.0.1:{port}", timeout=2)


def test_cli_run_with_executor(tmp_path, cli, memories):
    pytest.importorskip("distributed", reason="pip install 'memmaint[distributed]'")
    cfg = tmp_path / "c.toml"
    cfg.write_text('[embedding]\nmodel = "hashing"\ndim = 64\n[reduction]\nmethod = "pca"\n'
                   '[job]\nmin_new_memories = 0\n', encoding="utf-8")
    db = tmp_path / "s.db"
    with SQLiteStore(db) as s:
        s.add_memories(memories)
    res = cli("run", "--db", db, "--config", cfg, "--executor", "threads", "--workers", "2",
              "--dry-run")
    assert res.exit_code == 0, res.output
    res = cli("run", "--db", db, "--scheduler", "tcp://127.0.0.1:1")
    assert res.exit_code == 2 and "--executor dask" in res.stderr


# -- tuning across workers: several `memmaint tune` processes share one study ---------------

TUNE_FAST = ["--fix", "reduction.method=pca", "--fix", "clustering.algorithm=hdbscan",
             "--embedder", "hashing", "--seed", "1", "--min-precision", "0.2", "--no-plots"]


def _train_pools(folder):
    folder.mkdir()
    for i in range(2):
        pool = make_memory_pool("mtg", n_classes=4, per_class=(4, 6), seed=i, noise_frac=0.1)
        (folder / f"pool{i}.jsonl").write_text(pool.to_jsonl())
    return folder


def test_study_storage_urls(tmp_path):
    from memmaint.optimize.study import journal_storage, make_storage, sqlalchemy_pg_url

    assert sqlalchemy_pg_url("postgresql://u:p@h:5/db") == "postgresql+psycopg://u:p@h:5/db"
    assert sqlalchemy_pg_url("postgres://h/db") == "postgresql+psycopg://h/db"
    storage = make_storage(f"journal:///{tmp_path / 'study.log'}")
    assert type(storage).__name__ == "JournalStorage"
    with pytest.raises(UserError, match="does not exist"):
        journal_storage(f"journal:///{tmp_path / 'nowhere' / 'study.log'}")


def _tune_processes(tmp_path, storage, counts):
    import os
    import subprocess
    import sys
    from pathlib import Path

    train = _train_pools(tmp_path / "train")
    repo = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    procs = [subprocess.Popen(
        [sys.executable, "-m", "memmaint.maintenance.cli.main", "-q", "tune", "--train", str(train),
         "--trials", str(n), "--storage", storage, "--study-name", "shared",
         "-o", str(tmp_path / f"best{k}.toml"), *TUNE_FAST],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
        for k, n in enumerate(counts)]
    for p in procs:
        _out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err


def _check_shared_study(study, counts):
    import optuna

    assert sorted(t.number for t in study.trials) == list(range(sum(counts)))
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    per_worker = sorted(sum(t.user_attrs.get("worker") == w for t in study.trials)
                        for w in {t.user_attrs.get("worker") for t in study.trials})
    assert per_worker == sorted(counts)  # each process ran its own --trials


@pytest.mark.slow  # two interpreters start (imports dominate)
@pytest.mark.postgres
def test_two_tune_processes_share_a_postgres_study(tmp_path, pg_url):
    import optuna

    from memmaint.optimize.study import sqlalchemy_pg_url

    _tune_processes(tmp_path, pg_url, (3, 4))
    study = optuna.load_study(study_name="shared", storage=sqlalchemy_pg_url(pg_url))
    _check_shared_study(study, (3, 4))


@pytest.mark.slow
def test_two_tune_processes_share_a_journal_file(tmp_path):
    import optuna

    from memmaint.optimize.study import journal_storage

    url = f"journal:///{tmp_path / 'study.log'}"
    _tune_processes(tmp_path, url, (2, 3))
    _check_shared_study(optuna.load_study(study_name="shared", storage=journal_storage(url)),
                        (2, 3))


SHARDED = {**CONFIG, "sharding": {"enabled": True, "max_shard_size": 25}}


@pytest.mark.parametrize("kind", ["default", "local", "threads", "dask"])
def test_sharding_means_the_same_with_every_executor(tmp_path, memories, kind, request):
    """``[sharding] enabled = true`` shards a namespace larger than max_shard_size whether the
    job runs with no executor (a default ``memmaint run``), the local one, threads or Dask,
    and every one of them gives the plan of the local executor."""
    from memmaint.maintenance.job.executors import LocalExecutor

    cfg = config_from_dict(SHARDED)
    largest = max(sum(m.namespace == ns for m in memories) for ns in NAMESPACES)
    assert largest > 25  # so at least one namespace must be sharded

    def run(executor, name):
        with SQLiteStore(tmp_path / f"{name}.db") as s:
            s.add_memories(memories)
            return run_job(s, cfg, now=NOW, dry_run=True, executor=executor)

    want = run(LocalExecutor(), "want")
    executor = {"default": None, "local": LocalExecutor(), "threads": ThreadExecutor(2)}.get(
        kind) if kind != "dask" else request.getfixturevalue("dask_executor")
    try:
        got = run(executor, "got")
    finally:
        if kind == "threads":
            executor.close()
    shards = got.stage("cluster").detail.get("shards", 0)
    assert shards >= 2
    assert _comparable(got) == _comparable(want)
    # and without sharding the same pool is clustered in one piece
    plain = config_from_dict(CONFIG)
    with SQLiteStore(tmp_path / f"{kind}-plain.db") as s:
        s.add_memories(memories)
        unsharded = run_job(s, plain, now=NOW, dry_run=True, executor=executor
                            if kind != "threads" else None)
    assert "shards" not in unsharded.stage("cluster").detail


def test_cli_run_shards_by_default_config(tmp_path, cli, memories):
    """A plain ``memmaint run`` with ``[sharding] enabled = true`` in its config shards."""
    import tomli_w

    db = tmp_path / "cli.db"
    with SQLiteStore(db) as s:
        s.add_memories(memories)
    cfg = tmp_path / "sharded.toml"
    cfg.write_bytes(tomli_w.dumps(SHARDED).encode())
    report_path = tmp_path / "report.json"
    out = cli("run", "--db", str(db), "--config", str(cfg), "--dry-run", "--force",
              "--report", str(report_path))
    assert out.exit_code == 0, out.output
    report = RunReport.load(report_path)
    assert report.stage("cluster").detail.get("shards", 0) >= 2


def test_a_local_run_reports_the_cpu_of_reduce_and_cluster(tmp_path, memories):
    """The stage table's CPU column: measured where the work runs (cluster_embeddings), not
    around the bookkeeping that adds the stage's results up."""
    with SQLiteStore(tmp_path / "cpu.db") as s:
        s.add_memories(memories)
        report = run_job(s, config_from_dict(CONFIG), now=NOW, dry_run=True)
    for name in ("reduce", "cluster"):
        stage = report.stage(name)
        assert stage is not None and stage.seconds > 0
        assert stage.cpu_seconds > 0.1 * stage.seconds  # not just the bookkeeping's
