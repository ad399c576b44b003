"""The pool-size cap: archive the lowest-value memories until a namespace holds ``max_active``.

After the agents have planned a run, :func:`apply_cap` counts, per namespace, the memories the
plan leaves active (kept ones and the memories merges create). Where that exceeds
``agents.max_active`` (off by default) it turns the lowest-value ones into
:class:`~memmaint.maintenance.plan.model.Archive` actions (a merge that would create a low-value
memory becomes an archive of its sources instead). Archiving is a status change like any other
action: it is recorded as events and ``memmaint undo`` restores the memories. It is never
FIFO: age only enters through freshness, and recency only breaks exact ties.

**Value** of a memory, each part in ``[0, 1]`` (:data:`WEIGHTS`)::

    value = 0.10 * relevance + 0.60 * importance + 0.20 * freshness + 0.10 * outcome

Importance leads because it is the one signal the writer of a memory gives on purpose; the
other parts separate memories of similar importance. (Blends with relevance at 0.25-0.30 and
importance at 0.35 archived 2-5 of the ten answers of the stale-growth evaluation at 500
entries: ``docs/evaluation.md``.)

- *relevance to the pool's clusters*: the best cosine between the memory and the centroids of
  the run's clusters (normalised mean of each cluster's members, clusters of two or more),
  mapped linearly from :data:`MATCH_FLOOR` (0) to :data:`FULL_MATCH` (1). A memory whose best
  cosine is below the floor matches no cluster and gets 0: on that count it is worth least.
- *importance*: the memory's percentile among the namespace's candidates (ties share their
  mean rank), so whatever scale importances use, only their order counts.
- *freshness*: ``clamp(1 - age / ttl, 0, 1)`` with the agents' TTL table
  (:mod:`memmaint.maintenance.core.freshness`): 1 for kinds that never expire, 0 once expired.
- *outcome*: the midpoint of the Wilson interval of successes / uses (0.5 when nothing is
  known, so an untried memory sits between a helpful and an unhelpful one).

**Selection** is greedy and redundancy-aware (maximal marginal relevance within a cluster):
memories are kept best-first by ``value - redundancy * r``, where ``redundancy`` is
``agents.cap_redundancy`` (default 0.5; 0 turns it off) and ``r`` grows linearly from 0 to 1
as ``s``, the highest cosine to a memory of the same cluster already kept, goes from
``agents.cap_redundancy_floor`` to 1, so the fifth rewording of a notice yields to a
distinct fact. The floor (default 0.6, :data:`FULL_MATCH`: as similar as a memory that fully
matches a cluster is to its centroid) keeps distinct facts of one topic, which share a
template and a cosine of 0.4-0.6, from being discounted as if they were rewordings of each
other. Noise memories have no cluster and no redundancy. Ties go to the newer memory, then to
the id; the lazy greedy keeps it ``O(sum of cluster sizes squared)`` vector products per
namespace.

Memories the agents protect (importance >= ``protect_importance``, or a Wilson lower bound
above ``outcome_protect_above``) and memories that have proven helpful (a Wilson lower bound
above :data:`PROVEN_HELPFUL`: an answer that helped five times in five is worth more than
any blend of importance and freshness says; with the outcome weight of 0.10 it had been
archived behind merges of low-importance notes) are never archived, nor a merge whose new memory another
action points to; they are kept first and count against the cap, so when they alone exceed it
the cap cannot hold and the result says by how much (``short_by``). A kept memory that
supersedes others may be archived: the older statements stay superseded and point to it
(:func:`~memmaint.maintenance.plan.model.check_plan` allows pointers to archived memories).
"""

from __future__ import annotations

import dataclasses
import heapq
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from memmaint.maintenance.agents.rules import protection
from memmaint.maintenance.core.config import AgentsConfig
from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.core.freshness import freshness, outcome_interval
from memmaint.maintenance.core.records import Memory, to_utc, utcnow
from memmaint.maintenance.plan.model import Archive, ClusterPlan, Keep, Merge, Plan, check_plan
from memmaint.maintenance.retrieve.routing import cluster_centroids, unit_rows

log = logging.getLogger(__name__)

AGENT = "cap"
#: Weights of the value blend (they sum to 1).
WEIGHTS: Mapping[str, float] = {"relevance": 0.10, "importance": 0.60, "freshness": 0.20,
                                "outcome": 0.10}
#: Wilson lower bound (z = 1.96) on successes / uses above which the cap never archives a
#: memory: it helps more often than not with 95% confidence (four successes in four uses).
PROVEN_HELPFUL = 0.5
#: Best cosine to a cluster centroid below which a memory matches no cluster (relevance 0);
#: the retrieval default ``similarity_floor``.
MATCH_FLOOR = 0.3
#: Best cosine from which a memory fully matches a cluster (relevance 1).
FULL_MATCH = 0.6


