"""Which proven memory answers the need of a failed one, from the counters and the vectors.

Counters without a query (``successes``, ``failures``) say that a memory failed, not for what.
When a failed memory is the query's closest candidate, the query asks the failed memory's
need, and the proven memory that answers that need should be served in its place, even when
it is worded far from the query (issue #37: good advice at cosine 0.14-0.29, below the
similarity floor, behind failed advice at 0.85). Which proven memory is that? The nearest
one to the failed memory is often another need's advice of the same subject (the subject's
words are shared), so the pairs are chosen together: per namespace, failed and proven
memories are paired one to one so that the pairs' total cosine is largest (an assignment),
and a pair is kept only at cosine ``min_cosine`` or more; the total counts each pair's cosine
above that floor only (a pair under it is worth no more than no pair, so a pair that will be
dropped does not decide the others). A proven memory that is nearer to another failed memory
than that one's own best alternative answers that one's need.

Failed memories the nightly run retired (superseded or evicted) take part too, as
*pointers*: they are never served, but when one is the query's on-topic candidate its pair
takes its place, so a query worded like retired advice finds the advice that replaced it
(the pairing, not the planner's ``replaced_by``, which the cluster chose and which names
another need's advice more often). :class:`Pairs` holds both; the
:class:`memmaint.maintenance.retrieve.search.Retriever` reads it. A serve history, where the
store keeps one, replaces the handover for the memories it judges for the query (it names the
need a memory helped or failed for): those with outcomes for a past query like this one. The
others, and every memory of a query no past query matches, keep their pair and handover.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from memmaint.maintenance.core.freshness import on_topic
from memmaint.maintenance.core.records import Memory

#: proven memories that compete for a failed one: its nearest this many (the assignment's
#: cost grows with the cube of its size; a pair further down is too far to be the need's)
NEAREST = 16
#: namespaces whose pairs are kept between Retriever builds (1,000 failed x 10,000 proven
#: memories take about 2 s to pair)
CACHED = 64
_CACHE: dict[tuple, tuple[tuple[int, int], ...]] = {}


def failed(mem: Memory) -> bool:
    """Failed more often than it helped."""
    return mem.failures > mem.successes


def proven(mem: Memory) -> bool:
    """Helped more often than it failed."""
    return mem.successes > mem.failures


def replacements(memories: Sequence[Memory], vectors: np.ndarray,
                 min_cosine: float) -> dict[int, int]:
    """Index of each failed memory -> index of the proven memory of its namespace paired
    with it (see the module docstring); ``vectors`` are unit rows aligned with
    ``memories``. The pairs of a namespace are cached (the newest ``CACHED`` namespaces),
    keyed by its failed and proven memories and their vectors: a Retriever built again over
    an unchanged namespace does not solve the assignment again."""
    by_ns: dict[str, tuple[list[int], list[int]]] = {}
    for i, m in enumerate(memories):
        if failed(m) or proven(m):
            bad, good = by_ns.setdefault(m.namespace, ([], []))
            (bad if failed(m) else good).append(i)
    out: dict[int, int] = {}
    for bad, good in by_ns.values():
        if not bad or not good:
            continue
        key = _key(memories, vectors, bad, good, min_cosine)
        found = _CACHE.pop(key, None)
        if found is None:
            found = _assign(vectors[bad] @ vectors[good].T, min_cosine)
        _CACHE[key] = found  # newest last
        while len(_CACHE) > CACHED:
            _CACHE.pop(next(iter(_CACHE)))
        out.update((bad[r], good[c]) for r, c in found)
    return out


def _assign(cos: np.ndarray, min_cosine: float) -> tuple[tuple[int, int], ...]:
    """``(failed row, proven column)`` of the pairs of one namespace's cosine matrix."""
    from scipy.optimize import linear_sum_assignment

    cols = np.arange(cos.shape[1])
    if cos.shape[1] > NEAREST:  # only each failed memory's nearest proven ones compete
        near = np.argpartition(-cos, NEAREST - 1, axis=1)[:, :NEAREST]
        cols = np.unique(near)
        cos = cos[:, cols]
    # a pair under the floor is worth no more than no pair: dropped afterwards, it must not
    # decide the others (counting it, a failed memory with no proven advice of its own drew
    # another need's advice away from that need's failed memory)
    rows, picked = linear_sum_assignment(-np.maximum(cos, min_cosine))
    return tuple((int(r), int(cols[c])) for r, c in zip(rows, picked)
                 if cos[r, c] >= min_cosine)


