"""LoCoMo evaluation: loading, honest evidence recall, provenance of dialogue ids, a real run.

Fast settings: the hand-written sample ``fixtures/locomo_sample.json`` (two conversations in
the LoCoMo format, always present), the hashing embedder and PCA. The real data
(``../shared/data``) is used where a test says so; the full MiniLM/UMAP run over the dev half
is in docs/evaluation.md.
"""

from __future__ import annotations

import json
import shutil
from datetime import timedelta
from pathlib import Path

import pytest

from memmaint.maintenance.agents.coverage import coverage
from memmaint.maintenance.core.config import Config, with_overrides
from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.evaluation.common import EvalCache, maintain
from memmaint.maintenance.evaluation.locomo import (
    audit_merges,
    covered_ids,
    evidence_recall,
    load_locomo,
    memory_dia_ids,
    run_locomo,
)

FAST = {"embedding.model": "hashing", "reduction.method": "pca"}
SAMPLE = Path(__file__).parent / "fixtures" / "locomo_sample.json"


@pytest.fixture
def sample():
    return load_locomo(SAMPLE)


@pytest.fixture
def cache(tmp_path):
    with EvalCache(tmp_path / "cache.sqlite") as c:
        yield c


def test_load_the_sample_file(sample):
    assert [c.sample_id for c in sample] == ["sample-1", "sample-2"]
    assert [len(c.memories) for c in sample] == [28, 20]
    assert [len(c.questions) for c in sample] == [15, 13]
    one = sample[0]
    assert {m.namespace for m in one.memories} == {"sample-1"}
    assert all(memory_dia_ids(m) for m in one.memories)
    by_text = {q.text: q for q in one.questions}
    # malformed evidence strings ("D2:2; D3:2", "D1:10 D2:10") are parsed with re.findall
    assert by_text["Is Ben a Weight Watchers coach?"].evidence == ("D2:2", "D3:2")
    assert by_text["What does Ben bake?"].evidence == ("D1:10", "D2:10")
    assert by_text["Would Ana enjoy working nights?"].evidence == ()
    s1 = [m for m in one.memories if m.metadata["session"] == 1]
    s2 = [m for m in one.memories if m.metadata["session"] == 2]
    assert max(m.created_at for m in s1) < min(m.created_at for m in s2)
    assert load_locomo(SAMPLE, 1)[0].sample_id == "sample-1"
    assert [c.sample_id for c in load_locomo(SAMPLE, ["sample-2"])] == ["sample-2"]


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


def test_load_locomo_errors(tmp_path):
    with pytest.raises(InputError, match="not found"):
        load_locomo(tmp_path)
    with pytest.raises(InputError, match="conv-999"):
        load_locomo(SAMPLE, ["conv-999"])
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


def test_honest_credit_only_counts_sources_the_merged_text_covers():
    src = {"a": Memory("Sam sees becoming a Weight Watchers coach as a great step.", id="a",
                       metadata={"dia_ids": ["D1:1"]}),
           "b": Memory("sam sees becoming a weight watchers coach as a great step", id="b",
                       metadata={"dia_ids": ["D2:1"]}),
           "c": Memory("Sam is now a Weight Watchers coach.", id="c",
                       metadata={"dia_ids": ["D3:1"]})}
    ids = ["D1:1", "D2:1", "D3:1"]
    # the old merge: the canonical text only, the union of every source's ids
    lossy = Memory(src["a"].text, id="m", metadata={"dia_ids": ids,
                                                   "merged_from": ["a", "b", "c"]})
    honest = covered_ids(src)
    assert honest(lossy) == {"D1:1", "D2:1"}
    assert honest(src["c"]) == {"D3:1"}  # not a merge: its own ids
    assert evidence_recall([lossy], ["D3:1"]) == 1.0  # union: an upper bound
    assert evidence_recall([lossy], ["D3:1"], honest) == 0.0
    # a composed text that keeps the distinct fact is credited with it
    kept = Memory(f"{src['a'].text} {src['c'].text}", id="k",
                  metadata={"dia_ids": ids, "merged_from": ["a", "b", "c"]})
    assert honest(kept) == set(ids)
    audit = audit_merges([lossy, src["c"]], src, size=5)
    assert (audit.merges, audit.sources, audit.dropped) == (1, 3, 1)
    (row,) = audit.sample
    assert row["fact_dropped"] is True
    lost = next(s for s in row["sources"] if s["id"] == "c")
    assert lost["covered"] is False and "now" in lost["missing"]


def test_audit_sample_is_the_same_whatever_ids_the_merged_memories_got():
    # a merged memory's id is new in every run; the sample must follow its sources instead
    src = {f"s{i}": Memory(f"Fact number {i} about the garden.", id=f"s{i}") for i in range(40)}

    def merges(step):  # the merged ids sort in another order in each run
        return [Memory(f"Fact number {i} about the garden. Fact number {i + 1} about the "
                       f"garden.", id=f"m{(step * i) % 41:02d}",
                       metadata={"merged_from": [f"s{i + 1}", f"s{i}"]})
                for i in range(0, 40, 2)]

    first = audit_merges(merges(7), src, size=5, seed=3).sample
    again = audit_merges(merges(3)[::-1], src, size=5, seed=3).sample
    assert [r["result"] for r in first] == [r["result"] for r in again]
    other = audit_merges(merges(7), src, size=5, seed=4).sample
    assert [r["result"] for r in other] != [r["result"] for r in first]


