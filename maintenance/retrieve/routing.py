"""Topic routing at read time, from the clusters a maintenance run computed.

A maintenance run already groups each namespace's pool into clusters. :func:`build_routing`
keeps, per namespace, what retrieval needs to search only the relevant part of the pool:

- one **centroid** per cluster in embedding space: the normalised mean of the unit vectors
  of the cluster's memories that stay active after the run (a merge's new memory counts with
  its canonical source's vector, as it carries that text; a cluster with no survivor is
  dropped);
- a short **profile** per cluster: how many active memories it routes to, the most frequent
  terms of their texts (:func:`memmaint.maintenance.retrieve.bm25.tokenize`), their kinds;
- the **assignment** of memory ids to clusters: every member the clustering gave the cluster
  (so a memory a later ``memmaint undo`` restores still routes), the memories the run's merges
  created, and each *noise* memory that stays active, attached to its nearest centroid when
  their cosine is at least ``attach_floor``. A memory attached to no cluster (an outlier, or
  one written after the run) is not assigned: retrieval always scores it.

Only what maintenance computed goes in (texts, vectors, labels, the plan); never ground-truth
topic labels. The table travels with the run: the job stores ``Routing.to_dict()`` with the
applied configuration's outcome in the run report (``RunRecord.report["primary"]["routing"]``;
no store method is needed), and :func:`latest_routing` reads it back.

At read time :func:`route` picks the ``m`` centroids nearest to the query plus every further
centroid within ``margin`` (cosine) of the m-th, so that near-ties are all taken.
:class:`Router` turns that into the set of memories to score: the active members of the picked
clusters plus every unassigned memory, or the whole pool when fewer than ``min_candidates``
memories would be scored (:class:`RouteDecision` says which happened and why).
"""

from __future__ import annotations

import base64
import dataclasses
import heapq
import itertools
import logging
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.retrieve.attach import nearest_centroids
from memmaint.maintenance.retrieve.bm25 import tokenize

log = logging.getLogger(__name__)

ROUTING_FORMAT = "memmaint-routing"
ROUTING_VERSION = 1
#: Key of the routing table inside a stored run report.
REPORT_KEY = "routing"
N_TERMS = 8


# -- geometry ------------------------------------------------------------------------------

#: Rows :func:`unit_rows` converts at once (same norms in any blocking; 1.6x at 300k rows).
UNIT_BLOCK = 8192


