"""What the agents do with outcome history (model: :mod:`memmaint.maintenance.core.outcomes`).

Two rules, both reversible through ``memmaint undo`` like every action:

- **Eviction after repeated failure.** An unprotected memory with no success and at least
  ``agents.outcome_evict_failures`` failures (default 2; one failure never evicts, so the only
  memory on a subject is never retired because of one failure) is evicted. The older rule
  (Wilson upper bound below ``outcome_evict_below`` after ``outcome_min_uses`` outcomes) still
  catches memories that sometimes help but mostly fail.
- **Supersession by a better sibling.** A memory's *sibling* is its nearest neighbour in
  the namespace, when their cosine is at least ``agents.outcome_sibling_cosine`` (default
  0.45): the memory that answers the same need, not any memory of the same topic (distinct
  facts of one topic share a cosine of 0.4-0.6 and would otherwise pay for each other's
  failures, e.g. a fact served for a question it does not answer). A memory that failed more
  often than it helped is superseded by a sibling with at least one success when
  ``P(it helps less often than the sibling)`` under the two posteriors reaches
  ``agents.outcome_supersede_confidence`` (default 0.8) for a memory that never helped, and
  four times less doubt (0.95) for one that helped at least once: one success is evidence of
  value that a couple of misattributed failures should not outweigh. The reason names both
  histories.

Siblings are often not in one cluster (advice that failed and advice that worked for the same
problem share a topic, rarely a paraphrase), so before planning the job calls
:func:`group_outcome_siblings`, which moves each memory that has such a sibling into the
sibling's cluster; the agents then plan them together.
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
                   cfg: AgentsConfig) -> tuple[int, float] | None:
    """The sibling that should supersede memory ``i``, with ``P(i is worse)``; ``None`` when
    there is none (see the module docstring). The sibling is ``i``'s nearest neighbour among
    ``candidates`` (every other memory that could take its place), so a memory is only ever
    compared with the one closest to it, never with a mere topic-mate."""
    if mems[i].failures <= mems[i].successes:
        return None
    others = [j for j in candidates if j != i]
    if not others:
        return None
    j = max(others, key=lambda k: (float(sims[i, k]), -k))
    if mems[j].successes < 1 or sims[i, j] < cfg.outcome_sibling_cosine:
        return None
    p = prob_worse(outcomes[i], outcomes[j])
    return (j, p) if p >= required_confidence(mems[i], cfg) else None


def required_confidence(mem: Memory, cfg: AgentsConfig) -> float:
    """``outcome_supersede_confidence`` for a memory that never helped; one that helped at
    least once needs four times less doubt (0.95 for the default 0.8)."""
    c = cfg.outcome_supersede_confidence
    return c if mem.successes == 0 else 1.0 - (1.0 - c) / 4.0


def sibling_reason(i: int, j: int, mems: Sequence[Memory], sims: np.ndarray,
                   outcomes: Sequence[Outcome], p: float) -> str:
    return (f"answers the same need as {mems[j].id} (cosine {sims[i, j]:.2f}) and helps less "
            f"often: {outcomes[i].describe(mems[i])} against "
            f"{outcomes[j].describe(mems[j])}; P(worse) = {p:.2f}")


def group_outcome_siblings(memories: Sequence[Memory], labels: np.ndarray, vectors: np.ndarray,
                           cfg: AgentsConfig, now: datetime,
                           partitions: Iterable[np.ndarray]) -> np.ndarray:
    """Labels with every memory that has a better sibling (see the module docstring) moved
    into that sibling's cluster; a noise sibling and the memory form a new cluster.

    ``partitions`` are the row indices of each namespace (labels are namespace-local).
    Memories without outcome history never move, so a pool without feedback is unchanged.
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
        target: dict[int, int] = {}
        for k in failing:
            found = better_sibling(k, mems, sims, outs, everyone, cfg)
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


def prior_for(priors: Mapping[str, OutcomePrior] | None, namespace: str) -> OutcomePrior:
    """The namespace's prior, or the uniform ``Beta(1, 1)`` when none was computed."""
    return (priors or {}).get(namespace, OutcomePrior())
