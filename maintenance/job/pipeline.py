"""The pipeline, declared once: :data:`PIPELINE`, the job's stages in order.

Every path that maintains a pool runs these stages through :func:`run_stages`, never in an
order of its own:

- the job (:func:`~memmaint.maintenance.job.run.run_job`) runs the whole sequence, on any
  executor (the executor decides where the work of a stage runs, never which stages run);
  the evaluation suites run the job itself on a temporary store;
- ``compare_configs`` runs embed through cap and route, once per configuration;
- the shadow stage runs reduce and cluster through cap and route for the shadow
  configuration;
- the tuner (``optimize.objective.Evaluator.labels``) runs reduce and cluster, its pools
  given embedded (with caches that change speed, not labels).

A dry run runs a writing stage's ``preview`` in its place (recorded as ``"apply
(preview)"``): the apply stage previews the plan and the report stage writes no record.
Changing :data:`PIPELINE` is the only way to change the order: :func:`run_stages` reads it
when it runs.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memmaint.maintenance.core.records import Status, format_time, utcnow
from memmaint.maintenance.job import steps
from memmaint.maintenance.job.changes import current_seq, marks
from memmaint.maintenance.job.stages import plan_id_for
from memmaint.maintenance.job.state import RunState
from memmaint.maintenance.report.model import RunReport

log = logging.getLogger(__name__)

__all__ = ["PIPELINE", "Stage", "pipeline_table", "run_stages", "stage_names"]


@dataclass(frozen=True)
class Stage:
    """One declared stage: its name, the function that runs it over a
    :class:`~memmaint.maintenance.job.state.RunState`, what it does (one line, for
    docs/architecture.md) and the report's timing entries its time goes to. A stage that
    ``writes`` runs ``preview`` instead on a dry run (nothing, when ``None``)."""

    name: str
    run: Callable[[RunState], None]
    about: str
    timed_as: tuple[str, ...] = ()
    writes: bool = False
    preview: Callable[[RunState], None] | None = None


# -- the job's own stages: the shadow, apply and report ---------------------------------------

def shadow(state: RunState) -> None:
    """With a shadow configuration: its reduce and cluster through cap and route over the
    same embeddings, planned with the primary's agents; recorded, never applied."""
    cfg, report = state.shadow, state.report
    if cfg is None:
        return
    assert report is not None
    if cfg.embedding != state.config.embedding:
        log.warning("run %s: the shadow config's [embedding] differs; the shadow uses the "
                    "primary's embeddings", report.run_id)
    sub = RunState(cfg, stages=state.stages, store=state.store, agents_config=state.config,
                   name="shadow", prefix="shadow ", now=state.now, progress=state.progress,
                   executor=state.executor, dry_run=True, planner=state.planner,
                   whole=state.whole,
                   plan_id=plan_id_for(state.seen, state.chosen, cfg.hash(), "shadow"))
    run_stages(sub, start="reduce and cluster", through="cap and route")
    report.shadow = sub.outcome
    assert sub.outcome is not None
    log.info("run %s: shadow %d clusters, %d noise; would: %s", report.run_id,
             sub.outcome.n_clusters, sub.outcome.noise,
             steps.fmt_actions(sub.outcome.actions_by_type))


def apply(state: RunState) -> None:
    """Apply the primary plan in one store transaction (which the report stage's record
    joins; the runner commits it when the pass ends)."""
    from memmaint.maintenance.apply.applier import apply_plan, fault_point

    store, report, primary = state.store, state.report, state.outcome
    assert report is not None and primary is not None and state.whole is not None
    n_act = primary.memories_affected
    steps.tick(state.progress, "apply", 0, n_act)
    state.exits.enter_context(store.transaction())  # the changes and the record commit together
    fault_point("run-begin")
    state.own_start = current_seq(store, lock=True)  # numbers taken from here on are ours
    with state.stages("apply") as st:
        state.result = apply_plan(state.plan, store, report.run_id)
        st.count = primary.memories_affected
    report.changes = marks(state.chosen, state.seen, state.own_start, current_seq(store))
    if state.inc is not None:  # written once the run has committed
        labels, reduced = state.inc.final
        state.states.extend(state.inc.next_states(
            state.whole, labels, reduced, state.plan, state.result.applied_clusters,
            report.run_id, state.when))
    steps.tick(state.progress, "apply", n_act, n_act)
    primary.applied = True
    primary.pool_after = sum(store.count_memories(ns, statuses=[Status.ACTIVE])
                             for ns in state.chosen)


def preview_apply(state: RunState) -> None:
    """The dry run's apply: what the plan would do, nothing written."""
    from memmaint.maintenance.apply.applier import apply_plan

    report, primary = state.report, state.outcome
    assert report is not None and primary is not None
    n_act = primary.memories_affected
    steps.tick(state.progress, "apply", 0, n_act)
    with state.stages("apply") as st:
        state.result = apply_plan(state.plan, state.store, report.run_id, dry_run=True)
        st.count = primary.memories_affected
    steps.tick(state.progress, "apply", n_act, n_act)
    report.changes = marks(state.chosen, state.seen, None, None)  # what a plan here saw


