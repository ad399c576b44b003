"""The nightly job: the declared stages (:data:`~memmaint.maintenance.job.pipeline.PIPELINE`:
load -> embed -> place -> reduce and cluster -> regroup -> plan -> cap and route -> shadow ->
apply -> report) under the store's lock, with its failure handling.

:func:`run_job` is pure orchestration over the store protocol: it runs the declared stages
(:mod:`memmaint.maintenance.job.steps`) in the order :mod:`~memmaint.maintenance.job.pipeline`
declares; it never prompts and never prints (it logs). A run:

1. takes the store's ``run`` lock (:class:`~memmaint.maintenance.core.errors.LockHeldError` if
   another run holds it);
2. picks the namespaces with enough new memories: a namespace is skipped when fewer than
   ``job.min_new_memories`` active memories were added to or changed in the store since the
   last successful run that covered it, whatever their own dates (the store's change
   sequence: :mod:`memmaint.maintenance.job.changes`; ``force`` overrides); with none left
   the run is skipped;
3. loads the active memories, embeds what the cache lacks, then per namespace reduces and
   clusters (clusters never cross namespaces), plans with the configured agents and applies
   the plan (unless ``dry_run``);
4. optionally runs a *shadow* configuration's reduction and clustering over the same
   embeddings, plans it with the primary's agents and records the plan without applying it;
5. stores its :class:`~memmaint.maintenance.report.model.RunReport` with ``store.save_run``;
   an applied run's record is written inside the same store transaction as its changes
   (every namespace's writes join it as savepoints), so a process killed at any moment
   leaves either no change and no record, or every change and its ``succeeded`` record.

A failure is recorded as a ``failed`` run (nothing of its plan applied), except a
``UserError`` raised before the run's first write (the embedding cache): then nothing at all
is written and the error is re-raised as it is. A ``UserError`` raised after a write gets
``recorded_run`` (the failed run's id) set on it, so the CLI can tell the two apart.

A dry run follows the same path, calls ``apply_plan(..., dry_run=True)`` and writes nothing
to the store: not the report, not even newly computed embeddings (they are kept in memory).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from memmaint.maintenance.core.config import Config
from memmaint.maintenance.core.errors import UserError
from memmaint.maintenance.core.records import Memory, format_time, utcnow
from memmaint.maintenance.job.outcome import Pool
from memmaint.maintenance.job.pipeline import run_stages
from memmaint.maintenance.job.stages import new_run_id, package_versions
from memmaint.maintenance.job.state import ProgressFn, RunState
from memmaint.maintenance.job.steps import load_memories as _load
from memmaint.maintenance.job.steps import plan_with_backend as _plan
from memmaint.maintenance.job.steps import save_report as _save
from memmaint.maintenance.report.model import Comparison, RunReport, compare_outcomes
from memmaint.maintenance.store.base import MemoryStore

log = logging.getLogger(__name__)

__all__ = ["ProgressFn", "compare_configs", "run_job", "shadow_comparison"]


def _select_namespaces(store: MemoryStore, namespaces: Sequence[str] | None) -> list[str]:
    known = store.namespaces()
    if namespaces is None:
        return known
    missing = [ns for ns in namespaces if ns not in known]
    if missing:
        hint = ", ".join(known[:10]) or "none"
        raise UserError(f"no memories in namespace(s) {', '.join(map(repr, missing))} "
                        f"(namespaces in this store: {hint})")
    return list(dict.fromkeys(namespaces))


# -- the job -------------------------------------------------------------------------------

def run_job(
    store: MemoryStore,
    config: Config,
    *,
    namespaces: Sequence[str] | None = None,
    dry_run: bool = False,
    force: bool = False,
    shadow: Config | None = None,
    now: datetime | None = None,
    progress: ProgressFn | None = None,
    executor: Any = None,
    plan_sink: Callable[[Any], None] | None = None,
    full: bool = False,
) -> RunReport:
    """Run the nightly maintenance job once and return (and, unless dry, store) its report.

    Args:
        store: any :class:`MemoryStore`.
        config: the primary configuration (the one that is applied).
        namespaces: namespaces to maintain (default: every namespace in the store).
        dry_run: plan everything, apply nothing, write nothing.
        force: run namespaces even with fewer than ``job.min_new_memories`` new memories.
        shadow: a second configuration whose reduction and clustering run over the same
            embeddings and whose plan (made by the primary's agents) is recorded, never
            applied.
        now: the time agents judge freshness against (default: the current time).
        progress: ``progress(stage, done, total)`` callback.
        executor: where embedding batches, per-namespace clustering and per-cluster planning
            run (:mod:`memmaint.maintenance.job.executors`; default: here, one after another).
            The results do not depend on it.
        plan_sink: called with the primary :class:`~memmaint.maintenance.plan.model.Plan`
            before it is applied (``memmaint plan`` writes it to a plan file).
        full: with ``job.incremental`` on, ignore the kept state and reduce, cluster and
            plan every namespace in full, exactly as with it off
            (:mod:`~memmaint.maintenance.job.incremental`).

    Returns the report; ``report.status`` is ``succeeded``, ``dry-run`` or ``skipped``.
    Raises ``LockHeldError`` when another run holds the store's lock and ``UserError`` for
    unknown namespaces. Any other failure is recorded as a ``failed`` run and re-raised.
    """
    started = utcnow()
    report = RunReport(
        run_id=new_run_id(started), started_at=format_time(started) or "", dry_run=dry_run,
        forced=force, config_hash=config.hash(), config=config.to_dict(),
        shadow_config_hash=None if shadow is None else shadow.hash(),
        shadow_config=None if shadow is None else shadow.to_dict(),
        versions=package_versions(), seed=config.job.seed,
        min_new_memories=config.job.min_new_memories,
    )
    with store.lock("run"):
        log.info("run %s: started%s", report.run_id, " (dry run)" if dry_run else "")
        selected = _select_namespaces(store, namespaces)
        writing: list[bool] = []  # non-empty once the run may have written to the store
        states: list[Any] = []  # incremental: the states the next run starts from
        try:
            _run(store, config, report, selected=selected, dry_run=dry_run, force=force,
                 shadow=shadow, now=now, progress=progress, executor=executor,
                 writing=writing, plan_sink=plan_sink, full=full, states=states)
        except BaseException as exc:
            report.status = "failed"
            report.error = f"{type(exc).__name__}: {exc}"
            report.finished_at = format_time(utcnow())
            if isinstance(exc, UserError) and not writing:
                log.error("run %s: %s (nothing written)", report.run_id, exc)
                raise
            if not dry_run:
                try:
                    _save(store, report)
                except Exception as save_exc:  # noqa: BLE001 - never hide the run's own error
                    log.error("run %s: could not record the failure either: %s",
                              report.run_id, save_exc)
                else:
                    if isinstance(exc, UserError):
                        exc.recorded_run = report.run_id  # type: ignore[attr-defined]
            log.error("run %s: failed: %s", report.run_id, report.error)
            raise
        if report.finished_at is None:
            report.finished_at = format_time(utcnow())
        if not dry_run and report.status != "succeeded":  # skipped (succeeded is saved)
            _save(store, report)
        if report.status == "succeeded":
            _prune_routing(store)
            if states:  # after the commit: a crash before leaves states the next run rejects
                from memmaint.maintenance.job.incremental import save_states

                save_states(store, states)
    log.info("run %s: %s in %.1f s", report.run_id, report.status, report.seconds)
    return report


def _prune_routing(store: MemoryStore) -> None:
    """Drop routing tables older runs no longer need (housekeeping: the run has succeeded
    and is saved, so a failure here is logged, never raised)."""
    from memmaint.maintenance.retrieve.routing import prune_routing_tables

    try:
        prune_routing_tables(store)
    except Exception as exc:  # noqa: BLE001 - must not turn a finished run into a failure
        log.warning("could not prune old routing tables: %s", exc)


def _run(store: MemoryStore, config: Config, report: RunReport, *,
         selected: Sequence[str], dry_run: bool, force: bool,
         shadow: Config | None, now: datetime | None, progress: ProgressFn | None,
         executor: Any = None, writing: list[bool] | None = None,
         plan_sink: Callable[[Any], None] | None = None, full: bool = False,
         states: list[Any] | None = None) -> RunState:
    """The declared stages, all of them, over one run's state (``_load`` and ``_plan`` are
    looked up here, when the run starts)."""
    state = RunState(config, store=store, report=report, now=now, progress=progress,
                     executor=executor, dry_run=dry_run, force=force, full=full,
                     shadow=shadow, selected=list(selected), plan_sink=plan_sink,
                     loader=_load, planner=_plan,
                     writing=[] if writing is None else writing,
                     states=[] if states is None else states)
    run_stages(state)
    if not dry_run and report.status == "succeeded":
        from memmaint.maintenance.apply.applier import fault_point

        fault_point("run-commit")
    return state


def compare_configs(
    store: MemoryStore,
    config_a: Config,
    config_b: Config,
    *,
    namespaces: Sequence[str] | None = None,
    now: datetime | None = None,
    progress: ProgressFn | None = None,
    label_a: str = "A",
    label_b: str = "B",
) -> Comparison:
    """Dry-run two configurations (each with its own agents) over the same pool and compare.

    Writes nothing to the store. Both use ``config_a``'s embeddings when their ``[embedding]``
    sections agree; otherwise each embeds with its own model.
    """
    selected = _select_namespaces(store, namespaces)
    loaded = _load(store, selected)
    memories: list[Memory] = []
    by_ns: dict[str, np.ndarray] = {}
    for ns in selected:
        if loaded[ns]:
            by_ns[ns] = np.arange(len(memories), len(memories) + len(loaded[ns]))
            memories.extend(loaded[ns])
    if not memories:
        raise UserError("no active memories to compare")
    outcomes = []
    pool_a: Pool | None = None
    for name, cfg in ((label_a, config_a), (label_b, config_b)):
        state = RunState(cfg, store=store, name=name, prefix=f"{name} ", now=now,
                         progress=progress, dry_run=True, loader=_load, planner=_plan)
        if pool_a is not None and cfg.embedding == config_a.embedding:
            state.whole, start = pool_a, "reduce and cluster"
        else:
            state.whole, start = Pool(memories, by_ns), "embed"
        pool_a = pool_a or state.whole
        run_stages(state, start=start, through="cap and route")
        outcomes.append(state.outcome)
    assert outcomes[0] is not None and outcomes[1] is not None
    return compare_outcomes(outcomes[0], outcomes[1], label_a=label_a, label_b=label_b)


def shadow_comparison(report: RunReport) -> Comparison | None:
    """Primary against shadow for a report that has both."""
    if report.primary is None or report.shadow is None:
        return None
    return compare_outcomes(report.primary, report.shadow, label_a="primary",
                            label_b="shadow")
