"""Plans waiting for review (``memmaint run --approve KINDS`` and ``memmaint queue``).

A queued plan is stored in the store's run table as a record with status ``pending`` and run
id ``pending-<plan id>``; its report holds the plan file (``{"plan_file": {...}, "from_run":
RUN_ID, "actions": N}``), so any store kind can queue. Queuing a plan marks every older
``pending`` record of the same namespaces ``superseded`` (a newer plan replaces it).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.core.records import new_id, utcnow
from memmaint.maintenance.plan.model import Plan
from memmaint.maintenance.review.binding import plan_digests
from memmaint.maintenance.review.planfile import (
    Decisions,
    PlanFile,
    changing_actions,
    filter_plan,
)
from memmaint.maintenance.store.base import MemoryStore, RunRecord

if TYPE_CHECKING:
    from memmaint.maintenance.core.config import Config
    from memmaint.maintenance.report.model import RunReport
    from memmaint.maintenance.review.apply import ReviewApplyResult

PENDING = "pending"
SUPERSEDED = "superseded"
PREFIX = "pending-"


def remaining_plan(pf: PlanFile, applied: Decisions) -> PlanFile:
    """The plan file of the actions ``applied`` did not approve (a new plan id)."""
    done = set(applied.approved)
    rest = tuple(k for k, _c, _a in changing_actions(pf.plan) if k not in done)
    plan: Plan = filter_plan(pf.plan, Decisions(pf.plan_id, rest, ())).plan
    plan = replace(plan, plan_id=new_id())
    # the keys change (a left-out merge becomes one keep per source): digest them again,
    # over the same snapshot, so the queued plan stays bound to what was read at planning
    return replace(pf, plan=plan, created_at=utcnow(),
                   digests=plan_digests(plan, pf.memories))


def queue_plan(store: MemoryStore, pf: PlanFile, from_run: str = "") -> str | None:
    """Queue ``pf`` for review (None when it changes nothing); returns the record's id."""
    n = len(changing_actions(pf.plan))
    if n == 0:
        return None
    namespaces = set(pf.plan.namespaces())
    for rec in list_pending(store):
        if namespaces & set(rec.namespaces):
            store.save_run(replace(rec, status=SUPERSEDED,
                                   report={**dict(rec.report), "superseded_by": pf.plan_id}))
    run_id = PREFIX + pf.plan_id
    now = utcnow()
    store.save_run(RunRecord(run_id, now, now, PENDING, tuple(sorted(namespaces)),
                             {"plan_file": pf.to_dict(), "from_run": from_run,
                              "actions": n}))
    return run_id


def list_pending(store: MemoryStore) -> list[RunRecord]:
    return [r for r in store.list_runs() if r.status == PENDING]


def pending_plan(store: MemoryStore, ident: str) -> PlanFile:
    """A queued plan file by plan id or ``pending-`` record id."""
    run_id = ident if ident.startswith(PREFIX) else PREFIX + ident
    for rec in store.list_runs():
        if rec.run_id == run_id:
            if rec.status != PENDING:
                raise InputError(f"plan {ident} is {rec.status}, not pending")
            return PlanFile.from_dict(rec.report.get("plan_file"), run_id)
    raise InputError(f"no queued plan {ident}")


def run_with_approval(store: MemoryStore, config: Config, kinds: set[str], *,
                      namespaces: list[str] | None = None, force: bool = False,
                      now: datetime | None = None, progress: Any = None,
                      ) -> tuple[ReviewApplyResult | None, RunReport, str | None]:
    """``memmaint run --approve KINDS``: plan like the job, apply the actions of ``kinds``
    at once (a run record, undoable), queue the rest for review.

    Returns ``(apply result or None, run report of the planning, queued record id)``; the
    result is None when the run was skipped (too few new memories, empty store)."""
    from memmaint.maintenance.review.apply import apply_reviewed
    from memmaint.maintenance.review.planfile import approve_types, make_plan_file

    pf, report = make_plan_file(store, config, namespaces=namespaces, now=now, force=force,
                                progress=progress)
    if pf is None:
        return None, report, None
    decisions = approve_types(pf, kinds)
    result = apply_reviewed(pf, store, decisions, source="run --approve")
    queued = queue_plan(store, remaining_plan(pf, decisions), from_run=result.run_id)
    return result, report, queued
