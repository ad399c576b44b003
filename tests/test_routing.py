"""Topic routing: centroids and profiles from a run, route(), Router, storage with the run."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from maint_fixtures import DIM, NOW, embed, local_scenario, mem, unit

from memmaint.maintenance.agents.rules import plan as agents_plan
from memmaint.maintenance.core.config import AgentsConfig
from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.plan.model import Merge
from memmaint.maintenance.retrieve.routing import (
    Router,
    Routing,
    build_routing,
    cluster_centroids,
    latest_routing,
    route,
    routing_from_report,
)
from memmaint.maintenance.store.base import RunRecord

# -- route() ------------------------------------------------------------------------------

def test_route_takes_the_m_nearest_and_near_ties():
    cents = np.stack([unit((0, 1)), unit((1, 1)), unit((2, 1)), unit((3, 1))])
    q = unit((0, 1.0), (1, 0.5), (2, 0.48), (3, 0.1))
    assert route(q, cents, m=1, margin=0.0).tolist() == [0]
    assert route(q, cents, m=2, margin=0.0).tolist() == [0, 1]
    # cluster 2 is 0.02 * |q|^-1 behind cluster 1: a near-tie joins with a margin
    assert route(q, cents, m=2, margin=0.05).tolist() == [0, 1, 2]
    assert route(q, cents, m=10, margin=0.0).tolist() == [0, 1, 2, 3]
    assert route(q, np.zeros((0, DIM))).tolist() == []


def test_route_rejects_bad_arguments():
    cents = np.stack([unit((0, 1))])
    with pytest.raises(InputError, match="m >= 1"):
        route(unit((0, 1)), cents, m=0)
    with pytest.raises(InputError, match="margin"):
        route(unit((0, 1)), cents, margin=-0.1)
    with pytest.raises(InputError, match="dims"):
        route(np.ones(3), cents)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 6),
       st.floats(0.0, 0.5, allow_nan=False))
def test_route_property(seed, m, margin):
    rng = np.random.default_rng(seed)
    cents = rng.normal(size=(int(rng.integers(1, 12)), 5))
    cents /= np.linalg.norm(cents, axis=1, keepdims=True)
    q = rng.normal(size=5)
    picked = route(q, cents, m, margin)
    sims = cents @ (q / np.linalg.norm(q))
    order = np.argsort(-sims, kind="stable")
    k = min(m, len(cents))
    assert set(order[:k]) <= set(picked.tolist())          # the m nearest are always in
    cut = sims[order[k - 1]] - margin
    assert set(picked.tolist()) == {i for i in range(len(cents)) if sims[i] >= cut}
    assert list(sims[picked]) == sorted(sims[picked], reverse=True)


def test_cluster_centroids_skip_noise_and_singletons():
    vecs = np.stack([unit((0, 1)), unit((0, 1), (1, 0.2)), unit((1, 1)), unit((2, 1)),
                     unit((3, 1)), unit((3, 1), (4, 0.1))])
    labels, cents = cluster_centroids(vecs, [0, 0, 1, -1, 5, 5])
    assert labels.tolist() == [0, 5]
    assert np.allclose(np.linalg.norm(cents, axis=1), 1.0)
    assert cents[0] @ unit((0, 1)) > 0.99 and cents[1] @ unit((3, 1)) > 0.99
    with pytest.raises(InputError, match="labels"):
        cluster_centroids(vecs, [0, 0])


# -- building from a run ------------------------------------------------------------------

@pytest.fixture
def run():
    """A maintenance run over the local scenario: pool, labels, vectors and the plan."""
    pool, labels, _expected = local_scenario()
    vecs = embed([m.text for m in pool])
    the_plan = agents_plan(pool, labels, vecs, AgentsConfig(), now=NOW, plan_id="plan-1")
    return pool, labels, vecs, the_plan


def test_build_routing_from_a_plan(run):
    pool, labels, vecs, the_plan = run
    table = build_routing(pool, labels, vecs, the_plan, attach_floor=2.0, run_id="r1",
                          model_id="hash").get("default")
    assert table is not None and table.run_id == "r1" and table.model_id == "hash"
    assert table.labels.tolist() == [0, 1, 2, 3, 4]
    (merge,) = [a for _c, a in the_plan.actions() if isinstance(a, Merge)]
    # every clustered member and the merged memory route to their cluster
    for m, lab in zip(pool, labels):
        if lab >= 0:
            assert table.assignment[m.id] == lab
    assert table.assignment[merge.new_memory.id] == 0
    # profiles count survivors only: cluster 0 keeps just the merged memory
    sizes = {p.label: p.size for p in table.profiles}
    assert sizes == {0: 1, 1: 1, 2: 1, 3: 1, 4: 2}
    assert {p.label: p.clustered for p in table.profiles} == {0: 3, 1: 2, 2: 2, 3: 2, 4: 3}
    # the centroid of cluster 4 is the mean of its two survivors (the evicted one is out)
    rows = [i for i, m in enumerate(pool) if m.id in ("rl_key", "rl_hdr")]
    want = vecs[rows].mean(axis=0)
    want /= np.linalg.norm(want)
    assert np.allclose(table.centroids[list(table.labels).index(4)], want, atol=1e-6)
    # noise attached to nothing (floor above any cosine): not assigned, always scored
    assert "noise1" not in table.assignment and "inject" not in table.assignment
    assert table.unassigned == 2
    p4 = table.profile(4)
    assert p4 is not None and "rate" in p4.terms and p4.kinds == {"default": 2}


def test_memories_the_plan_does_not_cover_stay_routed(run):
    """An incremental night plans only the clusters it touched: every other memory survives
    as it is, keeps its cluster's centroid and assignment (issue #38)."""
    pool, labels, vecs, the_plan = run
    lab = np.asarray(labels)
    rows = np.flatnonzero(lab == 0)
    part = agents_plan([pool[i] for i in rows], lab[rows], vecs[rows], AgentsConfig(),
                       now=NOW, plan_id="plan-1")
    whole = build_routing(pool, labels, vecs, the_plan).get("default")
    partial = build_routing(pool, labels, vecs, part).get("default")
    assert whole is not None and partial is not None
    assert partial.labels.tolist() == whole.labels.tolist() == [0, 1, 2, 3, 4]
    for m, v in zip(pool, lab):
        if v >= 0:
            assert partial.assignment[m.id] == v
    at = list(partial.labels)
    assert np.allclose(partial.centroids[at.index(0)], whole.centroids[at.index(0)])
    for c in (1, 2, 3, 4):  # not planned: every member counts
        want = vecs[lab == c].mean(axis=0)
        assert np.allclose(partial.centroids[at.index(c)], want / np.linalg.norm(want),
                           atol=1e-6)
    assert {p.label: p.size for p in partial.profiles}[4] == 3


