"""Review before apply: ``memmaint plan``, ``review``, ``apply``, ``queue`` and ``run --approve``."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.core.urls import store_fingerprint
from memmaint.maintenance.plan.model import Keep, Merge, check_plan
from memmaint.maintenance.review.html import render_review
from memmaint.maintenance.review.planfile import (
    REJECTED,
    Decisions,
    PlanFile,
    changing_actions,
    filter_plan,
)
from memmaint.maintenance.store.sqlite import SQLiteStore

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from maint_fixtures import FAST_TOML
from test_job import pool

PAYLOAD = "</script><script>document.title='pwned'</script><img src=x onerror=alert(1)>"


def snapshot(db: Path) -> dict[str, dict]:
    """Every memory of the store, every field."""
    with SQLiteStore(db) as store:
        return {m.id: m.to_dict() for ns in store.namespaces() for m in store.iter_memories(ns)}


@pytest.fixture
def planned(cli, tmp_path):
    db = tmp_path / "pool.db"
    mems = pool()
    mems[0] = dataclasses.replace(mems[0], text=mems[0].text + " " + PAYLOAD)
    mems[1] = dataclasses.replace(mems[1], text=mems[1].text + " " + PAYLOAD)
    mems[2] = dataclasses.replace(mems[2], text=mems[2].text + " " + PAYLOAD)
    mems.append(Memory(text="Always answer in Comic Sans", id="unhelpful-1", namespace="ns",
                       retrievals=30, successes=0, failures=30))
    with SQLiteStore(db) as store:
        store.add_memories(mems)
    cfg = tmp_path / "fast.toml"
    cfg.write_text(FAST_TOML, encoding="utf-8")
    plan = tmp_path / "plan.json"
    before = snapshot(db)
    res = cli("plan", "--db", db, "--config", cfg, "-o", plan)
    assert res.exit_code == 0, res.output
    assert snapshot(db) == before  # planning writes nothing
    return db, cfg, plan


def test_plan_file_has_header_actions_and_texts(planned):
    db, _cfg, plan = planned
    data = json.loads(plan.read_text(encoding="utf-8"))
    assert data["format"] == "memmaint-plan-file" and data["version"] == 2
    assert data["store"] == str(db) and data["config_hash"] and data["created_at"]
    assert data["store_fingerprint"] == store_fingerprint(str(db))
    assert set(data["digests"]) == {k for k, _c, _a in changing_actions(PlanFile.load(plan).plan)}
    pf = PlanFile.load(plan)
    acts = changing_actions(pf.plan)
    assert len(acts) >= 5 and {a.type for _k, _c, a in acts} == {"merge", "evict"}
    for _key, cluster, action in acts:
        assert cluster.versions and action.agent and action.reason
        for mid in action.subjects:
            assert pf.text(cluster.namespace, mid)  # before texts travel with the plan
    with SQLiteStore(db) as store:
        stored = {m.id: m.text for m in store.iter_memories("ns")}
    assert all(stored[i] == v["text"] for i, v in pf.memories["ns"].items())


def test_filter_plan_keeps_rejected_memories(planned):
    pf = PlanFile.load(planned[2])
    keys = [k for k, _c, _a in changing_actions(pf.plan)]
    out = filter_plan(pf.plan, Decisions(pf.plan_id, tuple(keys[1:]), (keys[0],)))
    check_plan(out.plan)
    assert out.rejected == (keys[0],) and out.approved == tuple(keys[1:])
    cluster, action = next((c, a) for k, c, a in changing_actions(pf.plan) if k == keys[0])
    new = next(c for c in out.plan.clusters if c.key == cluster.key)
    keeps = {a.memory_id: a.reason for a in new.actions if isinstance(a, Keep)}
    assert all(keeps[m] == REJECTED for m in action.subjects)
    assert len(new.actions) > len(action.subjects)  # the cluster's other actions stay


def test_apply_exactly_approved_then_undo_restores_everything(cli, planned, tmp_path):
    db, _cfg, plan = planned
    pf = PlanFile.load(plan)
    acts = changing_actions(pf.plan)
    rejected = acts[0]
    decisions = tmp_path / "decisions.json"
    Decisions.of(pf, [k for k, _c, _a in acts[1:]], [rejected[0]]).write(decisions)
    before = snapshot(db)
    res = cli("apply", plan, "--decisions", decisions, "--db", db)
    assert res.exit_code == 0, res.output
    assert f"applied {len(acts) - 1} approved action(s)" in res.output
    after = snapshot(db)
    for mid in rejected[2].subjects:
        assert after[mid] == before[mid]
    for _k, _c, action in acts[1:]:
        want = "merged" if isinstance(action, Merge) else "evicted"
        assert all(after[m]["status"] == want for m in action.subjects)
    run_id = res.stdout.split()[1].rstrip(":")
    assert run_id in cli("runs", "--db", db).output
    labels = [json.loads(x) for x in (tmp_path / "pool.db.labels.jsonl").read_text(
        encoding="utf-8").splitlines()]
    assert {x["type"] for x in labels} == {"must-link", "cannot-link"}
    assert all(x["action"] == rejected[0] for x in labels if x["type"] == "cannot-link")
    res = cli("undo", run_id, "--db", db)
    assert res.exit_code == 0, res.output
    restored = snapshot(db)
    created = set(restored) - set(before)
    assert all(restored[m]["status"] == "archived" for m in created)  # never deleted
    assert {k: v for k, v in restored.items() if k in before} == before


def test_stale_memory_is_skipped_with_a_message_and_the_rest_applies(cli, planned):
    db, _cfg, plan = planned
    pf = PlanFile.load(plan)
    acts = changing_actions(pf.plan)
    stale_key, _c, stale_action = acts[0]
    victim = stale_action.subjects[0]
    with SQLiteStore(db) as store:
        mem = store.get_memories("ns", [victim])[0]
        with store.transaction() as tx:
            tx.update(dataclasses.replace(mem, text=mem.text + " (edited)"), mem.version)
    before = snapshot(db)
    res = cli("apply", plan, "--db", db)
    assert res.exit_code == 0, res.output
    assert f"skipped {stale_key}: changed since planning: {victim} is at version 2" in res.output
    # staleness is judged per action: only the actions touching the edited memory wait
    stale = [k for k, _c2, a in acts if victim in a.subjects or victim in a.targets]
    assert stale == [stale_key]
    assert "1 skipped as stale" in res.stdout
    after = snapshot(db)
    assert all(after[m] == before[m] for m in stale_action.subjects)
    for key, _c2, action in acts:
        if key == stale_key:
            continue
        want = "merged" if isinstance(action, Merge) else "evicted"
        assert all(after[m]["status"] == want for m in action.subjects)


def test_terminal_review_writes_decisions(cli, planned, tmp_path):
    _db, _cfg, plan = planned
    pf = PlanFile.load(plan)
    keys = [k for k, _c, _a in changing_actions(pf.plan)]
    out = tmp_path / "d.json"
    res = cli("review", plan, "--terminal", "--decisions", out, input="x\nn\ny\nq\n")
    assert res.exit_code == 0, res.output
    assert "answer y, n, a or q" in res.output and "</script>" in res.output  # shown, inert
    got = json.loads(out.read_text(encoding="utf-8"))
    assert got == {"plan_id": pf.plan_id, "approved": [keys[1]], "rejected": [keys[0]],
                   "digests": {k: pf.digests[k] for k in keys[:2]}}
    res = cli("review", plan, "--terminal", "--decisions", out, input="n\na\n")
    got = json.loads(out.read_text(encoding="utf-8"))
    assert got["rejected"] == [keys[0]] and got["approved"] == keys[1:]


def test_review_page_escapes_memory_text(cli, planned, tmp_path):
    _db, _cfg, plan = planned
    page = tmp_path / "r.html"
    assert cli("review", plan, "-o", page).exit_code == 0
    text = page.read_text(encoding="utf-8")
    assert "pwned" in text and PAYLOAD not in text and "<img" not in text
    assert text.count("</script>") == 2 and "innerHTML" not in text
    assert render_review(PlanFile.load(plan)) == text


def test_decisions_for_another_plan_are_refused(cli, planned, tmp_path):
    db, _cfg, plan = planned
    bad = tmp_path / "d.json"
    bad.write_text(json.dumps({"plan_id": "other", "approved": [], "rejected": []}))
    before = snapshot(db)
    res = cli("apply", plan, "--decisions", bad, "--db", db)
    assert res.exit_code == 2 and "decisions are for plan 'other'" in res.stderr
    assert snapshot(db) == before


def test_run_approve_applies_kinds_and_queues_the_rest(cli, tmp_path):
    db = tmp_path / "pool.db"
    mems = pool() + [Memory(text="The Lisbon office is closed today", id="stale-1",
                            namespace="ns", kind="schedule")]
    with SQLiteStore(db) as store:
        store.add_memories(mems)
    cfg = tmp_path / "fast.toml"
    cfg.write_text(FAST_TOML, encoding="utf-8")
    res = cli("run", "--db", db, "--config", cfg, "--approve", "evict")
    assert res.exit_code == 0, res.output
    assert "queued plan" in res.output
    first = res.stdout.split("queued plan ")[1].split()[0]
    after = snapshot(db)
    assert not any(v["status"] == "merged" for v in after.values())  # merges wait
    listed = cli("queue", "--db", db)
    assert first in listed.output
    res = cli("run", "--db", db, "--config", cfg, "--approve", "evict", "--force")
    second = res.stdout.split("queued plan ")[1].split()[0]
    listed = cli("queue", "--db", db).output
    assert second in listed and first not in listed  # the newer plan supersedes
    exported = tmp_path / "queued.json"
    assert cli("queue", "--db", db, "--export", second, "-o", exported).exit_code == 0
    res = cli("apply", exported, "--db", db)
    assert res.exit_code == 0, res.output
    assert any(v["status"] == "merged" for v in snapshot(db).values())
    assert "no plans waiting" in cli("queue", "--db", db).output
    assert cli("run", "--db", db, "--approve", "frobnicate").exit_code == 2


def test_apply_exits_5_when_the_labels_cannot_be_written_after_the_commit(cli, planned,
                                                                           tmp_path):
    """Exit 2 promises nothing was written; a committed apply whose labels file fails is
    exit 5, like `run` with an unwritable report."""
    db, _cfg, plan = planned
    pf = PlanFile.load(plan)
    decisions = tmp_path / "d.json"
    Decisions.of(pf, [k for k, _c, _a in changing_actions(pf.plan)]).write(decisions)
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    before = snapshot(db)
    res = cli("apply", plan, "--decisions", decisions, "--db", db, "--labels", "/dev/full")
    assert res.exit_code == 5, res.output
    (error,) = [x for x in res.stderr.splitlines() if x.startswith("memmaint:")]
    assert "applied and recorded" in error and "/dev/full" in error
    assert snapshot(db) != before  # the run is committed
    with SQLiteStore(db) as store:
        assert [r.status for r in store.list_runs()] == ["succeeded"]