def unit_rows(vectors: Any) -> np.ndarray:
    """float64 copies of ``vectors`` scaled to unit length (zero rows stay zero)."""
    src = np.asarray(vectors)
    if src.ndim != 2:
        raise InputError(f"vectors must be a 2-D array, got shape {src.shape}")
    out = np.empty(src.shape, dtype=np.float64)
    for s in range(0, len(src), UNIT_BLOCK):
        x = np.asarray(src[s:s + UNIT_BLOCK], dtype=np.float64)
        if not np.all(np.isfinite(x)):
            raise InputError("vectors contain NaN or infinite values")
        norms = np.linalg.norm(x, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        np.divide(x, norms, out=out[s:s + UNIT_BLOCK])
    return out


def cluster_centroids(vectors: Any, labels: Sequence[int] | np.ndarray,
                      ) -> tuple[np.ndarray, np.ndarray]:
    """``(cluster labels, unit centroids)`` of the rows grouped by ``labels``.

    Rows labelled ``-1`` (noise) and clusters of a single row are not clusters. Centroids are
    the normalised mean of the unit rows, ordered by label.
    """
    x = unit_rows(vectors)
    lab = np.asarray(labels, dtype=np.int64).reshape(-1)
    if len(lab) != len(x):
        raise InputError(f"{len(x)} vectors but {len(lab)} labels")
    counts = Counter(int(v) for v in lab if v >= 0)
    keep = sorted(c for c, n in counts.items() if n >= 2)
    if not keep:
        return np.zeros(0, dtype=np.int64), np.zeros((0, x.shape[1]))
    return np.asarray(keep, dtype=np.int64), unit_rows(_group_means(x, lab, keep))


def _group_means(x: np.ndarray, lab: np.ndarray, keep: Sequence[int]) -> np.ndarray:
    """The mean row of each label of ``keep`` (sorted), summed in row order as
    ``x[lab == c].mean(axis=0)`` sums them, in one pass over the pool instead of one per
    label (quadratic: 11 s for 20,000 clusters of a 200k pool)."""
    rows = np.flatnonzero(np.isin(lab, np.asarray(keep, dtype=np.int64)))
    rows = rows[np.argsort(lab[rows], kind="stable")]  # by label, row order kept within one
    bounds = np.r_[np.flatnonzero(np.r_[True, np.diff(lab[rows]) != 0]), len(rows)]
    grouped = x[rows]
    # each label's rows as one contiguous block, its mean taken as before (same sums, bit
    # for bit), so only the per-label scan of the whole pool is gone
    return np.stack([grouped[a:b].mean(axis=0) for a, b in itertools.pairwise(bounds)])


def route(query_vec: Any, centroids: Any, m: int = 2, margin: float = 0.05) -> np.ndarray:
    """Rows of ``centroids`` to search for ``query_vec``, nearest first.

    The ``m`` nearest centroids (cosine), plus every further one whose cosine is within
    ``margin`` of the m-th: two clusters the query cannot tell apart are both searched.
    Returns an empty array when there are no centroids.
    """
    if m < 1:
        raise InputError(f"route needs m >= 1, got {m}")
    if margin < 0:
        raise InputError(f"route needs margin >= 0, got {margin}")
    cents = np.asarray(centroids, dtype=np.float64)
    if cents.ndim != 2 or cents.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    q = np.asarray(query_vec, dtype=np.float64).reshape(-1)
    if q.shape[0] != cents.shape[1]:
        raise InputError(f"query vector has {q.shape[0]} dims, the centroids {cents.shape[1]}")
    norm = float(np.linalg.norm(q))
    sims = cents @ (q / norm if norm > 0 else q)
    order = np.argsort(-sims, kind="stable")
    cut = sims[order[min(m, len(order)) - 1]] - margin
    return order[sims[order] >= cut]


# -- the routing table ---------------------------------------------------------------------

@dataclass(frozen=True)
class ClusterProfile:
    """What one cluster holds after the run.

    Attributes:
        label: the run's cluster label (namespace-local).
        size: active memories routed to it after the run (survivors plus attached noise).
        clustered: memories the clustering put in it (before the run's actions).
        attached: noise memories attached to it as their nearest centroid.
        terms: its most frequent terms (stop words dropped), most frequent first.
        kinds: kind -> how many of its active memories have it.
    """

    label: int
    size: int
    clustered: int
    attached: int
    terms: tuple[str, ...]
    kinds: Mapping[str, int]

    def describe(self) -> str:
        """One line: ``#3 (12 memories: vpn, certificate, renew; schedule 8, reference 4)``."""
        kinds = ", ".join(f"{k} {n}" for k, n in self.kinds.items())
        return f"#{self.label} ({self.size} memories: {', '.join(self.terms[:5])}; {kinds})"

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "size": self.size, "clustered": self.clustered,
                "attached": self.attached, "terms": list(self.terms), "kinds": dict(self.kinds)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ClusterProfile:
        return cls(int(data["label"]), int(data["size"]), int(data["clustered"]),
                   int(data["attached"]), tuple(str(t) for t in data["terms"]),
                   {str(k): int(v) for k, v in data["kinds"].items()})


@dataclass(frozen=True)
class NamespaceRouting:
    """One namespace's routing table (see the module docstring).

    Attributes:
        namespace: the namespace.
        centroids: ``(clusters, dim)`` float32 unit rows, aligned with ``profiles``.
        profiles: one :class:`ClusterProfile` per centroid.
        assignment: memory id -> cluster label (a label of ``profiles``).
        unassigned: active memories of the run attached to no cluster (always scored).
        run_id, model_id: the run that built it and the embedding model of the vectors.
    """

    namespace: str
    centroids: np.ndarray
    profiles: tuple[ClusterProfile, ...]
    assignment: Mapping[str, int]
    unassigned: int = 0
    run_id: str = ""
    model_id: str = ""

    @property
    def labels(self) -> np.ndarray:
        return np.asarray([p.label for p in self.profiles], dtype=np.int64)

    @property
    def dim(self) -> int:
        return int(self.centroids.shape[1]) if self.centroids.ndim == 2 else 0

    def profile(self, label: int) -> ClusterProfile | None:
        return next((p for p in self.profiles if p.label == label), None)

    def summary(self, n_profiles: int = 10) -> dict[str, Any]:
        """JSON-ready counts and the largest clusters' profiles (no vectors, no ids)."""
        biggest = sorted(self.profiles, key=lambda p: (-p.size, p.label))[:n_profiles]
        return {"clusters": len(self.profiles), "routed": sum(p.size for p in self.profiles),
                "unassigned": self.unassigned, "run_id": self.run_id,
                "profiles": [p.to_dict() for p in biggest]}

    def to_dict(self, members: bool = True) -> dict[str, Any]:
        """JSON-ready; ``members=False`` leaves out the assignment and the centroids: a
        table for display only (the shadow's), which :meth:`from_dict` cannot route with."""
        by_label: dict[str, list[str]] = {}
        for mid, label in (self.assignment.items() if members else ()):
            by_label.setdefault(str(label), []).append(mid)
        out = {"namespace": self.namespace, "run_id": self.run_id, "model_id": self.model_id,
               "profiles": [p.to_dict() for p in self.profiles],
               "members": {k: sorted(v) for k, v in sorted(by_label.items())},
               "unassigned": self.unassigned}
        if members:
            c = np.ascontiguousarray(self.centroids, dtype="<f4")
            out.update(shape=list(c.shape), centroids=base64.b64encode(c.tobytes()).decode())
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NamespaceRouting:
        profiles = tuple(ClusterProfile.from_dict(p) for p in data["profiles"])
        if "centroids" in data:
            shape = tuple(int(s) for s in data["shape"])
            raw = base64.b64decode(data["centroids"])
            cents = np.frombuffer(raw, dtype="<f4").astype(np.float32).reshape(shape)
        else:  # a display-only table (to_dict(members=False)): profiles, nothing to route by
            shape = (len(profiles), 0)
            cents = np.zeros(shape, dtype=np.float32)
        if len(profiles) != shape[0]:
            raise ValueError(f"{shape[0]} centroids but {len(profiles)} profiles")
        assignment = {str(mid): int(label) for label, ids in (data.get("members") or {}).items()
                      for mid in ids}
        return cls(str(data["namespace"]), cents, profiles, assignment,
                   int(data.get("unassigned", 0)), str(data.get("run_id", "")),
                   str(data.get("model_id", "")))


@dataclass(frozen=True)
class Routing:
    """Routing tables by namespace (one run's, or the newest per namespace)."""

    namespaces: Mapping[str, NamespaceRouting] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.namespaces)

    def get(self, namespace: str) -> NamespaceRouting | None:
        return self.namespaces.get(namespace)

    def summary(self, n_profiles: int = 10) -> dict[str, Any]:
        """namespace -> :meth:`NamespaceRouting.summary` (for reports)."""
        return {ns: r.summary(n_profiles) for ns, r in sorted(self.namespaces.items())}

    def to_dict(self, members: bool = True) -> dict[str, Any]:
        """JSON-ready; ``members=False`` leaves out which memory is in which cluster."""
        return {"format": ROUTING_FORMAT, "version": ROUTING_VERSION,
                "namespaces": {ns: r.to_dict(members)
                               for ns, r in sorted(self.namespaces.items())}}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Routing:
        """Read :meth:`to_dict` output; ``InputError`` names what is wrong."""
        if not isinstance(data, Mapping) or data.get("format") != ROUTING_FORMAT:
            raise InputError(f"not a {ROUTING_FORMAT} document")
        if data.get("version") != ROUTING_VERSION:
            raise InputError(f"unsupported routing version {data.get('version')!r} (this "
                             f"memmaint reads {ROUTING_VERSION})")
        try:
            return cls({str(ns): NamespaceRouting.from_dict(r)
                        for ns, r in data["namespaces"].items()})
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"malformed routing table: {type(exc).__name__}: {exc}") from None


