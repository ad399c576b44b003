"""The maintenance plan: what the agents decided for every memory of every cluster.

A :class:`Plan` holds one :class:`ClusterPlan` per cluster (HDBSCAN noise and singletons get
one cluster plan each). A cluster plan lists actions, each naming the agent that decided it
and a reason a person can read:

- :class:`Keep` ``(memory_id)``: nothing changes.
- :class:`Merge` ``(source_ids -> new_memory)``: near-duplicates collapse into a NEW memory
  (text of the canonical source; importance = max of the sources; created_at = newest source;
  usage counters summed; ``source`` and metadata are the union of the sources', list-valued
  metadata keys unioned). Every source becomes ``merged`` with ``replaced_by`` = the new id.
- :class:`Supersede` ``(old_id -> new_id, valid_until)``: the old memory becomes
  ``superseded``, pointing to a memory of the same cluster that stays active.
- :class:`Evict` ``(memory_id)``: the memory becomes ``evicted`` (its row stays).
- :class:`Resolve` ``(kept_ids, superseded_ids)``: a conflict; the losers become
  ``superseded`` (pointing to ``kept_ids[0]``) with ``valid_until``; ``reason`` is the
  rationale.
- :class:`Archive` ``(memory_id)``: the memory becomes ``archived`` to hold the namespace's
  ``max_active`` cap (:mod:`memmaint.maintenance.agents.cap`); ``memmaint undo`` restores it.

Invariants (:func:`check_plan`, run again by ``apply_plan`` before anything is written):
every memory of a cluster is the *subject* of exactly one action; pointers (``Supersede.new_id``,
``Resolve.kept_ids``) name a memory of the same cluster that stays active (a kept member or a
memory the cluster's own merge creates) or that the ``max_active`` cap archives (the newer
statement is set aside, restorable, not contradicted); nothing names a memory outside its cluster or
namespace. A plan serialises to versioned JSON that records the plan id, the hash of the agent
config and each memory's version at planning time.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar

from memmaint.maintenance.core.errors import UserError
from memmaint.maintenance.core.records import (
    Memory,
    Status,
    format_time,
    new_id,
    parse_time,
    utcnow,
)

PLAN_FORMAT = "memmaint-plan"
PLAN_VERSION = 1
NOISE = -1


class PlanError(UserError):
    """A plan breaks its invariants or cannot be read; ``problems`` lists every one."""

    def __init__(self, problems: Sequence[str] | str):
        if isinstance(problems, str):
            problems = [problems]
        self.problems = list(problems)
        shown = "; ".join(self.problems[:5])
        more = f" (and {len(self.problems) - 5} more)" if len(self.problems) > 5 else ""
        super().__init__(f"invalid plan: {shown}{more}")


# -- actions -----------------------------------------------------------------------------

@dataclass(frozen=True)
class _OneMemoryAction:
    """An action on one memory that points nowhere else (keep, evict, archive)."""

    memory_id: str
    agent: str
    reason: str

    @property
    def subjects(self) -> tuple[str, ...]:
        return (self.memory_id,)

    @property
    def targets(self) -> tuple[str, ...]:
        return ()


@dataclass(frozen=True)
class Keep(_OneMemoryAction):
    """The memory stays as it is."""

    type: ClassVar[str] = "keep"


@dataclass(frozen=True)
class Merge:
    """Sources collapse into ``new_memory`` (a new row); sources become ``merged``."""

    source_ids: tuple[str, ...]
    new_memory: Memory
    agent: str
    reason: str
    type: ClassVar[str] = "merge"

    @property
    def subjects(self) -> tuple[str, ...]:
        return tuple(self.source_ids)

    @property
    def targets(self) -> tuple[str, ...]:
        return ()


@dataclass(frozen=True)
class Supersede:
    """``old_id`` is replaced by ``new_id`` (a memory that stays active)."""

    old_id: str
    new_id: str
    agent: str
    reason: str
    valid_until: datetime | None = None
    type: ClassVar[str] = "supersede"

    @property
    def subjects(self) -> tuple[str, ...]:
        return (self.old_id,)

    @property
    def targets(self) -> tuple[str, ...]:
        return (self.new_id,)


@dataclass(frozen=True)
class Evict(_OneMemoryAction):
    """The memory is retired (status ``evicted``; never deleted)."""

    type: ClassVar[str] = "evict"


@dataclass(frozen=True)
class Resolve:
    """A conflict: ``superseded_ids`` lose to ``kept_ids``; ``reason`` is the rationale."""

    kept_ids: tuple[str, ...]
    superseded_ids: tuple[str, ...]
    agent: str
    reason: str
    valid_until: datetime | None = None
    type: ClassVar[str] = "resolve"

    @property
    def rationale(self) -> str:
        return self.reason

    @property
    def subjects(self) -> tuple[str, ...]:
        return tuple(self.superseded_ids)

    @property
    def targets(self) -> tuple[str, ...]:
        return tuple(self.kept_ids)


@dataclass(frozen=True)
class Archive(_OneMemoryAction):
    """The memory is set aside (status ``archived``) to hold the ``max_active`` cap."""

    type: ClassVar[str] = "archive"


Action = Keep | Merge | Supersede | Evict | Resolve | Archive
ACTION_TYPES: dict[str, type] = {
    cls.type: cls for cls in (Keep, Merge, Supersede, Evict, Resolve, Archive)
}


# -- cluster plans and plans -------------------------------------------------------------

@dataclass(frozen=True)
class ClusterPlan:
    """The actions for one cluster of one namespace.

    Attributes:
        namespace: the namespace every memory of the cluster lives in.
        label: the clustering label (``-1`` for a noise memory, which is its own cluster).
        memory_ids: the cluster's memories, in pool order.
        versions: each memory's version at planning time (optimistic concurrency).
        actions: one or more actions; together they account for every memory once.
        flags: memory id -> verdicts worth reporting (``STALE_BLOCK``, ``STALE_WARN``...).
        backend: ``rules``, ``llm`` or ``rules-fallback`` (the LLM failed; rules decided).
        notes: free-text notes for the report (e.g. why the LLM was not used).
    """

    namespace: str
    label: int
    memory_ids: tuple[str, ...]
    versions: Mapping[str, int]
    actions: tuple[Action, ...]
    flags: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    backend: str = "rules"
    notes: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """A readable id for reports: ``namespace/label`` (``namespace/noise:<id>``)."""
        if self.label == NOISE:
            return f"{self.namespace}/noise:{self.memory_ids[0] if self.memory_ids else '?'}"
        return f"{self.namespace}/{self.label}"

    @property
    def created(self) -> tuple[Memory, ...]:
        """Memories this cluster's merges create."""
        return tuple(a.new_memory for a in self.actions if isinstance(a, Merge))

    def survivors(self) -> set[str]:
        """Ids that stay (or become) active after the plan: kept members and new memories."""
        out = {a.memory_id for a in self.actions if isinstance(a, Keep)}
        out.update(m.id for m in self.created)
        return out


