"""What counts as new for ``job.min_new_memories``: what the store saw (its change sequence)
since the last successful run, not the memories' own dates; on SQLite and PostgreSQL."""

from __future__ import annotations

import dataclasses
import json
from datetime import timedelta

import pytest
from test_job import cfg, pool

from memmaint.maintenance.core.records import Memory, Status, utcnow
from memmaint.maintenance.job.run import run_job
from memmaint.maintenance.store.base import RunRecord
from memmaint.maintenance.store.sqlite import SQLiteStore


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request, tmp_path):
    """A store holding ``pool()`` (6 topics x 3 copies in namespace ``ns``)."""
    if request.param == "sqlite":
        s = SQLiteStore(tmp_path / "pool.db")
        drop = None
    else:
        from memmaint.maintenance.store.postgres import PostgresStore

        server = request.getfixturevalue("pg_server")
        url = server.new_database()
        s = PostgresStore(url)
        drop = (server, url)
    s.add_memories(pool())
    yield s
    s.close()
    if drop is not None:
        drop[0].drop_database(drop[1])


def historic(n: int, namespace: str = "ns", days: float = 365) -> list[Memory]:
    """``n`` distinct memories dated ``days`` ago (a backfill with the user's own times)."""
    when = utcnow() - timedelta(days=days)
    return [Memory(id=f"hist-{i}", namespace=namespace, created_at=when, updated_at=when,
                   text=f"imported note {i}: the customer asked about invoice {i * 7}")
            for i in range(n)]


def first_run(store) -> None:
    report = run_job(store, cfg(job__min_new_memories=0))
    assert report.status == "succeeded"
    assert report.pool_after < report.pool_before  # it merged: its own writes exist


def test_backfill_with_historic_dates_is_new(store):
    first_run(store)
    store.add_memories(historic(200))
    report = run_job(store, cfg())  # min_new_memories = 10
    assert report.status == "succeeded", report.skip_reason
    assert report.new_memories == 200
    assert report.namespaces == ["ns"]


def test_the_runs_own_writes_are_not_news(store):
    first_run(store)
    again = run_job(store, cfg(job__min_new_memories=1))
    assert again.status == "skipped"
    assert "0 new memories" in (again.skip_reason or "")


def test_an_edit_counts_and_feedback_does_not(store):
    first_run(store)
    active = list(store.iter_memories("ns", statuses=[Status.ACTIVE]))
    for m in active:  # feedback on every memory: not a change
        store.record_usage("ns", m.id, True)
    skipped = run_job(store, cfg(job__min_new_memories=1))
    assert skipped.status == "skipped" and "0 new memories" in (skipped.skip_reason or "")
    with store.transaction() as tx:
        for m in active[:3]:
            tx.update(dataclasses.replace(m, text=m.text + " (corrected)"), m.version)
    report = run_job(store, cfg(job__min_new_memories=3), dry_run=True)
    assert report.status == "dry-run" and report.new_memories == 3


def test_writes_during_a_run_are_news_for_the_next(store):
    wrote: list[bool] = []

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "plan" and not wrote:  # after loading, before the run's transaction
            wrote.append(True)
            store.add_memories(historic(4))

    report = run_job(store, cfg(job__min_new_memories=0), progress=progress)
    assert report.status == "succeeded" and wrote
    assert report.pool_before == 18  # it never saw them
    nxt = run_job(store, cfg(job__min_new_memories=4), dry_run=True)
    assert nxt.status == "dry-run" and nxt.new_memories == 4


def test_a_run_without_a_recorded_sequence_falls_back_to_dates_once(store):
    """A store whose last run predates the change sequence (migrated from schema 1)."""
    now = utcnow()
    store.save_run(RunRecord("20250101T000000Z-old", now, now, "succeeded", ("ns",),
                             {"run_id": "20250101T000000Z-old"}))
    store.add_memories(historic(20))  # old dates: invisible to the old rule
    skipped = run_job(store, cfg())
    assert skipped.status == "skipped" and "0 new memories" in (skipped.skip_reason or "")
    forced = run_job(store, cfg(), force=True)
    assert forced.status == "succeeded" and forced.changes["ns"]["seen"] > 0
    store.add_memories([dataclasses.replace(m, id=f"b-{m.id}") for m in historic(10)])
    after = run_job(store, cfg(), dry_run=True)  # the sequence from now on
    assert after.status == "dry-run" and after.new_memories == 10


def test_a_reviewed_apply_records_what_its_plan_saw(store):
    """``memmaint plan`` + review + ``apply``: the apply's run record carries the sequence the
    plan was made at (``PlanFile.store_seq``) and the numbers the apply took, so the next
    night counts what arrived after planning, not the apply's own writes (and not by date)."""
    from memmaint.maintenance.review.apply import apply_reviewed
    from memmaint.maintenance.review.planfile import (
        Decisions,
        PlanFile,
        changing_actions,
        make_plan_file,
    )

    first_run(store)
    # before planning (the plan sees them): five notes, each stored twice, so it merges
    store.add_memories(historic(5) + [dataclasses.replace(m, id=f"{m.id}-again")
                                      for m in historic(5)])
    pf, _ = make_plan_file(store, cfg(job__min_new_memories=0))
    assert pf is not None and pf.store_seq is not None
    pf = PlanFile.from_dict(json.loads(pf.to_json()))  # survives the file
    keys = [k for k, _c, _a in changing_actions(pf.plan)]
    assert keys  # the apply writes something of its own
    apply_reviewed(pf, store, Decisions.of(pf, keys))
    store.add_memories([dataclasses.replace(m, id=f"late-{i}", text=f"late {m.text}")
                        for i, m in enumerate(historic(3, days=400))])
    report = run_job(store, cfg(job__min_new_memories=0), dry_run=True)
    assert report.new_memories == 3


def test_a_namespace_with_too_few_news_is_counted_not_read(store):
    """min_new_memories is checked against the store's change sequence before any memory is
    read: a namespace it skips is never loaded (issue #38: many quiet namespaces)."""
    store.add_memories(pool("quiet"))
    report = run_job(store, cfg(job__min_new_memories=0))
    assert report.status == "succeeded" and set(report.namespaces) == {"ns", "quiet"}
    store.add_memories(historic(12))  # news in "ns" only
    read: list[str] = []
    real = store.iter_memories

    def counting(namespace, *args, **kwargs):
        read.append(namespace)
        return real(namespace, *args, **kwargs)

    store.iter_memories = counting
    try:
        report = run_job(store, cfg(), dry_run=True)  # min_new_memories = 10
    finally:
        del store.iter_memories
    assert report.namespaces == ["ns"] and report.new_memories == 12
    assert "quiet" not in read and "ns" in read
    assert report.apply["skipped_namespaces"]["quiet"].startswith("0 new memories")