def _top_terms(texts: Iterable[str], n: int) -> tuple[str, ...]:
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update({t for t in tokenize(text) if not t.isdigit() and len(t) > 1})
    # the n first by (-count, term), a total order: what sorting every term and cutting gives
    return tuple(t for t, _c in heapq.nsmallest(n, counts.items(),
                                                key=lambda kv: (-kv[1], kv[0])))


def _survivors(memories: Sequence[Any], plan: Any) -> tuple[dict[str, int], dict[str, str]]:
    """(id of an active-after-plan memory -> row of the vector it uses, created id -> label
    key) from a plan; a merge's new memory uses its canonical source's row."""
    from memmaint.maintenance.plan.model import Keep, Merge

    row = {(m.namespace, m.id): i for i, m in enumerate(memories)}
    planned = {(c.namespace, mid) for c in plan.clusters for mid in c.memory_ids}
    # a memory the plan does not cover (an incremental run plans only the touched clusters)
    # stays as it is
    alive: dict[str, int] = {f"{ns}\x1f{mid}": i for (ns, mid), i in row.items()
                             if (ns, mid) not in planned}
    created: dict[str, str] = {}
    for cluster, action in plan.actions():
        ns = cluster.namespace
        if isinstance(action, Keep):
            alive[f"{ns}\x1f{action.memory_id}"] = row[(ns, action.memory_id)]
        elif isinstance(action, Merge):
            key = f"{ns}\x1f{action.new_memory.id}"
            alive[key] = row[(ns, action.source_ids[0])]
            created[key] = action.source_ids[0]
    return alive, created