@dataclass(frozen=True)
class Plan:
    """Every cluster's actions, plus the identity needed to audit and re-check them."""

    clusters: tuple[ClusterPlan, ...]
    config_hash: str = ""
    plan_id: str = field(default_factory=new_id)
    created_at: datetime = field(default_factory=utcnow)
    backend: str = "rules"
    report: Mapping[str, Any] = field(default_factory=dict)

    def actions(self) -> Iterator[tuple[ClusterPlan, Action]]:
        for cluster in self.clusters:
            for action in cluster.actions:
                yield cluster, action

    def namespaces(self) -> list[str]:
        return sorted({c.namespace for c in self.clusters})

    def summary(self) -> dict[str, int]:
        """How many memories each action type covers (merges also count created memories)."""
        counts: Counter[str] = Counter()
        for _cluster, action in self.actions():
            counts[action.type] += len(action.subjects)
            if isinstance(action, Merge):
                counts["created"] += 1
        return {k: counts.get(k, 0) for k in ("keep", "merge", "supersede", "resolve",
                                               "evict", "archive", "created")}

    def decisions(self) -> dict[tuple[str, str], str]:
        """(namespace, memory id) -> action type, for every memory of the plan."""
        out: dict[tuple[str, str], str] = {}
        for cluster, action in self.actions():
            for mid in action.subjects:
                out[(cluster.namespace, mid)] = action.type
        return out

    def content_actions(self) -> dict[tuple[str, str], tuple[str, str | None]]:
        """(namespace, id) -> (what happens to the memory's *content*, the id serving it).

        Like :meth:`decisions`, with ``resolve`` reported as ``supersede``, except that the
        canonical source of a merge (``source_ids[0]``, whose text the merged memory carries)
        counts as ``keep``: its content lives on. The second element is the memory that
        replaces it (for a merged source: the canonical source), else ``None``. This is the
        shape of scenario expectations (``memmaint.datasets.make_scenario``).
        """
        out: dict[tuple[str, str], tuple[str, str | None]] = {}
        for cluster, action in self.actions():
            ns = cluster.namespace
            if isinstance(action, Merge):
                canonical = action.source_ids[0]
                out[(ns, canonical)] = ("keep", None)
                for mid in action.source_ids[1:]:
                    out[(ns, mid)] = ("merge", canonical)
            elif isinstance(action, Supersede):
                out[(ns, action.old_id)] = ("supersede", action.new_id)
            elif isinstance(action, Resolve):
                for mid in action.superseded_ids:
                    out[(ns, mid)] = ("supersede", action.kept_ids[0])
            else:
                out[(ns, action.subjects[0])] = (action.type, None)
        return out

    def flagged(self) -> dict[tuple[str, str], tuple[str, ...]]:
        return {(c.namespace, mid): tuple(f) for c in self.clusters
                for mid, f in c.flags.items() if f}

    # -- JSON ---------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": PLAN_FORMAT,
            "version": PLAN_VERSION,
            "plan_id": self.plan_id,
            "created_at": format_time(self.created_at),
            "config_hash": self.config_hash,
            "backend": self.backend,
            "report": dict(self.report),
            "clusters": [_cluster_to_dict(c) for c in self.clusters],
        }

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=False, indent=indent)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Plan:
        """Read a plan dict; ``PlanError`` on another format, a newer version or bad fields."""
        if not isinstance(data, Mapping) or data.get("format") != PLAN_FORMAT:
            raise PlanError(f"not a {PLAN_FORMAT} document")
        version = data.get("version")
        if version != PLAN_VERSION:
            raise PlanError(f"unsupported plan version {version!r} (this memmaint reads "
                            f"{PLAN_VERSION})")
        try:
            return cls(
                clusters=tuple(_cluster_from_dict(c) for c in data["clusters"]),
                config_hash=str(data.get("config_hash", "")),
                plan_id=str(data["plan_id"]),
                created_at=parse_time(data["created_at"]),
                backend=str(data.get("backend", "rules")),
                report=dict(data.get("report") or {}),
            )
        except PlanError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise PlanError(f"malformed plan: {type(exc).__name__}: {exc}") from None

    @classmethod
    def from_json(cls, text: str) -> Plan:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PlanError(f"plan is not valid JSON ({exc})") from None
        return cls.from_dict(data)