def _key(memories: Sequence[Memory], vectors: np.ndarray, bad: list[int], good: list[int],
         min_cosine: float) -> tuple:
    """What a namespace's pairs depend on: which memories failed and which are proven (ids
    and versions, in order), their vectors and the cosine floor."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(np.ascontiguousarray(vectors[bad + good], dtype=np.float64).tobytes())
    return (float(min_cosine), digest.hexdigest(),
            tuple((memories[i].id, memories[i].version) for i in bad),
            tuple((memories[i].id, memories[i].version) for i in good))


class Pairs:
    """The pairs of a searched pool: ``active`` memories (unit ``vectors``) and the retired
    failed memories ``retired`` (unit ``retired_vectors``) paired with active proven ones."""

    def __init__(self, active: Sequence[Memory], vectors: np.ndarray,
                 retired: Sequence[Memory], retired_vectors: np.ndarray | None,
                 min_cosine: float) -> None:
        keep = [k for k, m in enumerate(retired) if failed(m) and retired_vectors is not None]
        self.retired = [retired[k] for k in keep]
        self.retired_vectors = np.asarray(retired_vectors)[keep] if keep else None
        n = len(active)
        everyone = list(active) + self.retired
        rows = (vectors if self.retired_vectors is None
                else np.vstack([vectors, self.retired_vectors]))
        self.of = replacements(everyone, rows, min_cosine)  # retired k is n + k
        self.n_active = n

    def __bool__(self) -> bool:
        return bool(self.of)

    def handovers(self, idx: np.ndarray, sims: np.ndarray, scored: Sequence[tuple[bool, float, str]],
                  q: np.ndarray, floor: float, margin: float, z: float,
                  liftable: Any, judged: Any = None) -> dict[int, tuple[float, str, float]]:
        """Per active proven memory (row of ``idx``) that takes a failed memory's place for
        this query: ``(base, failed id, failed similarity)``, the best such failed memory.

        ``scored`` are the candidates' ``(may hand over, base, id)``: on topic, liftable and not
        judged by a serve history; the retired failed memories are judged on topic against
        the candidates' cosines ``sims`` (``on_topic`` and ``liftable``, the floors), except
        those ``judged`` (a mask over ``retired``: the serve history judges them here)."""
        at = {int(i): j for j, i in enumerate(idx)}
        best: dict[int, tuple[float, str, float]] = {}

        def offer(failed_row: int, base: float, mid: str, sim: float) -> None:
            g = self.of.get(failed_row)
            if g is not None and g in at and base > best.get(at[g], (-np.inf, "", 0.0))[0]:
                best[at[g]] = (base, mid, sim)

        for j, (ok, base, mid) in enumerate(scored):
            if ok:
                offer(int(idx[j]), base, mid, float(sims[j]))
        if self.retired_vectors is not None and len(sims):
            gs = self.retired_vectors @ q
            both = np.concatenate([sims, gs])
            ok = (on_topic(both, floor, margin, z) & liftable(both))[len(sims):]
            if judged is not None:
                ok &= ~np.asarray(judged, dtype=bool)
            for k in np.flatnonzero(ok):
                offer(self.n_active + int(k), float(gs[k]), self.retired[int(k)].id,
                      float(gs[k]))
        return best
