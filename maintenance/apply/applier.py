"""Applying a plan to a store, and undoing a run: the ONE place that changes memories.

:func:`apply_plan` checks the plan's invariants, then writes one transaction per namespace:

- **optimistic concurrency**: a cluster whose memories changed since planning (version, status)
  or vanished, or whose merge would create an id that already exists, is *skipped* (reported,
  nothing of it applied); a conflict discovered while writing rolls the namespace back and
  retries it without that cluster;
- **nothing is hard-deleted**: merged, superseded and evicted memories keep their rows, with
  ``status``, ``replaced_by`` and ``valid_until``;
- **provenance**: every action that changes something writes one :class:`Event` (run id,
  action, memory ids, ``before``/``after`` snapshots, reason, agent) in the same transaction.
  ``memory_ids`` also lists the memory a supersede points to, with ``None`` as both its
  snapshots (it is referenced, not changed), so a memory's history finds what it replaced.

A dry run follows exactly the same path (reads, checks, the memories and events it would
write) and stops before opening a transaction.

:func:`undo_run` restores, for every memory a run changed, its exact state before the run
(content, status, pointers and version, via ``StoreTransaction.restore``). Memories the run
*created* (merges) cannot be deleted: they become ``archived``. It refuses, naming them, when
any of those memories changed after the run. Undo is itself recorded: one ``undo`` event per
memory, under the run id ``undo-<RUN_ID>``; undoing that run id re-applies the original (a
*redo*: the run's record is ``succeeded`` again and ``undo RUN_ID`` undoes the redo, recorded as
``undo-undo-undo-<RUN_ID>``). An undo's changes and the run record's new status are written
in one transaction.

Fault injection (tests only): ``MEMMAINT_FAULT_AT=NAME`` or ``NAME:N`` ends the process with
``os._exit(99)`` the first (or N-th) time :func:`fault_point` ``(NAME)`` is reached; the names
are in :data:`FAULT_POINTS`. ``MEMMAINT_APPLY_WRITE_DELAY`` sleeps before every write.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memmaint.maintenance.core.errors import (
    DuplicateIdError,
    UnknownIdError,
    UserError,
    VersionConflict,
)
from memmaint.maintenance.core.records import Memory, Status, utcnow
from memmaint.maintenance.core.urls import redact_url
from memmaint.maintenance.plan.model import (
    Archive,
    ClusterPlan,
    Evict,
    Keep,
    Merge,
    Plan,
    Resolve,
    Supersede,
    check_plan,
)
from memmaint.maintenance.store.base import Event, MemoryStore, RunRecord, StoreTransaction

log = logging.getLogger(__name__)

UNDO_PREFIX = "undo-"
#: Test hook: seconds to sleep before every write (fault-injection tests kill the process
#: mid-apply). Never set in production.
_DELAY_ENV = "MEMMAINT_APPLY_WRITE_DELAY"
#: Test hook: ``NAME`` or ``NAME:N`` ends the process at the (N-th) :func:`fault_point` NAME.
FAULT_ENV = "MEMMAINT_FAULT_AT"
#: The named write boundaries: before each insert, update, event or undo write of apply and
#: undo, after a namespace's writes, and (in ``job.run`` and undo) before and after the commit
#: of the changes with their run record.
FAULT_POINTS = ("insert", "update", "event", "namespace", "undo-write", "undo-record",
                "undo-commit", "run-begin", "run-record", "run-commit")
_fault_hits: Counter[str] = Counter()


class UndoRefused(UserError):
    """Undo would overwrite changes made after the run; ``memory_ids`` names them."""

    def __init__(self, run_id: str, problems: Sequence[str]):
        self.run_id = run_id
        self.problems = list(problems)
        shown = "; ".join(self.problems[:10])
        more = f" (and {len(self.problems) - 10} more)" if len(self.problems) > 10 else ""
        super().__init__(f"cannot undo run {run_id}: changed since: {shown}{more}")


@dataclass(frozen=True)
class SkippedCluster:
    """A cluster whose actions were not applied, and why."""

    key: str
    namespace: str
    reason: str
    memory_ids: tuple[str, ...]


@dataclass(frozen=True)
class ApplyResult:
    """What :func:`apply_plan` did (or, for a dry run, would do).

    ``counts`` maps ``merged``/``created``/``superseded``/``evicted``/``archived``/``kept``/
    ``skipped`` to numbers of memories; ``events`` are the events written (or that would be
    written).
    """

    run_id: str
    plan_id: str
    dry_run: bool
    namespaces: tuple[str, ...]
    applied_clusters: tuple[str, ...]
    skipped: tuple[SkippedCluster, ...]
    counts: Mapping[str, int]
    events: tuple[Event, ...] = ()
    retries: int = 0

    @property
    def changed(self) -> int:
        return sum(self.counts.get(k, 0) for k in ("merged", "superseded", "evicted",
                                                   "archived"))

    def summary(self) -> dict[str, Any]:
        """A JSON-ready summary (for reports)."""
        return {
            "run_id": self.run_id, "plan_id": self.plan_id, "dry_run": self.dry_run,
            "namespaces": list(self.namespaces), "counts": dict(self.counts),
            "applied_clusters": len(self.applied_clusters),
            "skipped": [dataclasses.asdict(s) for s in self.skipped],
            "events": len(self.events), "retries": self.retries,
        }


@dataclass(frozen=True)
class UndoResult:
    """What :func:`undo_run` restored (``archived``: memories the run had created)."""

    run_id: str
    undo_run_id: str
    restored: tuple[str, ...]
    archived: tuple[str, ...]
    namespaces: tuple[str, ...]
    events: tuple[Event, ...] = field(default=())


# -- apply -------------------------------------------------------------------------------

@dataclass
class _Write:
    """One action's writes: inserts, updates (memory, expected version) and its event."""

    action: str
    agent: str
    reason: str
    inserts: list[Memory] = field(default_factory=list)
    updates: list[tuple[Memory, Memory]] = field(default_factory=list)  # (current, new)
    references: list[str] = field(default_factory=list)


