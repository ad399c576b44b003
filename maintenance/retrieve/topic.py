"""Which of a query's candidates are on its topic (issue #37), apart from
:mod:`~memmaint.maintenance.retrieve.search` so that module stays small: which ones outcome
may lift (the pool's own spread), and which fresh ones may not stand in for a stale best
answer. The gate's own test, relative to the best candidate, is
:func:`memmaint.maintenance.core.freshness.on_topic`."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from memmaint.maintenance.core.freshness import POOL_FLOOR_MIN


def may_lift(sims: np.ndarray, floor: float, z: float) -> np.ndarray:
    """Which candidates outcome may lift: at least ``floor`` and, in pools of
    ``POOL_FLOOR_MIN`` or more, ``z`` robust deviations above the pool's median cosine
    (median + z * 1.4826 * MAD, capped at the best): the pool's own spread, which the very
    candidates a record has to overcome (a failure worded like the query) do not inflate."""
    keep = sims >= floor
    if len(sims) >= POOL_FLOOR_MIN:
        mid = float(np.median(sims))
        spread = 1.4826 * float(np.median(np.abs(sims - mid)))
        keep &= sims >= min(float(sims.max()), mid + z * spread)
    return keep



def not_standing_in(sims: np.ndarray, vectors: np.ndarray, best_fresh: bool,
                    fresh: Callable[[int], bool], margin: float, cosine: float) -> np.ndarray:
    """Which candidates may not stand in for a stale best answer (issue #37): where the
    query's best candidate is not ``FRESH`` (the topic's answer is stale or expired), a fresh
    memory farther than ``margin`` below it answers the query only when it speaks of what
    that answer says (cosine >= ``cosine`` with it: "the window moved to Thursday" for "the
    window is Tuesday"), not when it merely shares the topic ("the team writes a postmortem
    after every incident") or is another need's proven advice. ``fresh(j)`` tells whether
    candidate ``j`` is ``FRESH``; only candidates under the margin are asked. All ``False``
    when the best candidate is fresh."""
    barred = np.zeros(len(sims), dtype=bool)
    if best_fresh or not len(sims):
        return barred
    top = int(np.argmax(sims))
    for j in np.flatnonzero(sims < float(sims[top]) - margin):
        if fresh(int(j)) and float(vectors[j] @ vectors[top]) < cosine:
            barred[j] = True
    return barred


__all__ = ["may_lift", "not_standing_in"]
