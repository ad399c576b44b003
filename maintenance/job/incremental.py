"""Incremental runs (``[job] incremental``): a night's cost follows what changed.

After a successful (applied) run the job keeps, per namespace, what it computed: the
memories it left active, each one's final cluster label (after regrouping and splitting:
the groups the agents planned), version, usage counters and 2-D map point
(:class:`NamespaceState`, one ``.npz`` file per namespace in :class:`StateDir`). The next run
with ``incremental`` on, per namespace:

1. **checks the state still describes the store**: it was written by the namespace's last
   successful run (so a crash between the commit and the state's write, an undo, a reviewed
   apply or any run that did not write it leaves a state that no longer matches), under the
   same configuration (every section but ``[job]`` and ``[retrieve]``) and embedding model,
   without ``agents.max_active`` (the cap is namespace-wide); otherwise the namespace is
   reduced and clustered in full, exactly as without ``incremental``;
2. **measures drift**: memories added, changed (a new version) or removed since the last
   *full* rebuild, over the active pool that rebuild saw. Past ``incremental_max_drift``
   the namespace is rebuilt in full (the statistic restarts at 0);
3. **places** every new or changed memory: it joins the cluster of its nearest unchanged
   memory (cosine in embedding space: exact, in blocks, up to :data:`PLACE_EXACT_MAX`
   unchanged memories; above it searched in the nearest cells of an inverted file,
   :func:`_nearest_cells`) when that cosine is at least
   ``incremental_cos``; a nearest memory that is noise at that cosine is pulled in with it
   (the regrouping then decides whether they belong together); else it is noise;
4. **sweeps the whole pool for time**, without clustering: a cluster is re-planned when a
   member's freshness verdict changed since the last run's time (TTL expiry), a noise
   memory crossed ``noise_min_age_days``, or its outcome counters moved (or it has failures:
   outcome decisions decay with time);
5. hands the **touched clusters** (they gained, lost or changed a member, or the sweep
   flagged them) to the same stages as a full run: regrouping, outcome siblings, updates,
   splitting, planning, the cap and routing see the touched memories; every other memory
   keeps its cluster and is not planned (no LLM call for it).

Before anything is embedded, a namespace whose state is valid and that had nothing added,
changed or removed and nothing the sweep finds due is **idle** (:func:`idle_namespaces`): it
is left out of the run (even with ``force``), so it costs reading its memories and its state;
its state stays the one its last successful run wrote, and so stays valid.

``--full`` (``run_job(full=True)``) ignores the state: the run is exactly a run without it, and
its state restarts drift. A dry run reads the state and writes none.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from memmaint.maintenance.core.config import Config
from memmaint.maintenance.core.freshness import age_days, freshness, verdict
from memmaint.maintenance.core.records import Memory, format_time, parse_time
from memmaint.maintenance.job.around import around_changes
from memmaint.maintenance.job.outcome import Pool

log = logging.getLogger(__name__)

STATE_VERSION = 1
#: rows of the changed memories compared with the whole pool at once (bounds memory)
PLACE_BLOCK = 256
#: Up to this many unchanged memories in a namespace the nearest search is exact (every
#: test, golden plan and decision set is far below it); above it, with at least
#: :data:`PLACE_BLOCK` changed memories (fewer cost one exact block), it is approximate:
#: :func:`_nearest_cells`.
PLACE_EXACT_MAX = 200_000
#: Cells of the inverted file each changed memory is compared with (its nearest ones).
PLACE_PROBES = 16


@dataclass
class NamespaceState:
    """What a successful run left for the next one in one namespace (arrays by memory)."""

    namespace: str
    run_id: str
    config_key: str
    model_id: str
    now: datetime
    ids: np.ndarray  # str
    versions: np.ndarray  # int64
    labels: np.ndarray  # int64, -1 noise
    usage: np.ndarray  # int64 (n, 3): successes, failures, retrievals
    map_xy: np.ndarray  # float32 (n, 2)
    base_size: int  # active memories at the last full rebuild
    drift: int  # memories added, changed or removed since then
    full_run_id: str
    #: float32 (n, dim) embeddings, NaN rows where unknown (a merged memory): the next run
    #: reads an unchanged memory's vector here instead of the cache (None: none kept)
    vectors: np.ndarray | None = None

    def meta(self) -> dict[str, Any]:
        return {"version": STATE_VERSION, "namespace": self.namespace, "run_id": self.run_id,
                "config_key": self.config_key, "model_id": self.model_id,
                "now": format_time(self.now), "base_size": int(self.base_size),
                "drift": int(self.drift), "full_run_id": self.full_run_id}


class StateDir:
    """Namespace states as files in one folder (written whole, then renamed into place).

    Not ``fsync``-ed (one per namespace was most of a many-namespace night's state writes):
    a state lost or torn by a crash reads as missing or unreadable, or names an older run,
    and each of those only makes that namespace's next run full."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def file(self, namespace: str) -> Path:
        return self.path / f"{hashlib.sha256(namespace.encode()).hexdigest()[:24]}.npz"

    def load(self, namespace: str) -> NamespaceState | None:
        """The namespace's state, or None (none kept, or unreadable: logged)."""
        path = self.file(namespace)
        if not path.exists():
            return None
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                if meta.get("version") != STATE_VERSION or meta.get("namespace") != namespace:
                    raise ValueError("another version or namespace")
                now = parse_time(meta["now"])
                if now is None:
                    raise ValueError("no time")
                state = NamespaceState(
                    namespace, str(meta["run_id"]), str(meta["config_key"]),
                    str(meta["model_id"]), now, data["ids"].astype(str),
                    data["versions"].astype(np.int64), data["labels"].astype(np.int64),
                    data["usage"].astype(np.int64).reshape(-1, 3),
                    data["map_xy"].astype(np.float32).reshape(-1, 2),
                    int(meta["base_size"]), int(meta["drift"]), str(meta["full_run_id"]),
                    data["vectors"].astype(np.float32, copy=False)
                    if "vectors" in data.files else None)
        except Exception as exc:  # noqa: BLE001 - a bad state only costs a full run
            log.warning("incremental state of namespace %s unreadable (%s): full run",
                        namespace, exc)
            return None
        n = len(state.ids)
        if not all(len(a) == n for a in (state.versions, state.labels, state.usage,
                                         state.map_xy)) or (
                state.vectors is not None and (state.vectors.ndim != 2
                                               or len(state.vectors) != n)):
            log.warning("incremental state of namespace %s inconsistent: full run", namespace)
            return None
        return state

    def save(self, state: NamespaceState) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path, prefix=".tmp-", suffix=".npz")
        try:
            with os.fdopen(fd, "wb") as fh:
                arrays: dict[str, np.ndarray] = {
                    "meta": np.array(json.dumps(state.meta())),
                    "ids": np.asarray(state.ids, dtype=str), "versions": state.versions,
                    "labels": state.labels, "usage": state.usage, "map_xy": state.map_xy}
                if state.vectors is not None:
                    arrays["vectors"] = state.vectors
                np.savez(fh, **arrays)  # type: ignore[arg-type]
            os.replace(tmp, self.file(state.namespace))
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def state_dir_for(store: Any) -> StateDir | None:
    """Where a store's states live: ``<db>.state/`` beside a SQLite file, else
    ``$MEMMAINT_CACHE_DIR/state/<hash of the store URL>`` (``~/.cache/memmaint`` without it);
    None for a store with neither (in memory)."""
    path = getattr(store, "path", None)
    if path is not None:
        return StateDir(f"{path}.state")
    url = getattr(store, "url", None)
    if not url or url == ":memory:":
        return None
    base = os.environ.get("MEMMAINT_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "memmaint")
    return StateDir(Path(base) / "state" / hashlib.sha256(str(url).encode()).hexdigest()[:24])


def config_key(config: Config) -> str:
    """The settings a state depends on: every section but ``[job]`` and ``[retrieve]``."""
    data = {k: v for k, v in config.to_dict().items() if k not in ("job", "retrieve")}
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


# -- placing what changed ----------------------------------------------------------------------

@dataclass
class Placement:
    """One namespace's incremental plan of work (positions are namespace-local)."""

    rows: np.ndarray  # positions re-grouped and planned (sorted)
    labels: np.ndarray  # their labels before regrouping: kept, placed or -1
    keep: np.ndarray  # positions left in their cluster, not planned
    keep_labels: np.ndarray
    map_xy: np.ndarray  # (n, 2) every position's map point
    stats: dict[str, Any] = field(default_factory=dict)


def _nearest(queries: np.ndarray, base: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Best cosine and its row in ``base`` for every row of ``queries`` (unit rows)."""
    best = np.full(len(queries), -np.inf, dtype=np.float32)
    arg = np.zeros(len(queries), dtype=np.int64)
    for s in range(0, len(queries), PLACE_BLOCK):
        sims = queries[s:s + PLACE_BLOCK] @ base.T
        arg[s:s + PLACE_BLOCK] = np.argmax(sims, axis=1)
        best[s:s + PLACE_BLOCK] = sims[np.arange(len(sims)), arg[s:s + PLACE_BLOCK]]
    return best, arg


def _nearest_cells(queries: np.ndarray, base: np.ndarray, *, probes: int = PLACE_PROBES,
                   cells: int | None = None, spill: int = 1, seed: int = 0
                   ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_nearest`, approximately, by an inverted file: ``base`` is cut into ``k``
    cells (``cells``, else ``sqrt(len(queries) * probes)``) by the update grouping's
    spherical k-means (``clustering.cells``, seeded), each base row listed in its ``spill``
    nearest cells, and each query compared only with the members of its ``probes`` nearest
    cells. The default ``k`` balances the two costs (assigning the base: ``n k`` cosines;
    the searches: ``q probes n / k``), so 10,000 queries against 1M compare about 8e8 pairs
    instead of 1e10. Built each call (nothing kept in the state). A nearest row whose cell
    is not among the query's probed cells is missed, and a worse one returned (or none:
    cosine -inf, where every probed cell is empty); where the exact nearest is found, the
    result is the exact one (ties: the lowest row). How often it is missed depends on how
    the pool clusters: ``benchmarks/place_1m.py``."""
    from memmaint.clustering.cells import nearest_in_cells

    return nearest_in_cells(queries, base, probes=probes, cells=cells, spill=spill,
                            seed=seed, block=PLACE_BLOCK)


def nearest_rows(queries: np.ndarray, base: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The place stage's search: exact (:func:`_nearest`) up to :data:`PLACE_EXACT_MAX`
    base rows or below :data:`PLACE_BLOCK` queries, else :func:`_nearest_cells`."""
    if len(base) <= PLACE_EXACT_MAX or len(queries) < PLACE_BLOCK:
        return _nearest(queries, base)
    return _nearest_cells(queries, base)


def _unit(vectors: np.ndarray) -> np.ndarray:
    v = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return np.divide(v, norms, out=np.zeros_like(v), where=norms > 0)


def _usage(memories: Sequence[Memory]) -> np.ndarray:
    return np.asarray([(m.successes, m.failures, m.retrievals) for m in memories],
                      dtype=np.int64).reshape(-1, 3)


def time_sweep(memories: Sequence[Memory], state: NamespaceState, srow: np.ndarray,
               noise: np.ndarray, config: Config, now: datetime) -> np.ndarray:
    """Which (known, unchanged) memories a time-driven rule may now decide differently:
    verdict changed since ``state.now``, a noise memory crossed ``noise_min_age_days``,
    outcome counters moved, retrievals went from none to some, or any failures (outcome
    decisions decay with time). No clustering: a pass over the pool."""
    agents = config.agents
    ttl = agents.ttl_days
    then = state.now
    usage = _usage(memories)
    old = state.usage[srow]
    out = ((usage[:, :2] != old[:, :2]).any(axis=1) | (usage[:, 1] > 0)
           | ((usage[:, 2] > 0) != (old[:, 2] > 0)))
    min_age = agents.noise_min_age_days
    for i in np.flatnonzero(~out).tolist():
        m = memories[i]
        out[i] = (verdict(freshness(m, now, ttl)) != verdict(freshness(m, then, ttl))
                  or bool(noise[i]) and ((age_days(m, now) >= min_age)
                                         != (age_days(m, then) >= min_age)))
    return out


def place(state: NamespaceState, memories: Sequence[Memory], vectors: np.ndarray | None,
          config: Config, now: datetime) -> Placement | str:
    """One namespace's placement against its state, or why it needs a full run
    (``vectors``: the memories' embeddings, needed only when some changed)."""
    job = config.job
    n = len(memories)
    pos = {mid: i for i, mid in enumerate(state.ids.tolist())}
    srow = np.fromiter((pos.get(m.id, -1) for m in memories), dtype=np.int64, count=n)
    known = srow >= 0
    versions = np.fromiter((m.version for m in memories), dtype=np.int64, count=n)
    changed = ~known.copy()
    changed[known] = versions[known] != state.versions[srow[known]]
    present = np.zeros(len(state.ids), dtype=bool)
    present[srow[known]] = True
    removed = np.flatnonzero(~present)
    n_changed, n_removed = int(changed.sum()), int(removed.size)
    drift = state.drift + n_changed + n_removed
    ratio = drift / max(state.base_size, 1)
    if ratio > job.incremental_max_drift:
        return (f"drift {ratio:.3f} ({drift} memories added, changed or removed since the "
                f"full rebuild of {state.base_size}) > incremental_max_drift "
                f"{job.incremental_max_drift:g}")
    labels = np.where(known, state.labels[np.maximum(srow, 0)], -1)
    unchanged = ~changed
    sizes = np.bincount(labels[labels >= 0]) if (labels >= 0).any() else np.zeros(0, int)
    noise = (labels < 0) | (sizes[np.maximum(labels, 0)] == 1) if sizes.size else labels < 0
    swept = np.zeros(n, dtype=bool)
    still = [memories[i] for i in np.flatnonzero(unchanged).tolist()]
    swept[unchanged] = time_sweep(still, state, srow[unchanged], noise[unchanged], config, now)
    touched: set[int] = set(labels[changed & known & (labels >= 0)].tolist())
    touched.update(state.labels[removed][state.labels[removed] >= 0].tolist())
    touched.update(labels[swept & (labels >= 0)].tolist())
    placed = np.full(n, -1, dtype=np.int64)
    pulled = np.zeros(n, dtype=bool)
    map_xy = np.zeros((n, 2), dtype=np.float32)
    map_xy[known] = state.map_xy[srow[known]]
    c_rows, b_rows = np.flatnonzero(changed), np.flatnonzero(unchanged)
    n_placed = 0
    unit: np.ndarray | None = None
    if c_rows.size and b_rows.size:
        assert vectors is not None, "changed memories are placed by their embeddings"
        unit = _unit(vectors)
        best, arg = nearest_rows(unit[c_rows], unit[b_rows])
        nearest = b_rows[arg]
        near = best >= job.incremental_cos
        joins = near & (labels[nearest] >= 0)
        placed[c_rows[joins]] = labels[nearest[joins]]
        pulled[nearest[near & ~joins]] = True
        touched.update(placed[c_rows[joins]].tolist())
        map_xy[c_rows] = map_xy[nearest]
        n_placed = int(joins.sum())
    in_touched = np.isin(labels, np.fromiter(touched, dtype=np.int64, count=len(touched))) \
        & (labels >= 0) & unchanged
    around = 0
    if vectors is not None and c_rows.size:
        anchors = np.flatnonzero((placed >= 0) | (swept & (labels >= 0)))
        anchor_labels = np.where(placed[anchors] >= 0, placed[anchors], labels[anchors])
        in_touched, around = around_changes(labels, in_touched, anchors, anchor_labels,
                                            _unit(vectors) if unit is None else unit,
                                            block=PLACE_BLOCK)
    sub = changed | in_touched | pulled | (swept & (labels < 0))
    rows = np.flatnonzero(sub)
    sub_labels = np.where(changed, placed, np.where(in_touched, labels, -1))[rows]
    keep = np.flatnonzero(~sub)
    stats = {"mode": "incremental", "changed": n_changed, "removed": n_removed,
             "placed": n_placed, "unplaced": int(c_rows.size - n_placed),
             "pulled_noise": int(pulled.sum()), "swept": int(swept.sum()),
             "touched_clusters": len(touched), "planned_memories": int(rows.size),
             "kept_memories": int(keep.size), "drift": round(ratio, 4),
             "planned_around": around,
             "state_run": state.run_id}
    if b_rows.size > PLACE_EXACT_MAX and c_rows.size >= PLACE_BLOCK:
        stats["place_search"] = "cells"  # approximate (absent: exact)
    return Placement(rows, sub_labels.astype(np.int64), keep, labels[keep], map_xy, stats)


# -- the run's view: which rows go through the stages ---------------------------------------

@dataclass
class Incremental:
    """The run's incremental mode: placements for some namespaces, full runs for the rest."""

    placements: dict[str, Placement]
    modes: dict[str, dict[str, Any]]  # namespace -> mode, why, counts (for the report)
    states: dict[str, NamespaceState]
    key: str
    model_id: str
    #: the whole pool's labels and reduced maps after planning (set by the job)
    final: tuple[np.ndarray, dict[str, Any]] = (np.zeros(0, dtype=np.int64), {})

    def sub_rows(self, pool: Pool) -> np.ndarray:
        """Pool rows that go through the stages: whole namespaces run in full, the placed
        rows of incremental ones (in pool order)."""
        parts = [idx if ns not in self.placements else idx[self.placements[ns].rows]
                 for ns, idx in pool.by_namespace.items()]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    def sub_pool(self, pool: Pool) -> tuple[Pool, dict[str, np.ndarray]]:
        """The pool of :meth:`sub_rows` and, per incremental namespace, the labels it starts
        from (instead of reducing and clustering)."""
        assert pool.vectors is not None
        rows = self.sub_rows(pool)
        if len(rows) == len(pool.memories):
            by_ns = dict(pool.by_namespace)
            sub = pool
        else:
            by_ns, at = {}, 0
            for ns, idx in pool.by_namespace.items():
                k = len(idx) if ns not in self.placements else len(self.placements[ns].rows)
                if k:
                    by_ns[ns] = np.arange(at, at + k)
                at += k
            sub = Pool([pool.memories[i] for i in rows], by_ns, pool.vectors[rows],
                       pool.embedding, pool.siblings)
        fixed = {ns: self.placements[ns].labels for ns in self.placements if ns in by_ns}
        return sub, fixed

    def combine(self, pool: Pool, sub: Pool, sub_labels: np.ndarray) -> np.ndarray:
        """Labels for the whole pool: the stages' labels where they ran, the kept clusters'
        elsewhere (the stages' labels moved above them)."""
        if sub is pool:
            return sub_labels
        out = np.full(len(pool.memories), -1, dtype=np.int64)
        for ns, idx in pool.by_namespace.items():
            got = sub_labels[sub.by_namespace[ns]] if ns in sub.by_namespace \
                else np.zeros(0, dtype=np.int64)
            p = self.placements.get(ns)
            if p is None:
                out[idx] = got
                continue
            local = np.full(len(idx), -1, dtype=np.int64)
            local[p.keep] = p.keep_labels
            offset = int(p.keep_labels.max()) + 1 if p.keep_labels.size else 0
            local[p.rows] = np.where(got >= 0, got + offset, -1)
            out[idx] = local
        return out

    def next_states(self, pool: Pool, labels: np.ndarray, reduced: Mapping[str, Any],
                    the_plan: Any, applied: Sequence[str], run_id: str,
                    now: datetime) -> list[NamespaceState]:
        """Each namespace's state after the run's plan was applied (``applied``: the keys
        of the clusters the applier changed; the others are as they were)."""
        from memmaint.maintenance.report.model import map_coordinates

        done = set(applied)
        retired: set[tuple[str, str]] = set()
        created: dict[str, list[tuple[Memory, str]]] = {}
        for cluster in the_plan.clusters:
            if cluster.key not in done:
                continue
            alive = cluster.survivors()
            retired.update((cluster.namespace, mid) for mid in cluster.memory_ids
                           if mid not in alive)
            for new in cluster.created:
                src = next(a.source_ids[0] for a in cluster.actions
                           if getattr(a, "new_memory", None) is new)
                created.setdefault(cluster.namespace, []).append((new, src))
        out = []
        for ns, idx in pool.by_namespace.items():
            mems = [pool.memories[i] for i in idx]
            lab = labels[idx]
            p = self.placements.get(ns)
            if p is not None:
                xy = p.map_xy
            else:
                coords = reduced.get(ns)
                xy = map_coordinates(coords)[0] if coords is not None else np.zeros((0, 2))
                if len(xy) != len(mems):
                    xy = np.zeros((len(mems), 2))
            row_of = {m.id: i for i, m in enumerate(mems)}
            keep = [i for i, m in enumerate(mems) if (ns, m.id) not in retired]
            extra = [(new, row_of[src]) for new, src in created.get(ns, ()) if src in row_of]
            all_mems = [mems[i] for i in keep] + [new for new, _ in extra]
            rows = np.asarray(keep + [r for _, r in extra], dtype=np.int64)
            raw = lab[rows] if rows.size else np.zeros(0, dtype=np.int64)
            compact = np.full(len(raw), -1, dtype=np.int64)
            if (raw >= 0).any():
                compact[raw >= 0] = np.unique(raw[raw >= 0], return_inverse=True)[1]
            prev = self.states.get(ns)
            if p is not None and prev is not None:
                base, drift = prev.base_size, prev.drift + p.stats["changed"] \
                    + p.stats["removed"]
                full_run = prev.full_run_id
            else:
                base, drift, full_run = len(mems), 0, run_id
            vecs = None
            if pool.vectors is not None and len(pool.vectors) == len(pool.memories):
                vecs = np.full((len(rows), pool.vectors.shape[1]), np.nan, dtype=np.float32)
                vecs[:len(keep)] = pool.vectors[idx[np.asarray(keep, dtype=np.int64)]]
            out.append(NamespaceState(
                ns, run_id, self.key, self.model_id, now,
                np.asarray([m.id for m in all_mems], dtype=str),
                np.asarray([m.version for m in all_mems], dtype=np.int64), compact,
                _usage(all_mems), np.asarray(xy, dtype=np.float32)[rows].reshape(-1, 2),
                base, drift, full_run, vecs))
        return out


def kept_vectors(memories: Sequence[Memory], state: NamespaceState | None,
                 dim: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows of ``memories`` (one namespace's) whose vector ``state`` keeps (same id and
    version, a finite row of ``dim`` columns), and those vectors."""
    vecs = None if state is None else state.vectors
    if state is None or vecs is None or vecs.shape[1] != dim or not len(memories):
        return np.zeros(0, dtype=np.int64), np.zeros((0, dim), dtype=np.float32)
    pos = {mid: i for i, mid in enumerate(state.ids.tolist())}
    srow = np.fromiter((pos.get(m.id, -1) for m in memories), dtype=np.int64,
                       count=len(memories))
    ok = srow >= 0
    ok[ok] = state.versions[srow[ok]] == np.fromiter(
        (m.version for m, k in zip(memories, ok) if k), dtype=np.int64, count=int(ok.sum()))
    rows = np.flatnonzero(ok)
    got = vecs[srow[rows]]
    finite = np.isfinite(got).all(axis=1)
    return rows[finite], np.ascontiguousarray(got[finite])


def check_state(store_dir: StateDir | None, config: Config, ns: str,
                last_run: str | None, key: str, model_id: str,
                *, full: bool) -> NamespaceState | str:
    """``ns``'s state when it still describes the store, else why the namespace runs in
    full."""
    if full:
        return "--full"
    if store_dir is None:
        return "the store keeps no state (in memory)"
    if config.agents.max_active is not None:
        return "agents.max_active is set (the cap is namespace-wide)"
    state = store_dir.load(ns)
    if state is None:
        return "no state from an earlier run"
    if state.run_id != last_run:
        return (f"the state is from run {state.run_id}, the last successful run is "
                f"{last_run or 'none'}")
    if state.config_key != key:
        return "the configuration changed since the state was written"
    if state.model_id != model_id:
        return "the embedding model changed"
    return state


def idle_namespaces(store_dir: StateDir | None, config: Config,
                    loaded: Mapping[str, Sequence[Memory]], last_runs: Mapping[str, str],
                    now: datetime, model_id: str,
                    ) -> tuple[dict[str, str], dict[str, NamespaceState]]:
    """Before anything is embedded: the namespaces of ``loaded`` with a valid state and no
    work at all (nothing added, changed or removed since it, and the time sweep finds nothing
    due), each with why, and the valid states of the others (for :func:`prepare`). An idle
    namespace is left out of the run: it is not embedded, planned or routed again and its
    state stays the one its last successful run wrote, so it stays valid. ``model_id``: the
    run's embedder's."""
    key = config_key(config)
    idle: dict[str, str] = {}
    states: dict[str, NamespaceState] = {}
    for ns, memories in loaded.items():
        state = check_state(store_dir, config, ns, last_runs.get(ns), key, model_id,
                            full=False)
        if isinstance(state, str):
            continue
        known = dict(zip(state.ids.tolist(), state.versions.tolist()))
        if len(memories) != len(known) or any(known.get(m.id) != m.version
                                               for m in memories):
            states[ns] = state  # something was added, changed or removed
            continue
        got = place(state, memories, None, config, now)  # the time sweep
        if isinstance(got, Placement) and not got.rows.size and not got.stats["removed"]:
            idle[ns] = (f"incremental: nothing added, changed or removed since run "
                        f"{state.run_id} and nothing time-driven due")
        else:
            states[ns] = state
    return idle, states


def prepare(store_dir: StateDir | None, config: Config, pool: Pool,
            last_runs: Mapping[str, str], now: datetime, *, full: bool,
            checked: Mapping[str, NamespaceState] | None = None) -> Incremental:
    """The run's incremental mode: per namespace of ``pool``, a :class:`Placement` when its
    state is valid and drift allows, else a full run (``modes`` says why). ``checked``:
    states :func:`idle_namespaces` has read and checked already."""
    key = config_key(config)
    model_id = str(pool.embedding.get("model_id", ""))
    inc = Incremental({}, {}, {}, key, model_id)
    for ns, idx in pool.by_namespace.items():
        got_state = (checked[ns] if checked and ns in checked and not full
                     and checked[ns].model_id == model_id
                     else check_state(store_dir, config, ns, last_runs.get(ns), key,
                                      model_id, full=full))
        why = got_state if isinstance(got_state, str) else None
        state = None if isinstance(got_state, str) else got_state
        if state is not None and why is None:
            inc.states[ns] = state
            assert pool.vectors is not None
            got = place(state, [pool.memories[i] for i in idx], pool.vectors[idx], config,
                        now)
            if isinstance(got, Placement):
                inc.placements[ns] = got
                inc.modes[ns] = got.stats
                continue
            why = got
        inc.modes[ns] = {"mode": "full", "why": why}
        log.info("namespace %s: full run (%s)", ns, why)
    return inc


def save_states(store: Any, states: Sequence[NamespaceState]) -> None:
    """Keep the states of a run that has committed (never raises: the run has succeeded; a
    state not written only makes the next run full, as a crash here does)."""
    from memmaint.maintenance.apply.applier import fault_point

    where = state_dir_for(store)
    if where is None:
        return
    fault_point("state-save")
    try:
        for state in states:
            where.save(state)
    except Exception as exc:  # noqa: BLE001
        log.warning("could not keep the incremental state (%s): the next run is full", exc)