def test_merged_memory_carries_the_union_of_its_sources_ids(sample, cache):
    # the same observation noted again in five later sessions (a dense group, so HDBSCAN
    # clusters it): the job must merge them with the original and keep every dialogue id,
    # and the merged text must cover every source (the honest credit keeps them all)
    conv = sample[0]
    orig = next(m for m in conv.memories if m.text == "Ben bakes sourdough bread every weekend.")
    copies = [Memory(orig.text + suffix, id=f"copy{i}", namespace=orig.namespace,
                     created_at=orig.created_at + timedelta(days=30 * (i + 1)),
                     metadata={"dia_ids": [f"D{20 + i}:1"], "session": 20 + i,
                               "speaker": "x"})
              for i, suffix in enumerate(["", " ", ".", "!", "  "])]
    pool = list(conv.memories) + copies
    config = with_overrides(Config(), FAST)
    done = maintain(pool, config, cache, now=max(m.created_at for m in pool))
    assert done.actions[(orig.namespace, orig.id)] == "merge"
    holder = [m for m in done.active if orig.id in m.metadata.get("merged_from", [])]
    assert len(holder) == 1
    wanted = memory_dia_ids(orig) | {f"D{20 + i}:1" for i in range(5)}
    assert memory_dia_ids(holder[0]) >= wanted
    assert covered_ids({m.id: m for m in pool})(holder[0]) >= wanted
    # provenance: every id of the pool is still carried, except those of memories the run
    # superseded or evicted (those facts left the pool on purpose)
    gone = {k[1] for k, a in done.actions.items() if a in ("supersede", "resolve", "evict")}
    before = set().union(*(memory_dia_ids(m) for m in pool if m.id not in gone))
    after = set().union(*(memory_dia_ids(m) for m in done.active))
    assert before <= after
    # no merged memory of the run drops a source's content
    by_id = {m.id: m for m in pool}
    for m in done.active:
        for sid in m.metadata.get("merged_from", []):
            assert coverage(by_id[sid].text, m.text).covered


def test_run_locomo_control_and_after(sample, cache):
    base = with_overrides(Config(), FAST)
    loose = with_overrides(base, {"agents.merge_threshold": 0.5,
                                  "clustering.hdbscan.min_cluster_size": 3})
    report = run_locomo(sample, [("default", base), ("loose", loose)], cache, audit_size=4)
    default, lo = report.results
    assert default.pool_before == lo.pool_before == 48
    assert lo.pool_after <= default.pool_after < default.pool_before  # the sample merges
    assert default.before is lo.before  # same embedder and retrieval: one control run
    n = sum(1 for c in sample for q in c.questions if q.evidence)
    assert default.before.n_questions == n == 27
    assert sum(default.before.count_by_category.values()) == n
    assert set(default.before.by_category) == {1, 2, 3, 4, 5}
    for table in (default.before, default.after, lo.after, lo.after_union):
        o = table.overall
        assert 0.0 <= o["recall@5"] <= o["recall@10"] <= 1.0
        assert 0.0 <= o["recall@100tok"] <= o["recall@200tok"] <= 1.0
    # honest credit can never beat the union of the sources' ids
    for r in (default, lo):
        for k in ("recall@5", "recall@10", "recall@100tok", "recall@200tok"):
            assert r.after.overall[k] <= r.after_union.overall[k] + 1e-12
        assert r.audit is not None and r.audit.merges > 0 and r.audit.dropped == 0
        assert r.chars_before == sum(len(m.text) for c in sample for m in c.memories)
        assert r.tokens_before == sum(len(m.text.split()) for c in sample for m in c.memories)
        assert 0 < r.tokens_after
        assert r.moved is not None and r.moved.questions > 0
        assert set(r.targets()) == {"text_shrink>0", "recall@100tok>=control",
                                    "recall@200tok>=control", "no_temporal_evidence_moved"}
    n_temporal = sum(1 for c in sample for q in c.questions
                     if q.evidence and (q.category == 2 or q.text.startswith("When")))
    assert default.moved.questions == n_temporal
    assert len(lo.audit.sample) == 4
    data = json.loads(json.dumps(report.to_dict()))
    assert data["suite"] == "locomo" and len(data["results"]) == 2
    first = data["results"][0]
    assert first["pool_after"] == default.pool_after
    assert first["within_limit"] == default.within_limit()
    assert "recall@10" in first["control"]["by_category"]["4"]
    assert "recall@100tok" in first["after"]["overall"]
    assert first["temporal_moved"]["moved"] == default.moved.moved
    assert first["text_shrink"] == default.text_shrink
    assert first["merge_audit"]["sources_not_covered"] == 0
    # the best row is the largest shrink among the rows within the limit (or none)
    ok = [r for r in report.results if r.within_limit()]
    best = report.best
    assert best == (max(ok, key=lambda r: r.shrink) if ok else None)
    assert data["best"] == (best.name if best else None)
    text = report.format()
    assert "control (maintenance off)" in text and "per question category" in text
    assert "R@10 union (upper bound)" in text
    assert "R@100 tok" in text and "temporal moved" in text and "#32 targets" in text


