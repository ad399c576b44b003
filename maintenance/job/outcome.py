"""One configuration's outcome over the pool: what the job reports about a clustering and
its plan (counts, decisions, the 2-D map sample, B-cubed scores, LLM usage)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memmaint.maintenance.agents.llm_report import summary as llm_summary
from memmaint.maintenance.core.config import Config
from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.report.model import (
    MAX_MAP_POINTS,
    MAX_TEXTS,
    BCubedScores,
    ConfigOutcome,
    Decision,
    bcubed_scores,
    map_coordinates,
    sample_indices,
    size_distribution,
    snippet,
)

log = logging.getLogger(__name__)


@dataclass
class Pool:
    """The loaded active memories of the selected namespaces, in store order."""

    memories: list[Memory]
    by_namespace: dict[str, np.ndarray]  # namespace -> row indices into memories
    vectors: np.ndarray | None = None
    embedding: dict[str, Any] = field(default_factory=dict)
    #: the serve history's siblings of failed memories (``job.served.serve_siblings``)
    siblings: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    #: importance weights per row, for a pool given without memories (the tuner's);
    #: ``None``: the memories' importance
    weights: np.ndarray | None = None



@dataclass
class Clustered:
    labels: np.ndarray  # per pool row; namespace-local labels, noise -1
    reduced: dict[str, np.ndarray]  # namespace -> reduced coordinates
    warnings: list[str]
    #: namespace -> the clusterer's merge history, where it keeps one (GenKT)
    histories: dict[str, Any] = field(default_factory=dict)



def weights_of(memories: Sequence[Memory]) -> np.ndarray:
    return np.asarray([m.importance for m in memories], dtype=np.float64)


def describe(config: Config) -> tuple[str, str]:
    """Short descriptions of a config's clustering and reduction, for reports."""
    c, r = config.clustering, config.reduction
    if c.algorithm == "hdbscan":
        h = c.hdbscan
        desc = (f"hdbscan(min_cluster_size={h.min_cluster_size}, min_samples={h.min_samples}, "
                f"eps={h.cluster_selection_epsilon}, {h.cluster_selection_method})")
    elif c.algorithm == "linkage":
        k = c.linkage
        desc = ("linkage(average, cosine, " + (f"cut {k.cut}" if k.cut_mode == "fixed" else
                f"pool cut z={k.cut_z}, recut above {k.recut_above}") + ")")
        return desc, "none (the embeddings)"
    elif c.algorithm == "genkt":
        g = c.genkt
        desc = (f"genkt(p={g.p}, R={g.R}, cos_cut={g.cos_cut}, {g.recombination} "
                f"recombination{', importance weights' if g.use_weights else ''})")
    else:
        desc = c.algorithm
    red = "none" if r.method == "none" else f"{r.method} {r.n_components}-D (seed {r.seed})"
    return desc, red


def _joined(pool: Pool, clustered: Clustered,
            decisions: Sequence[Decision]) -> dict[str, list[float]]:
    """For each decided memory whose namespace kept a merge history: the step and distance
    of the clusterer's merge that first joined it to another memory."""
    out: dict[str, list[float]] = {}
    wanted = {d.key for d in decisions}
    for ns, history in clustered.histories.items():
        idx = pool.by_namespace[ns]
        step, dist = history.joined()
        for pos, row in enumerate(idx):
            m = pool.memories[row]
            if (m.namespace, m.id) in wanted and step[pos] >= 0:
                out[f"{m.namespace}\x1f{m.id}"] = [int(step[pos]), round(float(dist[pos]), 4)]
    return out


def _decisions(the_plan: Any) -> list[Decision]:
    from memmaint.maintenance.plan.model import Evict, Merge, Resolve, Supersede

    out: list[Decision] = []
    group = 0
    for cluster, action in the_plan.actions():
        ns = cluster.namespace
        if isinstance(action, Merge):
            for mid in action.source_ids:
                out.append(Decision(ns, mid, "merge", group, action.new_memory.id,
                                    action.agent, action.reason))
        elif isinstance(action, Supersede):
            out.append(Decision(ns, action.old_id, "supersede", group, action.new_id,
                                action.agent, action.reason))
        elif isinstance(action, Evict):
            out.append(Decision(ns, action.memory_id, "evict", group, None, action.agent,
                                action.reason))
        elif isinstance(action, Resolve):
            kept = action.kept_ids[0] if action.kept_ids else None
            for mid in action.superseded_ids:
                out.append(Decision(ns, mid, "resolve", group, kept, action.agent,
                                    action.reason))
        elif getattr(action, "type", "keep") != "keep":  # action types added later
            for mid in getattr(action, "subjects", ()):
                out.append(Decision(ns, mid, str(action.type), group, None,
                                    getattr(action, "agent", ""), getattr(action, "reason", "")))
        else:
            continue
        group += 1
    return out