def fault_point(name: str) -> None:
    """Test hook: end the process here when ``MEMMAINT_FAULT_AT`` names this point."""
    want = os.environ.get(FAULT_ENV)
    if not want:
        return
    point, _, nth = want.partition(":")
    if point == name:
        _fault_hits[name] += 1
        if _fault_hits[name] == int(nth or 1):
            os._exit(99)


def _pause(point: str) -> None:
    fault_point(point)
    delay = os.environ.get(_DELAY_ENV)
    if delay:
        time.sleep(float(delay))


def apply_plan(plan: Plan, store: MemoryStore, run_id: str, dry_run: bool = False) -> ApplyResult:
    """Apply ``plan`` to ``store`` under ``run_id`` (see the module docstring).

    Raises:
        PlanError: the plan breaks an invariant (nothing is written).
        UserError: ``run_id`` already has events in the store.
    """
    check_plan(plan)
    if not run_id:
        raise UserError("apply needs a run id")
    if store.events(run_id=run_id):
        raise UserError(f"run id {run_id!r} already has events in {redact_url(store.url)}; "
                        "use a new one")
    applied: list[str] = []
    skipped: list[SkippedCluster] = []
    events: list[Event] = []
    counts: Counter[str] = Counter()
    retries = 0
    by_ns: dict[str, list[Any]] = {}
    for c in plan.clusters:  # grouped once (a scan per namespace is quadratic in them)
        by_ns.setdefault(c.namespace, []).append(c)
    for ns in plan.namespaces():
        clusters = by_ns.get(ns, [])
        skip: dict[str, str] = {}
        while True:
            current = _read_current(store, ns, clusters, skip)
            live = [c for c in clusters if c.key not in skip]
            writes = {c.key: _cluster_writes(c, current) for c in live}
            if dry_run:
                ns_events = [_event(run_id, ns, w, _simulate(w)) for c in live
                             for w in writes[c.key]]
                break
            try:
                ns_events = _write_namespace(store, run_id, ns, live, writes)
                break
            except VersionConflict as exc:
                owner = _owner(live, exc.memory_id)
                if owner is None:
                    raise
                skip[owner.key] = (f"{exc.memory_id} changed while applying (version "
                                   f"{exc.actual}, planned {exc.expected})")
            except (DuplicateIdError, UnknownIdError) as exc:
                # Another writer got in between the read and the write: read again.
                if retries >= len(clusters):
                    raise
                log.warning("namespace %s changed during apply (%s); retrying", ns, exc)
            retries += 1
        for c in clusters:
            if c.key in skip:
                skipped.append(SkippedCluster(c.key, ns, skip[c.key], c.memory_ids))
                counts["skipped"] += len(c.memory_ids)
                log.warning("skipped cluster %s: %s", c.key, skip[c.key])
            else:
                applied.append(c.key)
                _count(c, counts)
        events.extend(ns_events)
    result = ApplyResult(run_id, plan.plan_id, dry_run, tuple(plan.namespaces()), tuple(applied),
                         tuple(skipped), dict(counts), tuple(events), retries)
    log.info("%s run %s: %s", "dry-run" if dry_run else "applied", run_id, dict(counts))
    return result