@dataclass(frozen=True)
class MemoryValue:
    """One memory's value and its parts.

    ``score`` is what selection compared: ``value - redundancy_weight * redundancy``, with
    ``redundancy`` the highest cosine to a kept memory of the same cluster when it was last
    scored. ``exempt`` says why the cap may not archive it (``None``: it may).
    """

    namespace: str
    memory_id: str
    cluster: int
    value: float
    relevance: float
    importance: float
    freshness: float
    outcome: float
    created_at: datetime
    redundancy: float = 0.0
    score: float = 0.0
    exempt: str | None = None

    def describe(self) -> str:
        return (f"value {self.value:.3f} (relevance {self.relevance:.2f}, importance "
                f"{self.importance:.2f}, freshness {self.freshness:.2f}, outcome "
                f"{self.outcome:.2f}); redundancy {self.redundancy:.2f} -> score "
                f"{self.score:.3f}")

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["created_at"] = to_utc(self.created_at).isoformat()
        for k in ("value", "relevance", "importance", "freshness", "outcome", "redundancy",
                  "score"):
            out[k] = round(float(out[k]), 4)
        return out


@dataclass(frozen=True)
class CapResult:
    """What the cap did to one namespace.

    Attributes:
        namespace: the namespace.
        max_active: the cap.
        before: memories the plan would have left active.
        after: memories left active with the cap.
        archived: the archived memories with their values, lowest score first.
        exempt: memories the cap could not archive (protected or pointed to).
        short_by: how far above the cap the namespace stays (0 when the cap holds).
    """

    namespace: str
    max_active: int
    before: int
    after: int
    archived: tuple[MemoryValue, ...]
    exempt: int
    short_by: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"namespace": self.namespace, "max_active": self.max_active,
                "before": self.before, "after": self.after, "exempt": self.exempt,
                "short_by": self.short_by, "archived": [v.to_dict() for v in self.archived]}


def _percentiles(x: np.ndarray) -> np.ndarray:
    """Mean-rank percentiles in [0, 1] (ties share their mean rank; one item gets 1)."""
    n = len(x)
    if n <= 1:
        return np.ones(n)
    order = np.argsort(x, kind="stable")
    ranks = np.empty(n)
    ranks[order] = np.arange(n, dtype=np.float64)
    for value in np.unique(x):
        tie = x == value
        if tie.sum() > 1:
            ranks[tie] = ranks[tie].mean()
    return ranks / (n - 1)


