"""The pool-size cap: value scoring, greedy selection, Archive actions, apply and undo."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from maint_fixtures import NOW, embed, local_scenario, mem, unit

from memmaint.maintenance.agents.cap import (
    WEIGHTS,
    MemoryValue,
    apply_cap,
    memory_values,
    select,
)
from memmaint.maintenance.agents.rules import merged_memory
from memmaint.maintenance.agents.rules import plan as agents_plan
from memmaint.maintenance.apply.applier import apply_plan, undo_run
from memmaint.maintenance.core.config import AgentsConfig, Config, config_from_dict
from memmaint.maintenance.core.errors import ConfigError, InputError
from memmaint.maintenance.core.records import Status
from memmaint.maintenance.plan.model import (
    NOISE,
    Archive,
    ClusterPlan,
    Keep,
    Merge,
    Plan,
    Supersede,
    check_plan,
)
from memmaint.maintenance.retrieve.routing import cluster_centroids


def keep_plan(pool, labels) -> Plan:
    """Every memory kept, one cluster plan per (namespace, label); noise alone."""
    groups: dict[tuple, list] = {}
    for m, lab in zip(pool, labels):
        key = (m.namespace, f"n{m.id}" if lab < 0 else lab)
        groups.setdefault(key, []).append((m, lab))
    clusters = []
    for (ns, _k), items in groups.items():
        label = items[0][1]
        clusters.append(ClusterPlan(ns, int(label), tuple(m.id for m, _ in items),
                                    {m.id: m.version for m, _ in items},
                                    tuple(Keep(m.id, "rules", "kept") for m, _ in items)))
    return Plan(tuple(clusters), plan_id="p")


def agents(**kw) -> AgentsConfig:
    return dataclasses.replace(AgentsConfig(), **kw)


def survivors(the_plan: Plan) -> set[str]:
    return {mid for c in the_plan.clusters for mid in c.survivors()}


def archived(the_plan: Plan) -> list[str]:
    return [a.memory_id for _c, a in the_plan.actions() if isinstance(a, Archive)]


# -- a small geometric pool ---------------------------------------------------------------

@pytest.fixture
def pool():
    """Two clusters (axis 0 and axis 1), a memory near cluster 0 labelled noise, an outlier."""
    mems = [
        mem("alpha one", "a1", 5), mem("alpha two", "a2", 5), mem("alpha three", "a3", 5),
        mem("beta one", "b1", 5), mem("beta two", "b2", 5), mem("beta three", "b3", 5),
        mem("near alpha", "n1", 5), mem("far away", "0-outlier", 5),
    ]
    vecs = np.stack([
        unit((0, 1), (2, 0.3)), unit((0, 1), (3, 0.3)), unit((0, 1), (4, 0.3)),
        unit((1, 1), (2, 0.3)), unit((1, 1), (3, 0.3)), unit((1, 1), (4, 0.3)),
        unit((0, 1), (5, 0.5)), unit((7, 1)),
    ])
    labels = [0, 0, 0, 1, 1, 1, -1, -1]
    return mems, labels, vecs


def test_no_cap_leaves_the_plan_alone(pool):
    mems, labels, vecs = pool
    the_plan = keep_plan(mems, labels)
    out, results = apply_cap(the_plan, mems, labels, vecs, AgentsConfig(), NOW)
    assert out is the_plan and results == []
    out, results = apply_cap(the_plan, mems, labels, vecs, agents(max_active=8), NOW)
    assert out is the_plan and results == []


def test_cap_holds_and_the_outlier_goes_first(pool):
    mems, labels, vecs = pool
    the_plan = keep_plan(mems, labels)
    cfg = agents(max_active=7, cap_redundancy=0.0)  # value alone decides
    out, (res,) = apply_cap(the_plan, mems, labels, vecs, cfg, NOW)
    check_plan(out, mems, labels)
    assert len(survivors(out)) == 7 == res.after and res.before == 8
    assert archived(out) == ["0-outlier"]  # matches no cluster: worth least
    assert res.archived[0].memory_id == "0-outlier" and res.archived[0].relevance == 0.0
    # a noise memory close to a cluster still matches it
    values = {v.memory_id: v for v in memory_values(
        mems, vecs, cluster_centroids(vecs, labels)[1], AgentsConfig(), NOW)}
    assert values["n1"].relevance > 0.5 and values["0-outlier"].relevance == 0.0


def test_cap_reason_names_the_value_and_report_lists_scores(pool):
    mems, labels, vecs = pool
    out, (res,) = apply_cap(keep_plan(mems, labels), mems, labels, vecs,
                            agents(max_active=5), NOW)
    actions = [a for _c, a in out.actions() if isinstance(a, Archive)]
    assert len(actions) == 3 and all(a.agent == "cap" for a in actions)
    assert all("max_active = 5" in a.reason and "value" in a.reason for a in actions)
    d = res.to_dict()
    assert d["max_active"] == 5 and d["before"] == 8 and d["after"] == 5
    assert [a["memory_id"] for a in d["archived"]] == [v.memory_id for v in res.archived]
    scores = [a["score"] for a in d["archived"]]
    assert scores == sorted(scores)
    assert out.summary()["archive"] == 3 and out.report["cap"][0]["after"] == 5


def test_value_blend_is_the_documented_weighted_sum(pool):
    mems, labels, vecs = pool
    mems = [dataclasses.replace(m, successes=9, failures=1) if m.id == "a1" else m for m in mems]
    cents = cluster_centroids(vecs, labels)[1]
    for v in memory_values(mems, vecs, cents, AgentsConfig(), NOW):
        want = (WEIGHTS["relevance"] * v.relevance + WEIGHTS["importance"] * v.importance
                + WEIGHTS["freshness"] * v.freshness + WEIGHTS["outcome"] * v.outcome)
        assert v.value == pytest.approx(want)
        assert 0.0 <= v.value <= 1.0
    assert sum(WEIGHTS.values()) == pytest.approx(1.0)
    by_id = {v.memory_id: v for v in memory_values(mems, vecs, cents, AgentsConfig(), NOW)}
    assert by_id["a1"].outcome > by_id["a2"].outcome == pytest.approx(0.5)


def _twins(**kw_a):
    """Two memories alike in every way (same cluster geometry), ``a`` modified by kw_a."""
    a = mem("first twin", "a", 10, **kw_a)
    b = mem("second twin", "b", 10)
    c = mem("third", "c", 10)
    vecs = np.stack([unit((0, 1), (2, 0.2)), unit((0, 1), (3, 0.2)), unit((0, 1), (4, 0.2))])
    return [a, b, c], [0, 0, 0], vecs


@pytest.mark.parametrize("kw, loser", [
    ({"importance": 0.2}, "a"),                       # less important
    ({"importance": 3.0}, "c"),                       # more important (b, c tie: id order)
    ({"kind": "price"}, "a"),                         # expired (price TTL 3 days, 10 days old)
    ({"successes": 0, "failures": 12}, "a"),          # consistently unhelpful
    ({"successes": 40, "failures": 2}, "c"),          # proven (and so protected)
])
def test_each_part_of_the_value_counts(kw, loser):
    mems, labels, vecs = _twins(**kw)
    cfg = agents(max_active=2, cap_redundancy=0.0)
    out, (res,) = apply_cap(keep_plan(mems, labels), mems, labels, vecs, cfg, NOW)
    assert archived(out) == [loser], res.archived


def test_recency_only_breaks_ties_never_fifo():
    # identical value: the older one goes
    old = mem("same", "old", 40)
    new = mem("same too", "new", 2)
    vecs = np.stack([unit((0, 1), (2, 0.2)), unit((0, 1), (3, 0.2))])
    cfg = agents(max_active=1, cap_redundancy=0.0)
    out, _ = apply_cap(keep_plan([old, new], [0, 0]), [old, new], [0, 0], vecs, cfg, NOW)
    assert archived(out) == ["old"]
    # the oldest memory is kept when it is worth more
    old = dataclasses.replace(old, importance=2.0)
    out, _ = apply_cap(keep_plan([old, new], [0, 0]), [old, new], [0, 0], vecs, cfg, NOW)
    assert archived(out) == ["new"]


def test_redundancy_lets_a_distinct_fact_win_over_a_near_copy():
    copy1 = mem("notice", "copy1", 3, importance=2.0)
    copy2 = mem("notice again", "copy2", 3, importance=2.0)
    fact = mem("distinct fact", "fact", 3, importance=1.0)
    filler = [mem(f"f{i}", f"f{i}", 3, importance=0.5) for i in range(3)]
    mems = [copy1, copy2, fact, *filler]
    vecs = np.stack([unit((0, 1), (1, 0.05)), unit((0, 1), (1, 0.06)), unit((0, 1), (2, 1.0)),
                     unit((0, 1), (3, 1.0)), unit((0, 1), (4, 1.0)), unit((0, 1), (5, 1.0))])
    labels = [0] * 6
    with_red, _ = apply_cap(keep_plan(mems, labels), mems, labels, vecs,
                            agents(max_active=2, cap_redundancy=1.0), NOW)
    assert {"fact"} < survivors(with_red) and len({"copy1", "copy2"} & survivors(with_red)) == 1
    without, _ = apply_cap(keep_plan(mems, labels), mems, labels, vecs,
                           agents(max_active=2, cap_redundancy=0.0), NOW)
    assert survivors(without) == {"copy1", "copy2"}


def test_redundancy_floor_spares_related_facts_and_still_catches_near_copies():
    """With a floor, a memory only as similar to a kept one as distinct facts of one topic
    are (cosine 0.5 here) loses nothing; a near copy (0.99) still loses almost all of the
    discount."""
    kept_one = mem("kept", "kept", 3, importance=3.0)
    related = mem("related fact", "related", 3, importance=1.0)
    copy = mem("near copy", "copy", 3, importance=1.0)
    mems = [kept_one, related, copy]
    vecs = np.stack([unit((0, 1), (1, 0.0)), unit((0, 1), (1, 1.732)),
                     unit((0, 1), (1, 0.14))])
    labels = [0, 0, 0]
    values = memory_values(mems, vecs, vecs[:1], agents(), NOW, clusters=labels)
    _, plain = select(values, vecs, 3, redundancy=1.0, redundancy_floor=0.0)
    _, floored = select(values, vecs, 3, redundancy=1.0)  # the default floor, 0.6
    by_id = {v.memory_id: v for v in plain}
    assert by_id["related"].redundancy == pytest.approx(0.5, abs=1e-3)
    assert {v.memory_id: v.redundancy for v in floored}["related"] == 0.0
    assert {v.memory_id: v.redundancy for v in floored}["copy"] > 0.9
    with pytest.raises(InputError, match="redundancy_floor"):
        select(values, vecs, 3, redundancy_floor=1.0)


def test_protected_memories_stay_and_the_shortfall_is_reported(pool):
    mems, labels, vecs = pool
    mems = [dataclasses.replace(m, importance=9.0) if m.id in ("0-outlier", "b1", "b2") else m
            for m in mems]
    out, (res,) = apply_cap(keep_plan(mems, labels), mems, labels, vecs,
                            agents(max_active=2), NOW)
    assert {"0-outlier", "b1", "b2"} <= survivors(out)
    assert res.exempt == 3 and res.after == 3 and res.short_by == 1
    assert len(archived(out)) == 5


def test_a_superseding_memory_can_be_archived_and_merges_archive_their_sources(
        sqlite_store):
    pool, labels, _expected = local_scenario()
    vecs = embed([m.text for m in pool])
    base = agents_plan(pool, labels, vecs, AgentsConfig(), now=NOW, plan_id="plan-1")
    n_active = len(survivors(base))
    targets = {t for _c, a in base.actions() for t in a.targets}
    (merge,) = [a for _c, a in base.actions() if isinstance(a, Merge)]
    out, (res,) = apply_cap(base, pool, labels, vecs, agents(max_active=1), NOW)
    check_plan(out, pool, labels)
    assert len(survivors(out)) == 1 == res.after and res.before == n_active
    assert res.exempt == 0 and res.short_by == 0
    gone = set(archived(out))
    assert targets & gone  # a newer statement archived: its supersedes still point to it
    assert not any(isinstance(a, Merge) for _c, a in out.actions())
    assert set(merge.source_ids) <= gone  # the merge archives its sources instead
    sqlite_store.add_memories(pool)
    apply_plan(out, sqlite_store, "run-1")
    stored = {m.id: m for m in sqlite_store.iter_memories()}
    for t in targets & gone:
        assert stored[t].status is Status.ARCHIVED
    assert any(stored[m.id].replaced_by in gone for m in pool
               if stored[m.id].status is Status.SUPERSEDED)
    undo_run(sqlite_store, "run-1")
    assert sqlite_store.count_memories(statuses=[Status.ACTIVE]) == len(pool)


def test_a_merge_another_action_points_to_is_exempt():
    a, b, old, other = (mem("Pro plan is $39", "a", 1), mem("Pro plan is $39.", "b", 2),
                        mem("Pro plan is $29", "old", 30), mem("unrelated", "x", 1))
    pool = [a, b, old, other]
    vecs = np.stack([unit((0, 1)), unit((0, 1), (1, 0.01)), unit((0, 1), (2, 0.3)),
                     unit((5, 1))])
    labels = [0, 0, 0, -1]
    new = merged_memory([a, b], id_seed="p", now=NOW)
    cluster = ClusterPlan("default", 0, ("a", "b", "old"), {"a": 1, "b": 1, "old": 1},
                          (Merge(("a", "b"), new, "merge", "duplicates"),
                           Supersede("old", new.id, "conflict", "newer price")))
    noise = ClusterPlan("default", NOISE, ("x",), {"x": 1}, (Keep("x", "noise", "kept"),))
    base = Plan((cluster, noise), plan_id="p")
    check_plan(base, pool, labels)
    out, (res,) = apply_cap(base, pool, labels, vecs, agents(max_active=1), NOW)
    check_plan(out, pool, labels)
    assert survivors(out) == {new.id} and archived(out) == ["x"]
    assert res.exempt == 1 and res.after == 1


def test_cap_applies_per_namespace(pool):
    mems, labels, vecs = pool
    other = [dataclasses.replace(m, namespace="other") for m in mems]
    both = mems + other
    out, results = apply_cap(keep_plan(both, labels * 2), both, labels * 2,
                             np.vstack([vecs, vecs]), agents(max_active=6), NOW)
    assert [r.namespace for r in results] == ["default", "other"]
    by_ns = {}
    for c in out.clusters:
        by_ns.setdefault(c.namespace, set()).update(c.survivors())
    assert {ns: len(s) for ns, s in by_ns.items()} == {"default": 6, "other": 6}


def test_archive_applies_and_undo_restores(sqlite_store):
    pool, labels, _expected = local_scenario()
    sqlite_store.add_memories(pool)
    vecs = embed([m.text for m in pool])
    base = agents_plan(pool, labels, vecs, AgentsConfig(), now=NOW, plan_id="plan-1")
    capped, (res,) = apply_cap(base, pool, labels, vecs, agents(max_active=5), NOW)
    gone = archived(capped)
    assert gone
    result = apply_plan(capped, sqlite_store, "run-cap")
    assert result.counts["archived"] == len(gone)
    active = {m.id for m in sqlite_store.iter_memories(statuses=[Status.ACTIVE])}
    assert len(active) == res.after
    stored = {m.id: m for m in sqlite_store.iter_memories()}
    assert all(stored[mid].status is Status.ARCHIVED for mid in gone)
    events = [e for e in sqlite_store.events(run_id="run-cap") if e.action == "archive"]
    assert sorted(e.memory_ids[0] for e in events) == sorted(gone)
    assert all(e.agent == "cap" and "max_active" in e.reason for e in events)
    undo = undo_run(sqlite_store, "run-cap")
    assert set(gone) <= set(undo.restored)
    after = {m.id: m for m in sqlite_store.iter_memories()}
    for m in pool:
        assert after[m.id].status is Status.ACTIVE and after[m.id].version == m.version


def test_plan_with_archive_round_trips_json(pool):
    mems, labels, vecs = pool
    out, _ = apply_cap(keep_plan(mems, labels), mems, labels, vecs, agents(max_active=4), NOW)
    again = Plan.from_json(out.to_json())
    assert archived(again) == archived(out) and again.summary() == out.summary()
    assert archived(out)
    for mid in archived(out):
        assert again.content_actions()[("default", mid)] == ("archive", None)


def test_bad_input_is_a_clear_error(pool):
    mems, labels, vecs = pool
    the_plan = keep_plan(mems, labels)
    with pytest.raises(InputError, match="labels"):
        apply_cap(the_plan, mems, labels[:-1], vecs, agents(max_active=2), NOW)
    with pytest.raises(InputError, match="rows"):
        apply_cap(the_plan, mems, labels, vecs[:-1], agents(max_active=2), NOW)
    with pytest.raises(InputError, match="max_active"):
        apply_cap(the_plan, mems, labels, vecs, AgentsConfig(), NOW, max_active=0)
    with pytest.raises(ConfigError, match="max_active"):
        config_from_dict({"agents": {"max_active": 0}})
    assert config_from_dict({"agents": {"max_active": 50}}).agents.max_active == 50
    assert Config().agents.max_active is None  # off by default


# -- the lazy greedy against the obvious one ----------------------------------------------

def reference_select(values, vectors, max_active, redundancy, floor=0.0):
    """Recompute every score at every step (slow, obvious)."""
    x = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    kept = [i for i, v in enumerate(values) if v.exempt]
    while len(kept) < max_active:
        best = None
        for i, v in enumerate(values):
            if i in kept:
                continue
            same = [j for j in kept if values[j].cluster == v.cluster and v.cluster >= 0]
            red = max([min(1.0, max(0.0, (float(x[i] @ x[j]) - floor) / (1 - floor)))
                       for j in same], default=0.0)
            key = (-(v.value - redundancy * red), -v.created_at.timestamp(), v.memory_id)
            if best is None or key < best[0]:
                best = (key, i)
        if best is None:
            break
        kept.append(best[1])
    return kept


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=14), st.integers(min_value=0, max_value=2**31 - 1),
       st.sampled_from([0.0, 0.5, 1.0, 2.0]), st.sampled_from([0.0, 0.3, 0.6]))
def test_lazy_greedy_matches_the_reference(cap, seed, redundancy, floor):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 16))
    vectors = rng.normal(size=(n, 5))
    values = [MemoryValue("ns", f"m{i}", int(rng.integers(-1, 3)),
                          float(rng.choice([0.2, 0.5, 0.5, 0.9])), 0, 0, 0, 0,
                          NOW - timedelta(days=int(rng.integers(0, 3))),
                          exempt="protected" if rng.random() < 0.1 else None)
              for i in range(n)]
    kept, scored = select(values, vectors, cap, redundancy, floor)
    want = reference_select(values, vectors, cap, redundancy, floor)
    assert sorted(kept) == sorted(want)
    assert len(kept) == max(min(cap, n), sum(1 for v in values if v.exempt))
    assert all(s.score == pytest.approx(s.value - redundancy * s.redundancy) for s in scored)



# -- in the nightly job -------------------------------------------------------------------

TOPICS = [
    "The Pro plan costs 29 dollars per month for every seat",
    "Refunds are processed within five business days after approval",
    "The API rate limit is 100 requests per minute per key",
    "Shipping to Canada takes seven to ten days by ground mail",
    "Password resets require the email on file and a one time code",
]


def job_config(**agents_kw):
    data = {"embedding": {"model": "hashing", "dim": 64},
            "reduction": {"method": "pca", "n_components": 2},
            "clustering": {"algorithm": "hdbscan", "hdbscan": {"min_cluster_size": 2}},
            "agents": {"merge_threshold": 0.999, **agents_kw}}
    return config_from_dict(data)


def job_pool():
    out = []
    for t, text in enumerate(TOPICS):
        for c in range(4):
            who = ("Ann", "Bob", "Cleo", "Dan")[c]
            out.append(mem(f"{text}, as {who} noted", f"m{t}-{c}", 1 + c,
                           namespace="ns", importance=0.5 + 0.1 * c))
    return out


def test_job_applies_the_cap_reports_it_and_undo_restores(tmp_path, cli):
    from memmaint.maintenance.job.run import compare_configs, run_job
    from memmaint.maintenance.report.text import format_comparison, format_report
    from memmaint.maintenance.store.sqlite import SQLiteStore

    db = tmp_path / "pool.db"
    with SQLiteStore(db) as store:
        store.add_memories(job_pool())
        cmp = compare_configs(store, job_config(), job_config(max_active=8), now=NOW,
                              label_a="uncapped", label_b="capped")
        text = format_comparison(cmp)
        assert "cap max_active: archived" in text and "capped: cap max_active = 8" in text
        assert cmp.a.cap == [] and cmp.b.actions_by_type["archive"] == 12
        report = run_job(store, job_config(max_active=8), now=NOW)
        assert report.status == "succeeded"
        assert store.count_memories("ns", statuses=[Status.ACTIVE]) == 8
        assert store.count_memories("ns", statuses=[Status.ARCHIVED]) == 12
        (cap,) = report.primary.cap
        assert cap["before"] == 20 and cap["after"] == 8 and len(cap["archived"]) == 12
        decisions = [d for d in report.primary.decisions if d.type == "archive"]
        assert {d.memory_id for d in decisions} == {v["memory_id"] for v in cap["archived"]}
        assert all(d.agent == "cap" for d in decisions)
        assert "cap max_active = 8 in ns: 20 -> 8 active, 12 archived" in format_report(report)
        stored = store.get_run(report.run_id).report
        assert len(stored["primary"]["cap"][0]["archived"]) == 12
    res = cli("undo", report.run_id, "--db", db)
    assert res.exit_code == 0 and "12 memories restored" in res.output
    with SQLiteStore(db) as store:
        assert store.count_memories("ns", statuses=[Status.ACTIVE]) == 20


def test_pointers_may_name_an_archived_memory_but_not_an_evicted_one():
    from memmaint.maintenance.plan.model import Evict, PlanError

    def cluster(last):
        return Plan((ClusterPlan("default", 0, ("old", "new"), {"old": 1, "new": 1},
                                 (Supersede("old", "new", "freshness", "covered"), last)),),
                    plan_id="p")

    check_plan(cluster(Archive("new", "cap", "over max_active")))
    with pytest.raises(PlanError, match="points to new"):
        check_plan(cluster(Evict("new", "noise", "old")))


def test_compare_cli_shows_what_the_cap_archived_and_the_routing(tmp_path, cli):
    from memmaint.maintenance.core.config import config_to_toml
    from memmaint.maintenance.store.sqlite import SQLiteStore

    db = tmp_path / "pool.db"
    with SQLiteStore(db) as store:
        store.add_memories(job_pool())
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    a.write_text(config_to_toml(job_config()))
    b.write_text(config_to_toml(job_config(max_active=6)))
    html = tmp_path / "cmp.html"
    res = cli("compare", "--db", db, "--config", a, "--config", b, "--html", html,
              "--now", NOW.isoformat())
    assert res.exit_code == 0, res.output
    assert "cap max_active: archived" in res.output and "routing clusters" in res.output
    assert "cap max_active = 6 in ns: 20 -> 6 active, 14 archived" in res.output
    assert "score" in res.output and "routing in ns" in res.output
    assert "cap max_active: archived" in html.read_text()
    with SQLiteStore(db) as store:  # a dry run: nothing archived
        assert store.count_memories("ns", statuses=[Status.ACTIVE]) == 20


def _stale_growth_capped(tmp_path_factory, feedback: bool, seed: int = 0):
    from memmaint.maintenance.core.config import with_overrides
    from memmaint.maintenance.evaluation.common import EvalCache
    from memmaint.maintenance.evaluation.stale import maintenance_config, run_stale_growth

    cfg = with_overrides(maintenance_config(), {"agents.max_active": 50})
    with EvalCache(tmp_path_factory.mktemp("stale") / "cache.sqlite") as cache:
        return run_stale_growth([("cap", cfg)], cache, seed=seed,
                                feedback=feedback).results[0]


@pytest.fixture(scope="module")
def stale_growth_capped(tmp_path_factory):
    """max_active = 50 on the stale-growth pool (seed 0, MiniLM, default UMAP + HDBSCAN)."""
    return _stale_growth_capped(tmp_path_factory, feedback=False)


@pytest.fixture(scope="module")
def stale_growth_capped_with_usage(tmp_path_factory):
    """The same, with each size's question outcomes recorded as usage (as deployed)."""
    return _stale_growth_capped(tmp_path_factory, feedback=True)


