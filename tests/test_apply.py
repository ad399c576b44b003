"""apply_plan / undo_run against a real SQLite store, lineage, and the undo/history CLI."""

from __future__ import annotations

import dataclasses
import json
import random
import xml.etree.ElementTree as ET

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from maint_fixtures import NOW, embed, local_scenario, mem, random_pool

from memmaint.maintenance.agents.rules import plan
from memmaint.maintenance.apply.applier import UndoRefused, apply_plan, undo_run
from memmaint.maintenance.core.config import AgentsConfig
from memmaint.maintenance.core.errors import UnknownIdError, UserError
from memmaint.maintenance.core.records import Status
from memmaint.maintenance.plan.model import ClusterPlan, Keep, Merge, Plan, PlanError
from memmaint.maintenance.report.lineage import lineage_graph, render
from memmaint.maintenance.store.base import RunRecord
from memmaint.maintenance.store.sqlite import SQLiteStore


def make_plan(pool, labels, config=None, plan_id="plan-1"):
    return plan(pool, labels, embed([m.text for m in pool]), config or AgentsConfig(), now=NOW,
                plan_id=plan_id)


def edit(store, namespace, memory_id):
    """A content change (a new version), as another writer would make it."""
    cur = store.get_memories(namespace, [memory_id])[0]
    with store.transaction() as tx:
        tx.update(dataclasses.replace(cur, metadata={**cur.metadata, "edited": True}),
                  cur.version)


def snapshot(store):
    return {(m.namespace, m.id): m.to_dict() for m in store.iter_memories()}


@pytest.fixture
def loaded(sqlite_store):
    pool, labels, expected = local_scenario()
    sqlite_store.add_memories(pool)
    return sqlite_store, pool, labels, expected


def test_apply_changes_exactly_what_the_plan_says(loaded):
    store, pool, labels, expected = loaded
    the_plan = make_plan(pool, labels)
    before = snapshot(store)
    result = apply_plan(the_plan, store, "run-1")
    after = {m.id: m for m in store.iter_memories()}
    (merge,) = [a for _c, a in the_plan.actions() if isinstance(a, Merge)]
    new_id = merge.new_memory.id
    assert len(after) == len(pool) + 1  # nothing deleted, one merged memory created
    status = {"merge": Status.MERGED, "supersede": Status.SUPERSEDED, "evict": Status.EVICTED,
              "keep": Status.ACTIVE}
    for m in pool:
        assert after[m.id].status is status[expected[m.id]], m.id
        if expected[m.id] == "keep":
            assert after[m.id].to_dict() == before[("default", m.id)]
        else:
            assert after[m.id].version == m.version + 1
            assert after[m.id].text == m.text
    for src in ("dup1", "dup2", "dup3"):
        assert after[src].replaced_by == new_id
    assert after[new_id].status is Status.ACTIVE
    assert after[new_id].metadata["dia_ids"] == ["D3:1", "D1:3", "D2:7"]
    # the $29/$39 pair: $39 active, $29 superseded with a validity window
    assert after["pro39"].status is Status.ACTIVE
    assert after["pro29"].status is Status.SUPERSEDED and after["pro29"].replaced_by == "pro39"
    assert after["pro29"].valid_until == after["pro39"].created_at
    # the injection memory changed nothing, itself included
    assert after["inject"].to_dict() == before[("default", "inject")]
    assert result.counts == {"merged": 3, "created": 1, "superseded": 3, "evicted": 1,
                             "kept": 7}
    assert not result.skipped


def test_every_change_is_an_event_with_before_and_after(loaded):
    store, pool, labels, _ = loaded
    the_plan = make_plan(pool, labels)
    apply_plan(the_plan, store, "run-1")
    events = store.events(run_id="run-1")
    assert sorted(e.action for e in events) == ["evict", "merge", "resolve", "resolve",
                                                "supersede"]
    for ev in events:
        assert ev.agent and ev.reason and ev.namespace == "default"
        assert len(ev.memory_ids) == len(ev.before) == len(ev.after)
    (sup,) = [e for e in events if e.action == "supersede"]
    assert sup.memory_ids == ("stock_old", "stock_new")
    assert sup.before[0]["status"] == "active" and sup.after[0]["status"] == "superseded"
    assert sup.before[1] is None and sup.after[1] is None  # referenced, not changed
    assert store.events(memory_id="stock_new")  # the target's history finds it
    (merge,) = [e for e in events if e.action == "merge"]
    assert merge.before[0] is None and merge.after[0]["status"] == "active"