def _action_to_dict(action: Action) -> dict[str, Any]:
    out: dict[str, Any] = {"type": action.type}
    for f in dataclasses.fields(action):
        value = getattr(action, f.name)
        if isinstance(value, Memory):
            value = value.to_dict()
        elif isinstance(value, datetime):
            value = format_time(value)
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value
    return out


def _action_from_dict(data: Mapping[str, Any]) -> Action:
    kind = data.get("type")
    cls = ACTION_TYPES.get(kind)  # type: ignore[arg-type]
    if cls is None:
        raise PlanError(f"unknown action type {kind!r} (choose from {', '.join(ACTION_TYPES)})")
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            if f.default is dataclasses.MISSING:
                raise PlanError(f"{kind} action is missing {f.name!r}")
            continue
        value = data[f.name]
        if f.name == "new_memory":
            value = Memory.from_dict(value)
        elif f.name == "valid_until":
            value = None if value is None else parse_time(value)
        elif f.name in ("source_ids", "kept_ids", "superseded_ids"):
            if isinstance(value, str) or not isinstance(value, Sequence):
                raise PlanError(f"{kind}.{f.name} must be a list of ids")
            value = tuple(str(v) for v in value)
        kwargs[f.name] = value
    return cls(**kwargs)  # type: ignore[no-any-return]