def build_routing(memories: Sequence[Any], labels: Sequence[int] | np.ndarray, vectors: Any,
                  plan: Any = None, *, attach_floor: float = 0.5, run_id: str = "",
                  model_id: str = "", n_terms: int = N_TERMS) -> Routing:
    """The routing tables of a maintenance run (see the module docstring).

    Args:
        memories: the run's pool (the memories that were clustered), any namespaces.
        labels: the run's cluster label per memory (namespace-local; ``-1`` noise).
        vectors: the memories' embeddings, aligned with ``memories``.
        plan: the run's :class:`~memmaint.maintenance.plan.model.Plan` (after the cap, if any): only
            its survivors shape the centroids and profiles. ``None``: everything survives.
        attach_floor: cosine from which a noise memory is attached to its nearest centroid.
        run_id, model_id: recorded with each table.
        n_terms: terms kept per profile.
    """
    n = len(memories)
    lab = np.asarray(labels, dtype=np.int64).reshape(-1)
    if len(lab) != n:
        raise InputError(f"{n} memories but {len(lab)} labels")
    vecs = np.asarray(vectors) if n else np.zeros((0, 1))
    if vecs.ndim != 2 or vecs.shape[0] != n:
        raise InputError(f"vectors must have shape ({n}, dim), got {vecs.shape}")
    if plan is not None:
        alive, created = _survivors(memories, plan)
    else:
        alive = {f"{m.namespace}\x1f{m.id}": i for i, m in enumerate(memories)}
        created = {}
    by_ns: dict[str, list[int]] = {}
    for i, m in enumerate(memories):
        by_ns.setdefault(m.namespace, []).append(i)
    alive_by_ns: dict[str, dict[str, int]] = {ns: {} for ns in by_ns}
    for key, r in alive.items():  # grouped once: a namespace's table reads only its own
        alive_by_ns.setdefault(key.split("\x1f", 1)[0], {})[key] = r
    tables: dict[str, NamespaceRouting] = {}
    for ns in sorted(by_ns):
        rows = np.asarray(by_ns[ns])  # unit rows per namespace: never the whole pool at once
        tables[ns] = _namespace_table(ns, [memories[i] for i in rows], lab[rows],
                                      unit_rows(vecs[rows]), rows,
                                      alive_by_ns[ns], created, attach_floor, run_id,
                                      model_id, n_terms)
    return Routing(tables)


