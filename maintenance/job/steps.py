"""The job's stage functions, one per declared stage: each takes the run's
:class:`~memmaint.maintenance.job.state.RunState`, reads what the stages before it left and
fills in its part. Their order is declared once, in
:data:`memmaint.maintenance.job.pipeline.PIPELINE`; nothing else calls them in sequence.

Timings go to the report's entries as before (``load``, ``place``, ``embed``, ``reduce``,
``cluster`` (regrouping included), ``plan`` (cap and routing included), ``apply``), each
prefixed with the pass's ``prefix`` (``"shadow "``).
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from memmaint.maintenance.core.config import Config
from memmaint.maintenance.core.records import (
    Memory,
    Status,
    format_time,
    parse_time,
    to_utc,
    utcnow,
)
from memmaint.maintenance.job.changes import count_new, count_unread, current_seq
from memmaint.maintenance.job.outcome import Clustered, Pool, build_outcome, weights_of
from memmaint.maintenance.job.stages import DryRunCache, Stages, plan_id_for
from memmaint.maintenance.job.state import ProgressFn, RunState
from memmaint.maintenance.report.model import RunReport
from memmaint.maintenance.store.base import MemoryStore, RunRecord

log = logging.getLogger(__name__)


def tick(progress: ProgressFn | None, stage: str, done: int, total: int) -> None:
    """Report a stage's progress, when someone listens."""
    if progress is not None:
        progress(stage, done, total)


def load_memories(store: MemoryStore, namespaces: Sequence[str]) -> dict[str, list[Memory]]:
    """namespace -> its active memories, in store order."""
    return {ns: list(store.iter_memories(ns, statuses=[Status.ACTIVE])) for ns in namespaces}


def last_success(store: MemoryStore, namespaces: Collection[str]) -> dict[str, RunRecord]:
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


def save_report(store: MemoryStore, report: RunReport) -> None:
    """Store ``report`` as the run's record."""
    store.save_run(RunRecord(
        run_id=report.run_id, started_at=parse_time(report.started_at),
        finished_at=None if report.finished_at is None else parse_time(report.finished_at),
        status=report.status, namespaces=tuple(report.namespaces), report=report.to_dict(),
    ))


def fmt_actions(counts: Mapping[str, int]) -> str:
    """``merge 3, evict 1`` (or ``nothing``)."""
    return ", ".join(f"{k} {v}" for k, v in counts.items() if v) or "nothing"


# -- load ------------------------------------------------------------------------------------

def load(state: RunState) -> None:
    """Load the selected namespaces' active memories and keep those with enough new ones
    (``job.min_new_memories``; ``force`` keeps all; incremental runs also leave out idle
    namespaces). With none left the run is skipped (``state.stop``)."""
    store, config, report, stages = state.store, state.config, state.report, state.stages
    assert report is not None
    selected = state.selected
    last = state.last = last_success(store, selected)
    seen = state.seen = current_seq(store)  # before loading: later writes are news next time
    unread = {} if state.force else {ns: count_unread(store, ns, last.get(ns))
                                     for ns in selected}
    too_few = {ns: n for ns, n in unread.items()  # counted in the store: never read
               if n is not None and n < config.job.min_new_memories}
    loader = state.loader or load_memories
    with stages("load") as st:
        loaded = loader(store, [ns for ns in selected if ns not in too_few])
        st.count = sum(len(v) for v in loaded.values())
    chosen: list[str] = []
    skipped: dict[str, str] = {}
    new_total = 0
    for ns in selected:
        n_new = too_few[ns] if ns in too_few else count_new(store, ns, loaded[ns],
                                                            last.get(ns))
        if ns not in too_few and not loaded[ns]:
            skipped[ns] = "no active memories"
        elif n_new < config.job.min_new_memories and not state.force:
            since = last[ns].started_at if ns in last else None
            skipped[ns] = (f"{n_new} new memories (added or changed) since the last "
                           "successful run "
                           f"({format_time(since)}), fewer than min_new_memories = "
                           f"{config.job.min_new_memories}")
        else:
            chosen.append(ns)
            new_total += n_new
    when = state.when = (to_utc(state.now) if state.now is not None
                         else parse_time(report.started_at))
    state.incremental = bool(config.job.incremental)
    if config.job.incremental and not state.full and chosen:  # idle namespaces cost no more
        from memmaint.maintenance.embed.base import get_embedder
        from memmaint.maintenance.job.incremental import idle_namespaces, state_dir_for

        with stages("place"):  # timed with the placing
            state.embedder = get_embedder(config.embedding)  # the run's one embedder
            idle, state.checked = idle_namespaces(
                state_dir_for(store), config, {ns: loaded[ns] for ns in chosen},
                {ns: last[ns].run_id for ns in chosen if ns in last}, when,
                str(state.embedder.model_id))
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
        state.stop = True
        return
    memories: list[Memory] = []
    by_ns: dict[str, np.ndarray] = {}
    for ns in chosen:
        by_ns[ns] = np.arange(len(memories), len(memories) + len(loaded[ns]))
        memories.extend(loaded[ns])
    state.chosen = chosen
    state.whole = Pool(memories, by_ns)
    # the plan's id (and so its merged memory ids) follows from what it is made from: the
    # dry run and the real run of an unchanged store apply the same ids (job.stages)
    state.plan_id = plan_id_for(seen, chosen, config.hash())
    report.pool_before = len(memories)
    log.info("run %s: %d active memories in %d namespace(s), %d new", report.run_id,
             len(memories), len(chosen), new_total)


