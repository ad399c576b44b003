"""Apply a reviewed plan file: exactly the approved actions, one transaction, a run record.

:func:`apply_reviewed` filters the plan to the approved actions
(:func:`~memmaint.maintenance.review.planfile.filter_plan`), applies it with
:func:`~memmaint.maintenance.apply.applier.apply_plan` inside one store transaction together
with its run record (a :class:`~memmaint.maintenance.report.model.RunReport` with status
``succeeded``, so ``memmaint runs`` lists it and ``memmaint undo RUN_ID`` reverses it), and
reports every approved action left out as stale. Before anything is written the plan is
checked against the store it was made for and the digests it and the decisions carry
(:mod:`memmaint.maintenance.review.binding`); staleness is judged per action against the
store's own rows, so one changed memory leaves out the actions that touch it, not its
whole cluster. A plan whose every approved action is stale is refused
(``StalePlanError``, exit 6) with no run record.

Review labels: :func:`write_labels` appends one JSON line per pair of memories a reviewed
merge names: ``must-link`` for an approved merge, ``cannot-link`` for a rejected one::

    {"type": "must-link", "namespace": NS, "a": ID, "b": ID, "plan_id": ID,
     "action": KEY, "run_id": ID, "decided_at": ISO, "source": "review"}
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from itertools import combinations
from pathlib import Path
from typing import Any

from memmaint.maintenance.core.errors import StalePlanError, UserError
from memmaint.maintenance.core.records import Status, format_time, parse_time, utcnow
from memmaint.maintenance.core.urls import redact_url
from memmaint.maintenance.plan.model import Merge
from memmaint.maintenance.review.binding import bound_plan, check_binding, stale_actions
from memmaint.maintenance.review.planfile import (
    Decisions,
    Filtered,
    PlanFile,
    approve_all,
    changing_actions,
    filter_plan,
)
from memmaint.maintenance.store.base import MemoryStore, RunRecord


@dataclass
class ReviewApplyResult:
    run_id: str
    plan_id: str
    applied: list[str] = field(default_factory=list)  # action keys written
    stale: dict[str, str] = field(default_factory=dict)  # approved key -> why skipped
    rejected: list[str] = field(default_factory=list)
    undecided: list[str] = field(default_factory=list)
    dropped: dict[str, str] = field(default_factory=dict)
    counts: Mapping[str, int] = field(default_factory=dict)

    def lines(self) -> list[str]:
        head = (f"run {self.run_id}: applied {len(self.applied)} approved action(s) of plan "
                f"{self.plan_id}; {len(self.rejected)} rejected, {len(self.undecided)} not "
                f"approved, {len(self.stale)} skipped as stale")
        out = [head]
        counts = ", ".join(f"{k} {v}" for k, v in self.counts.items() if v and k != "kept")
        if counts:
            out.append(f"memories: {counts}")
        for key, why in self.stale.items():
            out.append(f"skipped {key}: {why}")
        for key, why in self.dropped.items():
            out.append(f"not applied {key}: {why}")
        return out


def apply_reviewed(pf: PlanFile, store: MemoryStore, decisions: Decisions | None = None,
                   *, run_id: str | None = None, source: str = "review") -> ReviewApplyResult:
    """Apply the approved actions of ``pf`` (all of them without ``decisions``).

    Before writing anything: :func:`~memmaint.maintenance.review.binding.check_binding`
    (another store, an edited plan file, decisions for other content: ``BindingError``),
    then each approved action is judged against the store's own rows
    (:func:`~memmaint.maintenance.review.binding.stale_actions`); stale ones are left out
    and reported. When every approved action is stale, ``StalePlanError``: nothing written,
    no run recorded.
    """
    from memmaint.maintenance.apply.applier import apply_plan
    from memmaint.maintenance.job.stages import new_run_id, package_versions
    from memmaint.maintenance.report.model import RunReport

    check_binding(pf, str(store.url), decisions)
    decisions = decisions or approve_all(pf)
    started = utcnow()
    run_id = run_id or new_run_id(started)
    with store.lock("run"):
        filtered = filter_plan(pf.plan, decisions)
        stale = stale_actions(pf, store, filtered.approved)
        if stale:
            fresh = tuple(k for k in decisions.approved if k not in stale)
            filtered = filter_plan(pf.plan, replace(decisions, approved=fresh))
        keys = tuple(filtered.approved)
        if not keys and stale:
            first = next(iter(stale.items()))
            raise StalePlanError(
                f"plan {pf.plan_id} is stale: all {len(stale)} approved action(s) changed in "
                f"the store since planning (first {first[0]}: {first[1]}); nothing applied, "
                "make a new plan")
        plan = bound_plan(pf, filtered.plan, keys)
        namespaces = plan.namespaces()
        report = RunReport(run_id=run_id, started_at=format_time(started) or "",
                           config_hash=pf.config_hash, versions=package_versions(),
                           namespaces=namespaces)
        report.pool_before = _active(store, namespaces)
        with store.transaction():
            from memmaint.maintenance.job.changes import current_seq, marks

            own_start = current_seq(store, lock=True)  # numbers taken from here on are ours
            result = apply_plan(plan, store, run_id)
            # the next night counts what the store saw after the plan was made, ours aside
            report.changes = marks(namespaces, pf.store_seq, own_start, current_seq(store))
            skipped = {s.key: s.reason for s in result.skipped}
            out = _result(run_id, pf, filtered, keys, stale, skipped, result.counts)
            report.pool_after = _active(store, namespaces)
            report.status = "succeeded"
            report.finished_at = format_time(utcnow())
            report.apply = {**result.summary(), "source": source,
                            "plan_file": {"plan_id": pf.plan_id,
                                          "store": redact_url(pf.store_url),
                                          "store_fingerprint": pf.store_fingerprint,
                                          "created_at": format_time(pf.created_at)},
                            "review": {"applied": out.applied, "stale": out.stale,
                                       "rejected": out.rejected, "undecided": out.undecided,
                                       "dropped": out.dropped}}
            store.save_run(RunRecord(run_id, parse_time(report.started_at),
                                     parse_time(report.finished_at or report.started_at),
                                     report.status,
                                     tuple(namespaces), report.to_dict()))
    return out


def _active(store: MemoryStore, namespaces: list[str]) -> int:
    return sum(store.count_memories(ns, statuses=[Status.ACTIVE]) for ns in namespaces)


def _result(run_id: str, pf: PlanFile, filtered: Filtered, keys: tuple[str, ...],
            stale: Mapping[str, str], skipped: Mapping[str, str],
            counts: Mapping[str, int]) -> ReviewApplyResult:
    out = ReviewApplyResult(run_id, pf.plan_id, rejected=list(filtered.rejected),
                            undecided=[k for k in filtered.undecided if k not in stale],
                            dropped=dict(filtered.dropped), counts=dict(counts))
    cluster_of = {k: c.key for k, c, _a in changing_actions(pf.plan)}
    out.stale.update(stale)
    for key in keys:
        why = skipped.get(cluster_of[key])  # changed while applying (after the checks)
        if why is None:
            out.applied.append(key)
        else:
            out.stale[key] = why
    return out


def labels_path(db: str) -> Path | None:
    """The labels file beside a file store (``DB.labels.jsonl``); None for a server URL."""
    if "://" in db:
        return None
    path = Path(db)
    return path.with_name(path.name + ".labels.jsonl")


def review_labels(pf: PlanFile, decisions: Decisions, run_id: str = "") -> list[dict[str, Any]]:
    """must-link pairs of approved merges, cannot-link pairs of rejected ones."""
    approved, rejected = set(decisions.approved), set(decisions.rejected)
    when = format_time(utcnow())
    out = []
    for key, cluster, action in changing_actions(pf.plan):
        if not isinstance(action, Merge) or (key not in approved and key not in rejected):
            continue
        kind = "must-link" if key in approved else "cannot-link"
        for a, b in combinations(action.source_ids, 2):
            out.append({"type": kind, "namespace": cluster.namespace, "a": a, "b": b,
                        "plan_id": pf.plan_id, "action": key, "run_id": run_id,
                        "decided_at": when, "source": "review"})
    return out


def write_labels(path: Path, rows: list[dict[str, Any]]) -> None:
    """Append ``rows`` to the JSONL labels file ``path``."""
    if not rows:
        return
    try:
        with path.open("a", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise UserError(f"cannot write review labels to {path}: {exc.strerror}") from None
