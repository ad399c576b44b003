"""The nightly job (run_job, compare_configs) on real SQLite stores with the hashing embedder."""

from __future__ import annotations

import copy
from datetime import timedelta

import pytest

from memmaint.maintenance.core.config import config_from_dict
from memmaint.maintenance.core.errors import LockHeldError, UserError
from memmaint.maintenance.core.records import Memory, Status, utcnow
from memmaint.maintenance.job.run import compare_configs, run_job, shadow_comparison
from memmaint.maintenance.store.sqlite import SQLiteStore

FAST = {
    "embedding": {"model": "hashing", "dim": 64},
    "reduction": {"method": "pca", "n_components": 2},
    "clustering": {"algorithm": "hdbscan", "hdbscan": {"min_cluster_size": 2}},
    "job": {"min_new_memories": 10},
}
TOPICS = [
    "The Pro plan costs 29 dollars per month for every seat",
    "Refunds are processed within five business days after approval",
    "The API rate limit is 100 requests per minute per key",
    "Shipping to Canada takes seven to ten days by ground mail",
    "Password resets require the email on file and a one time code",
    "The weekly standup meeting moved to Tuesday at nine",
]


def cfg(**over):
    data = copy.deepcopy(FAST)  # a nested section ("hdbscan") must not be shared with FAST
    for dotted, value in over.items():
        section, key = dotted.split("__", 1)
        node = data.setdefault(section, {})
        if "__" in key:
            sub, key = key.split("__")
            node = node.setdefault(sub, {})
        node[key] = value
    return config_from_dict(data)


def pool(namespace: str = "ns", copies: int = 3, start: int = 0, label: bool = True,
         age_days: float = 1.0) -> list[Memory]:
    """Each topic stored ``copies`` times with the same text (certain near-duplicates)."""
    created = utcnow() - timedelta(days=age_days)
    out = []
    for t, text in enumerate(TOPICS):
        for c in range(copies):
            out.append(Memory(text=text, id=f"{namespace}-{start + t * copies + c}",
                              namespace=namespace, created_at=created,
                              metadata={"label": t} if label else {}))
    return out


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "pool.db"
    store = SQLiteStore(path)
    store.add_memories(pool())
    store.close()
    return path


def test_run_applies_plan_and_stores_report(db):
    with SQLiteStore(db) as store:
        report = run_job(store, cfg())
        assert report.status == "succeeded"
        assert report.namespaces == ["ns"] and report.new_memories == 18
        assert [s.name for s in report.stages] == ["load", "embed", "reduce", "cluster",
                                                   "plan", "apply"]
        p = report.primary
        assert p.applied and p.actions_by_type["merge"] >= 12
        assert p.pool_before == 18 and p.pool_after == store.count_memories(
            "ns", statuses=[Status.ACTIVE]) < 18
        assert p.bcubed is not None and p.bcubed.n_labelled == 18
        assert report.embedding["embedded"] == 6 and report.embedding["cached"] == 0  # distinct
        assert report.versions["numpy"] and report.config_hash == cfg().hash()
        runs = store.list_runs()
        assert [r.run_id for r in runs] == [report.run_id]
        assert runs[0].status == "succeeded"
        assert runs[0].report["primary"]["memories_affected"] == p.memories_affected
        merged = [m for m in store.iter_memories("ns") if m.status is Status.MERGED]
        assert len(merged) == p.actions_by_type["merge"]
        assert store.events(run_id=report.run_id)


def test_dry_run_changes_nothing(db, file_state):
    before = file_state(db)
    with SQLiteStore(db) as store:
        report = run_job(store, cfg(), dry_run=True)
    assert file_state(db) == before
    assert report.status == "dry-run" and not report.primary.applied
    assert report.primary.actions_by_type["merge"] >= 12  # it did plan
    assert report.embedding["embedded"] == 6  # computed, but not cached in the store
    with SQLiteStore(db) as store:
        assert store.list_runs() == []
        assert store.count_memories("ns", statuses=[Status.ACTIVE]) == 18


def test_second_run_embeds_nothing_and_skips_without_new_memories(db):
    with SQLiteStore(db) as store:
        first = run_job(store, cfg(job__min_new_memories=0), dry_run=False)
        assert first.status == "succeeded"
        store.add_memories(pool(copies=1, start=100, age_days=0))  # 6 new < 10
        skipped = run_job(store, cfg())
        assert skipped.status == "skipped"
        assert "6 new memories" in skipped.skip_reason
        assert "min_new_memories = 10" in skipped.skip_reason
        forced = run_job(store, cfg(), force=True)
        assert forced.status == "succeeded" and forced.forced
        assert forced.new_memories == 6
        assert forced.embedding["embedded"] == 0  # same texts: all from the cache
        statuses = [r.status for r in store.list_runs()]
        assert statuses == ["succeeded", "skipped", "succeeded"]


def test_skip_is_per_namespace(db):
    with SQLiteStore(db) as store:
        run_job(store, cfg())
        store.add_memories(pool("other"))  # 18 new in a namespace never run
        store.add_memories(pool("ns", copies=1, start=200, age_days=0))  # 6 new in ns
        report = run_job(store, cfg())
        assert report.status == "succeeded"
        assert report.namespaces == ["other"]
        assert "ns" in report.apply["skipped_namespaces"]
        assert {d.namespace for d in report.primary.decisions} == {"other"}


def test_clusters_never_cross_namespaces(tmp_path):
    with SQLiteStore(tmp_path / "two.db") as store:
        store.add_memories(pool("a", copies=1))
        store.add_memories(pool("b", copies=1))  # the same texts in another namespace
        report = run_job(store, cfg(), dry_run=True, force=True)
        assert report.primary.actions_by_type.get("merge", 0) == 0


