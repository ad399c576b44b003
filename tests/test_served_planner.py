"""The planner reads the serve history (issue #37): failed advice is retired for the proven
memory that helped for the questions it failed for, not for the nearest proven memory of its
cluster; a store that keeps feedback with its query gives the job that history."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from memmaint.maintenance.agents.outcome_rules import group_outcome_siblings, served_siblings
from memmaint.maintenance.agents.rules import plan
from memmaint.maintenance.core.config import AgentsConfig, config_from_dict
from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.core.served import ServeLog
from memmaint.maintenance.job.run import run_job
from memmaint.maintenance.store.sqlite import SQLiteStore

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=timezone.utc)
NS = "default"


def mem(id: str, s: int = 0, f: int = 0, text: str | None = None) -> Memory:
    return Memory(text=text or f"memory {id}", id=id, created_at=NOW - timedelta(days=5),
                  successes=s, failures=f, retrievals=s + f)


def unit(*rows):
    v = np.asarray(rows, dtype=np.float64)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def log_of(uses, ns=NS):
    return ServeLog(tuple((ns, mid) for mid, _q, _o in uses),
                    unit(*[q for _m, q, _o in uses]), np.array([o for _m, _q, o in uses]))


# the questions: "disk full" (e0), near wording of it (0.9 with e0), "roll back" (e1)
DISK, DISK2, ROLLBACK = [1, 0, 0], [0.9, 0.436, 0], [0, 0, 1]


def test_served_siblings_are_the_memories_that_helped_for_the_same_questions():
    log = log_of([("bad", DISK, 0.0), ("bad", DISK2, 0.0), ("prune", DISK2, 1.0),
                  ("prune", DISK, 1.0), ("rollback", ROLLBACK, 1.0), ("rollback", ROLLBACK, 1.0),
                  ("rollback", ROLLBACK, 1.0), ("bad", DISK, float("nan"))])
    assert served_siblings(log, 0.7) == {(NS, "bad"): ("prune",)}
    assert served_siblings(log, 0.95) == {(NS, "bad"): ("prune",)}  # the same wording too
    # another namespace's success is never a sibling
    other = ServeLog(((NS, "bad"), ("elsewhere", "prune")), unit(DISK, DISK),
                     np.array([0.0, 1.0]))
    assert served_siblings(other, 0.7) == {}


def test_the_closest_question_ranks_first_not_the_most_used_memory():
    log = log_of([("bad", DISK, 0.0), ("own", DISK, 1.0)]
                 + [("busy", DISK2, 1.0)] * 6)
    assert served_siblings(log, 0.7)[(NS, "bad")] == ("own", "busy")


# one cluster: the failed advice, its own proven advice (worded apart: cosine 0.3) and the
# proven advice of another need, closer to it (cosine 0.6) and with a longer record
POOL = [mem("own", 2, 0), mem("bad", 1, 3), mem("theirs", 12, 2)]
VECS = unit([0.3, 0.954, 0], [1, 0, 0], [0.6, 0, 0.8])


def replaced_by(the_plan):
    return {a.old_id: a.new_id for _c, a in the_plan.actions() if a.type == "supersede"}


def test_the_planner_names_the_memory_that_served_the_same_questions():
    cfg = AgentsConfig()
    without = plan(POOL, [0, 0, 0], VECS, cfg, now=NOW)
    with_history = plan(POOL, [0, 0, 0], VECS, cfg, now=NOW,
                        siblings={(NS, "bad"): ("own",)})
    assert list(replaced_by(without).values()) == ["theirs"]  # the cluster's nearest
    assert replaced_by(with_history) == {"bad": "own"}


def test_a_named_sibling_elsewhere_pulls_the_failed_memory_into_its_cluster():
    labels = np.array([0, 1, 1])  # "own" alone in cluster 0, "bad" with "theirs"
    out = group_outcome_siblings(POOL, labels, VECS, AgentsConfig(), NOW, [np.arange(3)],
                                 {(NS, "bad"): ("own",)})
    assert out[1] == out[0]
    plain = group_outcome_siblings(POOL, labels, VECS, AgentsConfig(), NOW, [np.arange(3)])
    assert plain[1] == plain[2]


def test_a_named_sibling_that_has_not_proven_itself_is_not_taken():
    pool = [mem("own", 1, 1), mem("bad", 1, 3), mem("theirs", 12, 2)]
    got = plan(pool, [0, 0, 0], VECS, AgentsConfig(), now=NOW,
               siblings={(NS, "bad"): ("own",)})
    assert replaced_by(got).get("bad") != "own"


@pytest.mark.parametrize("with_query", [True, False])
def test_the_job_reads_the_stores_serve_history(tmp_path, with_query):
    """Feedback recorded with its query (as the MCP server and `memmaint feedback --query`
    do) reaches the nightly planner: the failed advice is superseded by the advice that
    helped for the same question; the same counters without queries do not say it (the two
    are worded apart, and one success asks four times less doubt), and it stays."""
    store = SQLiteStore(tmp_path / "m.db")
    texts = {"own": "prune old container images with the weekly cleanup job",
             "bad": "when checkout runs out of disk delete the log folder and restart",
             "theirs": "when checkout breaks redeploy the previous release tag"}
    store.add_memories([mem(k, text=v) for k, v in texts.items()])
    disk, rollback = "checkout is out of disk, what now?", "roll back a broken checkout deploy"
    for mid, query, ok in ([("own", disk, True)] * 2 + [("bad", disk, False)] * 3
                           + [("bad", disk, True)] + [("theirs", rollback, True)] * 12
                           + [("theirs", rollback, False)] * 2):
        store.record_usage(NS, mid, ok, query=query if with_query else None)
    config = config_from_dict({"embedding": {"model": "hashing", "dim": 64},
                               "job": {"min_new_memories": 0}})
    run_job(store, config, force=True, now=datetime.now(timezone.utc))
    bad = store.get_memories(NS, ["bad"])[0]
    assert (not bad.is_active and bad.replaced_by == "own") == with_query, bad
    store.close()


def test_past_queries_are_embedded_once_through_the_stores_cache(tmp_path):
    from memmaint.maintenance.core.records import content_hash
    from memmaint.maintenance.embed.hashing import HashingEmbedder
    from memmaint.maintenance.job.served import serve_siblings
    from memmaint.maintenance.job.stages import DryRunCache

    calls: list[int] = []

    class Counting(HashingEmbedder):
        def embed(self, texts):
            calls.append(len(texts))
            return super().embed(texts)

    store = SQLiteStore(tmp_path / "m.db")
    store.add_memories([mem("own"), mem("bad"), mem("other")])
    for mid, ok in (("own", True), ("bad", False), ("bad", False)):
        store.record_usage(NS, mid, ok, query="checkout is out of disk")
    store.record_usage(NS, "other", True, query="roll back checkout")
    pool = store.get_memories(NS, ["own", "bad", "other"])
    embedder = Counting(dim=32)
    dry = serve_siblings(DryRunCache(store), embedder, pool, AgentsConfig())
    assert dry == {(NS, "bad"): ("own",)} and calls == [2]
    asked = [content_hash("checkout is out of disk"), content_hash("roll back checkout")]
    assert store.get_embeddings(embedder.model_id, asked) == {}  # the dry run wrote nothing
    assert serve_siblings(store, embedder, pool, AgentsConfig()) == dry
    assert serve_siblings(store, embedder, pool, AgentsConfig()) == dry
    assert calls == [2, 2]  # the second real run found both queries cached
    store.close()
