"""Scenario evaluation: expected actions through the real job, and the current fact winning."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from memmaint.maintenance.core.config import Config, with_overrides
from memmaint.maintenance.core.records import Memory, Status
from memmaint.maintenance.evaluation.common import EvalCache, Maintained
from memmaint.maintenance.evaluation.scenarios import (
    NOW,
    PRO_PLAN_NEW,
    effective_actions,
    run_scenarios,
    subject_query,
)

FAST = {"embedding.model": "hashing", "reduction.method": "pca",
        "clustering.hdbscan.min_cluster_size": 2}


@pytest.fixture
def cache(tmp_path):
    with EvalCache(tmp_path / "cache.sqlite") as c:
        yield c


def test_subject_query_keeps_the_shared_words():
    assert subject_query("The Pro plan costs $29/mo.", "The Pro plan costs $39/mo.") == \
        "The Pro plan costs"
    assert subject_query("Accounts are locked after 5 failed login attempts.",
                         "Accounts are locked after 10 failed login attempts.") == \
        "Accounts are locked after failed login attempts."
    assert subject_query("abc", "xyz") == "abc"


def test_effective_actions_normalise_resolve_and_the_canonical_source():
    t = NOW - timedelta(days=3)
    old = Memory("Refunds take 5 days.", id="old", created_at=t - timedelta(days=2),
                 status=Status.MERGED, replaced_by="new")
    canon = Memory("Refunds take 5 days!", id="canon", created_at=t, status=Status.MERGED,
                   replaced_by="new")
    new = Memory("Refunds take 5 days!", id="new", created_at=t)
    loser = Memory("x", id="loser", status=Status.SUPERSEDED, replaced_by="new")
    done = Maintained([old, canon, new, loser], [new],
                      {("default", "old"): "merge", ("default", "canon"): "merge",
                       ("default", "loser"): "resolve", ("default", "kept"): "keep"})
    assert effective_actions(done) == {"old": "merge", "canon": "keep", "loser": "supersede",
                                       "kept": "keep"}


def test_run_scenarios_scores_every_memory(cache):
    from memmaint.datasets.scenarios import make_scenario

    cfg = with_overrides(Config(), FAST)
    report = run_scenarios([("fast", cfg)], cache, kinds=["support"], seeds=[0])
    (res,) = report.results
    scenario = make_scenario("support", seed=0, now=NOW, evict_stale=False, evict_noise=False)
    assert sum(n for _ok, n in res.hits.values()) == len(scenario.memories)
    # the agents never act on an injected instruction, and leave controls alone
    assert res.share("injection") == 1.0 and res.share("control") == 1.0
    # with evict_noise off (the default), noise is expected to be kept, and is
    assert res.share("noise") == 1.0
    # the headline: after maintenance $39 comes first and $29 is no longer served
    pro = [c for c in res.checks if c.current == PRO_PLAN_NEW]
    assert len(pro) == 1
    assert pro[0].wins["after"] and pro[0].wins["after_gate"]
    assert pro[0].outdated_served["before"]  # before maintenance both prices are served
    assert not pro[0].outdated_served["after"]
    assert not pro[0].outdated_served["before_gate"]  # $29 is past the 3-day price TTL
    data = json.loads(json.dumps(report.to_dict()))
    assert data["results"][0]["pro_plan_39_wins"]["after"] is True
    assert {m["scenario_type"] for m in data["results"][0]["misses"]} <= set(res.hits)
    text = report.format()
    assert "$39 Pro plan" in text and "outdated statement" in text


def test_expectations_follow_the_config_eviction_switches(cache):
    cfg = with_overrides(Config(), {**FAST, "agents.evict_noise": True,
                                    "agents.evict_stale": True})
    report = run_scenarios([("evicting", cfg)], cache, kinds=["support"], seeds=[1])
    res = report.results[0]
    # the expectation follows the switch (noise: evict); whether the job evicts depends on
    # the clustering (noise eviction only applies to HDBSCAN noise and singletons)
    noise = [m for m in res.misses if m["scenario_type"] == "noise"]
    assert all(m["expected"] == "evict" and m["got"] == "keep" for m in noise)
    assert res.hits["noise"][0] + len(noise) == res.hits["noise"][1] == 5


def test_cli_scenarios(cli, tmp_path):
    out = tmp_path / "s.json"
    r = cli("eval", "scenarios", "--kinds", "support", "--seeds", "0", "--set",
            "embedding.model=hashing", "--set", "reduction.method=pca",
            "--cache", tmp_path / "c.sqlite", "--json", out)
    assert r.exit_code == 0, r.output
    assert "scenario type" in r.output
    assert json.loads(out.read_text())["kinds"] == ["support"]
    r = cli("eval", "scenarios", "--seeds", "x")
    assert r.exit_code == 2 and "--seeds" in r.output