# -- embed, place ----------------------------------------------------------------------------

def embed_pool(store: Any, config: Config, pool: Pool, progress: ProgressFn | None,
               executor: Any = None, embedder: Any = None,
               kept: Mapping[str, Any] | None = None) -> None:
    """Embed ``pool`` (what the cache lacks), on ``executor``'s workers when it has several,
    and serve the pool's siblings (``job.served``). ``kept``: incremental states by namespace;
    an unchanged memory's vector is read from its state, not the cache (reading a million
    cached vectors was most of a 1M night's embed stage)."""
    from memmaint.maintenance.embed.base import embed_memories, get_embedder

    embedder = embedder or get_embedder(config.embedding)  # one per run (a model loads once)
    dim = int(embedder.dim)
    known, known_vecs = _kept_vectors(pool, kept or {}, dim)
    rest = np.setdiff1d(np.arange(len(pool.memories)), known, assume_unique=True)
    batch_size = config.embedding.batch_size
    if executor is not None and executor.workers > 1:  # batches spread over workers
        from memmaint.maintenance.job.executors import ExecutorEmbedder

        embedder = ExecutorEmbedder(embedder, config.embedding, executor)
        batch_size = embedder.call_size

    def on_batch(done: int, total: int) -> None:
        tick(progress, "embed", done, total)

    todo = pool.memories if not known.size else [pool.memories[i] for i in rest.tolist()]
    result = embed_memories(store, embedder, todo, batch_size=batch_size, progress=on_batch)
    if known.size:
        vectors = np.empty((len(pool.memories), dim), dtype=np.float32)
        vectors[known] = known_vecs
        vectors[rest] = np.asarray(result.vectors, dtype=np.float32).reshape(-1, dim)
        pool.vectors = vectors
    else:
        pool.vectors = np.asarray(result.vectors, dtype=np.float32)
    pool.embedding = {"model_id": embedder.model_id, "dim": dim,
                      "embedded": int(result.embedded), "cached": int(result.cached),
                      "truncated": int(result.truncated)}
    if known.size:
        pool.embedding["from_state"] = int(known.size)
    from memmaint.maintenance.job.served import serve_siblings

    pool.siblings = serve_siblings(store, embedder, pool.memories, config.agents, pool.vectors,
                                   config.retrieve.replacement_cosine)


