"""Outcome evidence tied to the question (issue #37 item 2): a serve history says for which
queries a memory helped or failed, so a record counts only for queries like those, and weighs
against similarity in proportion to how much of it there is; and the same-need test of the
maintenance agents uses the cluster, not a fixed cosine."""

from __future__ import annotations

import dataclasses
import math
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from memmaint.maintenance.agents.outcome_rules import group_outcome_siblings
from memmaint.maintenance.agents.rules import plan
from memmaint.maintenance.core.config import AgentsConfig, Config, with_overrides
from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.core.records import Memory, Status
from memmaint.maintenance.core.served import ServeLog, matched_counts
from memmaint.maintenance.retrieve.search import REFUSE, Retriever

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=timezone.utc)
DIM = 16
NS = "default"


def mem(id: str, s: int = 0, f: int = 0, kind: str = "default", days: float = 5.0) -> Memory:
    return Memory(text=f"memory {id}", id=id, created_at=NOW - timedelta(days=days),
                  successes=s, failures=f, retrievals=s + f, kind=kind,
                  last_used_at=NOW - timedelta(days=1) if s + f else None)


def axis(i: int) -> np.ndarray:
    v = np.zeros(DIM)
    v[i] = 1.0
    return v


def toward(a: np.ndarray, b: np.ndarray, cos: float) -> np.ndarray:
    """A unit vector at cosine ``cos`` with ``a``, the rest along ``b`` (orthogonal to a)."""
    return cos * a + math.sqrt(1.0 - cos * cos) * b


def config(**retrieve) -> Config:
    base = with_overrides(Config(), {"retrieve.lexical": False})
    return with_overrides(base, {f"retrieve.{k}": v for k, v in retrieve.items()})


def log_of(uses: list[tuple[str, np.ndarray, float]]) -> ServeLog:
    return ServeLog(tuple((NS, mid) for mid, _q, _o in uses),
                    np.array([q for _m, q, _o in uses]), np.array([o for _m, _q, o in uses]))


# -- the log and the counts -----------------------------------------------------------------

def test_a_serve_log_refuses_misaligned_or_unknown_outcomes():
    with pytest.raises(InputError):
        ServeLog(((NS, "a"),), np.zeros((2, 3)), np.zeros(1))
    with pytest.raises(InputError):
        ServeLog(((NS, "a"),), np.ones((1, 3)), np.array([0.5]))
    with pytest.raises(InputError):
        ServeLog(((NS, "a"),), np.full((1, 3), np.nan), np.array([1.0]))
    assert len(ServeLog(((NS, "a"),), np.ones((1, 3)), np.array([np.nan]))) == 1


def test_only_uses_for_the_same_question_count():
    q = axis(0)
    near, far = toward(q, axis(1), 0.9), toward(q, axis(1), 0.5)
    log = log_of([("a", near, 1.0), ("a", far, 1.0), ("a", far, 0.0), ("b", far, 0.0),
                  ("a", near, np.nan)])
    s, f, logged, closest = matched_counts(log, [(NS, "a"), (NS, "b"), (NS, "c")], q, 0.7)
    assert list(s) == [1.0, 0.0, 0.0] and list(f) == [0.0, 0.0, 0.0]
    assert list(logged) == [True, True, False]
    assert closest[0] == pytest.approx(0.9) and closest[1] == pytest.approx(0.5)
    assert closest[2] == -1.0
    s, f, _l, _c = matched_counts(log, [(NS, "a"), (NS, "b")], q, 0.4)  # looser: all count
    assert list(s) == [2.0, 0.0] and list(f) == [1.0, 1.0]