def _namespace_table(ns: str, mems: list[Any], lab: np.ndarray, x: np.ndarray,
                     rows: np.ndarray, alive: Mapping[str, int], created: Mapping[str, str],
                     attach_floor: float, run_id: str, model_id: str,
                     n_terms: int) -> NamespaceRouting:
    counts = Counter(int(v) for v in lab if v >= 0)
    label_of = {m.id: (int(v) if counts.get(int(v), 0) >= 2 else -1) for m, v in zip(mems, lab)}
    # survivors of this namespace: (id, vector row, label); created memories take their
    # canonical source's label
    surv: list[tuple[str, int, int]] = []
    for key, r in alive.items():
        k_ns, mid = key.split("\x1f", 1)
        if k_ns != ns:
            continue
        source = created.get(key, mid)
        surv.append((mid, r, label_of.get(source, -1)))
    surv.sort(key=lambda t: t[1])
    # x holds this namespace's rows only: pool row r is x[searchsorted(rows, r)]
    s_rows = np.searchsorted(rows, np.asarray([r for _m, r, _l in surv], dtype=np.int64))
    s_lab = np.asarray([lb for _m, _r, lb in surv], dtype=np.int64)
    cl, cents = (cluster_centroids(x[s_rows], s_lab) if len(surv)
                 else (np.zeros(0, dtype=np.int64), np.zeros((0, x.shape[1]))))
    # a cluster that kept a single survivor still routes to it
    singles = sorted({int(v) for v in s_lab if v >= 0} - set(cl.tolist()))
    if singles:
        extra = unit_rows(_group_means(x[s_rows], s_lab, singles))
        cl = np.concatenate([cl, np.asarray(singles, dtype=np.int64)])
        cents = np.vstack([cents, extra]) if len(cents) else extra
        order = np.argsort(cl, kind="stable")
        cl, cents = cl[order], cents[order]
    assignment: dict[str, int] = {}
    kept = set(cl.tolist())
    for m in mems:
        if label_of[m.id] in kept:
            assignment[m.id] = label_of[m.id]
    attached: Counter[int] = Counter()
    unassigned = 0
    loose = [(mid, r) for mid, r, lb in surv if lb not in kept]
    for mid, r, lb in surv:
        if lb in kept:
            assignment[mid] = lb
    if len(cl) and loose:  # the nearest centroid of each loose survivor
        pick, value = nearest_centroids(
            x, np.searchsorted(rows, np.asarray([r for _m, r in loose], dtype=np.int64)), cents)
        for (mid, _r), best, cos in zip(loose, pick.tolist(), value.tolist()):
            if cos >= attach_floor:
                assignment[mid] = int(cl[best])
                attached[int(cl[best])] += 1
            else:
                unassigned += 1
    else:
        unassigned = len(loose)
    by_id = {m.id: m for m in mems}
    routed: dict[int, list[tuple[str, int]]] = {int(c): [] for c in cl}
    for mid, r, _lb in surv:
        label = assignment.get(mid)
        if label is not None:
            routed[label].append((mid, r))
    profiles = []
    for c in cl:
        members = routed[int(c)]
        texts: list[str] = []
        kinds: Counter[str] = Counter()
        for mid, r in members:
            mem = by_id.get(mid) or _row_memory(mems, rows, r)
            texts.append(mem.text)
            kinds[mem.kind] += 1
        profiles.append(ClusterProfile(int(c), len(members), counts.get(int(c), 0),
                                       attached.get(int(c), 0), _top_terms(texts, n_terms),
                                       dict(kinds.most_common())))
    return NamespaceRouting(ns, np.asarray(cents, dtype=np.float32), tuple(profiles),
                            assignment, unassigned, run_id, model_id)