def _relevance(vectors: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    if len(centroids) == 0 or len(vectors) == 0:
        return np.zeros(len(vectors))
    best = (vectors @ centroids.T).max(axis=1)
    return np.clip((best - MATCH_FLOOR) / (FULL_MATCH - MATCH_FLOOR), 0.0, 1.0)


def memory_values(memories: Sequence[Memory], vectors: Any, centroids: Any,
                  config: AgentsConfig | None = None, now: datetime | None = None,
                  clusters: Sequence[int] | None = None) -> list[MemoryValue]:
    """The static value of each memory (see the module docstring), in input order.

    ``centroids`` are unit rows of the pool's clusters (:func:`cluster_centroids`);
    ``clusters`` optionally gives each memory's cluster label (reported only).
    Importance percentiles are taken over ``memories``.
    """
    cfg = config or AgentsConfig()
    now = to_utc(now) if now is not None else utcnow()
    n = len(memories)
    if n == 0:
        return []
    x = unit_rows(vectors)
    if len(x) != n:
        raise InputError(f"{n} memories but {len(x)} vectors")
    cents = np.asarray(centroids, dtype=np.float64).reshape(-1, x.shape[1])
    rel = _relevance(x, cents)
    imp = _percentiles(np.asarray([m.importance for m in memories], dtype=np.float64))
    out = []
    for i, mem in enumerate(memories):
        fr = freshness(mem, now, cfg.ttl_days)
        lo, hi = outcome_interval(mem)
        oc = (lo + hi) / 2.0
        value = (WEIGHTS["relevance"] * rel[i] + WEIGHTS["importance"] * imp[i]
                 + WEIGHTS["freshness"] * fr + WEIGHTS["outcome"] * oc)
        label = -1 if clusters is None else int(clusters[i])
        out.append(MemoryValue(mem.namespace, mem.id, label, float(value), float(rel[i]),
                               float(imp[i]), float(fr), float(oc), mem.created_at,
                               score=float(value), exempt=protection(mem, cfg) or (
                                   f"helps more often than not (Wilson lower bound {lo:.2f} "
                                   f"> {PROVEN_HELPFUL})" if lo > PROVEN_HELPFUL else None)))
    return out


def select(values: Sequence[MemoryValue], vectors: Any, max_active: int,
           redundancy: float = 0.5,
           redundancy_floor: float = FULL_MATCH) -> tuple[list[int], list[MemoryValue]]:
    """Greedy keep-selection (module docstring): ``(kept indices, scored values)``.

    A memory's redundancy is ``clip((s - redundancy_floor) / (1 - redundancy_floor), 0, 1)``
    for ``s`` its highest cosine to a kept memory of its cluster.

    Exempt memories are kept first. The returned values carry each memory's final
    ``redundancy`` and ``score``; the indices not kept are the ones to archive.
    """
    n = len(values)
    if max_active < 0:
        raise InputError(f"max_active must be >= 0, got {max_active}")
    if not 0.0 <= redundancy_floor < 1.0:
        raise InputError(f"redundancy_floor must be in [0, 1), got {redundancy_floor}")
    x = unit_rows(vectors) if n else np.zeros((0, 1))
    labels = np.asarray([v.cluster for v in values], dtype=np.int64)
    members = {int(c): np.flatnonzero(labels == c) for c in np.unique(labels) if c >= 0}
    base = np.asarray([v.value for v in values], dtype=np.float64)
    red = np.zeros(n)
    kept: list[int] = []
    taken = np.zeros(n, dtype=bool)

    def keep(i: int) -> None:
        kept.append(i)
        taken[i] = True
        c = int(labels[i])
        if redundancy > 0 and c >= 0:
            idx = members[c][~taken[members[c]]]
            excess = (x[idx] @ x[i] - redundancy_floor) / (1.0 - redundancy_floor)
            red[idx] = np.maximum(red[idx], np.clip(excess, 0.0, 1.0))

    for i in range(n):
        if values[i].exempt:
            keep(i)

    def key(i: int) -> tuple[float, float, str]:
        return (-(base[i] - redundancy * red[i]), -values[i].created_at.timestamp(),
                values[i].memory_id)

    heap = [(key(i), i) for i in range(n) if not taken[i]]
    heapq.heapify(heap)
    while heap and len(kept) < max_active:
        k, i = heapq.heappop(heap)
        now_key = key(i)
        if now_key != k:  # its score fell since it was pushed: re-queue (lazy greedy)
            heapq.heappush(heap, (now_key, i))
            continue
        keep(i)
    scored = [dataclasses.replace(v, redundancy=float(red[i]),
                                  score=float(base[i] - redundancy * red[i]))
              for i, v in enumerate(values)]
    return kept, scored


@dataclass
class _Candidate:
    """A memory the plan leaves active, and how to archive it."""

    memory: Memory
    row: int  # the pool row whose vector it uses
    cluster: ClusterPlan
    action: Keep | Merge
    exempt: str | None = None


def _candidates(plan: Plan, rows: Mapping[tuple[str, str], int],
                pool: Sequence[Memory]) -> dict[str, list[_Candidate]]:
    out: dict[str, list[_Candidate]] = {}
    for cluster in plan.clusters:
        targets = {t for a in cluster.actions for t in a.targets}
        for action in cluster.actions:
            if isinstance(action, Keep):
                row = rows[(cluster.namespace, action.memory_id)]
                cand = _Candidate(pool[row], row, cluster, action)
            elif isinstance(action, Merge):
                row = rows[(cluster.namespace, action.source_ids[0])]
                cand = _Candidate(action.new_memory, row, cluster, action)
            else:
                continue
            if isinstance(action, Merge) and cand.memory.id in targets:
                cand.exempt = "another action of the run points to the memory it creates"
            out.setdefault(cluster.namespace, []).append(cand)
    return out


def apply_cap(plan: Plan, pool: Sequence[Memory], labels: Sequence[int] | np.ndarray,
              vectors: Any, config: AgentsConfig | Any = None, now: datetime | None = None,
              *, max_active: int | None = None) -> tuple[Plan, list[CapResult]]:
    """The plan with the cap applied, and what the cap did per namespace.

    Args:
        plan: the agents' plan for ``pool``.
        pool, labels, vectors: the run's pool, cluster labels and embeddings (aligned).
        config: ``AgentsConfig`` or a whole ``Config`` (``max_active``, ``cap_redundancy``,
            protection thresholds, TTLs).
        now: the time freshness is judged at.
        max_active: overrides ``config.max_active``; ``None`` there too: the plan unchanged.

    Namespaces at or under the cap are untouched (no :class:`CapResult`).
    """
    cfg = _agents(config)
    cap = cfg.max_active if max_active is None else max_active
    if cap is None:
        return plan, []
    if cap < 1:
        raise InputError(f"max_active must be >= 1, got {cap}")
    n = len(pool)
    lab = np.asarray(labels, dtype=np.int64).reshape(-1)
    if len(lab) != n:
        raise InputError(f"{n} memories but {len(lab)} labels")
    x = unit_rows(vectors) if n else np.zeros((0, 1))
    if len(x) != n:
        raise InputError(f"vectors must have {n} rows, got {len(x)}")
    rows = {(m.namespace, m.id): i for i, m in enumerate(pool)}
    archive: dict[tuple[str, str], MemoryValue] = {}
    results: list[CapResult] = []
    for ns, cands in sorted(_candidates(plan, rows, pool).items()):
        if len(cands) <= cap:
            continue
        ns_rows = np.asarray([i for i, m in enumerate(pool) if m.namespace == ns])
        _cl, cents = cluster_centroids(x[ns_rows], lab[ns_rows])
        c_rows = np.asarray([c.row for c in cands])
        values = memory_values([c.memory for c in cands], x[c_rows], cents, cfg, now,
                               clusters=[c.cluster.label for c in cands])
        values = [dataclasses.replace(v, exempt=c.exempt or v.exempt)
                  for v, c in zip(values, cands)]
        kept, scored = select(values, x[c_rows], cap, cfg.cap_redundancy,
                              cfg.cap_redundancy_floor)
        keep_set = set(kept)
        gone = sorted((scored[i] for i in range(len(cands)) if i not in keep_set),
                      key=lambda v: (v.score, v.created_at.timestamp(), v.memory_id))
        for v, c in ((scored[i], cands[i]) for i in range(len(cands)) if i not in keep_set):
            archive[(ns, c.memory.id)] = v
        exempt = sum(1 for v in values if v.exempt)
        after = len(cands) - len(gone)
        results.append(CapResult(ns, cap, len(cands), after, tuple(gone), exempt,
                                 max(0, after - cap)))
        log.info("cap %s: %d active -> %d (max_active %d, %d exempt)", ns, len(cands), after,
                 cap, exempt)
    if not archive:
        return plan, results
    clusters = tuple(_rewrite(c, archive, cap) for c in plan.clusters)
    report = dict(plan.report)
    report["cap"] = [r.to_dict() for r in results]
    summary = Plan(clusters=clusters).summary()
    if isinstance(report.get("actions"), Mapping):
        report["actions"] = summary
    out = Plan(clusters=clusters, config_hash=plan.config_hash, plan_id=plan.plan_id,
               created_at=plan.created_at, backend=plan.backend, report=report)
    check_plan(out)
    return out, results


def _rewrite(cluster: ClusterPlan, archive: Mapping[tuple[str, str], MemoryValue],
             cap: int) -> ClusterPlan:
    ns = cluster.namespace
    actions: list[Any] = []
    changed = False
    for action in cluster.actions:
        if isinstance(action, Keep) and (ns, action.memory_id) in archive:
            v = archive[(ns, action.memory_id)]
            actions.append(Archive(action.memory_id, AGENT,
                                   f"over max_active = {cap}: lowest value; {v.describe()}"))
            changed = True
        elif isinstance(action, Merge) and (ns, action.new_memory.id) in archive:
            v = archive[(ns, action.new_memory.id)]
            why = (f"over max_active = {cap}: the memory merging {len(action.source_ids)} "
                   f"near-duplicates would be of lowest value; {v.describe()}")
            actions.extend(Archive(sid, AGENT, why) for sid in action.source_ids)
            changed = True
        else:
            actions.append(action)
    if not changed:
        return cluster
    return dataclasses.replace(cluster, actions=tuple(actions))


def _agents(config: Any) -> AgentsConfig:
    if config is None:
        return AgentsConfig()
    if isinstance(config, AgentsConfig):
        return config
    agents = getattr(config, "agents", None)
    if isinstance(agents, AgentsConfig):
        return agents
    raise TypeError(f"expected AgentsConfig or Config, got {type(config).__name__}")


def cap_and_route(pool: Sequence[Memory], labels: Sequence[int] | np.ndarray, vectors: Any,
                  plan: Plan, config: Any, now: datetime | None = None, *,
                  model_id: str = "", run_id: str = "") -> tuple[Plan, list[CapResult], Any]:
    """What the nightly job does after planning: the cap, then the routing tables.

    ``config`` is a whole ``Config`` (``agents`` for the cap, ``retrieve.route_attach_floor``
    for routing) or an ``AgentsConfig``. Returns ``(plan, cap results, Routing)``; the routing
    is built from the capped plan, so archived memories shape no centroid.
    """
    from memmaint.maintenance.retrieve.routing import build_routing

    capped, results = apply_cap(plan, pool, labels, vectors, config, now)
    retrieve = getattr(config, "retrieve", None)
    floor = getattr(retrieve, "route_attach_floor", 0.5)
    routing = build_routing(pool, labels, vectors, capped, attach_floor=floor, run_id=run_id,
                            model_id=model_id)
    return capped, results, routing
