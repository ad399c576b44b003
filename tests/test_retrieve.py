"""Read-time retrieval: hybrid rerank, freshness gate, outcome ranking, feedback."""

from __future__ import annotations

import math
from collections import Counter
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memmaint.maintenance.core.config import AgentsConfig, Config, RetrieveConfig
from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.core.records import Memory, Status
from memmaint.maintenance.embed.hashing import HashingEmbedder
from memmaint.maintenance.retrieve.bm25 import BM25, tokenize
from memmaint.maintenance.retrieve.search import (
    REFUSE,
    SERVE,
    Retriever,
    record_feedback,
    retrieve,
)

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=timezone.utc)
DIM = 16


def mem(text: str, id: str, days_ago: float = 1.0, **kw) -> Memory:
    return Memory(text=text, id=id, created_at=NOW - timedelta(days=days_ago), **kw)


def at_cosines(cosines: list[float], dim: int = DIM) -> tuple[np.ndarray, np.ndarray]:
    """A query vector e0 and one unit row per cosine, each orthogonal part on its own axis."""
    q = np.zeros(dim)
    q[0] = 1.0
    rows = np.zeros((len(cosines), dim))
    for i, c in enumerate(cosines):
        rows[i, 0] = c
        rows[i, i + 1] = math.sqrt(1.0 - c * c)
    return q, rows


PRICE_QUERY = "How much does the Pro plan cost per month?"


def price_pool(old_days: float, new_days: float) -> list[Memory]:
    return [mem("The Pro plan costs $29/mo.", "pro29", old_days, kind="price"),
            mem("The Pro plan costs $39/mo.", "pro39", new_days, kind="price"),
            mem("Catering for the offsite is booked with the taco place.", "tacos", 2)]


# -- the freshness gate --------------------------------------------------------------------

def test_gate_serves_39_over_29_when_similarities_differ_by_0002():
    pool = price_pool(old_days=40, new_days=1)
    q, vecs = at_cosines([0.802, 0.800, 0.10])  # the stale $29 chunk is 0.002 closer
    ungated = retrieve(PRICE_QUERY, pool, vecs, config=RetrieveConfig(gate=False), now=NOW,
                       query_vector=q)
    assert ungated.ids[0] == "pro29"  # similarity alone serves the fossil
    gated = retrieve(PRICE_QUERY, pool, vecs, config=RetrieveConfig(), now=NOW, query_vector=q)
    assert gated.decision == SERVE
    assert gated.ids[0] == "pro39"
    assert "pro29" not in gated.ids
    assert [r.id for r in gated.blocked] == ["pro29"]
    assert gated.blocked[0].verdict == "STALE_BLOCK"
    top = gated[0]
    assert top.verdict == "FRESH" and top.rank == 1
    assert top.similarity == pytest.approx(0.800)
    assert "pro39" in top.explain() and "FRESH" in top.explain()


def test_gate_down_ranks_stale_warn_by_freshness():
    # both within the 3-day price TTL: $29 is 2 days old (freshness 1/3, STALE_WARN)
    pool = price_pool(old_days=2, new_days=0.5)
    q, vecs = at_cosines([0.802, 0.800, 0.10])
    res = retrieve(PRICE_QUERY, pool, vecs, config=RetrieveConfig(lexical=False), now=NOW,
                   query_vector=q)
    assert res.ids[:2] == ["pro39", "pro29"]
    warn = res[1]
    assert warn.verdict == "STALE_WARN"
    assert warn.freshness == pytest.approx(1 / 3)
    assert warn.final == pytest.approx(0.802 * (1 / 3) / 0.5)


def test_gate_refuses_when_only_on_topic_chunks_are_stale():
    pool = price_pool(old_days=40, new_days=10)  # both prices past the 3-day TTL
    q, vecs = at_cosines([0.802, 0.800, 0.10])
    res = retrieve(PRICE_QUERY, pool, vecs, config=RetrieveConfig(), now=NOW, query_vector=q)
    assert res.decision == REFUSE and res.refused
    assert len(res) == 0 and list(res) == []
    assert {r.id for r in res.blocked} == {"pro29", "pro39"}
    assert "STALE_BLOCK" in res.reason
    # the fresh catering note is fresh but off-topic (below the floor): never served instead
    assert "tacos" not in {r.id for r in res.blocked}


