"""Stale-growth evaluation: the support agent's growing pool, scored before/after maintenance."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from memmaint.maintenance.core.config import Config, with_overrides
from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.evaluation.common import EvalCache
from memmaint.maintenance.evaluation.stale import (
    NAMESPACE,
    RELEVANT,
    build_stream,
    maintenance_config,
    record_outcomes,
    run_stale_growth,
    score_variant,
)

FAST = {"embedding.model": "hashing", "reduction.method": "pca"}


@pytest.fixture
def cache(tmp_path):
    with EvalCache(tmp_path / "cache.sqlite") as c:
        yield c


def test_stream_construction():
    s = build_stream(500, seed=0)
    assert len(s.memories) == 500 and len(s.questions) == len(s.answers) == 10
    # the answers come first, then noise, in time order
    assert [m.id for m in s.memories[:10]] == list(s.answers)
    times = [m.created_at for m in s.memories]
    assert times == sorted(times)
    assert (times[-1] - times[10]).days > 300  # a year of chatter
    # no ground-truth labels reach the store: metadata is empty, source is uniform
    assert all(not m.metadata for m in s.memories)
    assert {m.source for m in s.memories} == {"stale-growth"}
    # answers are long-lived kinds; the chatter includes volatile kinds and repeats
    assert {m.kind for m in s.memories[:10]} <= {"default", "reference"}
    kinds = Counter(m.kind for m in s.memories[10:])
    assert kinds["schedule"] > 50 and kinds["availability"] > 30
    texts = Counter(m.text for m in s.memories[10:])
    assert sum(c - 1 for c in texts.values()) > 50  # reposted notices: exact duplicates
    assert any("VPN certificate expires in" in t for t in texts)
    # deterministic for a seed, different across seeds, and prefixes agree
    assert [m.text for m in build_stream(500, 0).memories] == [m.text for m in s.memories]
    assert [m.text for m in build_stream(500, 1).memories] != [m.text for m in s.memories]
    assert build_stream(100, 0).memories == s.memories[:100]


def test_stream_rejects_too_small_pools():
    with pytest.raises(InputError, match="at least 10"):
        build_stream(5)


def test_score_variant_counts_top1_relevance_and_refusals():
    s = build_stream(10)
    answers = list(s.memories)
    # one-hot vectors: question i points exactly at answer i, except question 0 -> answer 1
    vecs = np.eye(10, 12)
    qvecs = np.eye(10, 12)
    qvecs[0] = vecs[1]
    cfg = with_overrides(Config(), {"retrieve.lexical": False})
    now = answers[-1].created_at
    score = score_variant(answers, vecs, s, qvecs, cfg, gate=False, now=now)
    assert score.top1 == pytest.approx(0.9)
    assert score.relevance5 == pytest.approx(1.0)  # every served memory is an answer
    assert score.pool == 10 and score.refused == 0
    # a merge that kept the answer's text still counts as the answer
    merged = Memory(answers[3].text, id="merged", namespace=answers[3].namespace,
                    metadata={"merged_from": [answers[3].id, "x"]})
    pool = answers[:3] + [merged] + answers[4:]
    assert score_variant(pool, vecs, s, qvecs, cfg, False, now).top1 == pytest.approx(0.9)
    # with the gate, questions whose best match is below the floor are refused
    far = np.zeros((10, 12))
    far[:, 11] = 1.0
    gated = score_variant(answers, vecs, s, far, cfg, gate=True, now=now)
    assert gated.refused == 10 and gated.top1 == 0.0 and np.isnan(gated.mean_sim5)


def test_run_stale_growth_structure(cache):
    cfg = with_overrides(maintenance_config(), FAST)
    report = run_stale_growth([("fast", cfg)], cache, sizes=[10, 60, 120], seed=0)
    (res,) = report.results
    assert [s.size for s in res.sizes] == [10, 60, 120]
    for s in res.sizes:
        assert s.scores["unbounded"].pool == s.size
        assert s.scores["maintained"].pool <= s.size
        assert s.scores["maintained"].pool == s.scores["maintained_gate"].pool
        for v in s.scores.values():
            assert 0.0 <= v.top1 <= v.hit5 <= 1.0
            assert len(v.top1_ids) == len(RELEVANT)
    assert res.sizes[-1].scores["maintained"].pool < 120  # maintenance removed something
    data = json.loads(json.dumps(report.to_dict()))
    assert data["suite"] == "stale-growth"
    assert set(data["results"][0]["claims"]) == {
        "maintained_ge_unbounded_from_100", "maintained_gate_ge_unbounded_from_100",
        "maintained_ge_60pct_at_500", "maintained_gate_ge_60pct_at_500"}
    assert "top-1 maintained" in report.format()


def test_record_outcomes_counts_successes_and_failures_on_the_store(tmp_path):
    """The memory served first gets one retrieval: a success when it answers the question,
    a failure when it answers another; a refusal or an id no longer active records nothing."""
    from memmaint.maintenance.store.sqlite import SQLiteStore

    stream = build_stream(12)
    answers = list(stream.answers)
    served = [answers[0], answers[0], "REFUSE", answers[3], *answers[4:]]
    with SQLiteStore(tmp_path / "pool.db") as store:
        store.add_memories(list(stream.memories))
        active = [m for m in stream.memories if m.id != answers[3]]  # e.g. archived
        recorded = record_outcomes(store, active, stream, served)
        assert recorded == [(answers[0], True), (answers[0], False),
                            *((a, True) for a in answers[4:])]
        first, third, fourth, last = store.get_memories(
            NAMESPACE, [answers[0], answers[2], answers[3], answers[9]])
        assert (first.retrievals, first.successes, first.failures) == (2, 1, 1)
        for untouched in (third, fourth):
            assert (untouched.retrievals, untouched.successes, untouched.failures) == (0, 0, 0)
        assert (last.retrievals, last.successes) == (1, 1)


def test_run_stale_growth_feeds_back_usage_only_when_asked(cache):
    cfg = with_overrides(maintenance_config(), FAST)
    plain = run_stale_growth([("fast", cfg)], cache, sizes=[10, 40], seed=0).results[0]
    assert not plain.feedback and all(s.usage == [] for s in plain.sizes)
    fed = run_stale_growth([("fast", cfg)], cache, sizes=[10, 40], seed=0,
                           feedback=True).results[0]
    assert fed.feedback and fed.to_dict()["feedback"] is True
    for s in fed.sizes:
        # one outcome per question, and a success exactly when the first memory was right
        assert len(s.usage) == len(RELEVANT)
        assert sum(ok for _, ok in s.usage) == round(s.scores["maintained"].top1 * 10)
        assert [m for m, _ in s.usage] == s.scores["maintained"].top1_ids
    assert "usage fed back" in run_stale_growth(
        [("fast", cfg)], cache, sizes=[10], feedback=True).format()


def test_run_stale_growth_errors(cache):
    with pytest.raises(InputError, match=">= 10"):
        run_stale_growth([("x", Config())], cache, sizes=[5])
    with pytest.raises(InputError, match="no configuration"):
        run_stale_growth([], cache)


def test_cli_stale_growth(cli, tmp_path):
    out = tmp_path / "stale.json"
    r = cli("eval", "stale-growth", "--sizes", "10,40", "--set", "embedding.model=hashing",
            "--set", "reduction.method=pca", "--cache", tmp_path / "c.sqlite", "--json", out)
    assert r.exit_code == 0, r.output
    data = json.loads(out.read_text())
    assert [s["size"] for s in data["results"][0]["sizes"]] == [10, 40]
    assert data["results"][0]["name"] == "stale-growth"
    r = cli("eval", "stale-growth", "--sizes", "ten")
    assert r.exit_code == 2 and "--sizes" in r.output


@pytest.mark.slow
def test_maintenance_beats_unbounded_with_minilm(cache):
    """The claims with the real embedder (PCA instead of UMAP to keep it short)."""
    cfg = with_overrides(maintenance_config(), {"reduction.method": "pca"})
    report = run_stale_growth([("minilm", cfg)], cache, sizes=[100, 200, 500])
    res = report.results[0]
    for s in res.sizes:
        print(s.size, {k: round(v.top1, 2) for k, v in s.scores.items()})
    claims = res.holds()
    assert claims["maintained_ge_unbounded_from_100"]
    assert claims["maintained_ge_60pct_at_500"]
    assert claims["maintained_gate_ge_60pct_at_500"]