def _kept_vectors(pool: Pool, kept: Mapping[str, Any], dim: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Pool rows whose vectors the namespaces' incremental states keep, and those vectors."""
    if not kept:
        return np.zeros(0, dtype=np.int64), np.zeros((0, dim), dtype=np.float32)
    from memmaint.maintenance.job.incremental import kept_vectors

    rows, vecs = [], []
    for ns, idx in pool.by_namespace.items():
        if ns in kept:
            r, v = kept_vectors([pool.memories[i] for i in idx.tolist()], kept[ns], dim)
            rows.append(np.asarray(idx)[r])
            vecs.append(v)
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros((0, dim), dtype=np.float32)
    return np.concatenate(rows), np.concatenate(vecs)


def embed(state: RunState) -> None:
    """Embed the pool through the store's cache (a dry run keeps new vectors in memory)."""
    assert state.whole is not None
    pool, report = state.whole, state.report
    cache_store: Any = DryRunCache(state.store) if state.dry_run else state.store
    state.writing.append(not state.dry_run)
    with state.stages("embed") as st:
        embed_pool(cache_store, state.config, pool, state.progress, state.executor,
                   state.embedder, kept=state.checked)
        st.count = pool.embedding.get("embedded", 0)
        st.detail = dict(pool.embedding)
    if report is not None:
        report.embedding = dict(pool.embedding)
        log.info("run %s: embedded %d, %d from cache, %d from the incremental state, %d "
                 "truncated", report.run_id, pool.embedding["embedded"],
                 pool.embedding["cached"], pool.embedding.get("from_state", 0),
                 pool.embedding["truncated"])


def place(state: RunState) -> None:
    """Incremental runs only: place what changed against the last run's clusters
    (:mod:`~memmaint.maintenance.job.incremental`)."""
    if not state.incremental:
        return
    from memmaint.maintenance.job.incremental import prepare, state_dir_for

    assert state.whole is not None and state.report is not None and state.when is not None
    with state.stages("place") as st:
        state.inc = prepare(state_dir_for(state.store), state.config, state.whole,
                            {ns: state.last[ns].run_id for ns in state.chosen
                             if ns in state.last}, state.when,
                            full=state.full, checked=state.checked)
        st.count = sum(len(p.rows) for p in state.inc.placements.values())
    state.report.apply["incremental"] = state.inc.modes


# -- one configuration: reduce and cluster, regroup, plan, cap and route ----------------------

def reduce_and_cluster(state: RunState) -> None:
    """Reduce and cluster each namespace on its own (clusters never cross namespaces), on
    the executor given or here: one path
    (:func:`~memmaint.maintenance.job.executors.cluster_namespaces`), so ``[sharding]`` and
    every other setting mean the same everywhere. With an incremental run's state only the
    touched rows are clustered; its placed namespaces start from their labels."""
    from memmaint.maintenance.job.executors import LocalExecutor, cluster_namespaces

    whole, inc, stages, prefix = state.whole, state.inc, state.stages, state.prefix
    assert whole is not None and whole.vectors is not None  # embedded before clustering
    pool, placed = (whole, {}) if inc is None else inc.sub_pool(whole)
    state.pool, state.placed = pool, placed
    assert pool.vectors is not None
    n_all = int(pool.vectors.shape[0])
    labels = np.full(n_all, -1, dtype=np.int64)
    reduced: dict[str, np.ndarray] = {}
    for ns, lab in placed.items():
        labels[pool.by_namespace[ns]] = lab
        reduced[ns] = np.zeros((0, 2))
    to_cluster = {ns: idx for ns, idx in pool.by_namespace.items() if ns not in placed}
    histories: dict[str, Any] = {}
    warnings: list[str] = []
    done_rows = 0

    def on_done(ns: str, rows: int) -> None:
        nonlocal done_rows
        done_rows += rows
        for name in ("reduce", "cluster"):
            tick(state.progress, f"{prefix}{name}", done_rows, n_all)

    on_done("", 0)
    weights = pool.weights if pool.weights is not None else weights_of(pool.memories)
    done = cluster_namespaces(state.executor or LocalExecutor(), pool.vectors, to_cluster,
                              weights, state.config, on_done=on_done,
                              cluster_one=state.cluster_one)
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
    state.clustered = Clustered(labels, reduced, warnings, histories)


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


def regroup(state: RunState) -> None:
    """Before every planner and the report's counts: noise regrouped
    (``agents.regroup_noise``), outcome siblings and updates joined to the clusters of what
    they answer or replace, and clusters larger than the backend reads split along the
    merge history. Timed as clustering."""
    pool, clustered, agents = state.pool, state.clustered, state.agents
    stages, prefix, now = state.stages, state.prefix, state.now
    assert pool is not None and clustered is not None and pool.vectors is not None
    if agents.agents.regroup_noise:
        from memmaint.clustering.regroup import regroup_for_agents

        with stages(f"{prefix}cluster") as st:  # detail: how many moved
            before = clustered.labels
            clustered.labels = regroup_for_agents(before, pool.vectors, agents.agents,
                                                  partitions=pool.by_namespace.values())
            moved = int(np.count_nonzero(clustered.labels != before))
            st.detail["regrouped"] = int(st.detail.get("regrouped", 0)) + moved
    from memmaint.maintenance.agents.outcome_rules import group_outcome_siblings
    from memmaint.maintenance.agents.updates import group_updates

    with stages(f"{prefix}cluster"):
        clustered.labels = group_outcome_siblings(  # no-op without outcome history
            pool.memories, clustered.labels, pool.vectors, agents.agents,
            to_utc(now) if now is not None else utcnow(), pool.by_namespace.values(),
            pool.siblings)
        clustered.labels = group_updates(  # an update and what it replaces, planned together
            pool.memories, clustered.labels, pool.vectors, agents.agents,
            pool.by_namespace.values())
    _split_for_planner(pool, clustered, agents, stages, prefix)


def plan_with_backend(pool: Pool, labels: np.ndarray, config: Config, now: Any,
                      executor: Any = None, plan_id: str | None = None) -> Any:
    """Plan with the backend ``config.agents.backend`` names (``agents.dispatch``, the one
    switch), the rules in chunks on ``executor``'s workers."""
    from memmaint.maintenance.job.executors import LocalExecutor, plan_on

    return plan_on(executor or LocalExecutor(), pool.memories, labels, pool.vectors, config,
                   now=now, plan_id=plan_id, siblings=pool.siblings)


def _n_groups(pool: Pool, labels: np.ndarray) -> int:
    """Clusters the planner reads (each noise row a singleton)."""
    return sum(len(set(lab[lab >= 0].tolist())) + int(np.count_nonzero(lab < 0))
               for lab in (labels[i] for i in pool.by_namespace.values()))


def plan(state: RunState) -> None:
    """Plan the clusters with the configured agents; an incremental run's kept clusters
    then join the touched ones' labels."""
    pool, whole, clustered, inc = state.pool, state.whole, state.clustered, state.inc
    assert pool is not None and whole is not None and clustered is not None
    n_groups = state.n_groups = _n_groups(pool, clustered.labels)
    tick(state.progress, f"{state.prefix}plan", 0, n_groups)  # counted in clusters
    planner = state.planner or plan_with_backend
    with state.stages(f"{state.prefix}plan") as st:
        state.plan = planner(pool, clustered.labels, state.agents, state.now,
                             state.executor, state.plan_id)
        st.count += len(state.plan.clusters)
        if pool is not whole:  # the kept clusters join the touched ones' labels
            clustered.labels = inc.combine(whole, pool, clustered.labels)
            clustered.reduced.update({ns: inc.placements[ns].map_xy for ns in inc.placements})
        if inc is not None:  # what the next run's state is made from
            inc.final = (clustered.labels, clustered.reduced)


def cap_and_route(state: RunState) -> None:
    """``agents.max_active`` (the cap) over the whole pool, the routing tables kept with the
    run, and this configuration's outcome for the report. The merge history reaches the plan
    here: ``plan.report["joined"]`` is the outcome's ``joined`` (``namespace\x1fid`` ->
    [step, distance] of the clusterer's merge that first joined each decided memory to
    another), so a plan file says why its memories were planned together. Timed as
    planning."""
    from memmaint.maintenance.agents.cap import cap_and_route as cap_route

    whole, clustered, agents = state.whole, state.clustered, state.agents
    assert whole is not None and clustered is not None and state.pool is not None
    with state.stages(f"{state.prefix}plan"):
        state.plan, capped, routing = cap_route(
            whole.memories, clustered.labels, whole.vectors, state.plan, agents, state.now,
            model_id=str(whole.embedding.get("model_id", "")))
    tick(state.progress, f"{state.prefix}plan", state.n_groups, state.n_groups)
    outcome = build_outcome(state.name, state.config, whole, clustered, state.plan,
                            applied=False)
    outcome.cap = [c.to_dict() for c in capped]
    outcome.routing = routing.to_dict(members=state.name == "primary")  # only the primary's
    if state.agents_config is not None and state.agents_config is not state.config:
        outcome.warnings.append("planned with the primary configuration's agents")
    state.outcome = outcome
    if outcome.joined:  # the merge history, carried to the plan: why these were together
        state.plan = replace(state.plan, report={**state.plan.report,
                                                 "joined": dict(outcome.joined)})
    if state.plan_sink is not None:
        state.plan_sink(state.plan)
    if state.report is not None and state.name == "primary":
        log.info("run %s: %d clusters, %d noise; plan: %s", state.report.run_id,
                 outcome.n_clusters, outcome.noise, fmt_actions(outcome.actions_by_type))
