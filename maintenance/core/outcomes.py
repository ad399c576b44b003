"""The outcome model: how much a memory's usage history says about whether it helps.

Each memory carries ``successes`` and ``failures`` (outcomes reported through
``record_feedback`` or ``memmaint feedback``) and ``retrievals`` (uses, with or without a
verdict; ``retrievals - successes - failures`` are uses nobody judged, which count as no
evidence). The model, used alike by retrieval and by the maintenance agents:

1. **Decay.** Evidence fades with time since the memory was last used:
   ``s = successes * d``, ``f = failures * d`` with ``d = 0.5 ** (days_since_last_use /
   half_life_days)`` (``agents.outcome_half_life_days``, default 180). The store keeps counters,
   not a log of events, so the whole history decays together; a memory never used has
   ``d = 1``.
2. **Prior from the namespace.** The namespace's base rate ``r`` is the average success rate
   of its memories that have a history, one vote per memory (``(s + 1) / (s + f + 2)``), with
   one more neutral vote of 0.5; so a single heavily used memory cannot set the rate for all
   the others, and a namespace without outcomes has ``r = 0.5``. It becomes a
   ``Beta(k r, k (1 - r))`` prior of strength ``k`` (``agents.outcome_prior_strength``, default
   2: worth two outcomes).
3. **Posterior.** ``Beta(k r + s, k (1 - r) + f)``; its mean
   ``m = (k r + s) / (k + s + f)`` is the memory's expected success rate. With ``r = 0.5``:
   no history 0.5, one failure 0.33, one success 0.67, five successes in five 0.86. So one
   failure already counts, and a success history counts more the longer it is.
4. **Comparing two memories.** :func:`prob_worse` is ``P(theta_a < theta_b)`` under the two
   posteriors (numerical integration): the agents retire a memory for a sibling only when
   this is high (``agents.outcome_supersede_confidence``, default 0.8).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from memmaint.maintenance.core.records import Memory, to_utc

#: integration grid for :func:`prob_worse` (midpoints of 2,000 cells on [0, 1]).
_GRID = (np.arange(2000) + 0.5) / 2000


@dataclass(frozen=True)
class OutcomePrior:
    """``Beta(alpha, beta)`` prior of a namespace (see the module docstring)."""

    alpha: float = 1.0
    beta: float = 1.0

    @property
    def mean(self) -> float:
        return self.alpha / (self.alpha + self.beta)


@dataclass(frozen=True)
class Outcome:
    """A memory's decayed evidence and its ``Beta(alpha, beta)`` posterior."""

    successes: float
    failures: float
    alpha: float
    beta: float

    @property
    def mean(self) -> float:
        """Expected success rate."""
        return self.alpha / (self.alpha + self.beta)

    @property
    def evidence(self) -> float:
        """Decayed outcomes behind the posterior (successes + failures)."""
        return self.successes + self.failures

    def describe(self, memory: Memory | None = None) -> str:
        """``"5 successes, 0 failures (expected 0.86)"`` with the raw counts when given."""
        if memory is not None:
            s, f = memory.successes, memory.failures
        else:
            s, f = round(self.successes, 2), round(self.failures, 2)  # type: ignore[assignment]
        return (f"{s:g} success{'es' if s != 1 else ''}, {f:g} failure{'s' if f != 1 else ''} "
                f"(expected success {self.mean:.2f})")


def decay_factor(memory: Memory, now: datetime, half_life_days: float) -> float:
    """``0.5 ** (days since last use / half_life_days)``; 1 when never used."""
    if memory.last_used_at is None or not math.isfinite(half_life_days):
        return 1.0
    days = max(0.0, (to_utc(now) - to_utc(memory.last_used_at)).total_seconds() / 86400.0)
    return float(0.5 ** (days / half_life_days))


def decayed_counts(memory: Memory, now: datetime, half_life_days: float) -> tuple[float, float]:
    """``(successes, failures)`` after decay."""
    d = decay_factor(memory, now, half_life_days)
    return max(0, memory.successes) * d, max(0, memory.failures) * d


