"""Outcome counters without a query (issue #37): feedback recorded as plain counts (the Python
API, ``memmaint feedback`` without ``--query``, imported ``successes``/``failures`` columns)
is evidence about the memory in general. A memory expected to help less often than its
namespace is pulled toward its expected success with weight ``n / (n + outcome_counts_evidence)``
(``n`` its outcomes), so one failure outweighs a query worded to favour it by up to 0.6 cosine;
a proven memory is lifted by at most the band, and only on topic, so similarity still decides
between proven memories and a good record does not carry an off-topic one."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from test_retrieve import at_cosines as _at_cosines

from memmaint.maintenance.core.config import Config, RetrieveConfig, with_overrides
from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.retrieve.search import REFUSE, SERVE, Retriever, retrieve

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=timezone.utc)
CFG = RetrieveConfig(lexical=False)


def mem(id: str, s: int = 0, f: int = 0, kind: str = "default", days: float = 5.0) -> Memory:
    return Memory(text=f"memory {id}", id=id, created_at=NOW - timedelta(days=days),
                  successes=s, failures=f, retrievals=s + f, kind=kind)


def at_cosines(cosines: list[float]) -> tuple[np.ndarray, np.ndarray]:
    """A query e0 and one unit row per cosine, each orthogonal part on its own axis."""
    return _at_cosines(cosines, dim=len(cosines) + 1)


def shared_pool(good_cos: float, bad_cos: float) -> tuple[list[Memory], np.ndarray, np.ndarray]:
    """One namespace: this need's advice that worked 5 times and advice that failed once, and
    14 other needs' pairs (proven advice at 0.20-0.27, failed advice at 0.10-0.17)."""
    pool = [mem("good", 5, 0), mem("bad", 0, 1)]
    cosines = [good_cos, bad_cos]
    for k in range(14):
        pool += [mem(f"other-{k}-good", 5, 0), mem(f"other-{k}-bad", 0, 1)]
        cosines += [0.20 + 0.005 * k, 0.10 + 0.005 * k]
    q, vecs = at_cosines(cosines)
    return pool, vecs, q


@pytest.mark.parametrize("good_cos,gap", [(0.6, 0.25), (0.5, 0.45), (0.35, 0.6), (0.3, 0.6)])
def test_five_successes_beat_one_failure_worded_closer_by_up_to_0_6(good_cos, gap):
    pool, vecs, q = shared_pool(good_cos, good_cos + gap)
    res = retrieve("q", pool, vecs, config=CFG, now=NOW, query_vector=q)
    assert res.decision == SERVE and res.ids[0] == "good"
    assert res.ids[1] == "bad"  # the failed advice sinks, it is not dropped
    assert not any(i.startswith("other-") for i in res.ids[:2])


def test_the_old_additive_band_alone_would_serve_the_failure():
    # outcome_counts_evidence large: only the band's -2 * band * (r - m) is left
    pool, vecs, q = shared_pool(0.35, 0.95)
    band_only = RetrieveConfig(lexical=False, outcome_counts_evidence=1e6, replacement_cosine=2)
    assert retrieve("q", pool, vecs, config=band_only, now=NOW, query_vector=q).ids[0] == "bad"


def test_the_pull_grows_with_the_failures():
    # the untried memory is on topic (within the margin of 0.8): the failures sink below it
    pool = [mem("once", 0, 1), mem("four", 0, 4), mem("untried")]
    q, vecs = at_cosines([0.8, 0.8, 0.6])
    res = retrieve("q", pool, vecs, config=CFG, now=NOW, query_vector=q)
    by_id = {r.id: r for r in res.results}
    assert by_id["four"].final < by_id["once"].final < 0.8
    assert res.ids[0] == "untried"


def test_a_failing_memory_is_never_lifted_toward_its_expected_success():
    # similarity 0.1 < expected success ~0.35: the blend would lift it; the band still demotes
    pool = [mem("failed", 0, 1), mem("proven", 3, 0)]
    q, vecs = at_cosines([0.1, 0.7])
    res = retrieve("q", pool, vecs, config=CFG, now=NOW, query_vector=q)
    failed = next(r for r in res.results if r.id == "failed")
    assert failed.outcome_bonus < 0 and failed.final < 0.1


def test_similarity_still_decides_between_proven_memories():
    # another need's proven advice is less similar than this need's: the lift is the band's,
    # the same for both, so it cannot carry the other one past
    pool = [mem("mine", 2, 0), mem("theirs", 12, 0), mem("bad", 0, 1)]
    q, vecs = at_cosines([0.75, 0.67, 0.9])  # both on topic: within the margin of the best
    res = retrieve("q", pool, vecs, config=CFG, now=NOW, query_vector=q)
    assert res.ids[:2] == ["mine", "theirs"]


def test_a_proven_memory_below_the_floor_is_not_lifted():
    pool = [mem("new"), mem("proven", 30, 0)]
    q, vecs = at_cosines([0.6, 0.25])
    res = retrieve("q", pool, vecs, config=CFG, now=NOW, query_vector=q)
    assert res.ids[0] == "new"
    assert all(r.outcome_bonus == 0.0 for r in res.results if r.id == "proven")


