"""Counters alone, which need a proven memory answers (issue #37, retrieve.replacement): failed
and proven memories of a namespace are paired one to one with the largest total cosine, and a
failed memory on topic for a query (active, or retired by the nightly run) hands its place to
its pair, even when the pair is worded below the similarity floor. Nothing else is lifted
below the floor, so a good record still carries no off-topic memory."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone

import numpy as np

from memmaint.maintenance.core.config import RetrieveConfig
from memmaint.maintenance.core.records import Memory, Status
from memmaint.maintenance.retrieve.replacement import Pairs, replacements
from memmaint.maintenance.retrieve.search import REFUSE, SERVE, Retriever

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=timezone.utc)
CFG = RetrieveConfig(lexical=False)
OFF = RetrieveConfig(lexical=False, replacement_cosine=2.0)


def mem(id: str, s: int = 0, f: int = 0, **kw) -> Memory:
    return Memory(text=f"memory {id}", id=id, created_at=NOW - timedelta(days=5),
                  successes=s, failures=f, retrievals=s + f, **kw)


def unit(*xs: float) -> np.ndarray:
    v = np.array(xs, dtype=np.float64)
    return v / np.linalg.norm(v)


def test_pairs_are_one_to_one_with_the_largest_total_cosine():
    # bad-a's nearest proven memory is good-b (0.6 > 0.5), but good-b is bad-b's only close
    # one (0.7 against 0.1): together, a->a and b->b beat a->b and b->a
    pool = [mem("bad-a", 0, 1), mem("bad-b", 0, 1), mem("good-a", 5), mem("good-b", 5)]
    cos = {(0, 2): 0.5, (0, 3): 0.6, (1, 2): 0.1, (1, 3): 0.7}
    vecs = np.zeros((4, 8))
    vecs[2, 0] = vecs[3, 1] = 1.0
    for b in (0, 1):
        vecs[b, 0], vecs[b, 1] = cos[(b, 2)], cos[(b, 3)]
        vecs[b, 2 + b] = np.sqrt(1 - vecs[b, 0] ** 2 - vecs[b, 1] ** 2)
    assert replacements(pool, vecs, 0.2) == {0: 2, 1: 3}
    assert replacements(pool, vecs, 0.65) == {1: 3}  # a pair below the cosine is dropped


def test_a_pair_under_the_floor_does_not_decide_the_others():
    # bad-a's advice is good-a (0.35); bad-b's own advice is not there, good-b is 0.1 from it.
    # Counting that 0.1, crossing (0.25 + 0.25) beat 0.35 + 0.1, and both failures were
    # handed another need's advice; under the floor 0.2 a pair is worth no more than none
    pool = [mem("bad-a", 0, 1), mem("bad-b", 0, 1), mem("good-a", 5), mem("good-b", 5)]
    cos = {(0, 2): 0.35, (0, 3): 0.25, (1, 2): 0.25, (1, 3): 0.1}
    vecs = np.zeros((4, 8))
    vecs[2, 0] = vecs[3, 1] = 1.0
    for b in (0, 1):
        vecs[b, 0], vecs[b, 1] = cos[(b, 2)], cos[(b, 3)]
        vecs[b, 2 + b] = np.sqrt(1 - vecs[b, 0] ** 2 - vecs[b, 1] ** 2)
    assert replacements(pool, vecs, 0.2) == {0: 2}
    assert replacements(pool, vecs, 0.0) == {0: 3, 1: 2}  # no floor: the total decides


def test_pairs_stay_in_their_namespace_and_need_both_kinds():
    pool = [mem("bad", 0, 1, namespace="a"), mem("good", 5, namespace="b"),
            mem("new", namespace="a"), mem("mixed", 2, 2, namespace="a")]
    vecs = np.tile(unit(1, 0), (4, 1))
    assert replacements(pool, vecs, 0.2) == {}


def need_pool() -> tuple[list[Memory], np.ndarray, np.ndarray]:
    """A query e0, failed advice worded like it (0.9), the proven advice of its need at 0.2
    (below the floor; cosine 0.45 to the failed advice), and 8 unrelated notes."""
    dim = 12
    vecs = np.zeros((10, dim))
    vecs[0, :2] = 0.9, np.sqrt(1 - 0.81)
    y = (0.45 - 0.9 * 0.2) / vecs[0, 1]
    vecs[1, :3] = 0.2, y, np.sqrt(1 - 0.04 - y * y)
    for k in range(8):
        vecs[2 + k, 0], vecs[2 + k, 3 + k] = 0.05 * k, 1.0
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    pool = [mem("bad", 0, 1), mem("good", 5)] + [mem(f"note-{k}") for k in range(8)]
    q = np.zeros(dim)
    q[0] = 1.0
    return pool, vecs, q


def test_proven_pair_below_the_floor_takes_the_failed_memory_s_place():
    pool, vecs, q = need_pool()
    assert vecs[1] @ q < CFG.similarity_floor <= vecs[0] @ q
    res = Retriever(pool, vecs, config=CFG).search("q", query_vector=q, now=NOW)
    assert res.decision == SERVE and res.ids[0] == "good"
    top = res[0]
    assert top.in_place_of is not None and top.in_place_of[0] == "bad"
    assert top.similarity < CFG.similarity_floor and top.on_topic
    assert "in place of failed bad" in top.explain()
    assert top.to_dict()["in_place_of"]["id"] == "bad"
    # turned off, the proven advice below the floor is never lifted
    off = Retriever(pool, vecs, config=OFF).search("q", query_vector=q, now=NOW)
    assert off.ids[0] != "good"


def test_a_retired_failed_memory_points_to_its_pair():
    pool, vecs, q = need_pool()
    retired = [dataclasses.replace(pool[0], status=Status.EVICTED)] + pool[1:]
    res = Retriever(retired, vecs, config=CFG).search("q", query_vector=q, now=NOW)
    assert "bad" not in res.ids and res.ids[0] == "good"
    assert res[0].in_place_of == ("bad", float(vecs[0] @ q))


def test_no_failed_memory_on_topic_no_handover():
    # the query is about something else: the failed advice is off topic, its pair stays put
    pool, vecs, _q = need_pool()
    q = vecs[5]  # note-3's own vector
    res = Retriever(pool, vecs, config=CFG).search("q", query_vector=q, now=NOW)
    assert res.ids[0] == "note-3"
    assert all(r.in_place_of is None for r in res)


def test_stale_only_topic_still_refuses():
    # the stale answer is the query's topic; a failed advice further away hands nothing over
    q = unit(1, 0, 0, 0, 0, 0, 0, 0)
    stale = mem("stale", kind="price")
    stale = dataclasses.replace(stale, created_at=NOW - timedelta(days=30))
    pool = [stale, mem("bad", 0, 1), mem("good", 5)] + [mem(f"n{k}") for k in range(5)]
    vecs = np.eye(8)
    vecs[0] = unit(0.9, 0.43, 0, 0, 0, 0, 0, 0)
    vecs[1] = unit(0.35, 0, 0.93, 0, 0, 0, 0, 0)
    vecs[2] = unit(0.1, 0, 0.5, 0.86, 0, 0, 0, 0)
    res = Retriever(pool, vecs, config=CFG).search("q", query_vector=q, now=NOW)
    assert res.decision == REFUSE


def test_the_pairs_object_counts_retired_failed_memories_only():
    pool, vecs, _q = need_pool()
    gone = [dataclasses.replace(pool[0], status=Status.SUPERSEDED),
            dataclasses.replace(pool[1], status=Status.SUPERSEDED)]  # a retired proven one
    pairs = Pairs(pool[2:] + [pool[1]], vecs[[*range(2, 10), 1]], gone, vecs[:2], 0.2)
    assert [m.id for m in pairs.retired] == ["bad"]
    assert pairs.of == {9: 8}


def test_the_planner_gets_the_pair_of_failed_advice_that_never_helped():
    from memmaint.maintenance.core.config import AgentsConfig
    from memmaint.maintenance.job.served import serve_siblings

    pool, vecs, _q = need_pool()
    once = [dataclasses.replace(pool[0], successes=1, failures=3)] + pool[1:]
    no_history = object()  # a store without a serve history: plain counts
    cfg = AgentsConfig()
    assert serve_siblings(no_history, None, pool, cfg, vecs, 0.2) == {("default", "bad"):
                                                                       ("good",)}
    assert serve_siblings(no_history, None, pool, cfg, vecs, 2.0) == {}
    assert serve_siblings(no_history, None, pool, cfg) == {}
    # helped once: the cluster rule and its stricter bar decide, not the pairing
    assert serve_siblings(no_history, None, once, cfg, vecs, 0.2) == {}


def test_the_search_service_follows_a_retired_failed_memory(tmp_path):
    # the nightly run evicted the failed advice; a query worded like it is served the proven
    # advice paired with it, through the store (SearchService reads retired failed memories)
    from memmaint.maintenance.embed.hashing import HashingEmbedder
    from memmaint.maintenance.retrieve.service import SearchService
    from memmaint.maintenance.store.sqlite import SQLiteStore

    query = "how do I roll back a broken checkout deploy"
    pool = [Memory(text="to roll back a broken checkout deploy edit files by hand on the host",
                   id="bad", failures=1, retrievals=1, status=Status.EVICTED,
                   created_at=NOW - timedelta(days=3)),
            Memory(text="redeploy the previous release tag from the pipeline host files kept",
                   id="good", successes=5, retrievals=5, created_at=NOW - timedelta(days=3))]
    pool += [Memory(text=f"note {k} about lunch menus and parking spaces {k}", id=f"n{k}",
                    created_at=NOW - timedelta(days=1)) for k in range(6)]
    with SQLiteStore(tmp_path / "pool.db") as store:
        store.add_memories(pool)
        service = SearchService(store, embedder=HashingEmbedder(dim=256))
        res = service.search(query, "default", now=NOW)
        assert res.ids[0] == "good" and "bad" not in res.ids
        assert res[0].in_place_of is not None and res[0].in_place_of[0] == "bad"


def test_pairs_are_solved_once_per_unchanged_namespace(monkeypatch):
    from memmaint.maintenance.retrieve import replacement

    pool, vecs, _q = need_pool()
    replacement._CACHE.clear()
    calls = []
    solve = replacement._assign
    monkeypatch.setattr(replacement, "_assign", lambda *a: calls.append(1) or solve(*a))
    first = replacements(pool, vecs, 0.2)
    assert replacements(pool, vecs, 0.2) == first == {0: 1} and len(calls) == 1
    # a new record (the proven memory fails from now on), other vectors or another cosine:
    # solved again
    flipped = [pool[0], dataclasses.replace(pool[1], failures=9, version=2)] + pool[2:]
    assert replacements(flipped, vecs, 0.2) == {}  # two failed memories, no proven one
    moved = vecs.copy()
    moved[1] = vecs[2]
    replacements(pool, moved, 0.2)
    replacements(pool, vecs, 0.5)
    assert len(calls) == 3  # the flipped pool has no proven memory: nothing to solve
