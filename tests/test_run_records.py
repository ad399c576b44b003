"""Every applied change has its run record, whatever moment the process dies (issue #17).

A child process runs the nightly job with ``MEMMAINT_FAULT_AT=<boundary>``, which ends it with
``os._exit(99)`` at that named write boundary (before an insert, an update or an event, after
a namespace's writes, before and after the commit of the changes with their run record; see
``memmaint.maintenance.apply.applier.FAULT_POINTS``), on SQLite and on PostgreSQL. For the store
``os._exit`` is a SIGKILL at that exact point: no ``finally``, no rollback, no close. Afterwards
every event of the store belongs to a run that ``memmaint runs`` lists as ``succeeded``, the
store is either untouched or fully applied, ``memmaint undo`` restores the old state, and the
next run takes the lock. Also: redo keeps a run's status right.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest
from test_job import FAST, cfg, pool

from memmaint.maintenance.apply.applier import FAULT_POINTS, undo_run
from memmaint.maintenance.core.records import Status
from memmaint.maintenance.job.run import run_job
from memmaint.maintenance.store.registry import open_store
from memmaint.maintenance.store.sqlite import SQLiteStore

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX")

# (boundary, the store must be fully applied afterwards)
BOUNDARIES = [("run-begin", False), ("insert", False), ("update:4", False), ("event", False),
              ("event:5", False), ("namespace", False), ("namespace:2", False),
              ("run-record", False), ("run-commit", True)]

CHILD = textwrap.dedent("""
    import json, sys
    from memmaint.maintenance.core.config import config_from_dict
    from memmaint.maintenance.job.run import run_job
    from memmaint.maintenance.store.registry import open_store

    store = open_store(sys.argv[1], create=False)
    report = run_job(store, config_from_dict(json.loads(sys.argv[2])))
    store.close()
    print("done", report.status, flush=True)
""")


def snapshot(store) -> dict[tuple[str, str], tuple]:
    return {(m.namespace, m.id): (m.content_hash, m.status.value, m.replaced_by, m.version)
            for m in store.iter_memories()}


def run_child(url: str, point: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "MEMMAINT_FAULT_AT": point}
    return subprocess.run([sys.executable, "-c", CHILD, url, json.dumps(FAST)],
                          check=False, env=env, capture_output=True, text=True, timeout=180)


def check_after_kill(url: str, before: dict, applied: dict, point: str, must_apply: bool,
                     cli) -> None:
    with open_store(url, create=False) as store:
        events = store.events()
        runs = {r.run_id: r for r in store.list_runs()}
        state = snapshot(store)
    by_run: dict[str, int] = {}
    for e in events:
        by_run[e.run_id] = by_run.get(e.run_id, 0) + 1
    for run_id, n in by_run.items():  # every applied change is listed, as applied
        assert run_id in runs, f"{point}: events of run {run_id} but no run record"
        assert runs[run_id].status == "succeeded"
        assert runs[run_id].report["apply"]["events"] == n
    if not events:
        assert state == before and not runs, f"{point}: changes or a record without events"
        assert not must_apply, f"{point}: the run should have committed"
        return
    assert applied_shape(state, before) == applied, f"{point}: half-applied"
    listed = cli("runs", "--db", url, "--json")
    assert listed.exit_code == 0
    assert {r["run_id"]: r["status"] for r in json.loads(listed.output)} == {
        rid: "succeeded" for rid in by_run}
    for run_id in by_run:
        res = cli("undo", run_id, "--db", url)
        assert res.exit_code == 0, res.output
    with open_store(url, create=False) as store:
        undone = snapshot(store)
        assert all(r.status == "undone" for r in store.list_runs())
    assert {k: undone[k] for k in before} == before
    assert all(v[1] == "archived" for k, v in undone.items() if k not in before)


def fault_rounds(make_url, drop, cli) -> None:
    """One clean run for the applied state, then one killed child per boundary."""
    url = make_url()
    with open_store(url, create=False) as store:
        before = snapshot(store)
        report = run_job(store, cfg())
        applied = snapshot(store)
    assert report.status == "succeeded" and report.apply["events"] >= 6
    drop(url)
    assert {p.partition(":")[0] for p, _ in BOUNDARIES} <= set(FAULT_POINTS)
    for point, must_apply in BOUNDARIES:
        url = make_url()
        proc = run_child(url, point)
        assert proc.returncode == 99, f"{point}: not reached: {proc.stdout} {proc.stderr}"
        check_after_kill(url, before, applied_shape(applied, before), point, must_apply,
                         cli)
        with open_store(url, create=False) as store:  # the lock died with the process
            again = run_job(store, cfg(), force=True)
        assert again.status == "succeeded"
        drop(url)


def applied_shape(state: dict, before: dict) -> tuple:
    """A state with the ids of memories a run created left out (merges get fresh ids
    each run): the old memories' content, status, version and whether they point somewhere,
    and the created memories' content, status and version."""
    old = {k: (v[0], v[1], v[2] is None, v[3]) for k, v in state.items() if k in before}
    new = sorted((v[0], v[1], v[3]) for k, v in state.items() if k not in before)
    return old, new


def test_kill_at_every_boundary_sqlite(tmp_path, cli):
    counter = iter(range(100))

    def make_url() -> str:
        path = tmp_path / f"s{next(counter)}.db"
        with SQLiteStore(path) as store:
            store.add_memories(pool("ns") + pool("ns2"))
        return str(path)

    fault_rounds(make_url, lambda url: None, cli)


@pytest.mark.postgres
def test_kill_at_every_boundary_postgres(pg_server, cli):
    def make_url() -> str:
        url = pg_server.new_database()
        with open_store(url) as store:
            store.add_memories(pool("ns") + pool("ns2"))
        return url

    fault_rounds(make_url, pg_server.drop_database, cli)


# -- redo ----------------------------------------------------------------------------------

def test_redo_restores_the_run_status_and_undo_works_again(tmp_path, cli):
    db = tmp_path / "s.db"
    with SQLiteStore(db) as store:
        store.add_memories(pool("ns"))
        before = snapshot(store)
        report = run_job(store, cfg())
        applied = snapshot(store)
    rid = report.run_id
    for _ in range(2):  # undo, redo, twice over
        assert cli("undo", rid, "--db", db).exit_code == 0
        with SQLiteStore(db) as store:
            assert store.get_run(rid).status == "undone"
            assert {k: v for k, v in snapshot(store).items() if k in before} == before
        res = cli("undo", rid, "--db", db)
        assert res.exit_code == 2 and "already undone" in res.output
        res = cli("undo", f"undo-{rid}", "--db", db)
        assert res.exit_code == 0, res.output
        with SQLiteStore(db) as store:
            run = store.get_run(rid)
            assert run.status == "succeeded" and run.report["redone_by"].endswith(rid)
            now = snapshot(store)
            assert {k: v[:3] for k, v in now.items()} == {k: v[:3] for k, v in applied.items()}
        listed = json.loads(cli("runs", "--db", db, "--json").output)
        assert [(r["run_id"], r["status"]) for r in listed] == [(rid, "succeeded")]
    with SQLiteStore(db) as store:  # the library agrees: undo works on the redone run
        result = undo_run(store, rid)
        assert result.undo_run_id.startswith("undo-undo-undo-undo-undo-")
        assert store.get_run(rid).status == "undone"
        assert all(m.status is not Status.MERGED for m in store.iter_memories())