def _llm_usage(the_plan: Any) -> dict[str, int]:
    rep = getattr(the_plan, "report", None) or {}
    usage = rep.get("usage", rep) if isinstance(rep, Mapping) else {}

    def num(*names: str) -> int:
        for n in names:
            v = usage.get(n) if isinstance(usage, Mapping) else None
            if isinstance(v, (int, float)):
                return int(v)
        return 0

    fallbacks = sum(1 for c in the_plan.clusters if getattr(c, "backend", "") == "rules-fallback")
    return {"llm_calls": num("llm_calls", "calls"),
            "tokens_in": num("tokens_in", "prompt_tokens"),
            "tokens_out": num("tokens_out", "completion_tokens"),
            "fallbacks": fallbacks}


#: a namespace of at least DEGENERATE_MIN memories whose largest cluster holds more than
#: DEGENERATE_SHARE of them gets a warning (issue #35: one cluster is no clustering at all)
DEGENERATE_SHARE = 0.5
DEGENERATE_MIN = 20


def largest_shares(pool: Pool, labels: np.ndarray) -> dict[str, float]:
    """Per namespace, the share of its memories in its largest cluster (0 when all noise)."""
    out: dict[str, float] = {}
    for ns, idx in pool.by_namespace.items():
        lab = np.asarray(labels)[idx]
        lab = lab[lab >= 0]
        out[ns] = float(np.bincount(lab).max() / len(idx)) if lab.size and len(idx) else 0.0
    return out


def degenerate_warnings(pool: Pool, shares: Mapping[str, float],
                        share: float = DEGENERATE_SHARE, minimum: int = DEGENERATE_MIN
                        ) -> list[str]:
    """One line per namespace whose clustering looks degenerate: at least ``minimum``
    memories and more than ``share`` of them in one cluster."""
    out = []
    for ns, s in sorted(shares.items()):
        n = len(pool.by_namespace.get(ns, ()))
        if n >= minimum and s > share:
            out.append(f"namespace {ns}: one cluster holds {s:.0%} of its {n} memories: the "
                       "clustering is degenerate (try [clustering] algorithm = \"linkage\"; "
                       "docs/results.md)")
    return out


def build_outcome(name: str, config: Config, pool: Pool, clustered: Clustered,
                  the_plan: Any, *, applied: bool) -> ConfigOutcome:
    """Summarise one configuration's clustering and plan over the pool."""
    memories = pool.memories
    n_clusters = noise = 0
    sizes: dict[int, int] = {}
    for idx in pool.by_namespace.values():
        nc, nn, sz = size_distribution(clustered.labels[idx])
        n_clusters += nc
        noise += nn
        for s, c in sz.items():
            sizes[s] = sizes.get(s, 0) + c
    decisions = _decisions(the_plan)
    joined = _joined(pool, clustered, decisions)
    summary = dict(the_plan.summary())
    changed = sum(v for k, v in summary.items() if k not in ("keep", "created"))
    by_key = {(m.namespace, m.id): m for m in memories}
    texts: dict[str, str] = {}
    for d in decisions[:MAX_TEXTS]:
        mem = by_key.get(d.key)
        if mem is not None:
            texts[f"{d.namespace}\x1f{d.memory_id}"] = snippet(mem.text)
    # the 2-D map: a sample spread over namespaces in proportion to their size
    map_points: dict[str, list[list[float]]] = {}
    axes = ""
    n_total = max(len(memories), 1)
    for ns, idx in pool.by_namespace.items():
        coords, axes_ns = map_coordinates(clustered.reduced[ns])
        if len(coords) == 0:
            continue
        axes = axes or axes_ns
        take = sample_indices(len(idx), max(1, MAX_MAP_POINTS * len(idx) // n_total))
        map_points[ns] = [[round(float(coords[i, 0]), 4), round(float(coords[i, 1]), 4),
                           int(clustered.labels[idx[i]])] for i in take]
    truth = [m.metadata.get("label") if isinstance(m.metadata, Mapping) else None
             for m in memories]
    scores: BCubedScores | None = None
    if any(t is not None for t in truth):
        scores = bcubed_scores(truth, clustered.labels.tolist(),
                               [m.namespace for m in memories], weights_of(memories).tolist())
    desc, red = describe(config)
    usage = _llm_usage(the_plan)
    shares = largest_shares(pool, clustered.labels)
    degenerate = degenerate_warnings(pool, shares)
    for line in degenerate:
        log.warning("%s: %s", name, line)
    return ConfigOutcome(
        name=name, config_hash=config.hash(), algorithm=config.clustering.algorithm,
        description=desc, reduction=red, n_memories=len(memories), n_clusters=n_clusters,
        noise=noise, cluster_sizes=sizes, pool_before=len(memories),
        pool_after=len(memories) - changed + summary.get("created", 0),
        actions_by_type={k: int(v) for k, v in summary.items()},
        memories_affected=changed, decisions=decisions, applied=applied,
        llm_calls=usage["llm_calls"], tokens_in=usage["tokens_in"],
        tokens_out=usage["tokens_out"], fallbacks=usage["fallbacks"], bcubed=scores,
        llm=llm_summary(getattr(the_plan, "report", None) or {}),
        flagged={str(k): int(v) for k, v in
                 ((getattr(the_plan, "report", None) or {}).get("flagged") or {}).items()},
        map_points=map_points, map_axes=axes, texts=texts,
        warnings=list(clustered.warnings) + degenerate, joined=joined, largest_share=shares,
    )