@pytest.mark.slow
def test_stale_growth_with_a_cap_of_50_keeps_every_answer(stale_growth_capped):
    """The issue's claim: all ten answers survive max_active = 50 at 500 entries, from text,
    time, kind and importance alone (no usage recorded). (Seed 0 kept 8 of 10 while merges
    composed different facts of one topic into one memory; since #32 a merge adds only
    clauses that refine a fact it shares, and all ten survive.)"""
    assert stale_growth_capped.mechanism_claims()["cap_keeps_all_answers_at_500"]


@pytest.mark.slow
def test_stale_growth_cap_keeps_every_answer_without_composed_merges(tmp_path_factory):
    """The claim holds when near-duplicates that a merge cannot cover stay apart."""
    from memmaint.maintenance.core.config import with_overrides
    from memmaint.maintenance.evaluation.common import EvalCache
    from memmaint.maintenance.evaluation.stale import maintenance_config, run_stale_growth

    cfg = with_overrides(maintenance_config(), {"agents.max_active": 50,
                                                "agents.merge_uncovered": "apart"})
    with EvalCache(tmp_path_factory.mktemp("cache") / "c.db") as cache:
        res = run_stale_growth([("apart", cfg)], cache, seed=0).results[0]
    assert res.mechanism_claims()["cap_keeps_all_answers_at_500"]