def test_a_memory_whose_questions_are_all_farther_than_another_candidates_does_not_count():
    q = axis(0)
    log = log_of([("mine", toward(q, axis(1), 0.83), 1.0),
                  ("neighbour", toward(q, axis(2), 0.71), 1.0),
                  ("neighbour", toward(q, axis(3), 0.5), 1.0)])
    keys = [(NS, "mine"), (NS, "neighbour")]
    s, _f, logged, closest = matched_counts(log, keys, q, 0.7, nearest_floor=0.83 - 0.1)
    assert list(s) == [1.0, 0.0] and list(logged) == [True, True]
    assert closest[1] == pytest.approx(0.71)  # still reported
    s, _f, _l, _c = matched_counts(log, keys, q, 0.7)  # no floor: 0.71 is the same question
    assert list(s) == [1.0, 1.0]


# -- retrieval ------------------------------------------------------------------------------

def test_a_neighbouring_questions_proven_advice_does_not_lead():
    """"My disk is full" past-asked at 0.83 for the pruning advice; the roll-back advice was
    proven for a neighbouring question (0.71 from this one): its record is not evidence here,
    so the advice proven for this question leads (issue #37: proven first off topic)."""
    q = axis(0)
    pool = [mem("bad", 0, 1), mem("mine", 1, 0), mem("neighbour", 1, 0)]
    vecs = np.array([toward(q, axis(1), 0.87), toward(q, axis(2), 0.49),
                     toward(q, axis(3), 0.59)])
    asked = toward(q, axis(4), 0.83)
    log = log_of([("mine", asked, 1.0), ("bad", asked, 0.0),
                  ("neighbour", toward(q, axis(5), 0.71), 1.0)])
    got = Retriever(pool, vecs, None, config(), served=log).search("q", query_vector=q, now=NOW)
    assert got.ids[0] == "mine", got.explain()
    assert next(r for r in got if r.id == "neighbour").served_for is None
    off = Retriever(pool, vecs, None, config(history_margin=2.0), served=log)
    assert off.search("q", query_vector=q, now=NOW).ids[0] == "neighbour"  # can fail


def test_a_neighbouring_questions_record_does_not_unlock_a_stale_topic():
    """"When is the return due?": the due date (0.91) is stale; the late-filing advice helped
    six times for "what if I file late?" (0.73 from this question). That record does not make
    it the answer: the topic refuses. Advice proven for a question nearer this one than the
    stale answer is (a past query at 0.87 against a stale memory at 0.6) is served."""
    q = axis(0)
    pool = [mem("due", kind="price", days=10), mem("late", 6, 1)]
    pool += [mem(f"d{i}") for i in range(6)]
    vecs = np.array([toward(q, axis(1), 0.91), toward(q, axis(2), 0.44)]
                    + [toward(q, axis(3 + i), 0.05) for i in range(6)])
    log = log_of([("late", toward(q, axis(12), 0.73), 1.0)] * 6
                 + [("late", toward(q, axis(12), 0.73), 0.0)])
    got = Retriever(pool, vecs, None, config(), served=log).search("q", query_vector=q, now=NOW)
    assert got.decision == REFUSE, got.explain()
    loose = Retriever(pool, vecs, None, config(stand_in_cosine=-1.0), served=log)
    assert loose.search("q", query_vector=q, now=NOW).ids[0] == "late"  # can fail
    vecs[0] = toward(q, axis(1), 0.6)
    log = log_of([("late", toward(q, axis(12), 0.87), 1.0)] * 6)
    got = Retriever(pool, vecs, None, config(), served=log).search("q", query_vector=q, now=NOW)
    assert got.ids[0] == "late", got.explain()


def advice_pool() -> tuple[list[Memory], np.ndarray, np.ndarray]:
    """A query, failed advice that restates it (0.9) and proven advice in other words (0.3),
    plus proven advice of another question that reads closer (0.6)."""
    q = axis(0)
    pool = [mem("bad", 0, 1), mem("good", 2, 0), mem("other", 5, 0)]
    vecs = np.array([toward(q, axis(1), 0.9), toward(q, axis(2), 0.3),
                     toward(q, axis(3), 0.6)])
    return pool, vecs, q