def _cluster_to_dict(c: ClusterPlan) -> dict[str, Any]:
    return {
        "namespace": c.namespace,
        "label": c.label,
        "memory_ids": list(c.memory_ids),
        "versions": dict(c.versions),
        "backend": c.backend,
        "notes": list(c.notes),
        "flags": {k: list(v) for k, v in c.flags.items()},
        "actions": [_action_to_dict(a) for a in c.actions],
    }


def _cluster_from_dict(data: Mapping[str, Any]) -> ClusterPlan:
    return ClusterPlan(
        namespace=str(data["namespace"]),
        label=int(data["label"]),
        memory_ids=tuple(str(m) for m in data["memory_ids"]),
        versions={str(k): int(v) for k, v in data["versions"].items()},
        actions=tuple(_action_from_dict(a) for a in data["actions"]),
        flags={str(k): tuple(v) for k, v in (data.get("flags") or {}).items()},
        backend=str(data.get("backend", "rules")),
        notes=tuple(data.get("notes") or ()),
    )


# -- invariants --------------------------------------------------------------------------

def cluster_problems(cluster: ClusterPlan) -> list[str]:
    """Every invariant one cluster plan breaks (empty when it is sound)."""
    where = cluster.key
    problems: list[str] = []
    ids = list(cluster.memory_ids)
    members = set(ids)
    if not ids:
        problems.append(f"{where}: cluster has no memories")
    dupes = sorted(m for m, n in Counter(ids).items() if n > 1)
    if dupes:
        problems.append(f"{where}: memory ids listed twice: {', '.join(dupes)}")
    if set(cluster.versions) != members:
        problems.append(f"{where}: versions must list exactly the cluster's memories")
    if not cluster.actions:
        problems.append(f"{where}: no actions")
    seen: Counter[str] = Counter()
    created: set[str] = set()
    for action in cluster.actions:
        if not isinstance(action, tuple(ACTION_TYPES.values())):
            problems.append(f"{where}: not an action: {action!r}")
            continue
        if not str(action.agent).strip() or not str(action.reason).strip():
            problems.append(f"{where}: {action.type} action needs an agent and a reason")
        seen.update(action.subjects)
        outside = [m for m in action.subjects if m not in members]
        if outside:
            problems.append(f"{where}: {action.type} touches memories outside the cluster: "
                            f"{', '.join(outside)}")
        if isinstance(action, Merge):
            new = action.new_memory
            if not action.source_ids:
                problems.append(f"{where}: merge without sources")
            if new.namespace != cluster.namespace:
                problems.append(f"{where}: merge creates a memory in namespace "
                                f"{new.namespace!r}")
            if new.id in members or new.id in created:
                problems.append(f"{where}: merge reuses the id {new.id}")
            if new.status is not Status.ACTIVE or new.replaced_by is not None:
                problems.append(f"{where}: merged memory {new.id} must be active")
            created.add(new.id)
        elif isinstance(action, Resolve):
            if not action.kept_ids or not action.superseded_ids:
                problems.append(f"{where}: resolve needs kept and superseded ids")
            if set(action.kept_ids) & set(action.superseded_ids):
                problems.append(f"{where}: resolve keeps and supersedes the same memory")
        elif isinstance(action, Supersede) and action.old_id == action.new_id:
            problems.append(f"{where}: {action.old_id} supersedes itself")
    missing = [m for m in ids if seen[m] == 0]
    twice = sorted(m for m, n in seen.items() if n > 1)
    if missing:
        problems.append(f"{where}: memories not accounted for: {', '.join(missing)}")
    if twice:
        problems.append(f"{where}: memories decided more than once: {', '.join(twice)}")
    survivors = cluster.survivors()
    survivors |= {a.memory_id for a in cluster.actions if isinstance(a, Archive)}
    for action in cluster.actions:
        if not isinstance(action, tuple(ACTION_TYPES.values())):
            continue
        bad = [t for t in action.targets if t not in survivors]
        if bad:
            problems.append(f"{where}: {action.type} points to {', '.join(bad)}, which is not "
                            f"a memory of this cluster that stays active")
    return problems


