"""Reorderings of one query's scored results after outcome scoring (issue #37), apart from
:mod:`~memmaint.maintenance.retrieve.search` so that module stays small: a memory its record
sinks stays above the off-topic ones, and a counters' lift never passes a memory the serve
history proves for this very query. Pure functions over the search's ``Result`` rows."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from memmaint.maintenance.core.freshness import FRESH, FRESH_AT, STALE_BLOCK, STALE_WARN


def sink_among_on_topic(results: list[Any], gate: bool) -> list[Any]:
    """A memory on the query's topic that its record sinks (``outcome_bonus < 0``: it helps
    less often than its namespace) sinks below the other on-topic candidates only, not
    below a memory off the query's topic (the gate's test): where it fell under the best
    off-topic candidate it is raised to just above it (several such memories keep their
    order, each a float step above the last). Outcome reorders the
    memories of the topic; it does not hand the query to another topic's memory (issue #37:
    where a failed memory has no proven pair, the next by similarity was often the proven
    advice of a neighbouring need). A memory the serve history judges, or a ``STALE_WARN``
    one (the gate's down-ranking is not undone), keeps its score."""
    off = [r.final for r in results
           if not r.on_topic and not (gate and r.verdict == STALE_BLOCK)]
    if not off:
        return results
    floor = max(off)
    sunk = sorted((j for j, r in enumerate(results)
                   if r.on_topic and r.outcome_bonus < 0 and r.final <= floor
                   and r.served_for is None and r.in_place_of is None and r.verdict == FRESH),
                  key=lambda j: results[j].final)
    out = list(results)
    for j in sunk:  # lowest first: each just above the last, so their order is kept
        floor = float(np.nextafter(floor, np.inf))
        r = results[j]
        out[j] = dataclasses.replace(r, final=floor,
                                     outcome_bonus=floor - r.similarity - r.lexical)
    return out


def history_first(results: list[Any], gate: bool) -> list[Any]:
    """Evidence for this very query outranks evidence in general (issue #37): a counters'
    lift or handover (``outcome_bonus > 0`` without ``served_for``) never carries a memory
    above a memory the serve history proves for this query (more successes than failures for
    a past query like it). The two scores are not on one scale (a history score is a blend
    that stays under 1, a handover the failed memory's similarity plus the lift), so where a
    lift would pass the best such memory the lifted one is put just below it (several keep
    their order, each a float step below the last), never below its own similarity (that
    alone, with the gate's down-ranking, still decides). Nothing moves without a proven
    memory, so a ranking by the counters alone is unchanged."""
    proven = [r.final for r in results
              if r.served_for is not None and r.served_for[1] > r.served_for[2]
              and not (gate and r.verdict == STALE_BLOCK)]
    if not proven:
        return results
    top = max(proven)
    over = sorted((j for j, r in enumerate(results)
                   if r.served_for is None and r.outcome_bonus > 0 and r.final > top
                   and _own(r, gate) < top),
                  key=lambda j: -results[j].final)
    out = list(results)
    ceiling = top
    for j in over:  # highest first: each just below the last, so their order is kept
        ceiling = float(np.nextafter(ceiling, -np.inf))
        r = results[j]
        final = max(ceiling, _own(r, gate))
        out[j] = dataclasses.replace(r, final=final,
                                     outcome_bonus=final - r.similarity - r.lexical)
    return out


def _own(r: Any, gate: bool) -> float:
    """A result's score from its own similarity alone (the gate's down-ranking applied)."""
    base = r.similarity + r.lexical
    return base * r.freshness / FRESH_AT if gate and r.verdict == STALE_WARN else base


__all__ = ["history_first", "sink_among_on_topic"]