def test_dry_run_follows_the_same_path_and_writes_nothing(tmp_path, file_state):
    path = tmp_path / "s.db"
    pool, labels, _ = local_scenario()
    with SQLiteStore(path) as store:
        store.add_memories(pool)
    state = file_state(path)
    the_plan = make_plan(pool, labels)
    with SQLiteStore(path) as store:
        dry = apply_plan(the_plan, store, "run-dry", dry_run=True)
    assert file_state(path) == state
    with SQLiteStore(path) as store:
        real = apply_plan(the_plan, store, "run-real")
        written = store.events(run_id="run-real")
    assert dry.dry_run and not real.dry_run
    assert dry.counts == real.counts and dry.applied_clusters == real.applied_clusters
    assert [(e.action, e.memory_ids, e.reason) for e in dry.events] == [
        (e.action, e.memory_ids, e.reason) for e in written]
    strip = ("updated_at",)
    for d, w in zip(dry.events, written):
        for a, b in zip(d.after, w.after):
            if a is not None:
                assert {k: v for k, v in a.items() if k not in strip} == {
                    k: v for k, v in b.items() if k not in strip}


def test_changed_memory_skips_its_cluster_only(loaded):
    store, pool, labels, _ = loaded
    the_plan = make_plan(pool, labels)
    edit(store, "default", "pro29")  # someone changed it after planning
    result = apply_plan(the_plan, store, "run-1")
    (skipped,) = result.skipped
    assert skipped.key == "default/1" and "pro29 is at version 2, planned at 1" in skipped.reason
    now = {m.id: m for m in store.iter_memories()}
    assert now["pro29"].status is Status.ACTIVE and now["pro29"].metadata["edited"]
    assert now["stock_old"].status is Status.SUPERSEDED  # other clusters applied
    assert result.counts["skipped"] == 2


def test_conflict_discovered_while_writing_retries_without_that_cluster(loaded):
    store, pool, labels, _ = loaded
    the_plan = make_plan(pool, labels)

    class RacingStore:
        """The real store, with a writer sneaking in between apply's read and write."""

        def __init__(self, inner):
            self.inner, self.raced = inner, False

        def __getattr__(self, name):
            return getattr(self.inner, name)

        def transaction(self):
            if not self.raced:
                self.raced = True
                edit(self.inner, "default", "bad")
            return self.inner.transaction()

    result = apply_plan(the_plan, RacingStore(store), "run-1")
    assert result.retries == 1
    assert [s.key for s in result.skipped] == ["default/4"]
    assert "bad changed while applying" in result.skipped[0].reason
    now = {m.id: m for m in store.iter_memories()}
    assert now["bad"].status is Status.ACTIVE and now["bad"].metadata["edited"]
    assert now["pro29"].status is Status.SUPERSEDED
    assert {e.memory_ids[0] for e in store.events(run_id="run-1")} >= {"pro29", "stock_old"}


def test_bad_plans_and_reused_run_ids_write_nothing(loaded):
    store, pool, labels, _ = loaded
    before = snapshot(store)
    broken = Plan(clusters=(ClusterPlan("default", 0, ("dup1", "dup2"), {"dup1": 1, "dup2": 1},
                                        (Keep("dup1", "rules", "x"),)),))
    with pytest.raises(PlanError, match="not accounted for: dup2"):
        apply_plan(broken, store, "run-x")
    assert snapshot(store) == before and store.events() == []
    apply_plan(make_plan(pool, labels), store, "run-1")
    with pytest.raises(UserError, match="already has events"):
        apply_plan(make_plan(pool, labels), store, "run-1")


