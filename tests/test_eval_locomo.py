"""LoCoMo evaluation: loading, evidence recall, provenance of dialogue ids through a real run.

Fast settings: one conversation, the hashing embedder and PCA (the full MiniLM/UMAP run over
all five conversations is in docs/evaluation.md).
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from memmaint.maintenance.core.config import Config, with_overrides
from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.evaluation.locomo import (
    evidence_recall,
    kept_text_ids,
    load_locomo,
    memory_dia_ids,
    run_locomo,
)
from memmaint.maintenance.evaluation.common import EvalCache, maintain
from memmaint.maintenance.core.records import Memory

FAST = {"embedding.model": "hashing", "reduction.method": "pca"}


@pytest.fixture
def conv26(shared_data):
    return load_locomo(shared_data, ["conv-26"])[0]


@pytest.fixture
def cache(tmp_path):
    with EvalCache(tmp_path / "cache.sqlite") as c:
        yield c


def test_load_locomo_reads_observations_and_evidence(shared_data):
    convs = load_locomo(shared_data)
    assert [c.sample_id for c in convs] == ["conv-26", "conv-30", "conv-41", "conv-42",
                                            "conv-43"]
    assert sum(len(c.memories) for c in convs) == 1210
    assert sum(len(c.questions) for c in convs) == 999
    for c in convs:
        assert {m.namespace for m in c.memories} == {c.sample_id}
        assert all(memory_dia_ids(m) for m in c.memories)
    # malformed evidence strings are parsed with re.findall
    q = next(q for q in convs[0].questions if q.text == "What did Melanie paint recently?")
    assert q.evidence == ("D8:6", "D9:17")
    # sessions are dated: later sessions are newer
    mems = convs[0].memories
    s1 = [m for m in mems if m.metadata["session"] == 1]
    s2 = [m for m in mems if m.metadata["session"] == 2]
    assert max(m.created_at for m in s1) < min(m.created_at for m in s2)


def test_load_locomo_errors(tmp_path, shared_data):
    with pytest.raises(InputError, match="not found"):
        load_locomo(tmp_path)
    with pytest.raises(InputError, match="conv-999"):
        load_locomo(shared_data, ["conv-999"])
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InputError, match="cannot read"):
        load_locomo(bad)


def test_evidence_recall_counts_the_union_of_dialogue_ids():
    a = Memory("x", id="a", metadata={"dia_ids": ["D1:1", "D1:2"]})
    b = Memory("y", id="b", metadata={"dia_ids": "D2:5"})
    assert evidence_recall([a], ["D1:1", "D2:5"]) == 0.5
    assert evidence_recall([a, b], ["D1:1", "D2:5"]) == 1.0
    assert evidence_recall([], ["D1:1"]) == 0.0
    with pytest.raises(ValueError):
        evidence_recall([a], [])


def test_kept_text_credit_only_counts_sources_whose_text_survived():
    src = {"a": Memory("Caroline went hiking.", id="a", metadata={"dia_ids": ["D1:1"]}),
           "b": Memory("caroline  went hiking.", id="b", metadata={"dia_ids": ["D2:1"]}),
           "c": Memory("Caroline adopted a dog.", id="c", metadata={"dia_ids": ["D3:1"]})}
    merged = Memory("Caroline went hiking.", id="m",
                    metadata={"dia_ids": ["D1:1", "D2:1", "D3:1"], "merged_from": ["a", "b", "c"]})
    strict = kept_text_ids(src)
    assert strict(merged) == {"D1:1", "D2:1"}
    assert strict(src["c"]) == {"D3:1"}
    assert evidence_recall([merged], ["D3:1"]) == 1.0
    assert evidence_recall([merged], ["D3:1"], strict) == 0.0


def test_merged_memory_carries_the_union_of_its_sources_ids(conv26, cache):
    # the same observation noted again in five later sessions (a dense group, so HDBSCAN
    # clusters it): the job must merge them with the original and keep every dialogue id
    orig = conv26.memories[0]
    copies = [Memory(orig.text + suffix, id=f"copy{i}", namespace=orig.namespace,
                     created_at=orig.created_at + timedelta(days=30 * (i + 1)),
                     metadata={"dia_ids": [f"D{20 + i}:1"], "session": 20 + i,
                               "speaker": "x"})
              for i, suffix in enumerate(["", " ", ".", "!", "  "])]
    pool = list(conv26.memories) + copies
    config = with_overrides(Config(), FAST)
    done = maintain(pool, config, cache, now=max(m.created_at for m in pool))
    assert done.actions[(orig.namespace, orig.id)] == "merge"
    holder = [m for m in done.active if orig.id in m.metadata.get("merged_from", [])]
    assert len(holder) == 1
    assert memory_dia_ids(holder[0]) >= memory_dia_ids(orig) | {f"D{20 + i}:1" for i in range(5)}
    # provenance: every id of the pool is still carried, except those of memories the run
    # superseded or evicted (those facts left the pool on purpose)
    gone = {k[1] for k, a in done.actions.items() if a in ("supersede", "resolve", "evict")}
    before = set().union(*(memory_dia_ids(m) for m in pool if m.id not in gone))
    after = set().union(*(memory_dia_ids(m) for m in done.active))
    assert before <= after


def test_run_locomo_before_and_after(conv26, cache):
    base = with_overrides(Config(), FAST)
    loose = with_overrides(base, {"agents.merge_threshold": 0.5,
                                  "clustering.hdbscan.min_cluster_size": 3})
    report = run_locomo([conv26], [("default", base), ("loose", loose)], cache)
    default, lo = report.results
    assert default.pool_before == lo.pool_before == len(conv26.memories)
    assert lo.pool_after < lo.pool_before  # a loose threshold merges
    assert default.before.overall == lo.before.overall  # same embedder, same baseline
    n = sum(1 for q in conv26.questions if q.evidence)
    assert default.before.n_questions == n
    assert sum(default.before.count_by_category.values()) == n
    for table in (default.before, default.after, lo.after, lo.after_kept):
        assert 0.0 <= table.overall[5] <= table.overall[10] <= 1.0
    if default.pool_after == default.pool_before:
        assert default.after.overall == default.before.overall
    # crediting only the kept text can never beat crediting the union of the sources' ids
    for k in (5, 10):
        assert lo.after_kept.overall[k] <= lo.after.overall[k] + 1e-12
    data = json.loads(json.dumps(report.to_dict()))
    assert data["suite"] == "locomo" and len(data["results"]) == 2
    assert data["results"][1]["pool_after"] == lo.pool_after
    assert "recall@10" in data["results"][0]["before"]["by_category"]["4"]
    assert report.best is not None and report.best.within_limit()
    text = report.format()
    assert "R@10 before" in text and "per question category" in text


def test_cli_locomo_writes_json(cli, shared_data, tmp_path):
    out = tmp_path / "locomo.json"
    result = cli("eval", "locomo", "--data-dir", shared_data, "--conversations", "conv-26",
                 "--set", "embedding.model=hashing", "--set", "reduction.method=pca",
                 "--cache", tmp_path / "c.sqlite", "--json", out)
    assert result.exit_code == 0, result.output
    assert "R@10 before" in result.output
    data = json.loads(out.read_text())
    assert data["conversations"] == ["conv-26"]
    assert data["results"][0]["name"] == "default"


def test_cli_locomo_user_errors(cli, shared_data, tmp_path):
    r = cli("eval", "locomo", "--data-dir", tmp_path / "nope")
    assert r.exit_code == 2 and "not found" in r.output
    r = cli("eval", "locomo", "--data-dir", shared_data, "--grid", "agents.nope=1,2",
            "--cache", tmp_path / "c.sqlite")
    assert r.exit_code == 2 and "agents.nope" in r.output
    r = cli("eval", "locomo", "--data-dir", shared_data, "--set", "a.b=1,2")
    assert r.exit_code == 2 and "one value" in r.output


@pytest.mark.slow
def test_default_rules_shrink_the_pool_within_one_recall_point(shared_data, cache):
    """The claim with the real embedder over all five conversations (PCA instead of UMAP to
    keep it shorter; docs/evaluation.md has the full default run)."""
    convs = load_locomo(shared_data)
    config = with_overrides(Config(), {"reduction.method": "pca"})
    (res,) = run_locomo(convs, [("default", config)], cache).results
    print(f"pool {res.pool_before} -> {res.pool_after}, recall@10 "
          f"{res.before.overall[10]:.4f} -> {res.after.overall[10]:.4f} "
          f"(kept text {res.after_kept.overall[10]:.4f})")
    assert res.pool_after < res.pool_before
    assert res.drop(10) <= 0.01