def _finish(state: RunState, status: str) -> RunReport:
    report, primary = state.report, state.outcome
    assert report is not None and primary is not None
    report.apply.update(_apply_summary(state.result))
    report.primary = primary
    report.pool_after = primary.pool_after
    report.status = status
    report.stages = state.stages.as_list()
    return report


def record(state: RunState) -> None:
    """Finish the report and store it inside the apply stage's transaction."""
    from memmaint.maintenance.apply.applier import fault_point

    report = _finish(state, "succeeded")
    report.finished_at = format_time(utcnow())
    steps.save_report(state.store, report)
    fault_point("run-record")


def preview_record(state: RunState) -> None:
    """The dry run's report: finished, not stored."""
    _finish(state, "dry-run")


def _apply_summary(result: object) -> dict[str, object]:
    """The JSON-ready summary of an ``ApplyResult`` (skipped clusters capped at 200)."""
    summary = dict(result.summary())  # type: ignore[attr-defined]
    skipped = summary.get("skipped") or []
    if len(skipped) > 200:
        summary["skipped"] = skipped[:200]
        summary["skipped_truncated"] = len(skipped)
    return summary


#: The job's stages, in order. Edit here, and only here, to change what runs when.
PIPELINE: tuple[Stage, ...] = (
    Stage("load", steps.load,
          "the selected namespaces' active memories; those without enough new ones (or "
          "idle, in an incremental run) skipped", ("load", "place")),
    Stage("embed", steps.embed,
          "vectors through the content-hash cache (batches on the executor's workers)",
          ("embed",)),
    Stage("place", steps.place,
          "incremental runs only: what changed placed against the last run's clusters",
          ("place",)),
    Stage("reduce and cluster", steps.reduce_and_cluster,
          "per namespace, `clustering.stage.cluster_pool` through "
          "`job.executors.cluster_namespaces` (sharded when `[sharding]` says so), with "
          "the merge history", ("reduce", "cluster")),
    Stage("regroup", steps.regroup,
          "noise regrouped, outcome siblings and updates joined, clusters larger than the "
          "backend reads split along the merge history", ("cluster",)),
    Stage("plan", steps.plan,
          "the agents of `agents.dispatch` (the one backend switch) through "
          "`job.executors.plan_on`", ("plan",)),
    Stage("cap and route", steps.cap_and_route,
          "`agents.cap.cap_and_route` over the whole pool; the configuration's outcome, "
          "with `joined` from the merge history (step and distance of the merge that "
          "joined each decided memory), carried to the plan as `plan.report[\"joined\"]`",
          ("plan",)),
    Stage("shadow", shadow,
          "a shadow configuration: reduce and cluster through cap and route again, "
          "recorded, never applied", ("shadow reduce", "shadow cluster", "shadow plan")),
    Stage("apply", apply, "`apply.applier.apply_plan` in one transaction", ("apply",),
          writes=True, preview=preview_apply),
    Stage("report", record, "the `RunReport`, stored in the apply's transaction",
          writes=True, preview=preview_record),
)


def pipeline_table() -> str:
    """:data:`PIPELINE` as the markdown table docs/architecture.md shows (a test keeps them
    equal)."""
    rows = ["| # | stage | what it does | timed as | on a dry run |", "|---|---|---|---|---|"]
    for i, s in enumerate(PIPELINE, 1):
        timed = ", ".join(f"`{t}`" for t in s.timed_as) or "-"
        dry = ("runs" if not s.writes else "nothing" if s.preview is None
               else f"`{s.preview.__name__}`")
        rows.append(f"| {i} | {s.name} (`{s.run.__module__.rsplit('.', 2)[-2]}."
                    f"{s.run.__module__.rsplit('.', 1)[-1]}.{s.run.__name__}`) | {s.about} | "
                    f"{timed} | {dry} |")
    return "\n".join(rows) + "\n"


def stage_names(start: str | None = None, through: str | None = None) -> list[str]:
    """The declared stage names from ``start`` through ``through`` (default: all)."""
    return [s.name for s in _between(PIPELINE, start, through)]


def _between(pipeline: Sequence[Stage], start: str | None,
             through: str | None) -> Sequence[Stage]:
    names = [s.name for s in pipeline]
    for name in (start, through):
        if name is not None and name not in names:
            raise ValueError(f"no stage {name!r} in the pipeline ({', '.join(names)})")
    lo = 0 if start is None else names.index(start)
    hi = len(names) if through is None else names.index(through) + 1
    return pipeline[lo:hi]


def run_stages(state: RunState, *, start: str | None = None,
               through: str | None = None) -> RunState:
    """Run the declared stages from ``start`` through ``through`` (default: all) over
    ``state``, in :data:`PIPELINE`'s order, each name recorded in ``state.ran``. A stage
    that sets ``state.stop`` ends the pass; on a dry run a writing stage's preview runs in
    its place. What the stages opened (``state.exits``: the apply's transaction) is closed
    when the pass ends: committed, or rolled back when a stage raised."""
    with state.exits:
        for stage in _between(PIPELINE, start, through):
            fn, label = stage.run, stage.name
            if state.dry_run and stage.writes:
                if stage.preview is None:
                    continue
                fn, label = stage.preview, f"{stage.name} (preview)"
            log.debug("%s%s: stage %s", state.prefix, state.name, label)
            state.ran.append(label)
            fn(state)
            if state.stop:
                break
    return state