def test_advice_proven_for_this_question_leads_although_it_reads_far():
    pool, vecs, q = advice_pool()
    asked = toward(q, axis(4), 0.85)  # the same question, other words
    other_question = toward(q, axis(5), 0.5)
    log = log_of([("good", asked, 1.0), ("good", asked, 1.0), ("bad", asked, 0.0)]
                 + [("other", other_question, 1.0)] * 5)
    got = Retriever(pool, vecs, None, config(), served=log).search("q", query_vector=q, now=NOW)
    assert got.ids[0] == "good", got.explain()
    assert got[0].served_for == (pytest.approx(0.85), 2, 0)
    assert "served before for a query at 0.85" in got[0].explain()
    # the proven advice of the other question is neither lifted nor served first
    other = next(r for r in got if r.id == "other")
    assert other.outcome_bonus == 0.0 and other.final == pytest.approx(other.similarity)
    # without the serve history the counters cannot tell the questions apart
    plain = Retriever(pool, vecs, None, config()).search("q", query_vector=q, now=NOW)
    assert plain.ids[0] != "good", plain.explain()


def ranking(got) -> list[tuple]:
    return [(r.id, round(r.final, 9), r.outcome_bonus != 0.0, r.in_place_of, r.on_topic)
            for r in got]


def test_a_history_without_a_matching_past_query_ranks_as_the_counters():
    # issue #37, sealed part: every past query of every memory is far from this one (0.5,
    # 0.2 < agents.outcome_query_match 0.7); the history knows no more than the counters, so
    # it must not drop them (the failure's sink, the pair's handover): the same ranking
    pool, vecs, q = advice_pool()
    elsewhere = toward(q, axis(4), 0.5)  # good's successes were for another question
    log = log_of([("good", elsewhere, 1.0)] * 2 + [("bad", elsewhere, 0.0)]
                 + [("other", toward(q, axis(5), 0.2), 1.0)] * 5)
    got = Retriever(pool, vecs, None, config(), served=log).search("q", query_vector=q, now=NOW)
    counters = Retriever(pool, vecs, None, config()).search("q", query_vector=q, now=NOW)
    assert ranking(got) == ranking(counters), got.explain() + "\n" + counters.explain()
    assert all(r.served_for is None for r in got)
    assert got.ids[0] != "bad"  # the failure sinks by its counters, as without a history
    # a match threshold low enough to call the other question the same one: the history
    # judges, and good's two successes for it lead
    loose = with_overrides(config(), {"agents.outcome_query_match": 0.4})
    got = Retriever(pool, vecs, None, loose, served=log).search("q", query_vector=q, now=NOW)
    assert got.ids[0] == "good" and got[0].served_for is not None, got.explain()


def test_the_history_falls_back_per_memory():
    # good helped twice for this question (a past query at 0.85); bad failed once, for
    # another question (0.5): good is judged by the history, bad by its counters (it sinks)
    pool, vecs, q = advice_pool()
    pool, vecs = pool[:2], vecs[:2]  # without other, which the counters would pair with bad
    log = log_of([("good", toward(q, axis(4), 0.85), 1.0)] * 2
                 + [("bad", toward(q, axis(4), 0.5), 0.0)])
    got = Retriever(pool, vecs, None, config(), served=log).search("q", query_vector=q, now=NOW)
    by = {r.id: r for r in got}
    assert got.ids[0] == "good", got.explain()
    assert by["good"].served_for == (pytest.approx(0.85), 2, 0)
    assert by["bad"].served_for is None and by["bad"].outcome_bonus < 0


def test_a_matching_past_query_still_decides_by_the_history():
    # mixed helped five times for other questions and failed once for this one: the counters
    # lift it (5 ok / 1 failed), the history, which matches this query, sinks it
    q = axis(0)
    pool = [mem("mixed", 5, 1), mem("plain"), mem("x", 0, 3), mem("y", 1, 1)]
    vecs = np.array([toward(q, axis(1), 0.8), toward(q, axis(2), 0.7),
                     toward(q, axis(3), 0.05), toward(q, axis(4), 0.05)])
    log = log_of([("mixed", toward(q, axis(5), 0.3), 1.0)] * 5
                 + [("mixed", toward(q, axis(5), 0.9), 0.0)])
    counters = Retriever(pool, vecs, None, config()).search("q", query_vector=q, now=NOW)
    assert counters.ids[0] == "mixed", counters.explain()
    got = Retriever(pool, vecs, None, config(), served=log).search("q", query_vector=q, now=NOW)
    assert got.ids[0] == "plain", got.explain()
    mixed = next(r for r in got if r.id == "mixed")
    assert mixed.served_for == (pytest.approx(0.9), 0, 1) and mixed.outcome_bonus < 0