def test_noise_attaches_to_its_nearest_cluster_from_the_floor():
    mems = [mem(t, f"m{i}", 1) for i, t in enumerate(
        ["alpha one", "alpha two", "beta one", "beta two", "near alpha", "far away"])]
    vecs = np.stack([unit((0, 1), (2, 0.2)), unit((0, 1), (3, 0.2)), unit((1, 1), (2, 0.2)),
                     unit((1, 1), (3, 0.2)), unit((0, 1), (4, 0.6)), unit((7, 1))])
    labels = [0, 0, 1, 1, -1, -1]
    table = build_routing(mems, labels, vecs, attach_floor=0.5).namespaces["default"]
    assert table.assignment["m4"] == 0 and "m5" not in table.assignment
    assert table.profile(0).attached == 1 and table.profile(0).size == 3
    assert table.unassigned == 1
    loose = build_routing(mems, labels, vecs, attach_floor=-1.0).namespaces["default"]
    assert "m5" in loose.assignment and loose.unassigned == 0


def test_routing_round_trips_through_json(run):
    pool, labels, vecs, the_plan = run
    routing = build_routing(pool, labels, vecs, the_plan, run_id="r1", model_id="hash")
    again = Routing.from_dict(json.loads(json.dumps(routing.to_dict())))
    a, b = routing.namespaces["default"], again.namespaces["default"]
    assert np.array_equal(a.centroids, b.centroids) and b.centroids.dtype == np.float32
    assert a.profiles == b.profiles and dict(a.assignment) == dict(b.assignment)
    assert (a.unassigned, a.run_id, a.model_id) == (b.unassigned, b.run_id, b.model_id)
    light_dict = routing.to_dict(members=False)
    assert "centroids" not in light_dict["namespaces"]["default"]  # display only: small
    light = Routing.from_dict(light_dict).namespaces["default"]
    assert not light.assignment and light.profiles == a.profiles and light.dim == 0
    summary = routing.summary()["default"]
    assert summary["clusters"] == 5 and "centroids" not in summary
    with pytest.raises(InputError, match="memmaint-routing"):
        Routing.from_dict({"format": "nope"})
    broken = routing.to_dict()
    broken["namespaces"]["default"]["profiles"] = []
    with pytest.raises(InputError, match="malformed"):
        Routing.from_dict(broken)
    assert routing_from_report({"run_id": "x"}) is None
    assert routing_from_report({"routing": routing.to_dict()}) is not None