def test_existing_merge_target_id_skips_the_cluster(loaded):
    store, pool, labels, _ = loaded
    the_plan = make_plan(pool, labels)
    (merge,) = [a for _c, a in the_plan.actions() if isinstance(a, Merge)]
    store.add_memories([dataclasses.replace(merge.new_memory, text="squatter")])
    result = apply_plan(the_plan, store, "run-1")
    assert [s.key for s in result.skipped] == ["default/0"]
    assert "already exists" in result.skipped[0].reason


def test_namespaces_apply_separately(sqlite_store):
    pool = [mem("The Pro plan costs $29/mo.", "a", 40, namespace="t1"),
            mem("The Pro plan costs $39/mo.", "b", 1, namespace="t1"),
            mem("The Pro plan costs $29/mo.", "a", 40, namespace="t2"),
            mem("The Pro plan costs $39/mo.", "b", 1, namespace="t2")]
    sqlite_store.add_memories(pool)
    the_plan = make_plan(pool, [0, 0, 0, 0])
    assert {c.namespace for c in the_plan.clusters} == {"t1", "t2"}
    edit(sqlite_store, "t2", "a")
    result = apply_plan(the_plan, sqlite_store, "run-1")
    assert [s.key for s in result.skipped] == ["t2/0"]
    got = {(m.namespace, m.id): m.status for m in sqlite_store.iter_memories()}
    assert got[("t1", "a")] is Status.SUPERSEDED and got[("t2", "a")] is Status.ACTIVE


# -- undo --------------------------------------------------------------------------------

def test_undo_restores_exact_prior_state_and_is_recorded(loaded):
    store, pool, labels, _ = loaded
    store.save_run(RunRecord("run-1", NOW, NOW, "succeeded", ("default",)))
    before = snapshot(store)
    apply_plan(make_plan(pool, labels), store, "run-1")
    result = undo_run(store, "run-1")
    after = snapshot(store)
    created = set(after) - set(before)
    assert len(created) == 1
    (key,) = created
    assert after[key]["status"] == "archived" and result.archived == (key[1],)
    assert {k: v for k, v in after.items() if k in before} == before  # exact, versions too
    assert sorted(result.restored) == sorted(
        ["dup1", "dup2", "dup3", "pro29", "stock_old", "sat_open", "bad"])
    undo_events = store.events(run_id="undo-run-1")
    assert len(undo_events) == 8 and {e.action for e in undo_events} == {"undo"}
    assert all(e.reason.startswith("undo of run run-1") for e in undo_events)
    assert store.get_run("run-1").status == "undone"
    with pytest.raises(UserError, match="already undone"):
        undo_run(store, "run-1")
    # undoing the undo re-applies the run
    undo_run(store, "undo-run-1")
    again = {m.id: m.status for m in store.iter_memories()}
    assert again["pro29"] is Status.SUPERSEDED and again[key[1]] is Status.ACTIVE


def test_undo_refuses_when_memories_changed_since_and_names_them(loaded):
    store, pool, labels, _ = loaded
    apply_plan(make_plan(pool, labels), store, "run-1")
    edit(store, "default", "pro29")
    edit(store, "default", "bad")
    state = snapshot(store)
    with pytest.raises(UndoRefused) as info:
        undo_run(store, "run-1")
    assert "pro29" in str(info.value) and "bad" in str(info.value)
    assert "dup1" not in str(info.value)
    assert snapshot(store) == state and not store.events(run_id="undo-run-1")
    with pytest.raises(UnknownIdError, match="nothing to undo"):
        undo_run(store, "no-such-run")


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 25))
def test_apply_then_undo_round_trips_random_pools(tmp_path_factory, seed, n):
    rng = random.Random(seed)
    pool, labels = random_pool(rng, n, namespaces=2)
    with SQLiteStore(tmp_path_factory.mktemp("p") / "s.db") as store:
        store.add_memories(pool)
        before = snapshot(store)
        the_plan = make_plan(pool, labels, AgentsConfig(evict_noise=True, evict_stale=True),
                             plan_id=f"p{seed}")
        result = apply_plan(the_plan, store, "r")
        after = snapshot(store)
        assert len(after) == len(before) + result.counts.get("created", 0)
        decided = the_plan.decisions()
        for key, row in after.items():
            if key in before:
                want = {"keep": "active", "merge": "merged", "supersede": "superseded",
                        "resolve": "superseded", "evict": "evicted"}[decided[key]]
                assert row["status"] == want
        if result.events:
            undo_run(store, "r")
            restored = snapshot(store)
            assert {k: v for k, v in restored.items() if k in before} == before
            assert all(v["status"] == "archived" for k, v in restored.items()
                       if k not in before)


