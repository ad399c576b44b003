"""Incremental runs (issue #38 item 1): the next run places what changed against the last
run's clusters and plans only the clusters it touches; ``full=True`` is exactly a full run;
a crash between runs leaves the next run correct."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from datetime import timedelta

import pytest
from test_job import TOPICS, cfg, pool

from memmaint.maintenance.core.records import Memory, Status, utcnow
from memmaint.maintenance.job.incremental import StateDir, state_dir_for
from memmaint.maintenance.job.run import run_job
from memmaint.maintenance.store.sqlite import SQLiteStore

NEW_TOPIC = "The office plants are watered every Friday afternoon by the facilities team"


def inc_cfg(**over):
    """Incremental on; a tiny pool drifts fast, so the drift limit is high."""
    over.setdefault("job__incremental_max_drift", 0.5)
    return cfg(job__incremental=True, job__min_new_memories=1, **over)


def additions(tag: str) -> list[Memory]:
    """Two more copies of topic 0 (a touched cluster) and two of a new topic."""
    when = utcnow() - timedelta(hours=1)
    texts = [TOPICS[0], TOPICS[0], NEW_TOPIC, NEW_TOPIC]
    return [Memory(text=t, id=f"{tag}-{i}", namespace="ns", created_at=when)
            for i, t in enumerate(texts)]


@pytest.fixture
def db(tmp_path):
    """A maintained store: one applied incremental-mode (so, first: full) run."""
    path = tmp_path / "pool.db"
    with SQLiteStore(path) as store:
        store.add_memories(pool())
        first = run_job(store, inc_cfg())
    assert first.status == "succeeded"
    assert first.apply["incremental"]["ns"] == {"mode": "full",
                                                "why": "no state from an earlier run"}
    return path


def plan_of(path, config, **kw):
    plans = []
    with SQLiteStore(path) as store:
        report = run_job(store, config, dry_run=True, plan_sink=plans.append, **kw)
    return report, plans[0]


def actions(plan) -> set[tuple]:
    """Every action as (type, subjects, targets, created memory's id and text)."""
    return {(a.type, a.subjects, a.targets, getattr(getattr(a, "new_memory", None), "id", None),
             getattr(getattr(a, "new_memory", None), "text", None)) for _c, a in plan.actions()}


def test_first_run_keeps_a_state_and_decides_as_without_it(tmp_path, db):
    state = state_dir_for(SQLiteStore(db)).load("ns")
    assert state is not None and state.base_size == 18 and state.drift == 0
    with SQLiteStore(db) as store:
        active = {m.id for m in store.iter_memories("ns", statuses=[Status.ACTIVE])}
    assert set(state.ids.tolist()) == active  # the pool after the apply: merged memories in
    other = tmp_path / "off.db"  # the same first run with incremental off: same decisions
    with SQLiteStore(other) as store:
        store.add_memories(pool())
    _, on = plan_of(other, inc_cfg())
    _, off = plan_of(other, cfg(job__min_new_memories=1))
    assert on.decisions() == off.decisions()
    assert not StateDir(f"{other}.state").file("ns").exists()  # a dry run keeps nothing


def test_incremental_equals_full_on_the_touched_clusters(db):
    with SQLiteStore(db) as store:
        store.add_memories(additions("new"))
    now = utcnow()
    inc_report, inc = plan_of(db, inc_cfg(), now=now)
    full_report, full = plan_of(db, inc_cfg(), now=now, full=True)
    mode = inc_report.apply["incremental"]["ns"]
    assert mode["mode"] == "incremental" and mode["changed"] == 4
    assert mode["placed"] == 2 and mode["touched_clusters"] == 1
    assert full_report.apply["incremental"]["ns"] == {"mode": "full", "why": "--full"}
    planned = {mid for c in inc.clusters for mid in c.memory_ids}
    assert len(planned) == 5 < full_report.pool_before == 10  # only the touched clusters
    # the same actions (the full run's clusterer may lump a kept memory in with them)
    full_actions = actions(full)
    assert actions(inc) <= full_actions
    full_decisions = full.decisions()
    assert {k: v for k, v in full_decisions.items() if k[1] in planned} == inc.decisions()
    assert all(v == "keep" for k, v in full_decisions.items() if k[1] not in planned)
    created = {m.id for c in inc.clusters for m in c.created}
    assert created and created == {m.id for c in full.clusters for m in c.created}
    assert inc_report.primary.actions_by_type["merge"] == 5  # 3 of topic 0, the new pair
    assert inc_report.pool_before == full_report.pool_before


def test_full_gives_exactly_the_full_run_plan(db, tmp_path):
    with SQLiteStore(db) as store:
        store.add_memories(additions("new"))
    now = utcnow()
    _, forced = plan_of(db, inc_cfg(), now=now, full=True)
    shutil.rmtree(f"{db}.state")  # no state at all: the plain full run
    report, plain = plan_of(db, inc_cfg(), now=now)
    assert report.apply["incremental"]["ns"]["mode"] == "full"
    assert forced.to_json() == plain.to_json()


def test_unchanged_store_is_idle_and_config_change_runs_full(db):
    """Nothing added, changed or removed and nothing due: the namespace is left out of the
    run (even with force) before anything is embedded; its state stays valid."""
    with SQLiteStore(db) as store:
        report = run_job(store, inc_cfg(), dry_run=True, force=True)
    assert report.status == "skipped" and report.embedding == {}
    assert report.apply["skipped_namespaces"]["ns"].startswith(
        "incremental: nothing added, changed or removed since run ")
    with SQLiteStore(db) as store:  # an applied idle run leaves the state as it was
        state_before = state_dir_for(store).load("ns")
        assert run_job(store, inc_cfg(), force=True).status == "skipped"
    with SQLiteStore(db) as store:
        store.add_memories(additions("later"))
    report, _ = plan_of(db, inc_cfg())
    assert report.apply["incremental"]["ns"]["mode"] == "incremental"
    assert report.apply["incremental"]["ns"]["state_run"] == state_before.run_id
    changed, _ = plan_of(db, inc_cfg(agents__merge_threshold=0.97), force=True)
    assert changed.apply["incremental"]["ns"]["why"] == (
        "the configuration changed since the state was written")


def test_an_untouched_namespace_costs_no_embedding_clustering_or_planning(tmp_path):
    """Two maintained namespaces, news in one: the other is idle (left out before anything
    is embedded), and the touched one decides as it would alone; a batched executor gives
    the same plan."""
    from memmaint.maintenance.job.executors import ThreadExecutor, batch_tasks

    path = tmp_path / "two.db"
    with SQLiteStore(path) as store:
        store.add_memories(pool("ns") + pool("quiet"))
        first = run_job(store, inc_cfg())
        assert first.status == "succeeded" and set(first.namespaces) == {"ns", "quiet"}
        store.add_memories(additions("new"))
        n_ns = store.count_memories("ns", statuses=[Status.ACTIVE])
    now = utcnow()
    report, plan = plan_of(path, inc_cfg(), now=now, force=True)
    assert report.namespaces == ["ns"]
    assert report.apply["skipped_namespaces"]["quiet"].startswith("incremental: nothing")
    assert set(report.apply["incremental"]) == {"ns"}
    assert report.pool_before == n_ns  # only its memories were embedded (or read)
    assert {s.name for s in report.stages} & {"reduce"} == set()
    assert all(c.namespace == "ns" for c in plan.clusters)
    _, plan_alone = plan_of(path, inc_cfg(), now=now, namespaces=["ns"])
    assert plan_alone.decisions() == plan.decisions()
    with ThreadExecutor(2) as ex:
        _, threaded = plan_of(path, inc_cfg(), now=now, force=True, executor=ex)
    assert threaded.decisions() == plan.decisions()
    assert batch_tasks([100] * 8, 4) == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert batch_tasks([500, 1, 1, 1], 2) == [[0], [1, 2, 3]] and batch_tasks([], 3) == []


def test_an_incremental_night_builds_one_embedder(db, monkeypatch):
    """The idle check and the embedding stage share the run's embedder (a model that loads
    for seconds loads once per run)."""
    from memmaint.maintenance.embed import base

    built = []
    real = base.get_embedder

    def counting(config=None):
        built.append(config)
        return real(config)

    monkeypatch.setattr(base, "get_embedder", counting)
    with SQLiteStore(db) as store:
        store.add_memories(additions("new"))
    report, _ = plan_of(db, inc_cfg())
    assert report.apply["incremental"]["ns"]["mode"] == "incremental"
    assert len(built) == 1


def test_time_sweep_replans_a_cluster_whose_memory_expired(db):
    """No memory changed, but by next year every TTL has run out: the verdicts changed."""
    report, plan = plan_of(db, inc_cfg(), force=True, now=utcnow() + timedelta(days=400))
    assert report.apply["incremental"]["ns"]["swept"] > 0
    assert plan.clusters  # planned without clustering, as the sweep asked


def test_drift_past_the_limit_rebuilds_in_full(db):
    with SQLiteStore(db) as store:
        store.add_memories(additions("new"))  # 4 new over a rebuild of 18: 0.22
    report, _ = plan_of(db, inc_cfg(job__incremental_max_drift=0.2))
    assert report.apply["incremental"]["ns"]["mode"] == "full"
    assert report.apply["incremental"]["ns"]["why"].startswith("drift 0.222")


CHILD = textwrap.dedent("""
    import json, sys
    from memmaint.maintenance.core.config import config_from_dict
    from memmaint.maintenance.job.run import run_job
    from memmaint.maintenance.store.sqlite import SQLiteStore

    with SQLiteStore(sys.argv[1]) as store:
        report = run_job(store, config_from_dict(json.loads(sys.argv[2])))
    print("done", report.status, flush=True)
""")


@pytest.mark.parametrize("point", ["run-record", "run-commit", "state-save"])
def test_a_crash_between_runs_leaves_the_next_run_correct(db, point):
    """Killed before the commit (``run-record``: nothing applied, the old state still right)
    or after it but before the state is written (``run-commit``, ``state-save``: the old state
    no longer matches the last successful run, so the next run is full)."""
    with SQLiteStore(db) as store:
        store.add_memories(additions("new"))
    data = inc_cfg().to_dict()
    env = {**os.environ, "MEMMAINT_FAULT_AT": point}
    proc = subprocess.run([sys.executable, "-c", CHILD, str(db), json.dumps(data)],
                          check=False, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 99, proc.stderr[-2000:]
    with SQLiteStore(db) as store:
        store.add_memories([Memory(text=TOPICS[3], id="later", namespace="ns")])
    now = utcnow()
    report, plan = plan_of(db, inc_cfg(), now=now)
    _, full = plan_of(db, inc_cfg(), now=now, full=True)
    mode = report.apply["incremental"]["ns"]
    if point == "run-record":
        assert mode["mode"] == "incremental" and mode["changed"] == 5
    else:
        assert mode["mode"] == "full" and "the last successful run is" in mode["why"]
        assert plan.to_json() == full.to_json()
    decided = full.decisions()
    assert all(decided[k] == v for k, v in plan.decisions().items())
    assert all(v == "keep" for k, v in decided.items() if k not in plan.decisions())


def test_applied_incremental_runs_keep_the_state_right(db):
    """Night two applies its merges; its state holds what is active after them, so night
    three, with nothing new, plans nothing, and drift adds up over the nights."""
    with SQLiteStore(db) as store:
        store.add_memories(additions("new"))
        night = run_job(store, inc_cfg())
        active = {m.id for m in store.iter_memories("ns", statuses=[Status.ACTIVE])}
    assert night.status == "succeeded"
    assert night.apply["incremental"]["ns"]["mode"] == "incremental"
    state = state_dir_for(SQLiteStore(db)).load("ns")
    assert state is not None and state.run_id == night.run_id
    assert set(state.ids.tolist()) == active and (state.base_size, state.drift) == (18, 4)
    with SQLiteStore(db) as store:  # night three: nothing new, so the namespace is idle
        report = run_job(store, inc_cfg(), dry_run=True, force=True)
    assert report.status == "skipped" and "ns" in report.apply["skipped_namespaces"]


def test_llm_is_called_only_for_the_touched_clusters(tmp_path):
    """An OpenAI-compatible stub on 127.0.0.1 that keeps what it is sent: a full run calls it
    for every cluster of two or more, the incremental night for the touched one."""
    from openai_stub_server import StubServer, keep_all, prompt_ids

    words = [f"{a}{b}" for a in ("ka", "lo", "mi", "ne", "su", "ta") for b in ("ri", "vo", "pe")]
    topics = [" ".join(words[(k + j) % len(words)] * (j + 1) for j in range(5))
              for k in range(0, 18, 3)] + [f"note {w} {w}{w} about {w}x" for w in words[:6]]
    when = utcnow() - timedelta(days=1)
    mems = [Memory(text=t, id=f"t{k}-{c}", namespace="ns", created_at=when)
            for k, t in enumerate(topics) for c in range(3)]
    path = tmp_path / "llm.db"
    with StubServer(keep_all) as stub:
        calls = stub.requests  # every request body, in order
        config = inc_cfg(agents__backend="llm", reduction__method="none",
                         llm__base_url=stub.url, llm__api_key_env="MEMMAINT_TEST_NO_SUCH_KEY")
        with SQLiteStore(path) as store:
            store.add_memories(mems)
            first = run_job(store, config)
            store.add_memories([Memory(text=topics[0], id=f"new-{c}", namespace="ns")
                                for c in range(2)])
        assert first.status == "succeeded" and first.primary.llm_calls >= 10
        calls.clear()
        full, _ = plan_of(path, config, full=True)
        n_full = len(calls)
        calls.clear()
        inc, _ = plan_of(path, config)
        n_inc = len(calls)
    mode = inc.apply["incremental"]["ns"]
    assert mode["mode"] == "incremental" and mode["touched_clusters"] == 1
    assert (full.primary.llm_calls, inc.primary.llm_calls) == (n_full, n_inc)
    assert n_inc == 1 and n_full >= 10
    assert sorted(prompt_ids(calls[0])) == sorted(["t0-0", "t0-1", "t0-2", "new-0", "new-1"])


def test_a_large_touched_cluster_is_planned_around_what_changed(monkeypatch):
    """Above AROUND_MIN members only each anchor's AROUND_K nearest unchanged members are
    planned; a small touched cluster is planned whole; a large one with no anchor not at
    all."""
    import numpy as np

    from memmaint.maintenance.job import around

    monkeypatch.setattr(around, "AROUND_MIN", 5)
    monkeypatch.setattr(around, "AROUND_K", 2)
    rng = np.random.default_rng(0)
    labels = np.array([0] * 10 + [1] * 3 + [2] * 8 + [0, 1])
    unit = rng.standard_normal((len(labels), 8)).astype(np.float32)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    anchors = np.array([21, 22])  # new members placed in clusters 0 and 1
    members = np.zeros(len(labels), dtype=bool)
    members[:21] = True
    got, cut = around.around_changes(labels, members, anchors, labels[anchors], unit)
    assert cut == 2  # clusters 0 and 2 (10 and 8 members) are large
    nearest = np.argsort(-(unit[:10] @ unit[21]), kind="stable")[:2]
    assert set(np.flatnonzero(got[:10]).tolist()) == set(nearest.tolist())
    assert got[10:13].all()  # cluster 1 (3 members) whole
    assert not got[13:21].any()  # cluster 2: nothing changed in it
    assert not got[21:].any() and members.sum() == 21  # anchors are not members; input kept
    unit[5] = unit[6] = unit[7] = unit[8]  # a swept member (8) with exact twins beyond K
    got, _ = around.around_changes(labels, members, np.array([8]), labels[[8]], unit)
    assert got[8] and got[:10].sum() >= 2


def test_unchanged_memories_take_their_vectors_from_the_state(db):
    """The applied run kept each active memory's vector in the state; the next run reads the
    unchanged ones there (not the cache) and plans exactly as when it reads the cache."""
    import dataclasses

    import numpy as np

    with SQLiteStore(db) as store:  # a second applied night: the first one's merged
        store.add_memories(additions("a"))  # memories were in its pool, with vectors
        assert run_job(store, inc_cfg()).status == "succeeded"
    states = state_dir_for(SQLiteStore(db))
    kept = states.load("ns")
    assert kept is not None and kept.vectors is not None
    assert kept.vectors.shape[0] == len(kept.ids)
    with SQLiteStore(db) as store:
        store.add_memories(additions("new"))
    now = utcnow()
    report, with_state = plan_of(db, inc_cfg(), now=now)
    known = int(np.isfinite(kept.vectors).all(axis=1).sum())
    assert report.embedding["from_state"] == known > 0
    # the rest (distinct texts) through the cache or the embedder
    assert 0 < report.embedding["cached"] + report.embedding["embedded"] \
        <= report.pool_before - known
    states.save(dataclasses.replace(kept, vectors=None))  # the same state without vectors
    report2, from_cache = plan_of(db, inc_cfg(), now=now)
    assert "from_state" not in report2.embedding
    assert actions(with_state) == actions(from_cache)
    assert with_state.decisions() == from_cache.decisions()
