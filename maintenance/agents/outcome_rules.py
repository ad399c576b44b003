"""What the agents do with outcome history (model: :mod:`memmaint.maintenance.core.outcomes`).

Two rules, both reversible through ``memmaint undo`` like every action:

- **Eviction after repeated failure.** An unprotected memory with no success and at least
  ``agents.outcome_evict_failures`` failures (default 2; one failure never evicts, so the only
  memory on a subject is never retired because of one failure) is evicted. The older rule
  (Wilson upper bound below ``outcome_evict_below`` after ``outcome_min_uses`` outcomes) still
  catches memories that sometimes help but mostly fail.
- **Supersession by a better sibling.** A memory that failed more often than it helped is
  superseded by a *sibling* it helps less often than: ``P(it helps less often than the
  sibling)`` under the two posteriors reaches ``agents.outcome_supersede_confidence``
  (default 0.8) for a memory that never helped, and four times less doubt (0.95) for one that
  helped at least once (one success is evidence of value that a couple of misattributed
  failures should not outweigh). A sibling is a memory on the same subject: a cluster-mate
  (the clusterer's verdict, issue #37) at cosine ``agents.outcome_cluster_sibling_cosine``
  (0.2) or more that helped more often than it failed, or the memory's nearest neighbour when
  it has helped and their cosine reaches ``agents.outcome_sibling_cosine`` (0.45: how a noise
  memory finds one); the nearest that passes is taken. The old rule (nearest neighbour at
  0.45 only) is ``outcome_cluster_sibling_cosine = 2``: it kept failed advice whose good
  sibling is worded apart (cosine 0.2-0.45). What the cluster cannot say is *which* proven
  memory answers the failed one's question: on the generated dev set half the supersessions
  pointed to proven advice of another need of the same subject. **The serve history says
  it** where the store keeps one (feedback recorded with its query:
  :mod:`memmaint.maintenance.core.served`): :func:`served_siblings` names, for a memory that
  failed for some queries, the memories that helped for the same questions (a use at cosine
  ``agents.outcome_query_match`` or more with one of its failed queries), and those are
  its siblings, wherever the clusterer put them; a memory the history names none for keeps
  the cluster rule. The job computes them before planning
  (:func:`memmaint.maintenance.job.served.serve_siblings`) and both
  :func:`group_outcome_siblings` and the rule planner read them. The reason names both
  histories.

Siblings are often not in one cluster (advice that failed and advice that worked for the same
problem share a topic, rarely a paraphrase), so before planning the job calls
:func:`group_outcome_siblings`, which moves each memory whose sibling is a noise memory or
sits in another cluster into the sibling's cluster; the agents then plan them together.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

import numpy as np

from memmaint.maintenance.core.config import AgentsConfig
from memmaint.maintenance.core.outcomes import (
    Outcome,
    OutcomePrior,
    namespace_prior,
    outcome,
    prob_worse,
)
from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.core.served import Key, ServeLog
from memmaint.maintenance.retrieve.routing import unit_rows


def namespace_priors(pool: Sequence[Memory], cfg: AgentsConfig,
                     now: datetime) -> dict[str, OutcomePrior]:
    """Each namespace's prior from the base rate of its memories in ``pool``."""
    by_ns: dict[str, list[Memory]] = {}
    for mem in pool:
        by_ns.setdefault(mem.namespace, []).append(mem)
    return {ns: namespace_prior(mems, now, strength=cfg.outcome_prior_strength,
                                half_life_days=cfg.outcome_half_life_days)
            for ns, mems in by_ns.items()}


def outcomes_of(memories: Sequence[Memory], prior: OutcomePrior, cfg: AgentsConfig,
                now: datetime) -> list[Outcome]:
    return [outcome(m, prior, now, cfg.outcome_half_life_days) for m in memories]


def failure_eviction(mem: Memory, cfg: AgentsConfig) -> str | None:
    """Why ``mem`` is evicted for failing repeatedly with no success (``None``: it is not)."""
    if mem.successes == 0 and mem.failures >= cfg.outcome_evict_failures:
        return (f"failed {mem.failures} times and never helped (evicted from "
                f"{cfg.outcome_evict_failures} failures with no success)")
    return None


def better_sibling(i: int, mems: Sequence[Memory], sims: np.ndarray,
                   outcomes: Sequence[Outcome], candidates: Iterable[int],
                   cfg: AgentsConfig, mates: Iterable[int] | None = None,
                   served: Sequence[int] = ()) -> tuple[int, float] | None:
    """The sibling that should supersede memory ``i``, with ``P(i is worse)``; ``None`` when
    there is none (see the module docstring).

    The sibling is the nearest of the ``candidates`` (every other memory that could take
    ``i``'s place) that answers the same need and that ``i`` is confidently worse than
    (``P(worse)`` at least :func:`required_confidence`); answering the same need means: a
    cluster-mate (``mates``;
    ``None``: every candidate is one, the planner's view of a cluster) at cosine
    ``outcome_cluster_sibling_cosine`` or more that helped more often than it failed, or
    ``i``'s nearest neighbour among the candidates when it has helped and their cosine
    reaches ``outcome_sibling_cosine``. ``served`` (indices, best first) are the memories the
    serve history says helped for the questions ``i`` failed for (:func:`served_siblings`):
    one of them that is a candidate and that ``i`` is worse than with
    ``outcome_supersede_confidence`` is taken before any other. The four times stricter
    confidence for a memory that helped once guards against failures counted for another
    question; the serve history says they were for the same one."""
    if mems[i].failures <= mems[i].successes:
        return None
    others = [j for j in candidates if j != i]
    if not others:
        return None
    for j in (k for k in served if k in set(others)):
        p = prob_worse(outcomes[i], outcomes[j])
        if mems[j].successes > mems[j].failures and p >= cfg.outcome_supersede_confidence:
            return j, p
    need = required_confidence(mems[i], cfg)
    nearest = max(others, key=lambda k: (float(sims[i, k]), -k))
    eligible = [j for j in (others if mates is None else set(mates) & set(others))
                if sims[i, j] >= cfg.outcome_cluster_sibling_cosine
                and mems[j].successes > mems[j].failures]
    if mems[nearest].successes >= 1 and sims[i, nearest] >= cfg.outcome_sibling_cosine:
        eligible.append(nearest)
    for j in sorted(set(eligible), key=lambda k: (-float(sims[i, k]), k)):
        p = prob_worse(outcomes[i], outcomes[j])
        if p >= need:
            return j, p
    return None


