"""The plan data model: invariants (property-tested), JSON round trip, readable errors."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from maint_fixtures import NOW, embed, local_scenario, mem, random_pool

from memmaint.maintenance.agents.rules import plan
from memmaint.maintenance.core.config import AgentsConfig
from memmaint.maintenance.core.errors import UserError
from memmaint.maintenance.plan.model import (
    PLAN_VERSION,
    ClusterPlan,
    Evict,
    Keep,
    Merge,
    Plan,
    PlanError,
    Resolve,
    Supersede,
    check_plan,
)

configs = st.builds(
    AgentsConfig,
    merge_threshold=st.floats(0.3, 1.0),
    canonical=st.sampled_from(["newest", "importance", "outcome"]),
    conflict_policy=st.sampled_from(["newer", "importance", "outcome"]),
    evict_stale=st.booleans(),
    evict_noise=st.booleans(),
    outcome_min_uses=st.integers(1, 20),
    outcome_evict_below=st.floats(0.0, 1.0),
    protect_importance=st.floats(0.5, 10.0),
    noise_min_age_days=st.floats(0.0, 100.0),
    noise_max_importance=st.floats(0.0, 3.0),
    cover_threshold=st.floats(0.0, 1.0),
    conflict_subject_threshold=st.floats(0.1, 1.0),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 30), namespaces=st.integers(1, 3),
       config=configs)
def test_every_memory_accounted_once_inside_its_cluster(seed, n, namespaces, config):
    rng = random.Random(seed)
    pool, labels = random_pool(rng, n, namespaces)
    the_plan = plan(pool, labels, embed([m.text for m in pool]), config, now=NOW)
    check_plan(the_plan, pool, labels)  # raises on any broken invariant
    by_key = {(m.namespace, m.id): m for m in pool}
    label_of = {(m.namespace, m.id): lab for m, lab in zip(pool, labels)}
    decided = the_plan.decisions()
    assert set(decided) == set(by_key)
    for cluster, action in the_plan.actions():
        assert action.agent and action.reason
        members = {(cluster.namespace, m) for m in cluster.memory_ids}
        for mid in action.subjects:
            assert (cluster.namespace, mid) in members
        for target in action.targets:
            assert target in cluster.survivors()
        if isinstance(action, Merge):
            assert action.new_memory.namespace == cluster.namespace
        labs = {label_of[k] for k in members}
        assert len(labs) == 1
        if -1 in labs:
            assert len(members) == 1
    assert Plan.from_json(the_plan.to_json()) == the_plan


def _cluster(actions, ids=("a", "b", "c"), ns="default", label=0) -> ClusterPlan:
    return ClusterPlan(ns, label, tuple(ids), {i: 1 for i in ids}, tuple(actions))


def _problems(*clusters) -> list[str]:
    with pytest.raises(PlanError) as info:
        check_plan(Plan(clusters=tuple(clusters)))
    assert isinstance(info.value, UserError)
    return info.value.problems


def test_sound_plan_passes():
    new = mem("merged text", "n1")
    c = _cluster([Merge(("a", "b"), new, "merge", "dupes"),
                  Supersede("c", "n1", "freshness", "stale", NOW)])
    check_plan(Plan(clusters=(c,)))


def test_missing_memory_is_named():
    probs = _problems(_cluster([Keep("a", "rules", "x"), Keep("b", "rules", "x")]))
    assert any("not accounted for: c" in p for p in probs)


def test_memory_decided_twice_is_named():
    probs = _problems(_cluster([Keep("a", "rules", "x"), Evict("a", "noise", "x"),
                                Keep("b", "rules", "x"), Keep("c", "rules", "x")]))
    assert any("more than once: a" in p for p in probs)


def test_action_outside_the_cluster_is_refused():
    probs = _problems(_cluster([Keep("a", "r", "x"), Keep("b", "r", "x"), Keep("c", "r", "x"),
                                Evict("zz", "outcome", "x")]))
    assert any("outside the cluster: zz" in p for p in probs)


def test_pointer_must_stay_active_and_in_cluster():
    probs = _problems(_cluster([Supersede("a", "b", "conflict", "x"), Evict("b", "o", "x"),
                                Keep("c", "r", "x")]))
    assert any("points to b" in p for p in probs)
    probs = _problems(_cluster([Resolve(("elsewhere",), ("a",), "conflict", "x"),
                                Keep("b", "r", "x"), Keep("c", "r", "x")]))
    assert any("points to elsewhere" in p for p in probs)


def test_merge_into_another_namespace_is_refused():
    new = mem("merged", "n1", namespace="other")
    probs = _problems(_cluster([Merge(("a", "b", "c"), new, "merge", "dupes")]))
    assert any("namespace 'other'" in p for p in probs)


def test_memory_in_two_clusters_and_missing_reason():
    c1 = _cluster([Keep("a", "r", "x")], ids=("a",), label=0)
    c2 = _cluster([Keep("a", "r", " ")], ids=("a",), label=1)
    probs = _problems(c1, c2)
    assert any("in two clusters" in p for p in probs)
    assert any("needs an agent and a reason" in p for p in probs)


def test_plan_must_match_pool_versions_and_clusters():
    pool, labels, _ = local_scenario()
    the_plan = plan(pool, labels, embed([m.text for m in pool]), AgentsConfig(), now=NOW)
    check_plan(the_plan, pool, labels)
    bumped = [dataclasses.replace(pool[0], version=5)] + pool[1:]
    with pytest.raises(PlanError, match="planned at version 1, pool has 5"):
        check_plan(the_plan, bumped, labels)
    with pytest.raises(PlanError, match="not the pool's clusters"):
        check_plan(the_plan, pool, [0] * len(pool))
    with pytest.raises(PlanError, match="not in the plan"):
        check_plan(the_plan, pool + [mem("extra", "extra")], labels + [-1])


def test_json_is_versioned_and_records_identity():
    pool, labels, _ = local_scenario()
    cfg = AgentsConfig()
    the_plan = plan(pool, labels, embed([m.text for m in pool]), cfg, now=NOW, plan_id="p-1")
    data = json.loads(the_plan.to_json())
    assert data["format"] == "memmaint-plan" and data["version"] == PLAN_VERSION
    assert data["plan_id"] == "p-1"
    assert data["config_hash"] and data["config_hash"] == plan(
        pool, labels, embed([m.text for m in pool]), cfg, now=NOW).config_hash
    assert data["config_hash"] != plan(pool, labels, embed([m.text for m in pool]),
                                       AgentsConfig(merge_threshold=0.9), now=NOW).config_hash
    versions = {m: v for c in data["clusters"] for m, v in c["versions"].items()}
    assert versions == {m.id: m.version for m in pool}
    assert Plan.from_json(the_plan.to_json(indent=2)) == the_plan
    data["version"] = PLAN_VERSION + 1
    with pytest.raises(PlanError, match="unsupported plan version"):
        Plan.from_dict(data)
    with pytest.raises(PlanError, match="not valid JSON"):
        Plan.from_json("{")
    with pytest.raises(PlanError, match="not a memmaint-plan"):
        Plan.from_json("{}")
    data["version"] = PLAN_VERSION
    data["clusters"][0]["actions"][0]["type"] = "explode"
    with pytest.raises(PlanError, match="unknown action type 'explode'"):
        Plan.from_dict(data)


def test_same_inputs_same_plan():
    pool, labels, _ = local_scenario()
    vecs = embed([m.text for m in pool])
    a = plan(pool, labels, vecs, AgentsConfig(), now=NOW, plan_id="fixed")
    b = plan(pool, labels, vecs, AgentsConfig(), now=NOW, plan_id="fixed")
    assert a.to_json() == b.to_json()