def test_refusal_holds_with_a_proven_loosely_related_note():
    # the only answer expired; a fresh note with a good record sits far below it
    stale = mem("stale price", kind="price", days=10.0)  # TTL 3 days: STALE_BLOCK
    pool = [stale, mem("loose", 9, 0, days=1.0)] + [mem(f"d{k}") for k in range(6)]
    q, vecs = at_cosines([0.88, 0.35] + [0.05] * 6)
    res = retrieve("q", pool, vecs, config=CFG, now=NOW, query_vector=q)
    assert res.decision == REFUSE


def test_the_retriever_agrees_with_the_formula():
    pool = [mem("bad", 0, 1), mem("good", 5, 0)]
    q, vecs = at_cosines([0.9, 0.7])
    cfg = with_overrides(Config(), {"retrieve.lexical": False,  # the formula, no pairing
                                    "retrieve.replacement_cosine": 2.0})
    r = Retriever(pool, vecs, config=cfg)
    expected, rate, evidence = r._outcomes.at(NOW)
    res = {x.id: x for x in r.search("q", query_vector=q, now=NOW).results}
    w = evidence[0] / (evidence[0] + cfg.retrieve.outcome_counts_evidence)
    assert res["bad"].final == pytest.approx((1 - w) * 0.9 + w * expected[0])
    lift = 2 * cfg.retrieve.outcome_band * (expected[1] - rate[1])
    assert res["good"].final == pytest.approx(0.7 + lift)


def test_a_good_record_does_not_lift_another_need_across_the_failed_memory_s_gap():
    # the query asks the failed advice's need (0.9); an untried note of that need sits at 0.7,
    # on topic; a proven memory of another need sits at 0.5, more than the margin below the
    # best: its record does not carry it past the note (before: 0.5 + 0.25 > 0.7)
    # (pairing off: the failed advice's pair, when it has one, is test_replacement's matter)
    pool = [mem("bad", 0, 1), mem("note", 0, 0), mem("other-need", 5, 0)]
    q, vecs = at_cosines([0.9, 0.7, 0.5])
    cfg = RetrieveConfig(lexical=False, replacement_cosine=2.0)
    res = retrieve("q", pool, vecs, config=cfg, now=NOW, query_vector=q)
    other = next(r for r in res.results if r.id == "other-need")
    assert other.outcome_bonus == 0.0 and not other.on_topic
    # the failed advice sinks below the note, on topic, but not below the other need's advice
    assert res.ids == ["note", "bad", "other-need"]
    # the old rule (lift wherever the floors allow) served the other need's advice first
    old = RetrieveConfig(lexical=False, replacement_cosine=2.0, lift_on_topic_only=False,
                         sink_on_topic_only=False)
    assert retrieve("q", pool, vecs, config=old, now=NOW, query_vector=q).ids[0] == "other-need"


def test_a_failure_sinks_among_its_topic_not_below_another_topic_s_proven_memory():
    # the query asks the failed advice's need (0.9), which has no proven advice (pairs off);
    # the proven advice of another need (0.55) is off topic (more than the margin below the
    # best): the evidence sinks the failure, but it does not hand the query to that memory
    pool = [mem("bad", 0, 1), mem("other-need", 5, 0), mem("far", 0, 0)]
    q, vecs = at_cosines([0.9, 0.55, 0.1])
    cfg = RetrieveConfig(lexical=False, replacement_cosine=2.0)
    res = retrieve("q", pool, vecs, config=cfg, now=NOW, query_vector=q)
    assert res.decision == SERVE and res.ids[:2] == ["bad", "other-need"]
    bad = res[0]
    assert bad.on_topic and bad.outcome_bonus < 0  # still sunk: 0.9 -> just above 0.55
    assert res[1].final < bad.final < 0.56
    assert bad.final == pytest.approx(bad.similarity + bad.lexical + bad.outcome_bonus)
    # before (retrieve.sink_on_topic_only off) the failure sank under the other need's advice
    old = RetrieveConfig(lexical=False, replacement_cosine=2.0, sink_on_topic_only=False)
    assert retrieve("q", pool, vecs, config=old, now=NOW, query_vector=q).ids[0] == "other-need"


def test_a_failure_still_sinks_below_an_untried_memory_on_topic():
    # an untried note at 0.75 (within the margin of 0.9) is on topic: served before the
    # failure, which still comes before the off-topic proven memory
    pool = [mem("bad", 0, 1), mem("note", 0, 0), mem("other-need", 5, 0)]
    q, vecs = at_cosines([0.9, 0.75, 0.55])
    cfg = RetrieveConfig(lexical=False, replacement_cosine=2.0)
    assert retrieve("q", pool, vecs, config=cfg, now=NOW, query_vector=q).ids == [
        "note", "bad", "other-need"]


def test_several_failures_keep_their_evidence_order_above_the_off_topic_floor():
    # two failures on topic, one failed once (0.85) and one four times (0.9, and newer): both
    # are raised above the off-topic proven memory, the one with less evidence against it
    # still first (a tie at the floor would have gone to the newer)
    pool = [mem("bad-1", 0, 1, days=5), mem("bad-4", 0, 4, days=3), mem("other-need", 5, 0)]
    q, vecs = at_cosines([0.85, 0.9, 0.5])
    cfg = RetrieveConfig(lexical=False, replacement_cosine=2.0)
    res = retrieve("q", pool, vecs, config=cfg, now=NOW, query_vector=q)
    assert res.ids == ["bad-1", "bad-4", "other-need"]
    assert res[2].final < res[1].final < res[0].final < 0.51