# -- read time ----------------------------------------------------------------------------

def _pool_and_router(min_new: int = 0):
    """Three topics of four memories each, routed; ``min_new`` memories added after."""
    mems, vecs, labels = [], [], []
    for c in range(3):
        for j in range(4):
            mems.append(mem(f"topic {c} fact {j}", f"t{c}-{j}", 2))
            vecs.append(unit((c, 1), (3 + j, 0.3)))
            labels.append(c)
    routing = build_routing(mems, labels, np.stack(vecs), run_id="r1", model_id="hash")
    for j in range(min_new):
        mems.append(mem(f"new {j}", f"new-{j}", 0.1))
        vecs.append(unit((2, 1), (7, 0.3)))
    return mems, np.stack(vecs), routing


def test_router_scores_the_picked_clusters_and_new_memories():
    mems, _vecs, routing = _pool_and_router(min_new=2)
    router = Router(routing, mems, model_id="hash")
    idx, decision = router.candidates(unit((0, 1)), m=1, margin=0.0, min_candidates=1)
    got = sorted(mems[i].id for i in idx)
    assert got == ["new-0", "new-1", "t0-0", "t0-1", "t0-2", "t0-3"]
    assert decision.routed and decision.candidates == 6 and decision.unassigned == 2
    assert [c[:2] for c in decision.clusters] == [("default", 0)]
    assert "routed to default/#0" in decision.describe()
    assert decision.to_dict()["candidates"] == 6


def test_router_falls_back_when_too_few_would_be_scored():
    mems, _vecs, routing = _pool_and_router()
    router = Router(routing, mems)
    idx, decision = router.candidates(unit((0, 1)), m=1, margin=0.0, min_candidates=5)
    assert idx is None and not decision.routed and "fewer than" in decision.fallback
    assert decision.candidates == len(mems)
    # no table for the pool's namespace: the whole pool
    idx, decision = Router(Routing(), mems).candidates(unit((0, 1)))
    assert idx is None and "no routing table" in decision.fallback


def test_router_refuses_a_table_from_another_model():
    mems, _vecs, routing = _pool_and_router()
    with pytest.raises(InputError, match="built with hash"):
        Router(routing, mems, model_id="minilm")


def test_router_ignores_memories_the_pool_no_longer_has():
    mems, _vecs, routing = _pool_and_router()
    live = [m for m in mems if m.id != "t0-0"]
    idx, _ = Router(routing, live).candidates(unit((0, 1)), m=1, margin=0.0,
                                              min_candidates=1)
    assert sorted(live[i].id for i in idx) == ["t0-1", "t0-2", "t0-3"]


def test_latest_routing_reads_the_newest_succeeded_run(sqlite_store):
    mems, vecs, _routing = _pool_and_router()
    labels = [int(m.id[1]) for m in mems]

    def save(run_id: str, status: str, hours: int, namespace: str = "default") -> None:
        pool = [m if namespace == "default" else
                mem(m.text, m.id, 2, namespace=namespace) for m in mems]
        table = build_routing(pool, labels, vecs, run_id=run_id)
        when = datetime(2025, 6, 1, tzinfo=timezone.utc) + timedelta(hours=hours)
        sqlite_store.save_run(RunRecord(run_id, when, when, status, (namespace,),
                                        {"run_id": run_id, "routing": table.to_dict()}))

    assert not latest_routing(sqlite_store)
    save("r1", "succeeded", 1)
    save("r2", "succeeded", 2, namespace="other")
    save("r3", "failed", 3)
    save("r4", "undone", 4)
    got = latest_routing(sqlite_store)
    assert {ns: t.run_id for ns, t in got.namespaces.items()} == {"default": "r1",
                                                                  "other": "r2"}
    assert set(latest_routing(sqlite_store, ["other"]).namespaces) == {"other"}


