"""Apply a reviewed plan file: exactly the approved actions, one transaction, a run record.

:func:`apply_reviewed` filters the plan to the approved actions
(:func:`~memmaint.maintenance.review.planfile.filter_plan`), applies it with
:func:`~memmaint.maintenance.apply.applier.apply_plan` inside one store transaction together
with its run record (a :class:`~memmaint.maintenance.report.model.RunReport` with status
``succeeded``, so ``memmaint runs`` lists it and ``memmaint undo RUN_ID`` reverses it), and
reports every approved action ``apply_plan`` skipped because its cluster's memories changed
since the plan was made (version, status, or gone): such a cluster is skipped whole, never
half-applied.

Review labels: :func:`write_labels` appends one JSON line per pair of memories a reviewed
merge names: ``must-link`` for an approved merge, ``cannot-link`` for a rejected one::

    {"type": "must-link", "namespace": NS, "a": ID, "b": ID, "plan_id": ID,
     "action": KEY, "run_id": ID, "decided_at": ISO, "source": "review"}
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

from memmaint.maintenance.core.errors import UserError
from memmaint.maintenance.core.records import Status, format_time, parse_time, utcnow
from memmaint.maintenance.plan.model import Merge
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
    """Apply the approved actions of ``pf`` (all of them without ``decisions``)."""
    from memmaint.maintenance.apply.applier import apply_plan
    from memmaint.maintenance.job.stages import new_run_id, package_versions
    from memmaint.maintenance.report.model import RunReport

    decisions = decisions or approve_all(pf.plan)
    if decisions.plan_id != pf.plan_id:
        raise UserError(f"decisions are for plan {decisions.plan_id}, not {pf.plan_id}")
    filtered = filter_plan(pf.plan, decisions)
    started = utcnow()
    run_id = run_id or new_run_id(started)
    namespaces = filtered.plan.namespaces()
    report = RunReport(run_id=run_id, started_at=format_time(started) or "",
                       config_hash=pf.config_hash, versions=package_versions(),
                       namespaces=namespaces)
    with store.lock("run"):
        report.pool_before = _active(store, namespaces)
        with store.transaction():
            result = apply_plan(filtered.plan, store, run_id)
            skipped = {s.key: s.reason for s in result.skipped}
            out = _result(run_id, pf, filtered, skipped, result.counts)
            report.pool_after = _active(store, namespaces)
            report.status = "succeeded"
            report.finished_at = format_time(utcnow())
            report.apply = {**result.summary(), "source": source,
                            "plan_file": {"plan_id": pf.plan_id, "store": pf.store_url,
                                          "created_at": format_time(pf.created_at)},
                            "review": {"applied": out.applied, "stale": out.stale,
                                       "rejected": out.rejected, "undecided": out.undecided,
                                       "dropped": out.dropped}}
            store.save_run(RunRecord(run_id, parse_time(report.started_at),
                                     parse_time(report.finished_at), report.status,
                                     tuple(namespaces), report.to_dict()))
    return out


def _active(store: MemoryStore, namespaces: list[str]) -> int:
    return sum(store.count_memories(ns, statuses=[Status.ACTIVE]) for ns in namespaces)


def _result(run_id: str, pf: PlanFile, filtered: Filtered, skipped: Mapping[str, str],
            counts: Mapping[str, int]) -> ReviewApplyResult:
    out = ReviewApplyResult(run_id, pf.plan_id, rejected=list(filtered.rejected),
                            undecided=list(filtered.undecided), dropped=dict(filtered.dropped),
                            counts=dict(counts))
    cluster_of = {k: c.key for k, c, _a in changing_actions(pf.plan)}
    for key in filtered.approved:
        why = skipped.get(cluster_of[key])
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