def test_a_retired_failure_unmatched_by_the_history_still_points_to_its_pair():
    # the nightly run retired bad; its one failure was for another question (0.5): as with
    # the counters alone, a query worded like it is served the proven advice paired with it
    pool, vecs, q = advice_pool()
    pool = [dataclasses.replace(pool[0], status=Status.EVICTED)] + pool[1:]
    pool += [mem(f"d{i}") for i in range(6)]
    vecs = np.vstack([vecs] + [toward(q, axis(6 + i), 0.05) for i in range(6)])
    far = log_of([("bad", toward(q, axis(4), 0.5), 0.0), ("good", toward(q, axis(5), 0.5), 1.0)])
    got = Retriever(pool, vecs, None, config(), served=far).search("q", query_vector=q, now=NOW)
    counters = Retriever(pool, vecs, None, config()).search("q", query_vector=q, now=NOW)
    assert ranking(got) == ranking(counters), got.explain() + "\n" + counters.explain()
    assert got[0].in_place_of is not None and got[0].in_place_of[0] == "bad", got.explain()
    # the same failure recorded for this very question: the history judges it, no handover
    near = log_of([("bad", toward(q, axis(4), 0.9), 0.0), ("good", toward(q, axis(5), 0.5), 1.0)])
    got = Retriever(pool, vecs, None, config(), served=near).search("q", query_vector=q, now=NOW)
    assert all(r.in_place_of is None for r in got), got.explain()


def test_a_memory_proven_for_this_query_ranks_above_another_needs_handover():
    # issue #37, validation-1-n01: good is proven by the history for this very question
    # (12 ok/2 failed for a past query at 0.88: about 0.80); another need's failure xbad has
    # uses for another question only, so its counters hand its place to its pair xgood at
    # 0.60 + the lift (about 0.83). A history score (a blend under 1) and a handover
    # (similarity + lift) are not on one scale: the handover must not carry xgood above good
    q = axis(0)
    pool = [mem("good", 12, 2), mem("bad", 0, 2), mem("xbad", 0, 2), mem("xgood", 5, 0)]
    pool += [mem(f"d{i}") for i in range(6)]
    vecs = np.vstack([toward(q, axis(1), 0.37), toward(q, axis(2), 0.81),
                      toward(q, axis(3), 0.6), toward(q, axis(3), 0.3)]
                     + [toward(q, axis(6 + i), 0.05) for i in range(6)])
    asked, elsewhere = toward(q, axis(4), 0.88), toward(q, axis(5), 0.3)
    log = log_of([("good", asked, 1.0)] * 12 + [("good", asked, 0.0)] * 2
                 + [("bad", asked, 0.0)] * 2 + [("xbad", elsewhere, 0.0)] * 2
                 + [("xgood", elsewhere, 1.0)] * 5)
    got = Retriever(pool, vecs, None, config(), served=log).search("q", query_vector=q, now=NOW)
    by = {r.id: r for r in got}
    assert got.ids[:2] == ["good", "xgood"], got.explain()
    assert by["good"].served_for == (pytest.approx(0.88), 12, 2)
    assert by["xgood"].in_place_of == ("xbad", pytest.approx(0.6))  # still handed over
    assert by["xgood"].final < by["good"].final and by["xgood"].outcome_bonus > 0
    # without good's matching history (its uses were for another question) the counters
    # decide both, and the handover leads as it does with the counters alone
    far = log_of([("good", elsewhere, 1.0)] * 12 + [("good", elsewhere, 0.0)] * 2
                 + [("bad", asked, 0.0)] * 2 + [("xbad", elsewhere, 0.0)] * 2)
    got = Retriever(pool, vecs, None, config(), served=far).search("q", query_vector=q, now=NOW)
    assert got.ids[0] == "xgood", got.explain()


