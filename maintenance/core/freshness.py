"""Freshness (TTL per kind) and outcome scores, shared by the agents and read-time retrieval.

A memory true when stored can rot. Each kind has a time-to-live in days; freshness falls
linearly from 1 at creation to 0 at the end of the TTL::

    freshness = clamp(1 - age / ttl, 0, 1)

and maps onto a verdict: ``FRESH`` at >= 0.5 (serve), ``STALE_WARN`` above 0 (down-rank),
``STALE_BLOCK`` at 0 (never serve). A kind without a TTL never expires (freshness 1).

:func:`on_topic` decides which candidates of a query are on topic for the read-time gate:
relative to the best candidate and to the pool's own similarity distribution, not a fixed
floor alone.

Outcome scores use the Wilson score interval on successes / (successes + failures), so that
90 successes out of 100 outrank 1 out of 1.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime

import numpy as np

from memmaint.maintenance.core.records import Memory, to_utc

FRESH = "FRESH"
STALE_WARN = "STALE_WARN"
STALE_BLOCK = "STALE_BLOCK"
FRESH_AT = 0.5

DEFAULT_TTL_DAYS: dict[str, float] = {
    "price": 3.0,
    "availability": 7.0,
    "schedule": 30.0,
    "reference": 3650.0,
}


def age_days(memory: Memory, now: datetime) -> float:
    """Days between the memory's creation and ``now`` (never negative)."""
    seconds = (to_utc(now) - memory.created_at).total_seconds()
    return max(seconds, 0.0) / 86400.0


def ttl_for(kind: str, ttl_days: Mapping[str, float] | None) -> float | None:
    """The TTL in days for ``kind``; ``None`` (never expires) when the kind is not listed."""
    table = DEFAULT_TTL_DAYS if ttl_days is None else ttl_days
    ttl = table.get(kind)
    return None if ttl is None else float(ttl)


def freshness(memory: Memory, now: datetime, ttl_days: Mapping[str, float] | None = None) -> float:
    """clamp(1 - age/ttl, 0, 1) for the memory's kind; 1.0 when the kind never expires.

    ``ttl_days`` maps kind -> days (``config.agents.ttl_days``); ``None`` uses the defaults.
    A TTL of 0 means the memory is stale as soon as it exists.
    """
    ttl = ttl_for(memory.kind, ttl_days)
    if ttl is None:
        return 1.0
    if ttl <= 0:
        return 0.0
    return min(1.0, max(0.0, 1.0 - age_days(memory, now) / ttl))


def verdict(f: float) -> str:
    """``FRESH`` at f >= 0.5, ``STALE_WARN`` for 0 < f < 0.5, ``STALE_BLOCK`` at f <= 0."""
    if f >= FRESH_AT:
        return FRESH
    if f > 0.0:
        return STALE_WARN
    return STALE_BLOCK


POOL_FLOOR_MIN = 5


def on_topic(similarities: Sequence[float] | np.ndarray, floor: float, margin: float,
             z: float) -> np.ndarray:
    """Which candidates are on topic for a query, judged against each other.

    A candidate is on topic when its cosine is at least ``floor`` (absolute), within
    ``margin`` of the best candidate's, and, for pools of ``POOL_FLOOR_MIN`` or more, at
    least ``z`` standard deviations above the pool's mean cosine (capped at the best, so
    ties with the best are always on topic). So a note at 0.33 next to
    a stale answer at 0.85 is not on topic, though it clears a fixed 0.30 floor: the topic's
    answer is the stale one, and the freshness gate refuses rather than serve the note.
    Pass every scored candidate, the expired ones included (they set the best).
    """
    sims = np.asarray(similarities, dtype=np.float64)
    if not len(sims):
        return np.zeros(0, dtype=bool)
    keep = (sims >= floor) & (sims >= float(sims.max()) - margin)
    if len(sims) >= POOL_FLOOR_MIN:
        best = float(sims.max())  # the pool floor never excludes the best candidate
        keep &= sims >= min(best, float(sims.mean()) + z * float(sims.std()))
    return keep


def wilson_interval(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for ``successes`` out of ``n`` trials.

    Returns ``(0.0, 1.0)`` when ``n == 0`` (nothing is known). Raises ``ValueError`` for
    negative counts or more successes than trials.
    """
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def outcome_interval(memory: Memory, z: float = 1.96) -> tuple[float, float]:
    """Wilson interval on a memory's successes / (successes + failures)."""
    return wilson_interval(memory.successes, memory.successes + memory.failures, z)
