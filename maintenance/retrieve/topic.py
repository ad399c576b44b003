"""Which of a query's candidates are on its topic (issue #37), apart from
:mod:`~memmaint.maintenance.retrieve.search` so that module stays small: which ones outcome
may lift (the pool's own spread), and which fresh ones may not stand in for a stale best
answer. The gate's own test, relative to the best candidate, is
:func:`memmaint.maintenance.core.freshness.on_topic`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

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



@dataclass(frozen=True)
class StandIn:
    """Which candidates may not stand in for a stale best answer (issue #37): where the
    query's best candidate (``top``) is not ``FRESH`` (the topic's answer is stale or
    expired), a fresh memory farther than ``margin`` below it answers the query only when it
    speaks of what that answer says (cosine >= ``cosine`` with it: "the window moved to
    Thursday" for "the window is Tuesday"), not when it merely shares the topic ("the team
    writes a postmortem after every incident") or is another need's proven advice.
    ``top`` is ``None`` when the best candidate is fresh (nothing is barred). Asked per
    candidate, so a large pool pays only for the candidates it asks about."""

    sims: np.ndarray
    vectors: np.ndarray
    top: int | None
    fresh: Callable[[int], bool]
    margin: float
    cosine: float

    def barred(self, j: int) -> bool:
        """Whether candidate ``j`` may not stand in for the stale best answer."""
        if self.top is None or self.sims[j] >= float(self.sims[self.top]) - self.margin:
            return False
        return self.fresh(j) and float(self.vectors[j] @ self.vectors[self.top]) < self.cosine


def stand_in_test(sims: np.ndarray, vectors: np.ndarray, fresh: Callable[[int], bool],
                  margin: float, cosine: float) -> StandIn:
    """The :class:`StandIn` test of one query's candidates (``fresh(j)``: whether candidate
    ``j`` is ``FRESH``)."""
    top = int(np.argmax(sims)) if len(sims) else None
    if top is not None and fresh(top):
        top = None
    return StandIn(sims, vectors, top, fresh, margin, cosine)


__all__ = ["StandIn", "may_lift", "stand_in_test"]