def _count(cluster: ClusterPlan, counts: Counter[str]) -> None:
    for action in cluster.actions:
        if isinstance(action, Merge):
            counts["merged"] += len(action.source_ids)
            counts["created"] += 1
        elif isinstance(action, (Supersede, Resolve)):
            counts["superseded"] += len(action.subjects)
        elif isinstance(action, Evict):
            counts["evicted"] += 1
        elif isinstance(action, Archive):
            counts["archived"] += 1
        elif isinstance(action, Keep):
            counts["kept"] += 1


def _owner(clusters: Sequence[ClusterPlan], memory_id: str) -> ClusterPlan | None:
    for c in clusters:
        if memory_id in c.memory_ids or memory_id in {m.id for m in c.created}:
            return c
    return None


def _read_current(store: MemoryStore, ns: str, clusters: Sequence[ClusterPlan],
                  skip: dict[str, str]) -> dict[str, Memory]:
    """The stored memories of the clusters not yet skipped; skips the stale clusters."""
    ids = [m for c in clusters if c.key not in skip for m in c.memory_ids]
    try:
        found = {m.id: m for m in store.get_memories(ns, ids)}
    except UnknownIdError:
        present = store.existing_ids(ns, ids)
        found = {m.id: m for m in store.get_memories(ns, [i for i in ids if i in present])}
    created = [m.id for c in clusters if c.key not in skip for m in c.created]
    taken = store.existing_ids(ns, created) if created else set()
    for c in clusters:
        if c.key in skip:
            continue
        problems = []
        for mid in c.memory_ids:
            mem = found.get(mid)
            if mem is None:
                problems.append(f"{mid} no longer exists")
            elif mem.version != c.versions[mid]:
                problems.append(f"{mid} is at version {mem.version}, planned at "
                                f"{c.versions[mid]}")
            elif not mem.is_active:
                problems.append(f"{mid} is {mem.status.value}")
        problems += [f"merge target id {m.id} already exists" for m in c.created
                     if m.id in taken]
        if problems:
            skip[c.key] = "changed since planning: " + "; ".join(problems)
    return found


def _cluster_writes(cluster: ClusterPlan, current: Mapping[str, Memory]) -> list[_Write]:
    """The writes of one cluster, merges first (their new memories are pointer targets)."""
    out: list[_Write] = []
    order = sorted(cluster.actions, key=lambda a: 0 if isinstance(a, Merge) else 1)
    for action in order:
        if isinstance(action, Keep):
            continue
        w = _Write(action.type, action.agent, action.reason)
        if isinstance(action, Merge):
            new = dataclasses.replace(action.new_memory, version=1, status=Status.ACTIVE)
            w.inserts.append(new)
            for sid in action.source_ids:
                cur = current[sid]
                w.updates.append((cur, dataclasses.replace(
                    cur, status=Status.MERGED, replaced_by=new.id)))
        elif isinstance(action, Supersede):
            cur = current[action.old_id]
            w.updates.append((cur, dataclasses.replace(
                cur, status=Status.SUPERSEDED, replaced_by=action.new_id,
                valid_until=action.valid_until)))
            w.references.append(action.new_id)
        elif isinstance(action, Resolve):
            for sid in action.superseded_ids:
                cur = current[sid]
                w.updates.append((cur, dataclasses.replace(
                    cur, status=Status.SUPERSEDED, replaced_by=action.kept_ids[0],
                    valid_until=action.valid_until)))
            w.references.extend(action.kept_ids)
        elif isinstance(action, Evict):
            cur = current[action.memory_id]
            w.updates.append((cur, dataclasses.replace(cur, status=Status.EVICTED)))
        elif isinstance(action, Archive):
            cur = current[action.memory_id]
            w.updates.append((cur, dataclasses.replace(cur, status=Status.ARCHIVED)))
        out.append(w)
    return out