def test_the_best_row_is_chosen_on_the_honest_credit(sample, cache):
    report = run_locomo(sample, [("default", with_overrides(Config(), FAST))], cache)
    (res,) = report.results
    # a pretend union figure that looks perfect does not make a row acceptable
    res.after_union = res.before
    res.after = type(res.after)(res.after.n_questions, {k: v - 0.5 for k, v in
                                                        res.before.overall.items()},
                                res.after.by_category, res.after.count_by_category)
    assert res.drop(10, "union") == 0.0 and not res.within_limit()
    assert report.best is None
    assert "down <= 1 pt: none" in report.format()


def test_a_token_budget_drop_fails_the_limit_and_the_targets(sample, cache):
    report = run_locomo(sample, [("default", with_overrides(Config(), FAST))], cache,
                        budgets=(50,))
    (res,) = report.results
    assert set(res.after.overall) == {"recall@5", "recall@10", "recall@50tok"}
    # recall@10 as good as the control, but the text read within 50 tokens holds less
    res.after = res.before
    res.after = type(res.after)(res.after.n_questions,
                                {**res.before.overall,
                                 "recall@50tok": res.before.overall["recall@50tok"] - 0.02},
                                res.after.by_category, res.after.count_by_category)
    assert res.drop(10) == 0.0 and not res.within_limit()
    assert res.targets()["recall@50tok>=control"] is False
    with pytest.raises(InputError):
        run_locomo(sample, [("default", with_overrides(Config(), FAST))], cache, budgets=(0,))


def test_cli_locomo_reads_a_data_file(cli, tmp_path):
    out = tmp_path / "locomo.json"
    result = cli("eval", "locomo", "--data", SAMPLE, "--set", "embedding.model=hashing",
                 "--set", "reduction.method=pca", "--cache", tmp_path / "c.sqlite",
                 "--json", out)
    assert result.exit_code == 0, result.output
    assert "control (maintenance off)" in result.output
    data = json.loads(out.read_text())
    assert data["conversations"] == ["sample-1", "sample-2"]
    assert data["results"][0]["name"] == "default"
    assert len(data["results"][0]["merge_audit"]["sample"]) <= 30


def test_cli_locomo_data_dir_still_works(cli, tmp_path):
    folder = tmp_path / "data" / "locomo"
    folder.mkdir(parents=True)
    shutil.copy(SAMPLE, folder / "locomo_dev5.json")
    result = cli("eval", "locomo", "--data-dir", tmp_path / "data", "--conversations",
                 "sample-2", "--set", "embedding.model=hashing", "--set",
                 "reduction.method=pca", "--cache", tmp_path / "c.sqlite")
    assert result.exit_code == 0, result.output
    assert "R@100 tok" in result.output


def test_cli_locomo_user_errors(cli, tmp_path):
    r = cli("eval", "locomo", "--data-dir", tmp_path / "nope")
    assert r.exit_code == 2 and "not found" in r.output
    r = cli("eval", "locomo", "--data", tmp_path / "nope.json")
    assert r.exit_code == 2 and "not found" in r.output
    r = cli("eval", "locomo", "--data", SAMPLE, "--grid", "agents.nope=1,2",
            "--cache", tmp_path / "c.sqlite")
    assert r.exit_code == 2 and "agents.nope" in r.output
    r = cli("eval", "locomo", "--data", SAMPLE, "--set", "a.b=1,2")
    assert r.exit_code == 2 and "one value" in r.output
    r = cli("eval", "locomo", "--data", SAMPLE, "--budgets", "100,0")
    assert r.exit_code == 2 and "--budgets" in r.output


@pytest.mark.slow
def test_default_rules_meet_the_issue_32_targets_on_the_dev_half(shared_data, cache):
    """The issue's LoCoMo claim with the real embedder over the dev half (PCA instead of UMAP
    to keep it shorter; docs/evaluation.md has the full default run): the text shrinks,
    recall at 100 and 200 tokens of retrieved text is not below the control, and no temporal
    question's evidence moved to another date."""
    convs = load_locomo(shared_data)
    config = with_overrides(Config(), {"reduction.method": "pca"})
    (res,) = run_locomo(convs, [("default", config)], cache).results
    print(res.targets(), f"text shrink {res.text_shrink:.3f}",
          {k: -res.drop(k) for k in ("recall@100tok", "recall@200tok")},
          res.moved.to_dict()["moved"] if res.moved else None)
    assert all(res.targets().values())