@pytest.mark.parametrize("successes, leads", [(1, False), (10, True)])
def test_the_weight_of_outcome_grows_with_the_evidence(successes, leads):
    q = axis(0)
    pool = [mem("new"), mem("proven", successes, 0)]  # new: no history, restates the query
    vecs = np.array([toward(q, axis(1), 0.9), toward(q, axis(2), 0.5)])
    log = log_of([("proven", toward(q, axis(3), 0.9), 1.0)] * successes)
    got = Retriever(pool, vecs, None, config(), served=log).search("q", query_vector=q, now=NOW)
    assert (got.ids[0] == "proven") is leads, got.explain()
    lighter = config(outcome_weight_evidence=100.0)  # outcome barely weighs: similarity wins
    got = Retriever(pool, vecs, None, lighter, served=log).search("q", query_vector=q, now=NOW)
    assert got.ids[0] == "new"


def test_a_stale_only_topic_still_refuses_with_a_serve_history():
    q = axis(0)
    pool = [mem("old-price", kind="price", days=10), mem("note", 3, 0, days=1)]
    pool += [mem(f"d{i}") for i in range(6)]
    vecs = np.array([toward(q, axis(1), 0.85), toward(q, axis(2), 0.33)]
                    + [toward(q, axis(3 + i), 0.05) for i in range(6)])
    log = log_of([("note", toward(q, axis(12), 0.3), 1.0)] * 3)  # helped, for other questions
    got = Retriever(pool, vecs, None, config(), served=log).search("q", query_vector=q, now=NOW)
    assert got.decision == REFUSE, got.explain()


# -- maintenance: the same-need test --------------------------------------------------------

def unit(*rows):
    v = np.asarray(rows, dtype=np.float64)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def actions(the_plan):
    return {mid: a.type for _c, a in the_plan.actions() for mid in a.subjects}


def test_failed_advice_gives_way_to_a_proven_cluster_mate_below_the_old_cosine():
    pool = [mem("good", 5, 0), mem("bad", 0, 1), mem("fact")]
    vecs = unit([1, 0, 0.1], [0.3, 0.954, 0], [0.2, 0.2, 1])  # good~bad 0.30: one cluster
    got = actions(plan(pool, [0, 0, 0], vecs, AgentsConfig(), now=NOW))
    assert got == {"good": "keep", "bad": "supersede", "fact": "keep"}
    old = AgentsConfig(outcome_cluster_sibling_cosine=2.0)  # the fixed cosine 0.45 alone
    assert actions(plan(pool, [0, 0, 0], vecs, old, now=NOW))["bad"] == "keep"


def test_a_cluster_mate_that_fails_as_often_as_it_helps_is_no_sibling():
    pool = [mem("mixed", 2, 2), mem("bad", 0, 1)]
    vecs = unit([1, 0.3, 0], [0.3, 1, 0])
    assert actions(plan(pool, [0, 0], vecs, AgentsConfig(), now=NOW))["bad"] == "keep"


def test_grouping_keeps_cluster_mates_and_joins_a_near_noise_sibling():
    pool = [mem("good", 5, 0), mem("bad", 0, 1), mem("x"), mem("far-good", 4, 0),
            mem("lone-bad", 0, 1)]
    vecs = unit([1, 0.3, 0, 0], [0.3, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1],
                [0, 0, 0.1, 1])
    labels = np.array([2, 2, 2, -1, -1])
    out = group_outcome_siblings(pool, labels, vecs, AgentsConfig(), NOW, [np.arange(5)])
    assert list(out[:3]) == [2, 2, 2]  # the cluster-mates stay together
    assert out[3] == out[4] == 3  # noise: nearest neighbour at cosine >= 0.45, a new cluster