def _simulate(w: _Write) -> list[Memory]:
    now = utcnow()
    return [dataclasses.replace(new, version=cur.version + 1, updated_at=now)
            for cur, new in w.updates]


def _event(run_id: str, ns: str, w: _Write, stored: Sequence[Memory]) -> Event:
    ids = [m.id for m in w.inserts] + [cur.id for cur, _ in w.updates] + w.references
    before: list[Mapping[str, Any] | None] = [None] * len(w.inserts)
    before += [cur.to_dict() for cur, _ in w.updates]
    after: list[Mapping[str, Any] | None] = [m.to_dict() for m in w.inserts]
    after += [m.to_dict() for m in stored]
    before += [None] * len(w.references)
    after += [None] * len(w.references)
    return Event(run_id=run_id, action=w.action, namespace=ns, memory_ids=tuple(ids),
                 before=tuple(before), after=tuple(after), reason=w.reason, agent=w.agent)


def _write_namespace(store: MemoryStore, run_id: str, ns: str,
                     clusters: Sequence[ClusterPlan],
                     writes: Mapping[str, list[_Write]]) -> list[Event]:
    events: list[Event] = []
    with store.transaction() as tx:
        for c in clusters:
            for w in writes[c.key]:
                stored = _execute(tx, w)
                event = _event(run_id, ns, w, stored)
                _pause("event")
                tx.append_event(event)
                events.append(event)
        fault_point("namespace")
    return events


def _execute(tx: StoreTransaction, w: _Write) -> list[Memory]:
    for mem in w.inserts:
        _pause("insert")
        tx.insert(mem)
    stored = []
    for cur, new in w.updates:
        _pause("update")
        stored.append(tx.update(new, cur.version))
    return stored


# -- undo --------------------------------------------------------------------------------

def undo_run(store: MemoryStore, run_id: str) -> UndoResult:
    """Restore every memory ``run_id`` changed to its state before the run.

    ``run_id`` may be an undo (``undo-<RUN_ID>``): undoing it re-applies RUN_ID. Undoing a
    run that was undone and then re-applied undoes the re-application. The restored
    memories, their ``undo`` events and the new status of the base run's record are
    written in one transaction.

    Raises:
        UnknownIdError: the run wrote no events.
        UserError: the run was already undone.
        UndoRefused: some of its memories changed after the run (all are named).
    """
    events = store.events(run_id=run_id)
    if not events:
        raise UnknownIdError(f"run {run_id!r} changed nothing in {redact_url(store.url)}: "
                             "nothing to undo")
    target, depth = _latest_level(store, run_id, events)
    if depth % 2:
        raise UserError(f"run {run_id} was already undone (see run {target}; "
                        f"`memmaint undo {target}` re-applies it)")
    if target != run_id:
        events = store.events(run_id=target)
    undo_id = UNDO_PREFIX + target
    done = {e.namespace for e in store.events(run_id=undo_id)}
    first: dict[tuple[str, str], Mapping[str, Any] | None] = {}
    last: dict[tuple[str, str], Mapping[str, Any] | None] = {}
    for ev in events:
        if ev.namespace in done:
            continue
        for mid, before, after in zip(ev.memory_ids, ev.before, ev.after):
            if before is None and after is None:
                continue  # a referenced memory, not changed by this event
            key = (ev.namespace, mid)
            first.setdefault(key, before)
            last[key] = after
    if not first:
        raise UserError(f"run {run_id} was already undone (see run {undo_id})")
    namespaces = sorted({ns for ns, _ in first})
    current: dict[tuple[str, str], Memory] = {}
    problems: list[str] = []
    for ns in namespaces:
        ids = [mid for n, mid in first if n == ns]
        present = store.existing_ids(ns, ids)
        problems += [f"{mid} no longer exists" for mid in ids if mid not in present]
        for mem in store.get_memories(ns, [i for i in ids if i in present]):
            current[(ns, mem.id)] = mem
            problems += _changed(mem, last[(ns, mem.id)])
    if problems:
        raise UndoRefused(run_id, problems)
    restored: list[str] = []
    archived: list[str] = []
    written: list[Event] = []
    with store.transaction():  # the changes and the run record commit together
        for ns in namespaces:
            with store.transaction() as tx:
                for (n, mid), snapshot in first.items():
                    if n != ns:
                        continue
                    cur = current[(ns, mid)]
                    _pause("undo-write")
                    if snapshot is None:
                        restored_to = tx.update(dataclasses.replace(
                            cur, status=Status.ARCHIVED, replaced_by=None), cur.version)
                        archived.append(mid)
                        reason = f"undo of run {target}: archived the memory the run created"
                    else:
                        restored_to = Memory.from_dict(snapshot)
                        tx.restore(restored_to, cur.version)
                        restored.append(mid)
                        reason = f"undo of run {target}: restored the state before the run"
                    event = Event(run_id=undo_id, action="undo", namespace=ns,
                                  memory_ids=(mid,), before=(cur.to_dict(),),
                                  after=(restored_to.to_dict(),), reason=reason, agent="undo")
                    tx.append_event(event)
                    written.append(event)
        _mark_base_run(store, undo_id)
        fault_point("undo-record")
    fault_point("undo-commit")
    log.info("undid run %s: %d restored, %d archived", target, len(restored), len(archived))
    return UndoResult(target, undo_id, tuple(restored), tuple(archived), tuple(namespaces),
                      tuple(written))