def check_plan(plan: Plan, pool: Sequence[Memory] | None = None,
               labels: Sequence[int] | None = None) -> None:
    """Raise :class:`PlanError` listing every broken invariant.

    Without ``pool`` only the plan's own structure is checked (what ``apply_plan`` does).
    With ``pool`` and ``labels`` the clusters must also be exactly the pool's clusters (noise
    memories one cluster each), every pool memory must be planned, with its current version.
    """
    problems: list[str] = []
    owner: dict[tuple[str, str], str] = {}
    created_ids: set[tuple[str, str]] = set()
    for cluster in plan.clusters:
        problems.extend(cluster_problems(cluster))
        for mid in cluster.memory_ids:
            key = (cluster.namespace, mid)
            if key in owner and owner[key] != cluster.key:
                problems.append(f"{mid} is in two clusters: {owner[key]} and {cluster.key}")
            owner[key] = cluster.key
        for mem in cluster.created:
            key = (cluster.namespace, mem.id)
            if key in created_ids:
                problems.append(f"{cluster.key}: two merges create the id {mem.id}")
            created_ids.add(key)
    for key in created_ids & set(owner):
        problems.append(f"merge creates {key[1]}, which already exists in {key[0]}")
    if pool is not None:
        problems.extend(_pool_problems(plan, pool, labels))
    if problems:
        raise PlanError(problems)


def expected_groups(pool: Sequence[Memory], labels: Sequence[int]) -> dict[tuple[str, int | str],
                                                                        list[Memory]]:
    """The clusters a plan must have: (namespace, label) groups; noise memories alone."""
    if len(pool) != len(labels):
        raise PlanError(f"{len(pool)} memories but {len(labels)} labels")
    groups: dict[tuple[str, int | str], list[Memory]] = {}
    for mem, label in zip(pool, labels):
        lab = int(label)
        key: tuple[str, int | str] = (mem.namespace, f"noise:{mem.id}" if lab < 0 else lab)
        groups.setdefault(key, []).append(mem)
    return groups


def _pool_problems(plan: Plan, pool: Sequence[Memory],
                   labels: Sequence[int] | None) -> list[str]:
    problems: list[str] = []
    by_key = {(m.namespace, m.id): m for m in pool}
    planned: set[tuple[str, str]] = set()
    for cluster in plan.clusters:
        for mid in cluster.memory_ids:
            key = (cluster.namespace, mid)
            planned.add(key)
            mem = by_key.get(key)
            if mem is None:
                problems.append(f"{cluster.key}: {mid} is not in the pool of namespace "
                                f"{cluster.namespace!r}")
                continue
            if not mem.is_active:
                problems.append(f"{cluster.key}: {mid} is {mem.status.value}, not active")
            if cluster.versions.get(mid) != mem.version:
                problems.append(f"{cluster.key}: {mid} planned at version "
                                f"{cluster.versions.get(mid)}, pool has {mem.version}")
    unplanned = [k[1] for k in by_key if k not in planned]
    if unplanned:
        problems.append(f"pool memories not in the plan: {', '.join(unplanned[:10])}")
    if labels is not None:
        groups = expected_groups(pool, labels)
        want = {frozenset((m.namespace, m.id) for m in g) for g in groups.values()}
        have = {frozenset((c.namespace, m) for m in c.memory_ids) for c in plan.clusters}
        if want != have:
            problems.append("the plan's clusters are not the pool's clusters "
                            f"({len(have - want)} differ)")
    return problems
