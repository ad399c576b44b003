"""Outcomes apart from content: feedback never makes a plan stale nor an undo impossible.

``memmaint feedback`` (``store.record_usage``) changes a memory's outcome counters only: not
its content version. Content writes (apply, undo) never touch the counters, so neither
loses feedback recorded in between.
"""

from __future__ import annotations

import sys
from pathlib import Path

from memmaint.maintenance.apply.applier import apply_plan
from memmaint.maintenance.review.planfile import PlanFile, changing_actions
from memmaint.maintenance.store.sqlite import SQLiteStore

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_review

planned = test_review.planned  # the fixture


def counters(db: Path, ids: list[str]) -> dict[str, tuple[int, int, int, int]]:
    with SQLiteStore(db) as store:
        return {m.id: (m.retrievals, m.successes, m.failures, m.version)
                for m in store.get_memories("ns", ids)}


def test_feedback_between_plan_and_apply_leaves_the_plan_fresh(cli, planned):
    db, _cfg, plan = planned
    pf = PlanFile.load(plan)
    touched = sorted({m for _k, _c, a in changing_actions(pf.plan) for m in a.subjects})
    before = counters(db, touched)
    for mid in touched:
        res = cli("feedback", mid, "-n", "ns", "--db", db, "--success")
        assert res.exit_code == 0, res.output
    after = counters(db, touched)
    assert all(after[m][3] == before[m][3] for m in touched)  # no new content version
    assert all(after[m][1] == before[m][1] + 1 for m in touched)
    res = cli("apply", plan, "--db", db)
    assert res.exit_code == 0, res.output
    assert "0 skipped as stale" in res.stdout
    applied = counters(db, touched)
    assert all(applied[m][:3] == after[m][:3] for m in touched)  # apply kept the feedback


def test_undo_after_feedback_restores_content_and_keeps_the_feedback(cli, planned):
    db, _cfg, plan = planned
    pf = PlanFile.load(plan)
    touched = sorted({m for _k, _c, a in changing_actions(pf.plan) for m in a.subjects})
    with SQLiteStore(db) as store:
        original = {m.id: m for m in store.get_memories("ns", touched)}
    res = cli("apply", plan, "--db", db)
    assert res.exit_code == 0, res.output
    run_id = res.stdout.split()[1].rstrip(":")
    for mid in touched:
        assert cli("feedback", mid, "-n", "ns", "--db", db, "--failure").exit_code == 0
    res = cli("undo", run_id, "--db", db)
    assert res.exit_code == 0, res.output
    with SQLiteStore(db) as store:
        now = {m.id: m for m in store.get_memories("ns", touched)}
    for mid, old in original.items():
        got = now[mid]
        assert (got.text, got.status, got.version, got.replaced_by) == (
            old.text, old.status, old.version, old.replaced_by)
        assert got.failures == old.failures + 1 and got.retrievals == old.retrievals + 1


def test_feedback_racing_an_apply_is_neither_a_conflict_nor_lost(planned):
    db, _cfg, plan = planned
    pf = PlanFile.load(plan)
    victim = changing_actions(pf.plan)[0][2].subjects[0]

    class Racing:
        """The real store, with an agent's feedback between apply's read and write."""

        def __init__(self, inner: SQLiteStore) -> None:
            self.inner, self.raced = inner, False

        def __getattr__(self, name: str):
            return getattr(self.inner, name)

        def transaction(self):
            if not self.raced:
                self.raced = True
                self.inner.record_usage("ns", victim, True)
            return self.inner.transaction()

    with SQLiteStore(db) as store:
        before = store.get_memories("ns", [victim])[0]
        result = apply_plan(pf.plan, Racing(store), "run-race")
        assert result.skipped == () and result.retries == 0
        got = store.get_memories("ns", [victim])[0]
    assert got.status.value != "active" and got.successes == before.successes + 1