def _row_memory(mems: list[Any], rows: np.ndarray, r: int) -> Any:
    """The memory at pool row ``r`` (a merge's canonical source, for its text and kind)."""
    return mems[int(np.searchsorted(rows, r))]


# -- read time -----------------------------------------------------------------------------

@dataclass(frozen=True)
class RouteDecision:
    """What routing did for one query.

    Attributes:
        clusters: ``(namespace, label, cosine)`` of the picked clusters, nearest first.
        candidates: memories scored.
        unassigned: of those, memories no cluster holds (new since the run, or outliers).
        pool: active memories in the pool.
        fallback: why the whole pool was scored instead (``None`` when routing was used).
        terms: ``(namespace, label) -> profile terms`` of the picked clusters.
    """

    clusters: tuple[tuple[str, int, float], ...]
    candidates: int
    unassigned: int
    pool: int
    fallback: str | None = None
    terms: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def routed(self) -> bool:
        return self.fallback is None

    def describe(self) -> str:
        if self.fallback:
            return f"routing fell back to the whole pool ({self.pool}): {self.fallback}"
        picked = ", ".join(
            f"{ns}/#{lb} ({sim:.2f}: {', '.join(self.terms.get(f'{ns}/{lb}', ())[:3])})"
            for ns, lb, sim in self.clusters)
        return (f"routed to {picked}: {self.candidates} of {self.pool} memories scored "
                f"({self.unassigned} unassigned)")

    def to_dict(self) -> dict[str, Any]:
        return {"clusters": [list(c) for c in self.clusters], "candidates": self.candidates,
                "unassigned": self.unassigned, "pool": self.pool, "fallback": self.fallback,
                "terms": {k: list(v) for k, v in self.terms.items()}}


class Router:
    """A routing table bound to a pool of active memories: which rows to score per query.

    Args:
        routing: the tables (:func:`latest_routing`, or ``Routing.from_dict``).
        memories: the active memories retrieval searches, in its row order.
        model_id: the embedding model of the query vectors, when known; a table built with
            another model is refused (``InputError``).
    """

    def __init__(self, routing: Routing, memories: Sequence[Any], model_id: str | None = None):
        self.routing = routing
        self.n = len(memories)
        self._rows: dict[str, dict[int, np.ndarray]] = {}
        free: list[int] = []
        for ns, table in routing.namespaces.items():
            if model_id and table.model_id and table.model_id != model_id:
                raise InputError(f"the routing table of namespace {ns!r} was built with "
                                 f"{table.model_id}, queries use {model_id}")
        groups: dict[tuple[str, int], list[int]] = {}
        for i, mem in enumerate(memories):
            ns_table = routing.get(mem.namespace)
            label = None if ns_table is None else ns_table.assignment.get(mem.id)
            if label is None:
                free.append(i)
            else:
                groups.setdefault((mem.namespace, label), []).append(i)
        for (ns, label), idx in groups.items():
            self._rows.setdefault(ns, {})[label] = np.asarray(idx, dtype=np.int64)
        self._free = np.asarray(free, dtype=np.int64)

    def candidates(self, query_vec: Any, m: int = 2, margin: float = 0.05,
                   min_candidates: int = 10) -> tuple[np.ndarray | None, RouteDecision]:
        """``(rows to score or None for all, decision)`` for one query vector."""
        picked: list[tuple[str, int, float]] = []
        parts = [self._free]
        terms: dict[str, tuple[str, ...]] = {}
        q = np.asarray(query_vec, dtype=np.float64).reshape(-1)
        qn = q / (float(np.linalg.norm(q)) or 1.0)
        for ns, table in sorted(self.routing.namespaces.items()):
            rows = self._rows.get(ns)
            if not rows or not len(table.profiles):
                continue
            cents = np.asarray(table.centroids, dtype=np.float64)
            for j in route(qn, cents, m, margin):
                label = table.profiles[j].label
                picked.append((ns, label, float(cents[j] @ qn)))
                terms[f"{ns}/{label}"] = table.profiles[j].terms
                if label in rows:
                    parts.append(rows[label])
        idx = np.unique(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.int64)
        n_free = len(self._free)
        if not picked:
            return None, RouteDecision((), self.n, n_free, self.n,
                                       "no routing table covers the pool")
        if len(idx) < min(min_candidates, self.n):
            return None, RouteDecision(tuple(picked), self.n, n_free, self.n,
                                       f"the picked clusters hold {len(idx)} memories, fewer "
                                       f"than route_min_candidates = {min_candidates}", terms)
        return idx, RouteDecision(tuple(picked), len(idx), n_free, self.n, None, terms)