def test_gate_refuses_when_on_topic_chunks_are_only_stale_warn():
    pool = price_pool(old_days=2.5, new_days=2)
    q, vecs = at_cosines([0.802, 0.800, 0.10])
    res = retrieve(PRICE_QUERY, pool, vecs, now=NOW, query_vector=q)
    assert res.refused
    assert "STALE_WARN" in res.reason


def test_gate_off_serves_expired_memories():
    pool = price_pool(old_days=40, new_days=10)
    q, vecs = at_cosines([0.802, 0.800, 0.10])
    res = retrieve(PRICE_QUERY, pool, vecs, config=RetrieveConfig(gate=False), now=NOW,
                   query_vector=q)
    assert res.decision == SERVE and res.ids == ["pro29", "pro39", "tacos"]


def test_gate_uses_the_ttl_table_given():
    pool = price_pool(old_days=40, new_days=10)
    q, vecs = at_cosines([0.802, 0.800, 0.10])
    res = retrieve(PRICE_QUERY, pool, vecs, now=NOW, query_vector=q,
                   ttl_days={"price": 100.0})
    assert res.decision == SERVE and res.ids[0] == "pro29"
    cfg = Config(agents=AgentsConfig(ttl_days={}))  # nothing expires
    res = retrieve(PRICE_QUERY, pool, vecs, config=cfg, now=NOW, query_vector=q)
    assert res.ids[0] == "pro29" and res[0].freshness == 1.0


def test_gate_with_a_real_embedder_end_to_end():
    emb = HashingEmbedder()
    pool = price_pool(old_days=40, new_days=1)
    res = retrieve(PRICE_QUERY, pool, emb.embed([m.text for m in pool]), emb, now=NOW)
    assert res.ids[0] == "pro39" and "pro29" not in res.ids


# -- outcome-aware ranking -----------------------------------------------------------------

def test_outcome_90_of_100_outranks_1_of_1_at_equal_similarity():
    pool = [mem("Reset a password from Settings > Security.", "one", 1, successes=1),
            mem("Reset a password from Settings > Security!", "ninety", 5, successes=90,
                failures=10)]
    q, vecs = at_cosines([0.7, 0.7])
    cfg = RetrieveConfig(lexical=False)  # outcome ranking is on by default
    res = retrieve("reset password", pool, vecs, config=cfg, now=NOW, query_vector=q)
    assert res.ids == ["ninety", "one"]
    # base rate: one vote per memory with history plus a neutral 0.5; m = (2 r + s) / (2 + s + f)
    r = (0.5 + 2 / 3 + 91 / 102) / 3
    assert res[0].outcome == pytest.approx((2 * r + 90) / 102)
    assert res[1].outcome == pytest.approx((2 * r + 1) / 3)
    assert res[0].outcome_bonus == pytest.approx(2 * 0.35 * ((2 * r + 90) / 102 - r))
    assert "90 ok/10 failed" in res[0].explain()
    res = retrieve("reset password", pool, vecs,
                   config=RetrieveConfig(lexical=False, outcome=False), now=NOW, query_vector=q)
    assert res.ids == ["one", "ninety"]  # newer first when outcome is off


def test_one_failure_already_counts():
    pool = [mem("a", "failed-once", 1, failures=1), mem("b", "untried", 1)]
    q, vecs = at_cosines([0.72, 0.70])
    res = retrieve("q", pool, vecs, config=RetrieveConfig(lexical=False), now=NOW,
                   query_vector=q)
    assert res.ids == ["untried", "failed-once"]
    assert res[0].outcome_bonus == 0.0 and res[1].outcome_bonus < 0


def test_longer_success_history_counts_more():
    pool = [mem("a", "once", 1, successes=1), mem("b", "five", 1, successes=5),
            mem("c", "bad", 1, failures=1)]
    q, vecs = at_cosines([0.7, 0.7, 0.7])
    res = retrieve("q", pool, vecs, config=RetrieveConfig(lexical=False), now=NOW,
                   query_vector=q)
    assert res.ids == ["five", "once", "bad"]


def test_outcome_cannot_rescue_an_off_topic_memory():
    # proven advice far off-topic vs a new on-topic one: similarity still decides
    pool = [mem("on topic", "new", 1), mem("off topic", "proven", 1, successes=30)]
    q, vecs = at_cosines([0.9, 0.1])
    res = retrieve("q", pool, vecs, config=RetrieveConfig(lexical=False), now=NOW,
                   query_vector=q)
    assert res.ids[0] == "new"
    # below the similarity floor a memory gets no positive bonus at all
    proven = [r for r in res.results if r.id == "proven"] if len(res) > 1 else []
    assert all(r.outcome_bonus == 0.0 for r in proven)