def _latest_level(store: MemoryStore, run_id: str,
                  events: Sequence[Event]) -> tuple[str, int]:
    """The newest undo level of ``run_id`` that is fully written, and how many levels above
    ``run_id`` it is: ``run_id`` itself (0) when it is not undone (or only partly, by an
    interrupted older undo), ``undo-<run_id>`` (1) when it is undone, ``undo-undo-<run_id>``
    (2) when that undo was undone in turn (the run is applied again), and so on."""
    level, depth = run_id, 0
    level_ns = {e.namespace for e in events}
    while True:
        above = store.events(run_id=UNDO_PREFIX + level)
        above_ns = {e.namespace for e in above}
        if not above or above_ns < level_ns:
            return level, depth
        level, depth, level_ns = UNDO_PREFIX + level, depth + 1, above_ns


def base_run_id(run_id: str) -> tuple[str, int]:
    """``undo-undo-X`` -> (``X``, 2): the run an undo chain starts from and its depth."""
    depth = 0
    while run_id.startswith(UNDO_PREFIX):
        run_id, depth = run_id[len(UNDO_PREFIX):], depth + 1
    return run_id, depth


def _changed(mem: Memory, after: Mapping[str, Any] | None) -> list[str]:
    if after is None:  # pragma: no cover - apply never writes a None after for a change
        return []
    want = Memory.from_dict(after)
    diffs = [name for name in ("version", "status", "text", "replaced_by", "importance",
                               "kind", "metadata", "valid_until")
             if _norm(getattr(mem, name)) != _norm(getattr(want, name))]
    if not diffs:
        return []
    what = ", ".join(diffs)
    return [f"{mem.id} ({what} differ: now version {mem.version}, the run left version "
            + f"{want.version})"]


def _norm(value: Any) -> Any:
    if isinstance(value, Mapping):
        import json

        return json.dumps(value, sort_keys=True, default=str)
    if isinstance(value, Status):
        return value.value
    return value


def _mark_base_run(store: MemoryStore, undo_id: str) -> None:
    """Set the status of the run ``undo_id`` undoes or re-applies: ``undone`` after an odd
    number of undo levels, its status before the first undo (``succeeded``) after an even
    number."""
    base, depth = base_run_id(undo_id)
    try:
        run = store.get_run(base)
    except UnknownIdError:
        return
    report = dict(run.report)
    now = utcnow().isoformat()
    if depth % 2:
        report.setdefault("status_before_undo", run.status)
        report["undone_by"], report["undone_at"] = undo_id, now
        status = "undone"
    else:
        status = str(report.get("status_before_undo") or "succeeded")
        report.pop("undone_by", None)
        report.pop("undone_at", None)
        report["redone_by"], report["redone_at"] = undo_id, now
    store.save_run(RunRecord(run.run_id, run.started_at, run.finished_at, status,
                             run.namespaces, report))