def required_confidence(mem: Memory, cfg: AgentsConfig) -> float:
    """``outcome_supersede_confidence`` for a memory that never helped; one that helped at
    least once needs four times less doubt (0.95 for the default 0.8)."""
    c = cfg.outcome_supersede_confidence
    return c if mem.successes == 0 else 1.0 - (1.0 - c) / 4.0


def sibling_reason(i: int, j: int, mems: Sequence[Memory], sims: np.ndarray,
                   outcomes: Sequence[Outcome], p: float) -> str:
    return (f"a sibling on the same subject, {mems[j].id} (cosine {sims[i, j]:.2f}), helps "
            f"more often: {outcomes[i].describe(mems[i])} against "
            f"{outcomes[j].describe(mems[j])}; P(worse) = {p:.2f}")


def group_outcome_siblings(memories: Sequence[Memory], labels: np.ndarray, vectors: np.ndarray,
                           cfg: AgentsConfig, now: datetime,
                           partitions: Iterable[np.ndarray],
                           siblings: Mapping[Key, Sequence[str]] | None = None) -> np.ndarray:
    """Labels with every memory that has a better sibling (see the module docstring) moved
    into that sibling's cluster; a noise sibling and the memory form a new cluster.

    ``partitions`` are the row indices of each namespace (labels are namespace-local);
    ``siblings`` the serve history's (:func:`served_siblings`). Memories without outcome
    history never move, so a pool without feedback is unchanged.
    """
    out = np.asarray(labels, dtype=np.int64).copy()
    for rows in partitions:
        rows = np.asarray(rows, dtype=np.int64)
        mems = [memories[r] for r in rows]
        failing = [k for k, m in enumerate(mems) if m.failures > m.successes]
        if not failing or not any(m.successes >= 1 for m in mems):
            continue
        prior = namespace_priors(mems, cfg, now)[mems[0].namespace]
        outs = outcomes_of(mems, prior, cfg, now)
        vecs = unit_rows(np.asarray(vectors)[rows])
        sims = np.zeros((len(mems), len(mems)))
        sims[failing] = vecs[failing] @ vecs.T
        everyone = range(len(mems))
        local = out[rows]
        target: dict[int, int] = {}
        at = {m.id: k for k, m in enumerate(mems)}
        for k in failing:
            mates = np.flatnonzero(local == local[k]).tolist() if local[k] >= 0 else []
            named = (siblings or {}).get((mems[k].namespace, mems[k].id), ())
            found = better_sibling(k, mems, sims, outs, everyone, cfg, mates,
                                   [at[x] for x in named if x in at])
            if found is not None:
                target[k] = found[0]
        next_label = int(out[rows].max(initial=-1)) + 1
        for k in sorted(target):
            root, seen = target[k], {k}
            while root in target and root not in seen:  # a sibling that moves too: follow it
                seen.add(root)
                root = target[root]
            if out[rows[root]] < 0:
                out[rows[root]] = next_label
                next_label += 1
            out[rows[k]] = out[rows[root]]
    return out


def served_siblings(log: ServeLog, match: float) -> dict[Key, tuple[str, ...]]:
    """Per memory with a failure logged with its query, the ids of the memories of its
    namespace that helped for the same questions: a success whose query has cosine ``match``
    or more with one of its failed queries; the closest such query first, then the most
    such successes."""
    fails = log.outcomes == 0.0
    helps = np.flatnonzero(log.outcomes == 1.0)
    out: dict[Key, tuple[str, ...]] = {}
    if not fails.any() or not len(helps):
        return out
    for key in dict.fromkeys(k for k, bad in zip(log.keys, fails) if bad):
        rows = log.rows(key)
        failed = rows[fails[rows]]
        cos = (log.vectors[helps] @ log.vectors[failed].T).max(axis=1)
        score: dict[str, tuple[int, float]] = {}
        for h, c in zip(helps, cos):
            other = log.keys[h]
            if other == key or other[0] != key[0] or c < match:
                continue
            n, best = score.get(other[1], (0, -1.0))
            score[other[1]] = (n + 1, max(best, float(c)))
        if score:
            out[key] = tuple(sorted(score, key=lambda x: (-score[x][1], -score[x][0], x)))
    return out


def prior_for(priors: Mapping[str, OutcomePrior] | None, namespace: str) -> OutcomePrior:
    """The namespace's prior, or the uniform ``Beta(1, 1)`` when none was computed."""
    return (priors or {}).get(namespace, OutcomePrior())