def routing_from_report(report: Mapping[str, Any] | None) -> Routing | None:
    """The routing table stored in a run report dict, or ``None`` when it has none.

    The job keeps it with the applied configuration's outcome (``report["primary"]["routing"]``);
    a top-level ``report["routing"]`` is read too. Tables without a run id get the report's.
    """
    if not isinstance(report, Mapping):
        return None
    primary = report.get("primary")
    data = report.get(REPORT_KEY) or (primary.get(REPORT_KEY)
                                      if isinstance(primary, Mapping) else None)
    if not data:
        return None
    routing = Routing.from_dict(data)
    run_id = str(report.get("run_id") or "")
    return Routing({ns: t if t.run_id or not run_id else dataclasses.replace(t, run_id=run_id)
                    for ns, t in routing.namespaces.items()})


def latest_routing(store: Any, namespaces: Sequence[str] | None = None) -> Routing:
    """The newest routing table of each namespace, from the store's succeeded runs.

    Runs that failed, were dry runs or were undone are skipped. Namespaces without any table
    are simply absent (retrieval then scores their whole pool).
    """
    wanted = None if namespaces is None else set(namespaces)
    found: dict[str, NamespaceRouting] = {}
    for run in store.list_runs():
        if run.status != "succeeded":
            continue
        routing = routing_from_report(run.report)
        if routing is None:
            continue
        for ns, table in routing.namespaces.items():
            if (wanted is None or ns in wanted) and ns not in found:
                found[ns] = table
        if wanted is not None and wanted <= set(found):
            break
    return Routing(found)


#: Succeeded runs whose routing table of a namespace is kept: the newest, and one to fall back
#: on when it is undone. Older tables are never read (:func:`latest_routing` takes the newest)
#: and hold a centroid per cluster, about 10 MB per run for a 100k-memory namespace.
KEEP_ROUTING_RUNS = 2


def prune_routing_tables(store: Any, keep: int = KEEP_ROUTING_RUNS) -> int:
    """Drop routing tables that :func:`latest_routing` can no longer reach from stored run
    reports: a namespace's tables beyond its ``keep`` newest succeeded runs, and every table
    of a run that did not succeed. The rest of each report is left as it was. Returns how
    many tables were dropped."""
    seen: Counter[str] = Counter()
    dropped = 0
    for run in store.list_runs():
        report = run.report if isinstance(run.report, Mapping) else None
        holder = report
        if report is not None and not report.get(REPORT_KEY):
            primary = report.get("primary")
            holder = primary if isinstance(primary, Mapping) else None
        data = holder.get(REPORT_KEY) if holder is not None else None
        if not isinstance(data, Mapping) or not isinstance(data.get("namespaces"), Mapping):
            continue
        tables = dict(data["namespaces"])
        for ns in sorted(tables):
            if run.status == "succeeded":
                seen[ns] += 1
                if seen[ns] <= keep:
                    continue
            del tables[ns]
        if len(tables) == len(data["namespaces"]):
            continue
        dropped += len(data["namespaces"]) - len(tables)
        new_data = {**data, "namespaces": tables}
        assert report is not None and holder is not None  # data came from holder
        if holder is report:
            new_report = {**report, REPORT_KEY: new_data}
        else:
            new_report = {**report, "primary": {**holder, REPORT_KEY: new_data}}
        store.save_run(dataclasses.replace(run, report=new_report))
    if dropped:
        log.info("dropped %d routing tables no run can use any more", dropped)
    return dropped