# -- lineage and the CLI -----------------------------------------------------------------

def test_lineage_graph_and_formats(loaded):
    store, pool, labels, _ = loaded
    the_plan = make_plan(pool, labels)
    (merge,) = [a for _c, a in the_plan.actions() if isinstance(a, Merge)]
    apply_plan(the_plan, store, "run-1")
    g = lineage_graph(store, "default", merge.new_memory.id)
    assert set(g.predecessors(merge.new_memory.id)) == {"dup1", "dup2", "dup3"}
    assert g.edges["dup1", merge.new_memory.id]["relation"] == "merged_into"
    g2 = lineage_graph(store, "default", "stock_old")
    assert g2.edges["stock_old", "stock_new"]["relation"] == "superseded_by"
    assert g2.edges["stock_old", "stock_new"]["agent"] == "freshness"
    root = ET.fromstring(render(g, "graphml"))
    assert len(root.findall(".//{http://graphml.graphdrawing.org/xmlns}edge")) == 3
    data = json.loads(render(g, "json"))
    assert data["root"] == merge.new_memory.id and len(data["edges"]) == 3
    dot = render(g, "dot")
    assert dot.startswith("digraph lineage {") and '"dup1" -> ' in dot
    text = render(g2, "text")
    assert "replaced by (superseded_by, run run-1, freshness)" in text and "history:" in text
    undo_run(store, "run-1")
    g3 = lineage_graph(store, "default", "stock_old")
    assert g3.edges["stock_old", "stock_new"]["undone"] is True
    with pytest.raises(UnknownIdError):
        lineage_graph(store, "default", "nope")


def test_cli_undo_and_history(tmp_path, cli):
    db = tmp_path / "s.db"
    pool, labels, _ = local_scenario()
    with SQLiteStore(db) as store:
        store.add_memories(pool)
        apply_plan(make_plan(pool, labels), store, "run-1")
    res = cli("history", "pro29", "--db", db)
    assert res.exit_code == 0 and "replaced by (superseded_by" in res.output
    assert "pro39" in res.output
    res = cli("history", "pro29", "--db", db, "--format", "json")
    assert json.loads(res.output)["root"] == "pro29"
    out = tmp_path / "g.graphml"
    res = cli("history", "pro29", "--db", db, "--format", "graphml", "-o", out)
    assert res.exit_code == 0 and ET.parse(out).getroot() is not None
    res = cli("history", "nope", "--db", db)
    assert res.exit_code == 2 and "no memory 'nope'" in res.output
    res = cli("undo", "run-1", "--db", db)
    assert res.exit_code == 0 and "7 memories restored, 1 created memories archived" in res.output
    res = cli("undo", "run-1", "--db", db)
    assert res.exit_code == 2 and "already undone" in res.output
    res = cli("undo", "run-1", "--db", tmp_path / "missing.db")
    assert res.exit_code == 2 and "no memmaint store" in res.output
    with SQLiteStore(db) as store:
        store.add_memories([mem("same id elsewhere", "pro29", 1, namespace="other")])
    res = cli("history", "pro29", "--db", db)
    assert res.exit_code == 2 and "pass --namespace" in res.output
    res = cli("history", "pro29", "--db", db, "--namespace", "other", "--format", "dot")
    assert res.exit_code == 0 and res.output.startswith("digraph lineage {")