def test_prune_keeps_the_two_newest_tables_per_namespace(sqlite_store):
    from memmaint.maintenance.retrieve.routing import prune_routing_tables

    mems, vecs, _routing = _pool_and_router()
    labels = [int(m.id[1]) for m in mems]

    def save(run_id: str, status: str, hours: int, namespace: str, nested: bool) -> None:
        pool = [mem(m.text, m.id, 2, namespace=namespace) for m in mems]
        table = build_routing(pool, labels, vecs, run_id=run_id).to_dict()
        report = ({"run_id": run_id, "primary": {"routing": table, "pool_after": 7}}
                  if nested else {"run_id": run_id, "routing": table, "note": "kept"})
        when = datetime(2025, 6, 1, tzinfo=timezone.utc) + timedelta(hours=hours)
        sqlite_store.save_run(RunRecord(run_id, when, when, status, (namespace,), report))

    for h in range(1, 5):  # r1..r4 for "a" (oldest first), alternately nested
        save(f"r{h}", "succeeded", h, "a", nested=h % 2 == 0)
    save("b1", "succeeded", 5, "b", nested=True)
    save("f6", "failed", 6, "a", nested=True)
    before = {ns: t.run_id for ns, t in latest_routing(sqlite_store).namespaces.items()}
    assert prune_routing_tables(sqlite_store) == 3  # r1, r2 and the failed run's
    assert prune_routing_tables(sqlite_store) == 0  # idempotent
    after = {ns: t.run_id for ns, t in latest_routing(sqlite_store).namespaces.items()}
    assert after == before == {"a": "r4", "b": "b1"}
    runs = {r.run_id: r.report for r in sqlite_store.list_runs()}
    has = {rid: bool(routing_from_report(rep)) for rid, rep in runs.items()}
    assert has == {"r1": False, "r2": False, "r3": True, "r4": True, "b1": True, "f6": False}
    assert runs["r1"]["note"] == "kept" and runs["r2"]["primary"]["pool_after"] == 7
    # undoing the newest run falls back to the one kept for that purpose
    r4 = next(r for r in sqlite_store.list_runs() if r.run_id == "r4")
    sqlite_store.save_run(dataclasses.replace(r4, status="undone"))
    assert latest_routing(sqlite_store).get("a").run_id == "r3"


# -- retrieve(..., route=True) ------------------------------------------------------------

def _rcfg(**kw):
    from memmaint.maintenance.core.config import RetrieveConfig

    base = {"lexical": False, "gate": False, "k": 3, "route_clusters": 1,
            "route_margin": 0.0, "route_min_candidates": 1}
    base.update(kw)
    return RetrieveConfig(**base)


def test_retrieve_with_routing_scores_only_the_nearest_clusters():
    from memmaint.maintenance.retrieve.search import retrieve

    mems, vecs, routing = _pool_and_router()
    # a member of topic 1 that leans towards topic 0: the best single match for the query,
    # but its cluster is not the nearest one
    mems.append(mem("topic 1 straggler", "t1-x", 2))
    vecs = np.vstack([vecs, unit((0, 1.0), (1, 0.9))])
    routing.namespaces["default"].assignment["t1-x"] = 1
    q = unit((0, 1), (1, 0.6), (3, 0.1))
    plain = retrieve("q", mems, vecs, config=_rcfg(), query_vector=q, now=NOW)
    routed = retrieve("q", mems, vecs, config=_rcfg(), query_vector=q, now=NOW, route=True,
                      routing=routing)
    assert plain.ids[0] == "t1-x" and plain.route is None
    assert "t1-x" not in routed.ids and all(i.startswith("t0-") for i in routed.ids)
    assert routed.route is not None and routed.route.candidates == 4
    assert "routed to default/#0" in routed.explain()
    assert routed.to_dict()["route"]["clusters"][0][:2] == ["default", 0]
    # config.route turns it on too; route=False overrides the config
    by_config = retrieve("q", mems, vecs, config=_rcfg(route=True), query_vector=q, now=NOW,
                         routing=routing)
    assert by_config.ids == routed.ids
    off = retrieve("q", mems, vecs, config=_rcfg(route=True), query_vector=q, now=NOW,
                   routing=routing, route=False)
    assert off.ids == plain.ids


def test_retrieve_routing_scores_new_memories_and_falls_back():
    from memmaint.maintenance.retrieve.search import Retriever

    mems, vecs, routing = _pool_and_router(min_new=1)  # new-0 lies in topic 2's direction
    retriever = Retriever(mems, vecs, config=_rcfg(k=1), routing=routing)
    q = unit((2, 1), (7, 0.4))
    got = retriever.search("q", query_vector=q, now=NOW, route=True)
    assert got.ids == ["new-0"] and got.route.unassigned == 1
    q0 = unit((0, 1), (7, 0.05))
    got = retriever.search("q", query_vector=q0, now=NOW, route=True)
    assert got.ids[0].startswith("t0-") and got.route.candidates == 5  # 4 of topic 0 + new
    small = Retriever(mems, vecs, config=_rcfg(k=1, route_min_candidates=6), routing=routing)
    got = small.search("q", query_vector=q0, now=NOW, route=True)
    assert got.route is not None and not got.route.routed and got.route.candidates == 13