def test_a_failure_sinks_by_its_evidence_a_success_lifts_within_the_band():
    # issue #37: one failure outweighs a query worded closer by 0.45; the counters' pull
    # off (outcome_counts_evidence huge) leaves the band, which decides within 0.35 only
    good = {"successes": 5}
    bad = {"failures": 1}
    band_only = RetrieveConfig(lexical=False, outcome_counts_evidence=1e6,
                                replacement_cosine=2.0)  # the band alone, no pairing
    for cfg, gap, expected in ((RetrieveConfig(lexical=False), 0.25, "good"),
                               (RetrieveConfig(lexical=False), 0.45, "good"),
                               (band_only, 0.25, "good"), (band_only, 0.45, "bad")):
        pool = [mem("good advice", "good", 1, **good), mem("bad advice", "bad", 1, **bad)]
        q, vecs = at_cosines([0.5, 0.5 + gap])
        res = retrieve("q", pool, vecs, config=cfg, now=NOW, query_vector=q)
        assert res.ids[0] == expected, gap


def test_old_evidence_decays():
    used = NOW - timedelta(days=720)  # four half-lives: evidence worth 1/16
    pool = [mem("a", "old-failures", 800, failures=4, last_used_at=used),
            mem("b", "recent-failures", 800, failures=4, last_used_at=NOW),
            mem("c", "untried", 800)]
    q, vecs = at_cosines([0.7, 0.7, 0.7])
    res = retrieve("q", pool, vecs, config=RetrieveConfig(lexical=False), now=NOW,
                   query_vector=q)
    by_id = {r.id: r for r in res.results}
    assert by_id["recent-failures"].outcome_bonus < by_id["old-failures"].outcome_bonus < 0


def test_consistent_failures_sink():
    pool = [mem("a", "bad", 1, failures=40, successes=2), mem("b", "fresh", 1)]
    q, vecs = at_cosines([0.8, 0.75])
    res = retrieve("q", pool, vecs, config=RetrieveConfig(outcome=True, lexical=False),
                   now=NOW, query_vector=q)
    assert res.ids[0] == "fresh"


def test_feedback_updates_counters_and_ranking(sqlite_store):
    pool = [mem("Reset a password from Settings > Security.", "a", 3),
            mem("Reset a password from the Security settings page.", "b", 3)]
    sqlite_store.add_memories(pool)
    q, vecs = at_cosines([0.7, 0.7])
    cfg = RetrieveConfig(outcome=True, lexical=False)
    first = retrieve("reset password", pool, vecs, config=cfg, now=NOW, query_vector=q)
    assert first.ids[0] == "a"  # tie, same age: id order
    for _ in range(30):
        record_feedback(sqlite_store, pool[1], True)
    stored = record_feedback(sqlite_store, first[0], False)
    assert (stored.retrievals, stored.successes, stored.failures) == (1, 0, 1)
    pool = sqlite_store.get_memories("default", ["a", "b"])
    assert (pool[1].retrievals, pool[1].successes) == (30, 30)
    again = retrieve("reset password", pool, vecs, config=cfg, now=NOW, query_vector=q)
    assert again.ids[0] == "b"


# -- the lexical bonus ---------------------------------------------------------------------

def test_lexical_bonus_reorders_a_near_tie_only():
    pool = [mem("The quarterly billing review meeting is on Thursday.", "meeting", 1),
            mem("To get an invoice copy open Billing > Invoices and click download.",
                "invoice", 1)]
    query = "how do I download an invoice copy"
    q, vecs = at_cosines([0.610, 0.608])
    res = retrieve(query, pool, vecs, now=NOW, query_vector=q)
    assert res.ids[0] == "invoice"
    assert res[0].lexical == pytest.approx(0.02)  # the best BM25 match gets the full cap
    q, vecs = at_cosines([0.65, 0.608])  # a real gap: lexical overlap must not win it
    res = retrieve(query, pool, vecs, now=NOW, query_vector=q)
    assert res.ids[0] == "meeting"
    off = retrieve(query, pool, vecs, config=RetrieveConfig(lexical=False), now=NOW,
                   query_vector=q)
    assert all(r.lexical == 0.0 for r in off)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(-1, 1), st.sampled_from(
    ["refund policy", "password reset steps", "vpn certificate", "pro plan price",
     "catering order", "refund refund refund"])), min_size=1, max_size=12),
       st.sampled_from(["refund", "how to reset password", "price of pro", "xyz"]))
