"""The nightly job: load -> embed (incremental) -> reduce -> cluster -> plan -> apply -> report.

:func:`run_job` is pure orchestration over the store protocol and the stage functions of the
other modules; it never prompts and never prints (it logs). A run:

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
from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from memmaint.maintenance.core.config import Config
from memmaint.maintenance.core.errors import UserError
from memmaint.maintenance.core.records import (
    Memory,
    Status,
    format_time,
    parse_time,
    to_utc,
    utcnow,
)
from memmaint.maintenance.job.changes import count_new, count_unread, current_seq, marks
from memmaint.maintenance.job.outcome import Clustered, Pool, build_outcome, weights_of
from memmaint.maintenance.job.stages import (
    DryRunCache,
    Stages,
    new_run_id,
    package_versions,
    plan_id_for,
)
from memmaint.maintenance.report.model import (
    Comparison,
    ConfigOutcome,
    RunReport,
    compare_outcomes,
)
from memmaint.maintenance.store.base import MemoryStore, RunRecord

log = logging.getLogger(__name__)

#: ``progress(stage, done, total)``: called as a stage advances (the CLI draws a bar).
ProgressFn = Callable[[str, int, int], None]

# -- stages --------------------------------------------------------------------------------

def _last_success(store: MemoryStore, namespaces: Collection[str]) -> dict[str, RunRecord]:
    """namespace -> the newest successful (applied) run that covered it.

    Reads the newest runs first and the whole history only when some namespace has no
    successful run among them (stored reports can be large)."""
    out: dict[str, RunRecord] = {}
    for limit in (64, None):
        out.clear()
        runs = store.list_runs(limit=limit)
        for run in runs:
            if run.status != "succeeded":
                continue
            for ns in run.namespaces:
                out.setdefault(ns, run)
        if limit is None or len(runs) < limit or all(ns in out for ns in namespaces):
            break
    return out


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


def _load(store: MemoryStore, namespaces: Sequence[str]) -> dict[str, list[Memory]]:
    return {ns: list(store.iter_memories(ns, statuses=[Status.ACTIVE])) for ns in namespaces}


def _embed(store: Any, config: Config, pool: Pool, progress: ProgressFn | None,
           executor: Any = None, embedder: Any = None) -> None:
    from memmaint.maintenance.embed.base import embed_memories, get_embedder

    embedder = embedder or get_embedder(config.embedding)  # one per run (a model loads once)
    batch_size = config.embedding.batch_size
    if executor is not None and executor.workers > 1:  # batches spread over workers
        from memmaint.maintenance.job.executors import ExecutorEmbedder

        embedder = ExecutorEmbedder(embedder, config.embedding, executor)
        batch_size = embedder.call_size

    def tick(done: int, total: int) -> None:
        if progress is not None:
            progress("embed", done, total)

    result = embed_memories(store, embedder, pool.memories,
                            batch_size=batch_size, progress=tick)
    pool.vectors = np.asarray(result.vectors, dtype=np.float32)
    pool.embedding = {"model_id": embedder.model_id, "dim": int(embedder.dim),
                      "embedded": int(result.embedded), "cached": int(result.cached),
                      "truncated": int(result.truncated)}
    from memmaint.maintenance.job.served import serve_siblings

    pool.siblings = serve_siblings(store, embedder, pool.memories, config.agents, pool.vectors,
                                   config.retrieve.replacement_cosine)


def _tick(progress: ProgressFn | None, stage: str, done: int, total: int) -> None:
    if progress is not None:
        progress(stage, done, total)


def _cluster(pool: Pool, config: Config, stages: Stages, prefix: str,
             executor: Any = None, progress: ProgressFn | None = None,
             placed: Mapping[str, np.ndarray] | None = None) -> Clustered:
    """The reduce-and-cluster stage, each namespace on its own (clusters never cross
    namespaces), on ``executor`` or in this process: one path
    (:func:`~memmaint.maintenance.job.executors.cluster_namespaces`), so ``[sharding]`` and
    every other setting mean the same with every executor. A namespace in ``placed`` (an
    incremental run: :mod:`~memmaint.maintenance.job.incremental`) starts from those labels
    instead."""
    from memmaint.maintenance.job.executors import LocalExecutor, cluster_namespaces

    assert pool.vectors is not None
    n_all = len(pool.memories)
    labels = np.full(n_all, -1, dtype=np.int64)
    reduced: dict[str, np.ndarray] = {}
    placed = placed or {}
    for ns, lab in placed.items():
        labels[pool.by_namespace[ns]] = lab
        reduced[ns] = np.zeros((0, 2))
    to_cluster = {ns: idx for ns, idx in pool.by_namespace.items() if ns not in placed}
    histories: dict[str, Any] = {}
    warnings: list[str] = []
    done_rows = 0

    def tick(ns: str, rows: int) -> None:
        nonlocal done_rows
        done_rows += rows
        for name in ("reduce", "cluster"):
            _tick(progress, f"{prefix}{name}", done_rows, n_all)

    tick("", 0)
    done = cluster_namespaces(executor or LocalExecutor(), pool.vectors, to_cluster,
                              weights_of(pool.memories), config, on_done=tick)
    for ns, result in done.items():
        idx = pool.by_namespace[ns]
        for name, secs, cpu in (
                ("reduce", result.reduce_seconds, result.reduce_cpu_seconds),
                ("cluster", result.cluster_seconds, result.cluster_cpu_seconds)):
            with stages(f"{prefix}{name}") as st:
                st.seconds += secs
                st.cpu_seconds += cpu
                st.count += len(idx)
        if result.n_shards > 1:  # the cluster stage says how many shards it cut
            st.detail["shards"] = int(st.detail.get("shards", 0)) + result.n_shards
        labels[idx] = result.labels
        reduced[ns] = result.reduced
        if result.history is not None:
            histories[ns] = result.history
        if result.reduction_fallback:
            warnings.append(f"namespace {ns}: {result.reduction_fallback}")
    return Clustered(labels, reduced, warnings, histories)


def _split_for_planner(pool: Pool, clustered: Clustered, config: Config, stages: Stages,
                       prefix: str) -> None:
    """Cut clusters larger than the backend reads (``dispatch.cluster_size_limit``: the LLM's
    ``max_cluster_size``) into pieces along each namespace's merge history, so they reach the
    model instead of the rules; the cluster stage counts them (``split_for_planner``)."""
    from memmaint.clustering.history import split_large
    from memmaint.maintenance.agents.dispatch import cluster_size_limit

    limit = cluster_size_limit(config)
    if limit is None:
        return
    assert pool.vectors is not None
    with stages(f"{prefix}cluster") as st:
        for ns, idx in pool.by_namespace.items():
            local = clustered.labels[idx]
            sizes = np.bincount(local[local >= 0]) if (local >= 0).any() else np.zeros(0)
            too_big = int(np.count_nonzero(sizes > limit))
            if not too_big:
                continue
            clustered.labels[idx] = split_large(local, pool.vectors[idx], limit,
                                                clustered.histories.get(ns))
            st.detail["split_for_planner"] = int(st.detail.get("split_for_planner", 0)) + too_big


def _plan(pool: Pool, labels: np.ndarray, config: Config, now: datetime | None,
          executor: Any = None, plan_id: str | None = None) -> Any:
    """Plan with the backend ``config.agents.backend`` names (the LLM module only when used)."""
    from memmaint.maintenance.job.executors import LocalExecutor, plan_on

    return plan_on(executor or LocalExecutor(), pool.memories, labels, pool.vectors, config,
                   now=now, plan_id=plan_id, siblings=pool.siblings)


def _evaluate(name: str, whole: Pool, config: Config, agents_config: Config,
              stages: Stages, prefix: str, now: datetime | None,
              executor: Any = None,
              progress: ProgressFn | None = None,
              plan_id: str | None = None, inc: Any = None) -> tuple[ConfigOutcome, Any]:
    """One configuration's stages over the pool. With ``inc`` (an incremental run's
    :class:`~memmaint.maintenance.job.incremental.Incremental`) the stages up to planning see
    only the touched rows of its namespaces; the cap, routing and report see the whole pool."""
    pool, placed = (whole, {}) if inc is None else inc.sub_pool(whole)
    clustered = _cluster(pool, config, stages, prefix, executor, progress, placed)
    if agents_config.agents.regroup_noise:  # before every planner and the report's counts
        from memmaint.clustering.regroup import regroup_for_agents

        with stages(f"{prefix}cluster") as st:  # timed as clustering; detail: how many
            before = clustered.labels
            clustered.labels = regroup_for_agents(before, pool.vectors, agents_config.agents,
                                                  partitions=pool.by_namespace.values())
            moved = int(np.count_nonzero(clustered.labels != before))
            st.detail["regrouped"] = int(st.detail.get("regrouped", 0)) + moved
    from memmaint.maintenance.agents.outcome_rules import group_outcome_siblings
    from memmaint.maintenance.agents.updates import group_updates

    assert pool.vectors is not None  # embedded before clustering
    with stages(f"{prefix}cluster"):  # timed as clustering, as the regrouping: outcome
        # siblings and updates join the clusters of what they answer or replace
        clustered.labels = group_outcome_siblings(  # no-op without outcome history
            pool.memories, clustered.labels, pool.vectors, agents_config.agents,
            to_utc(now) if now is not None else utcnow(), pool.by_namespace.values(),
            pool.siblings)
        clustered.labels = group_updates(  # an update and what it replaces, planned together
            pool.memories, clustered.labels, pool.vectors, agents_config.agents,
            pool.by_namespace.values())
    _split_for_planner(pool, clustered, agents_config, stages, prefix)
    n_groups = sum(len(set(lab[lab >= 0].tolist())) + int(np.count_nonzero(lab < 0))
                   for lab in (clustered.labels[i] for i in pool.by_namespace.values()))
    _tick(progress, f"{prefix}plan", 0, n_groups)  # counted in clusters (noise: singletons)
    with stages(f"{prefix}plan") as st:
        the_plan = _plan(pool, clustered.labels, agents_config, now, executor, plan_id)
        st.count += len(the_plan.clusters)
        if pool is not whole:  # the kept clusters join the touched ones' labels
            clustered.labels = inc.combine(whole, pool, clustered.labels)
            clustered.reduced.update({ns: inc.placements[ns].map_xy for ns in inc.placements})
        if inc is not None:  # what the next run's state is made from
            inc.final = (clustered.labels, clustered.reduced)
        # agents.max_active (the cap), then the routing tables kept with the run
        from memmaint.maintenance.agents.cap import cap_and_route

        the_plan, capped, routing = cap_and_route(
            whole.memories, clustered.labels, whole.vectors, the_plan, agents_config, now,
            model_id=str(whole.embedding.get("model_id", "")))
    _tick(progress, f"{prefix}plan", n_groups, n_groups)
    outcome = build_outcome(name, config, whole, clustered, the_plan, applied=False)
    outcome.cap = [c.to_dict() for c in capped]
    outcome.routing = routing.to_dict(members=name == "primary")  # only the primary's is used
    if agents_config is not config:
        outcome.warnings.append("planned with the primary configuration's agents")
    return outcome, the_plan


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


def _save(store: MemoryStore, report: RunReport) -> None:
    store.save_run(RunRecord(
        run_id=report.run_id, started_at=parse_time(report.started_at),
        finished_at=None if report.finished_at is None else parse_time(report.finished_at),
        status=report.status, namespaces=tuple(report.namespaces), report=report.to_dict(),
    ))


def _run(store: MemoryStore, config: Config, report: RunReport, *,
         selected: Sequence[str], dry_run: bool, force: bool,
         shadow: Config | None, now: datetime | None, progress: ProgressFn | None,
         executor: Any = None, writing: list[bool] | None = None,
         plan_sink: Callable[[Any], None] | None = None, full: bool = False,
         states: list[Any] | None = None) -> None:
    writing = [] if writing is None else writing
    stages = Stages()
    last = _last_success(store, selected)
    seen = current_seq(store)  # before loading: whatever is written later is news next time
    unread = {} if force else {ns: count_unread(store, ns, last.get(ns)) for ns in selected}
    too_few = {ns: n for ns, n in unread.items()  # counted in the store: never read
               if n is not None and n < config.job.min_new_memories}
    with stages("load") as st:
        loaded = _load(store, [ns for ns in selected if ns not in too_few])
        st.count = sum(len(v) for v in loaded.values())
    chosen: list[str] = []
    skipped: dict[str, str] = {}
    new_total = 0
    for ns in selected:
        n_new = too_few[ns] if ns in too_few else count_new(store, ns, loaded[ns],
                                                            last.get(ns))
        if ns not in too_few and not loaded[ns]:
            skipped[ns] = "no active memories"
        elif n_new < config.job.min_new_memories and not force:
            since = last[ns].started_at if ns in last else None
            skipped[ns] = (f"{n_new} new memories (added or changed) since the last "
                           "successful run "
                           f"({format_time(since)}), fewer than min_new_memories = "
                           f"{config.job.min_new_memories}")
        else:
            chosen.append(ns)
            new_total += n_new
    checked, when = None, to_utc(now) if now is not None else parse_time(report.started_at)
    embedder = None
    if config.job.incremental and not full and chosen:  # idle namespaces cost no more
        from memmaint.maintenance.embed.base import get_embedder
        from memmaint.maintenance.job.incremental import idle_namespaces, state_dir_for

        with stages("place") as st:  # timed with the placing
            embedder = get_embedder(config.embedding)  # the run's one embedder
            idle, checked = idle_namespaces(
                state_dir_for(store), config, {ns: loaded[ns] for ns in chosen},
                {ns: last[ns].run_id for ns in chosen if ns in last}, when,
                str(embedder.model_id))
        skipped.update(idle)
        chosen = [ns for ns in chosen if ns not in idle]
    for ns, why in skipped.items():
        log.info("run %s: namespace %s skipped: %s", report.run_id, ns, why)
    report.new_memories = new_total
    report.namespaces = chosen
    if skipped:
        report.apply["skipped_namespaces"] = skipped
    if not chosen:
        report.status = "skipped"
        report.namespaces = list(selected)
        report.skip_reason = ("; ".join(f"{ns}: {why}" for ns, why in skipped.items())
                              or "the store is empty: import memories first")
        report.stages = stages.as_list()
        few = any(why != "no active memories" for why in skipped.values())  # --force helps
        log.info("run %s: skipped (%s)%s", report.run_id, report.skip_reason,
                 "; use --force to run anyway" if few else "")
        return

    memories: list[Memory] = []
    by_ns: dict[str, np.ndarray] = {}
    for ns in chosen:
        by_ns[ns] = np.arange(len(memories), len(memories) + len(loaded[ns]))
        memories.extend(loaded[ns])
    pool = Pool(memories, by_ns)
    report.pool_before = len(memories)
    log.info("run %s: %d active memories in %d namespace(s), %d new", report.run_id,
             len(memories), len(chosen), new_total)

    cache_store: Any = DryRunCache(store) if dry_run else store
    writing.append(not dry_run)
    with stages("embed") as st:
        _embed(cache_store, config, pool, progress, executor, embedder)
        st.count = pool.embedding.get("embedded", 0)
        st.detail = dict(pool.embedding)
    report.embedding = dict(pool.embedding)
    log.info("run %s: embedded %d, %d from cache, %d truncated", report.run_id,
             pool.embedding["embedded"], pool.embedding["cached"], pool.embedding["truncated"])

    inc = None
    if config.job.incremental:  # place what changed against the last run's clusters
        from memmaint.maintenance.job.incremental import prepare, state_dir_for

        with stages("place") as st:
            inc = prepare(state_dir_for(store), config, pool,
                          {ns: last[ns].run_id for ns in chosen if ns in last}, when,
                          full=full, checked=checked)
            st.count = sum(len(p.rows) for p in inc.placements.values())
        report.apply["incremental"] = inc.modes
    # the plan's id (and so its merged memory ids) follows from what it is made from: the
    # dry run and the real run of an unchanged store apply the same ids (job.stages)
    primary, the_plan = _evaluate("primary", pool, config, config, stages, "", now, executor,
                                  progress, plan_id_for(seen, chosen, config.hash()), inc)
    if plan_sink is not None:
        plan_sink(the_plan)
    log.info("run %s: %d clusters, %d noise; plan: %s", report.run_id, primary.n_clusters,
             primary.noise, _fmt_actions(primary.actions_by_type))
    if shadow is not None:
        if shadow.embedding != config.embedding:
            log.warning("run %s: the shadow config's [embedding] differs; the shadow uses the "
                        "primary's embeddings", report.run_id)
        report.shadow, _ = _evaluate("shadow", pool, shadow, config, stages, "shadow ", now,
                                     executor, progress,
                                     plan_id_for(seen, chosen, shadow.hash(), "shadow"))
        log.info("run %s: shadow %d clusters, %d noise; would: %s", report.run_id,
                 report.shadow.n_clusters, report.shadow.noise,
                 _fmt_actions(report.shadow.actions_by_type))

    from memmaint.maintenance.apply.applier import apply_plan, fault_point

    n_act = primary.memories_affected
    _tick(progress, "apply", 0, n_act)
    if dry_run:
        with stages("apply") as st:
            result = apply_plan(the_plan, store, report.run_id, dry_run=True)
            st.count = primary.memories_affected
        _tick(progress, "apply", n_act, n_act)
        report.changes = marks(chosen, seen, None, None)  # what a plan made here saw
        _finish(report, primary, result, stages, "dry-run")
        return
    with store.transaction():  # the changes and the run record commit together
        fault_point("run-begin")
        own_start = current_seq(store, lock=True)  # numbers taken from here on are ours
        with stages("apply") as st:
            result = apply_plan(the_plan, store, report.run_id)
            st.count = primary.memories_affected
        report.changes = marks(chosen, seen, own_start, current_seq(store))
        if inc is not None and states is not None:  # written once the run has committed
            labels, reduced = inc.final
            states.extend(inc.next_states(pool, labels, reduced, the_plan,
                                          result.applied_clusters, report.run_id, when))
        _tick(progress, "apply", n_act, n_act)
        primary.applied = True
        primary.pool_after = sum(store.count_memories(ns, statuses=[Status.ACTIVE])
                                 for ns in chosen)
        _finish(report, primary, result, stages, "succeeded")
        report.finished_at = format_time(utcnow())
        _save(store, report)
        fault_point("run-record")
    fault_point("run-commit")


def _finish(report: RunReport, primary: ConfigOutcome, result: Any, stages: Stages,
            status: str) -> None:
    report.apply.update(_apply_summary(result))
    report.primary = primary
    report.pool_after = primary.pool_after
    report.status = status
    report.stages = stages.as_list()


def _fmt_actions(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items() if v) or "nothing"


def _apply_summary(result: Any) -> dict[str, Any]:
    """The JSON-ready summary of an ``ApplyResult`` (skipped clusters capped at 200)."""
    summary = dict(result.summary())
    skipped = summary.get("skipped") or []
    if len(skipped) > 200:
        summary["skipped"] = skipped[:200]
        summary["skipped_truncated"] = len(skipped)
    return summary


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
    cache = DryRunCache(store)
    outcomes = []
    pool_a: Pool | None = None
    for name, cfg in ((label_a, config_a), (label_b, config_b)):
        if pool_a is not None and cfg.embedding == config_a.embedding:
            pool = pool_a
        else:
            pool = Pool(memories, by_ns)
            _embed(cache, cfg, pool, progress)
        pool_a = pool_a or pool
        outcome, _ = _evaluate(name, pool, cfg, cfg, Stages(), f"{name} ", now,
                               progress=progress)
        outcomes.append(outcome)
    return compare_outcomes(outcomes[0], outcomes[1], label_a=label_a, label_b=label_b)


def shadow_comparison(report: RunReport) -> Comparison | None:
    """Primary against shadow for a report that has both."""
    if report.primary is None or report.shadow is None:
        return None
    return compare_outcomes(report.primary, report.shadow, label_a="primary",
                            label_b="shadow")