def test_lock_held_elsewhere_leaves_store_untouched(db, file_state):
    holder = SQLiteStore(db)
    with holder.lock():
        before = file_state(db)
        with SQLiteStore(db) as store, pytest.raises(LockHeldError, match="lock"):
            run_job(store, cfg())
        assert file_state(db) == before
    holder.close()


def test_unknown_namespace_is_a_user_error(db):
    with SQLiteStore(db) as store, pytest.raises(
            UserError, match="no memories in namespace.*'nope'.*ns"):
        run_job(store, cfg(), namespaces=["nope"])


def test_shadow_is_recorded_not_applied(db):
    shadow = cfg(reduction__method="none", clustering__hdbscan__min_cluster_size=3)
    with SQLiteStore(db) as store:
        report = run_job(store, cfg(), shadow=shadow)
        assert report.shadow is not None and not report.shadow.applied
        assert report.shadow.config_hash == shadow.hash() != report.primary.config_hash
        assert report.shadow_config_hash == shadow.hash()
        assert "shadow reduce" in [s.name for s in report.stages]
        # only the primary's decisions reached the store
        changed = {m.id for m in store.iter_memories("ns") if m.status is not Status.ACTIVE}
        assert changed == {d.memory_id for d in report.primary.decisions}
        cmp = shadow_comparison(report)
        assert cmp is not None and cmp.label_b == "shadow"
        stored = store.get_run(report.run_id).report
        assert stored["shadow"]["name"] == "shadow"


def test_failed_run_is_recorded(db, monkeypatch):
    from memmaint.maintenance.job import run as job

    def boom(*a, **k):
        raise RuntimeError("agent exploded")

    monkeypatch.setattr(job, "_plan", boom)
    with SQLiteStore(db) as store:
        with pytest.raises(RuntimeError):
            run_job(store, cfg())
        (run,) = store.list_runs()
        assert run.status == "failed" and "agent exploded" in run.report["error"]
        assert store.count_memories("ns", statuses=[Status.ACTIVE]) == 18


def test_compare_configs_writes_nothing(db, file_state):
    before = file_state(db)
    with SQLiteStore(db) as store:
        strict = cfg(agents__merge_threshold=1.0, clustering__hdbscan__min_cluster_size=4)
        cmp = compare_configs(store, cfg(), strict, label_a="loose", label_b="strict")
    assert file_state(db) == before
    assert cmp.a.name == "loose" and cmp.b.name == "strict"
    assert cmp.a.memories_affected >= cmp.b.memories_affected
    assert cmp.overlap.both_merge + cmp.overlap.only_a_merge == cmp.a.actions_by_type["merge"]


def test_llm_backend_calls_and_tokens_reach_the_report(db):
    """A real chat-completions server on 127.0.0.1 that merges each cluster it is sent."""
    import json
    import re
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    calls = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
            ids = re.findall(r'"id": "([^"]+)"', prompt)
            texts = re.findall(r'"text": "([^"]+)"', prompt)
            calls.append(ids)
            # one merge per cluster, its text every distinct source text (keeps every fact)
            plan = {"actions": [{"type": "merge", "memory_ids": ids, "target_ids": [],
                                 "text": " ".join(dict.fromkeys(texts)),
                                 "reason": "same fact"}]}
            reply = {"choices": [{"message": {"role": "assistant",
                                              "content": json.dumps(plan)}}],
                     "usage": {"prompt_tokens": 100, "completion_tokens": 7}}
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        config = cfg(agents__backend="llm",
                     llm__base_url=f"http://127.0.0.1:{server.server_address[1]}/v1",
                     llm__api_key_env="MEMMAINT_TEST_NO_SUCH_KEY",
                     llm__run_max_merge_share=1.0,  # a pool of copies: merging is right
                     llm__max_merge_share=1.0)
        with SQLiteStore(db) as store:
            report = run_job(store, config, dry_run=True)
    finally:
        server.shutdown()
        server.server_close()
    p = report.primary
    assert calls and p.llm_calls == len(calls)
    assert (p.tokens_in, p.tokens_out) == (100 * len(calls), 7 * len(calls))
    assert p.actions_by_type["merge"] == sum(len(ids) for ids in calls)
    assert {d.agent for d in p.decisions} == {"llm"}


def test_user_error_before_the_first_write_records_nothing(db, monkeypatch, file_state):
    from memmaint.maintenance.core.errors import InputError
    from memmaint.maintenance.job import run as job

    def bad_load(*a, **k):
        raise InputError("unreadable pool")

    monkeypatch.setattr(job, "_load", bad_load)
    before = file_state(db)
    with SQLiteStore(db) as store:
        with pytest.raises(InputError) as info:
            run_job(store, cfg())
        assert store.list_runs() == [] and not hasattr(info.value, "recorded_run")
    assert file_state(db) == before


def test_run_record_commits_with_the_changes(db, monkeypatch):
    """A failure writing the record rolls the applied changes back: a run whose changes
    are in the store always has its ``succeeded`` record."""
    with SQLiteStore(db) as store:
        real = store.save_run
        calls = []

        def flaky(run):
            calls.append(run.status)
            if run.status == "succeeded":
                raise RuntimeError("disk full")
            real(run)

        monkeypatch.setattr(store, "save_run", flaky)
        with pytest.raises(RuntimeError, match="disk full"):
            run_job(store, cfg())
        assert calls == ["succeeded", "failed"]
        (run,) = store.list_runs()
        assert run.status == "failed" and store.events() == []
        assert store.count_memories("ns", statuses=[Status.ACTIVE]) == 18