@pytest.mark.slow
def test_stale_growth_cap_keeps_every_answer_with_usage_fed_back(
        stale_growth_capped_with_usage):
    """The same with each size's question outcomes recorded, as a deployment records them:
    the answers' successes only add to their value. Seed 0 keeps 9 of the 10 (answer-09,
    helped twice, is the one short: see the xfail above); the other seeds keep all ten."""
    res = stale_growth_capped_with_usage
    assert res.sizes[-1].answers_active >= 9
    at500 = res.sizes[-1]
    assert at500.scores["maintained"].pool == 50 and at500.scores["maintained"].top1 >= 0.6
    assert all(len(s.usage) == 10 for s in res.sizes)  # the outcomes really were recorded


@pytest.mark.slow
def test_stale_growth_with_a_cap_of_50_stays_accurate(stale_growth_capped):
    """max_active = 50 at 500 entries: the pool holds 50, top-1 accuracy stays >= 60%, the
    cap's archive is reported and routing scores fewer memories."""
    res = stale_growth_capped
    at500 = res.sizes[-1]
    assert at500.size == 500 and at500.scores["maintained"].pool == 50
    assert at500.scores["maintained"].top1 >= 0.6
    assert at500.cap and len(at500.cap[0]["archived"]) > 0
    # routing scores fewer memories (it does not beat maintenance alone here: see the docs)
    for s in res.sizes[-2:]:
        routed = s.scores["maintained_routed"]
        assert routed.mean_scored < routed.pool and len(routed.routes) == 10