def namespace_prior(memories: Iterable[Memory], now: datetime, *, strength: float,
                    half_life_days: float) -> OutcomePrior:
    """The ``Beta`` prior from the base rate of ``memories`` (one namespace)."""
    votes, n = 0.5, 1
    for mem in memories:
        s, f = decayed_counts(mem, now, half_life_days)
        if s > 0 or f > 0:
            votes += (s + 1.0) / (s + f + 2.0)
            n += 1
    rate = votes / n
    return OutcomePrior(strength * rate, strength * (1.0 - rate))


def outcome(memory: Memory, prior: OutcomePrior, now: datetime,
            half_life_days: float) -> Outcome:
    """The memory's posterior under ``prior``."""
    s, f = decayed_counts(memory, now, half_life_days)
    return Outcome(s, f, prior.alpha + s, prior.beta + f)


def _log_beta_pdf(x: np.ndarray, a: float, b: float) -> np.ndarray:
    return ((a - 1.0) * np.log(x) + (b - 1.0) * np.log1p(-x)
            - (math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)))


def prob_worse(a: Outcome, b: Outcome) -> float:
    """``P(theta_a < theta_b)``: how sure we are that ``a`` helps less often than ``b``."""
    pa = np.exp(_log_beta_pdf(_GRID, a.alpha, a.beta))
    pb = np.exp(_log_beta_pdf(_GRID, b.alpha, b.beta))
    pa /= pa.sum()
    pb /= pb.sum()
    # P(theta_a < theta_b) = sum over cells of P(a in cell) * P(b above the cell), with half
    # of b's own cell (the two are continuous, so ties have no mass)
    above = 1.0 - np.cumsum(pb) + 0.5 * pb
    return float(np.clip(np.dot(pa, above), 0.0, 1.0))


class OutcomeTable:
    """The model over many memories as arrays (retrieval's searched pool), so each search can
    decay the counters to its own ``now`` and rebuild the namespaces' priors in a few vector
    operations; ``strength`` and ``half_life`` are ``agents.outcome_prior_strength`` and
    ``agents.outcome_half_life_days``."""

    def __init__(self, memories: Sequence[Memory], strength: float, half_life: float) -> None:
        self.strength = strength
        self.half_life = half_life
        self.successes = np.array([max(0, m.successes) for m in memories], dtype=np.float64)
        self.failures = np.array([max(0, m.failures) for m in memories], dtype=np.float64)
        namespaces = sorted({m.namespace for m in memories})
        index = {ns: i for i, ns in enumerate(namespaces)}
        self.namespace = np.array([index[m.namespace] for m in memories], dtype=np.int64)
        self.n_namespaces = len(namespaces)
        self.last_used = np.array([np.nan if m.last_used_at is None
                                   else to_utc(m.last_used_at).timestamp() for m in memories],
                                  dtype=np.float64)
        self.any = bool(self.successes.any() or self.failures.any())

    def at(self, now: datetime) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per memory: expected success rate ``m``, its namespace's base rate ``r`` (the same
        numbers as :func:`outcome`) and the decayed
        outcomes ``n`` behind ``m``."""
        days = np.maximum(0.0, (to_utc(now).timestamp() - self.last_used) / 86400.0)
        d = np.where(np.isnan(days), 1.0, 0.5 ** (np.nan_to_num(days) / self.half_life))
        s, f = self.successes * d, self.failures * d
        has = (s > 0) | (f > 0)
        votes = np.bincount(self.namespace, np.where(has, (s + 1.0) / (s + f + 2.0), 0.0),
                            self.n_namespaces) + 0.5
        voters = np.bincount(self.namespace, has.astype(np.float64), self.n_namespaces) + 1.0
        rate = (votes / voters)[self.namespace]
        mean = (self.strength * rate + s) / (self.strength + s + f)
        return mean, rate, s + f