def test_lexical_bonus_is_bounded_and_served_order_is_by_final(items, query):
    pool = [mem(text, f"m{i}", 1) for i, (_c, text) in enumerate(items)]
    q, vecs = at_cosines([c for c, _ in items])
    cfg = RetrieveConfig(gate=False, k=len(items))
    res = retrieve(query, pool, vecs, config=cfg, now=NOW, query_vector=q)
    assert len(res) == len(items)
    finals = [r.final for r in res]
    assert finals == sorted(finals, reverse=True)
    for r in res:
        assert 0.0 <= r.lexical <= cfg.lexical_cap + 1e-12
        assert r.final == pytest.approx(r.similarity + r.lexical)
    if any(r.lexical for r in res):
        assert max(r.lexical for r in res) == pytest.approx(cfg.lexical_cap)


# -- the pool ------------------------------------------------------------------------------

def test_only_active_memories_are_searched_and_k_is_honoured():
    pool = [mem("a", "a", 1), mem("b", "b", 1, status=Status.SUPERSEDED, replaced_by="a"),
            mem("c", "c", 1), mem("d", "d", 1)]
    q, vecs = at_cosines([0.5, 0.9, 0.4, 0.45])
    r = Retriever(pool, vecs, config=RetrieveConfig(k=2, lexical=False))
    assert r.pool_size == 3
    res = r.search("q", query_vector=q, now=NOW)
    assert res.ids == ["a", "d"]
    assert r.search("q", query_vector=q, now=NOW, k=10).ids == ["a", "d", "c"]


def test_bad_inputs_are_user_errors():
    pool = [mem("a", "a")]
    with pytest.raises(InputError, match="shape"):
        retrieve("q", pool, np.zeros((2, 4)), query_vector=np.ones(4))
    with pytest.raises(InputError, match="NaN"):
        retrieve("q", pool, np.full((1, 4), np.nan), query_vector=np.ones(4))
    with pytest.raises(InputError, match="dims"):
        retrieve("q", pool, np.ones((1, 4)), query_vector=np.ones(3))
    with pytest.raises(InputError, match="no embedder"):
        retrieve("q", pool, np.ones((1, 4)))
    with pytest.raises(InputError, match="k must be"):
        retrieve("q", pool, np.ones((1, 4)), query_vector=np.ones(4), k=0)


def test_empty_pool_refuses():
    res = retrieve("q", [], np.zeros((0, 4)), query_vector=np.ones(4), now=NOW)
    assert res.refused and "no active memories" in res.reason


def test_to_dict_carries_every_score():
    pool = price_pool(40, 1)
    q, vecs = at_cosines([0.802, 0.800, 0.1])
    d = retrieve(PRICE_QUERY, pool, vecs, now=NOW, query_vector=q).to_dict()
    assert d["decision"] == SERVE
    assert set(d["results"][0]) >= {"similarity", "lexical", "freshness", "outcome", "final",
                                    "verdict", "rank"}
    assert d["blocked"][0]["id"] == "pro29"


# -- BM25 against the textbook formula -----------------------------------------------------

def _bm25_reference(docs: list[str], query: str, k1: float = 1.5, b: float = 0.75) -> list[float]:
    toks = [tokenize(d) for d in docs]
    n = len(docs)
    avg = sum(len(t) for t in toks) / n if sum(len(t) for t in toks) else 1.0
    out = []
    for t in toks:
        tf = Counter(t)
        s = 0.0
        for term in set(tokenize(query)):
            df = sum(1 for other in toks if term in other)
            if not df or not tf[term]:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            s += idf * tf[term] * (k1 + 1) / (tf[term] + k1 * (1 - b + b * len(t) / avg))
        out.append(s)
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="abc de", min_size=0, max_size=20), min_size=1, max_size=8),
       st.text(alphabet="abc de", max_size=10))
def test_bm25_matches_the_textbook_formula(docs, query):
    got = BM25().fit(docs).scores(query)
    assert got == pytest.approx(_bm25_reference(docs, query))


def test_bm25_drops_stop_words_and_keeps_numbers():
    assert tokenize("The Pro plan costs $39/mo.") == ["pro", "plan", "costs", "39", "mo"]
    with pytest.raises(ValueError):
        BM25(b=2.0)