@pytest.mark.slow
@pytest.mark.parametrize("seed, feedback", [(1, False), (2, True)])
def test_stale_growth_cap_keeps_every_answer_on_other_seeds(tmp_path_factory, seed, feedback):
    """All ten answers survive max_active = 50 at 500 entries on seeds 1 and 2."""
    res = _stale_growth_capped(tmp_path_factory, feedback, seed)
    assert res.mechanism_claims()["cap_keeps_all_answers_at_500"]
    assert res.sizes[-1].scores["maintained"].top1 >= 0.6


def test_the_cap_never_archives_a_memory_that_has_proven_helpful():
    """Five successes in five uses (Wilson lower bound 0.57 > 0.5) exempt a memory that the
    value blend alone would archive; four in five (0.38) do not."""
    pool = [mem(f"note {i}", f"m{i}", importance=1.0 + i) for i in range(4)]
    pool[0] = dataclasses.replace(pool[0], importance=0.1, retrievals=5, successes=5)
    vecs, centroids = np.eye(4), np.zeros((0, 4))
    values = {v.memory_id: v for v in memory_values(pool, vecs, centroids, now=NOW)}
    assert values["m0"].exempt and "helps more often than not" in values["m0"].exempt
    assert min(values.values(), key=lambda v: v.value).memory_id == "m0"
    kept, _ = select([values[m.id] for m in pool], vecs, max_active=1)
    assert kept == [0]
    pool[0] = dataclasses.replace(pool[0], successes=4, failures=1)
    values = {v.memory_id: v for v in memory_values(pool, vecs, centroids, now=NOW)}
    assert values["m0"].exempt is None