def test_retrieve_route_without_a_table_is_a_clear_error():
    from memmaint.maintenance.retrieve.search import retrieve

    mems, vecs, _routing = _pool_and_router()
    with pytest.raises(InputError, match="routing table"):
        retrieve("q", mems, vecs, config=_rcfg(), query_vector=unit((0, 1)), now=NOW,
                 route=True)


# -- stored with the run ------------------------------------------------------------------

def test_job_stores_routing_and_retrieval_uses_it(tmp_path):
    from test_cap import job_config, job_pool

    from memmaint.maintenance.core.records import Status
    from memmaint.maintenance.embed.hashing import HashingEmbedder
    from memmaint.maintenance.job.run import run_job
    from memmaint.maintenance.report.text import format_report
    from memmaint.maintenance.retrieve.search import Retriever
    from memmaint.maintenance.store.sqlite import SQLiteStore

    with SQLiteStore(tmp_path / "pool.db") as store:
        store.add_memories(job_pool())
        report = run_job(store, job_config(), now=NOW)
        routing = latest_routing(store)
        table = routing.get("ns")
        assert table is not None and table.run_id == report.run_id
        assert table.model_id == report.embedding["model_id"]
        assert report.pool_after == 20
        assert sum(p.size for p in table.profiles) + table.unassigned == 20
        assert "routing in ns" in format_report(report)
        # a memory written after the run has no cluster and is still found
        late = mem("Gift cards can be redeemed in the shop until December", "late", 0.5,
                   namespace="ns")
        store.add_memories([late])
        active = list(store.iter_memories("ns", statuses=[Status.ACTIVE]))
        embedder = HashingEmbedder(dim=64)
        vecs = embedder.embed([m.text for m in active])
        retriever = Retriever(active, vecs, embedder, job_config(), routing=routing)
        got = retriever.search("gift cards redeemed shop December", now=NOW, route=True)
        assert got.ids[0] == "late" and got.route is not None
        got = retriever.search(TOPICS_0, now=NOW, route=True)
        assert got.ids[0].startswith("m0-")


TOPICS_0 = "The Pro plan costs 29 dollars per month for every seat"


def test_nightly_runs_keep_routing_tables_for_the_two_newest_runs_only(tmp_path):
    from test_cap import job_config, job_pool

    from memmaint.maintenance.job.run import run_job
    from memmaint.maintenance.store.sqlite import SQLiteStore

    with SQLiteStore(tmp_path / "pool.db") as store:
        store.add_memories(job_pool())
        ids = [run_job(store, job_config(), force=True, now=NOW + timedelta(hours=h),
                       shadow=job_config() if h == 0 else None).run_id for h in range(3)]
        reports = {r.run_id: r.report for r in store.list_runs()}
        assert [bool(routing_from_report(reports[i])) for i in ids] == [False, True, True]
        assert latest_routing(store).get("ns").run_id == ids[-1]
        shadow_tables = reports[ids[0]]["shadow"]["routing"]["namespaces"]
        assert shadow_tables and all("centroids" not in t for t in shadow_tables.values())


def test_centroids_in_one_pass_equal_the_per_cluster_means_bit_for_bit():
    """``cluster_centroids`` groups the pool once (a scan per cluster was quadratic: 11 s for
    20,000 clusters of 200k rows); every mean is summed as before, so the tables do not move."""
    from collections import Counter

    from memmaint.maintenance.retrieve.routing import _group_means, _top_terms, unit_rows

    rng = np.random.default_rng(7)
    for n, k in ((300, 5), (4000, 900), (2000, 1500)):
        x = unit_rows(rng.standard_normal((n, 24)))
        lab = rng.integers(-1, k, n)
        counts = Counter(int(v) for v in lab if v >= 0)
        keep = sorted(c for c, m in counts.items() if m >= 2)
        ref = np.stack([x[lab == c].mean(axis=0) for c in keep])
        assert np.array_equal(_group_means(x, lab, keep), ref)
    texts = ["beta alpha gamma", "alpha beta", "gamma gamma delta", "delta alpha"]
    counts = Counter(t for text in texts for t in set(text.split()))
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    assert _top_terms(texts, 3) == tuple(t for t, _c in ranked[:3])
