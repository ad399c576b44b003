"""Read-time retrieval: the twin of maintenance, for agents and for the evaluation.

Maintenance cleans the pool at night; retrieval still has to be careful by day, because a
fact can rot between two runs. :func:`retrieve` (or a reusable :class:`Retriever`) scores the
*active* memories of a pool against a query in four steps, and every result carries each
step's number, so a log line explains why a memory was served:

1. **similarity**: cosine between the query and each memory (unit vectors from the same
   embedder as the pool).
2. **lexical bonus** (``config.lexical``): BM25 over the pool, divided by the best BM25 score
   for this query and multiplied by ``config.lexical_cap`` (default 0.02). The bonus lies in
   ``[0, lexical_cap]``: it reorders near-ties (two chunks 0.002 apart) and never lifts an
   off-topic memory over a clearly better one. ``base = similarity + lexical``.
3. **outcome** (``config.outcome``, on by default), from the counters (``successes``,
   ``failures``: evidence about the memory in general, not tied to a question). ``m`` is the
   memory's expected success rate under the outcome model
   (:mod:`memmaint.maintenance.core.outcomes`: a Beta posterior with the namespace's base rate
   ``r`` as prior, decayed with time since last use) and ``n`` the decayed outcomes behind it.
   A memory expected to help *less* often than its namespace (``m < r``) is pulled toward
   ``m``: ``score = min((1 - w) * base + w * m, base + 2 * outcome_band * (m - r))`` with
   ``w = n / (n + outcome_counts_evidence)`` (0.1: one failure weighs 0.91), so the evidence,
   not the wording of the query, decides how far it sinks (one failure at 0.90 scores about
   0.4). A memory expected to help more often is lifted by ``2 * outcome_band * (m - r)``
   (five successes in five against ``r = 0.5``: +0.25), only when it is on topic: at least
   ``similarity_floor``, ``relevance_z`` robust deviations above the pool's median cosine,
   and (``lift_on_topic_only``) the gate's test: within ``relevance_margin`` of the best,
   a failed memory included; across that gap only the failed one's pair is lifted. The lift is the same for every proven memory of like record, so among proven
   memories similarity still decides, and a good record does not carry an off-topic memory
   past an on-topic one (issue #37: a lift that grew with the counters' evidence served
   proven advice of other needs first, since counters do not say for what a memory helped).
   Five successes in five at cosine 0.30 beat one failure at 0.90.
   A failed memory on topic (active, or retired: inactive memories given to the retriever
   point on) hands its place to the proven memory paired with it, which scores the failed
   one's similarity plus its lift (:mod:`memmaint.maintenance.retrieve.replacement`).
   A memory on topic that its record sinks sinks below the topic's other candidates only
   (``sink_on_topic_only``): not below a memory off the query's topic, so where a failed
   memory has no pair the query is not handed to another topic's proven memory.
   **With a serve history** (``served``, :mod:`memmaint.maintenance.core.served`: which query
   served a memory each time it helped or failed) a memory with outcomes for the same
   question (a past query at cosine >= ``agents.outcome_query_match``) is scored instead by
   ``(1 - w) * base + w * m``: ``m`` the posterior mean from those outcomes,
   ``w = n / (n + outcome_weight_evidence)`` with ``n`` those outcomes, decayed. So a new
   memory leans on similarity and a proven one on outcome; a memory that helped for this
   question counts as on topic. A memory whose uses were all for other questions keeps the
   counters' score, pair and handover (issue #37: a history that does not match the query
   knows no more than the counters, and dropping them served failed advice first).
   Evidence for this very query outranks evidence in general: a counters' lift or handover
   never carries a memory above a memory the history proves for this query (more successes
   than failures there); the lifted one is put just below it (:func:`history_first`).
4. **freshness gate** (``config.gate``), with the same TTL table as the maintenance agents
   (``config.agents.ttl_days``, :mod:`memmaint.maintenance.core.freshness`): ``FRESH`` memories pass
   unchanged, ``STALE_WARN`` ones are multiplied by ``freshness / 0.5`` (continuous: 1 at the
   FRESH boundary, 0 at expiry), ``STALE_BLOCK`` ones are dropped. When no remaining memory is
   both on topic and ``FRESH``, the answer is ``REFUSE``: better no answer than a fossil. On
   topic is judged against the query's other candidates, not by a fixed floor alone
   (:func:`memmaint.maintenance.core.freshness.on_topic`): at least ``similarity_floor``,
   within ``relevance_margin`` (0.25) of the best cosine, expired memories included, and
   ``relevance_z`` standard deviations above the pool's mean cosine. So a loosely related
   fresh note (0.33 next to a stale answer at 0.85) does not stand in for the stale answer.

The top ``k`` by final score are served (ties broken by newer first, then id). After the
agent has used an answer, :func:`record_feedback` writes the outcome on the memory's counters,
which feeds step 3 and the maintenance agents' outcome rules.

**Topic routing** (``route=True`` or ``config.route``, with ``routing`` =
:func:`memmaint.maintenance.retrieve.routing.latest_routing` of the store): before step 1, only the
memories of the ``route_clusters`` cluster centroids nearest the query (plus near-ties within
``route_margin``) and the memories no cluster holds (written since the last run) are scored;
the whole pool is scored when fewer than ``route_min_candidates`` would be. The clusters are
the last maintenance run's, never ground-truth labels; ``Retrieval.route`` says what was done.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, overload

import numpy as np

from memmaint.maintenance.core.config import AgentsConfig, Config, RetrieveConfig
from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.core.freshness import (
    FRESH,
    FRESH_AT,
    STALE_BLOCK,
    STALE_WARN,
    freshness,
    on_topic,
    verdict,
)
from memmaint.maintenance.core.outcomes import OutcomeTable, decay_factor
from memmaint.maintenance.core.records import Memory, to_utc, utcnow
from memmaint.maintenance.core.served import ServeLog, closest_question, matched_counts
from memmaint.maintenance.retrieve.bm25 import BM25
from memmaint.maintenance.retrieve.reorder import history_first, sink_among_on_topic
from memmaint.maintenance.retrieve.replacement import Pairs, failed
from memmaint.maintenance.retrieve.routing import RouteDecision, Router, Routing
from memmaint.maintenance.retrieve.topic import StandIn, may_lift, stand_in_test

log = logging.getLogger(__name__)

SERVE = "SERVE"
REFUSE = "REFUSE"


@dataclass(frozen=True)
class Result:
    """One scored memory and why it ranks where it does.

    Attributes:
        memory: the memory.
        similarity: cosine with the query.
        lexical: the capped BM25 bonus added to the similarity (0 when lexical is off).
        freshness: ``clamp(1 - age / ttl, 0, 1)`` for the memory's kind.
        verdict: ``FRESH``, ``STALE_WARN`` or ``STALE_BLOCK``.
        outcome: the memory's expected success rate under the outcome model (the namespace's
            base rate when it has no history).
        outcome_bonus: what outcome added to the score (negative: taken away; 0 when outcome
            is off or the memory has no history).
        history: ``(successes, failures)`` as stored (before decay).
        final: the ranking score.
        relevant: ``similarity >= similarity_floor`` (the floor under which outcome never
            lifts a memory).
        on_topic: relevant *and* judged against the other candidates of the query
            (:func:`memmaint.maintenance.core.freshness.on_topic`: within
            ``relevance_margin`` of the best cosine, expired memories included, and
            ``relevance_z`` standard deviations above the pool's mean); the gate serves only
            when a ``FRESH`` memory is on topic.
        rank: 1-based position among the served results (0 when not served).
        served_for: with a serve history, ``(closest, successes, failures)``: the cosine of
            the past query most like this one, and the outcomes of the uses whose query is
            the same question (``agents.outcome_query_match``); ``None`` without one.
    """

    memory: Memory
    similarity: float
    lexical: float
    freshness: float
    verdict: str
    outcome: float
    outcome_bonus: float
    final: float
    relevant: bool
    rank: int = 0
    history: tuple[int, int] = (0, 0)
    on_topic: bool = True
    served_for: tuple[float, int, int] | None = None
    in_place_of: tuple[str, float] | None = None

    @property
    def id(self) -> str:
        return self.memory.id

    def explain(self) -> str:
        """One line: the memory, its scores and its verdict."""
        parts = [f"sim {self.similarity:.3f}"]
        if self.lexical:
            parts.append(f"lex +{self.lexical:.3f}")
        if self.served_for is not None:
            near, s, f = self.served_for
            parts.append(f"served before for a query at {near:.2f}: {s} ok/{f} failed there, "
                         f"expected {self.outcome:.2f} ({self.outcome_bonus:+.3f})")
        elif self.outcome_bonus:
            s, f = self.history
            parts.append(f"outcome {s} ok/{f} failed, expected {self.outcome:.2f} "
                         f"({self.outcome_bonus:+.3f})")
        if self.in_place_of is not None:
            parts.append(f"in place of failed {self.in_place_of[0]} (sim "
                         f"{self.in_place_of[1]:.3f})")
        parts.append(f"{self.verdict} (freshness {self.freshness:.2f})")
        if not self.relevant:
            parts.append("below floor")
        elif not self.on_topic:
            parts.append("off topic (far below the best candidate)")
        where = f"#{self.rank} " if self.rank else ""
        return f"{where}{self.memory.id}: " + ", ".join(parts) + f" -> {self.final:.4f}"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.memory.id, "namespace": self.memory.namespace, "rank": self.rank,
                "similarity": self.similarity, "lexical": self.lexical,
                "freshness": self.freshness, "verdict": self.verdict, "outcome": self.outcome,
                "outcome_bonus": self.outcome_bonus, "successes": self.history[0],
                "failures": self.history[1], "final": self.final, "relevant": self.relevant,
                "on_topic": self.on_topic}
        if self.served_for is not None:
            out["served_for"] = {"closest_query": self.served_for[0],
                                 "successes": self.served_for[1],
                                 "failures": self.served_for[2]}
        if self.in_place_of is not None:
            out["in_place_of"] = {"id": self.in_place_of[0], "similarity": self.in_place_of[1]}
        return out


@dataclass(frozen=True)
class Retrieval(Sequence[Result]):
    """The answer to one query: the served results (a sequence) plus the decision.

    Attributes:
        query: the query text.
        decision: ``SERVE`` or ``REFUSE`` (nothing relevant and fresh; ``results`` is empty).
        results: the served results, best first.
        blocked: relevant-looking memories the gate dropped (``STALE_BLOCK``), best first,
            and, on ``REFUSE``, the stale or irrelevant candidates that were not served.
        reason: a sentence saying why (for logs).
    """

    query: str
    decision: str
    results: tuple[Result, ...]
    blocked: tuple[Result, ...] = ()
    reason: str = ""
    route: RouteDecision | None = None

    @property
    def refused(self) -> bool:
        return self.decision == REFUSE

    @overload
    def __getitem__(self, i: int) -> Result: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[Result]: ...

    def __getitem__(self, i: int | slice) -> Result | Sequence[Result]:
        return self.results[i]

    def __len__(self) -> int:
        return len(self.results)

    def __iter__(self) -> Iterator[Result]:
        return iter(self.results)

    @property
    def ids(self) -> list[str]:
        return [r.memory.id for r in self.results]

    def explain(self) -> str:
        """Several lines: the decision, then every served and blocked result."""
        lines = [f"{self.decision}: {self.reason}"]
        if self.route is not None:
            lines.append("  " + self.route.describe())
        lines += ["  " + r.explain() for r in self.results]
        lines += ["  dropped " + r.explain() for r in self.blocked]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "decision": self.decision, "reason": self.reason,
                "results": [r.to_dict() for r in self.results],
                "blocked": [r.to_dict() for r in self.blocked],
                "route": None if self.route is None else self.route.to_dict()}


def _configs(config: Config | RetrieveConfig | None, ttl_days: Mapping[str, float] | None
             ) -> tuple[RetrieveConfig, AgentsConfig, Mapping[str, float]]:
    """The retrieval settings, the agents' (TTL table, outcome model) and the TTL table."""
    if isinstance(config, Config):
        return (config.retrieve, config.agents,
                ttl_days if ttl_days is not None else config.agents.ttl_days)
    if config is None:
        config = RetrieveConfig()
    if not isinstance(config, RetrieveConfig):
        raise TypeError(f"expected RetrieveConfig or Config, got {type(config).__name__}")
    agents = AgentsConfig()
    return config, agents, (ttl_days if ttl_days is not None else agents.ttl_days)


@dataclass
class Retriever:
    """A pool indexed for retrieval: build once, query many times.

    Args:
        memories: the pool; only ``active`` memories are searched (others are ignored).
        embeddings: ``(len(memories), dim)`` vectors aligned with ``memories``.
        embedder: embeds query texts (the same model that embedded the pool); optional when
            every query comes with its vector.
        config: a ``RetrieveConfig`` or a whole ``Config`` (whose ``agents.ttl_days`` then
            gives the TTL table).
        ttl_days: kind -> TTL in days; overrides the config's table.
        routing: the last maintenance run's routing tables, needed to search with routing.
        served: the serve history (:class:`~memmaint.maintenance.core.served.ServeLog`): a
            memory with uses in it is judged by the outcomes of uses for queries like this
            one (see the module docstring, step 3).
    """

    memories: Sequence[Memory]
    embeddings: Any
    embedder: Any = None
    config: Config | RetrieveConfig | None = None
    ttl_days: Mapping[str, float] | None = None
    routing: Routing | None = None
    served: ServeLog | None = None
    _active: list[Memory] = field(init=False, repr=False)
    _vectors: np.ndarray = field(init=False, repr=False)
    _bm25: BM25 | None = field(init=False, repr=False)
    _router: Router | None = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        self.retrieve_config, agents, self.ttl_table = _configs(self.config, self.ttl_days)
        vecs = np.asarray(self.embeddings, dtype=np.float64)
        n = len(self.memories)
        if vecs.ndim != 2 or vecs.shape[0] != n:
            raise InputError(f"embeddings must have shape ({n}, dim), got {vecs.shape}")
        if not np.all(np.isfinite(vecs)):
            raise InputError("embeddings contain NaN or infinite values")
        keep = [i for i, m in enumerate(self.memories) if m.is_active]
        self._active = [self.memories[i] for i in keep]
        rows = vecs[keep] if keep else np.zeros((0, vecs.shape[1] if vecs.ndim == 2 else 1))
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        self._vectors = rows / norms
        self._bm25 = (BM25().fit([m.text for m in self._active])
                      if self.retrieve_config.lexical else None)
        self._outcomes = OutcomeTable(self._active, agents.outcome_prior_strength,
                                      agents.outcome_half_life_days)
        self._agents = agents
        self._keys = [(m.namespace, m.id) for m in self._active]
        gone = [i for i, m in enumerate(self.memories) if not m.is_active and failed(m)]
        self._pairs = Pairs(self._active, self._vectors, [self.memories[i] for i in gone],
                            _unit(vecs[gone]) if gone else None,
                            self.retrieve_config.replacement_cosine
                            if self.retrieve_config.outcome else 2.0)

    @property
    def pool_size(self) -> int:
        """How many active memories are searched."""
        return len(self._active)

    def embed_queries(self, queries: Sequence[str]) -> np.ndarray:
        if self.embedder is None:
            raise InputError("no embedder given: pass one, or pass query vectors")
        return np.asarray(self.embedder.embed(list(queries)), dtype=np.float64)

    def search(self, query: str, *, query_vector: Any = None, now: datetime | None = None,
               k: int | None = None, route: bool | None = None) -> Retrieval:
        """Score the pool against ``query`` and serve the top ``k`` (default ``config.k``).

        ``route`` (default ``config.route``) scores only the clusters nearest the query (see
        the module docstring); it needs ``routing``.
        """
        cfg = self.retrieve_config
        k = cfg.k if k is None else int(k)
        if k < 1:
            raise InputError(f"k must be >= 1, got {k}")
        now = to_utc(now) if now is not None else utcnow()
        if query_vector is None:
            query_vector = self.embed_queries([query])[0]
        q = np.asarray(query_vector, dtype=np.float64).reshape(-1)
        if len(self._active) and q.shape[0] != self._vectors.shape[1]:
            raise InputError(f"query vector has {q.shape[0]} dims, the pool "
                             f"{self._vectors.shape[1]}")
        if not np.all(np.isfinite(q)):
            raise InputError("query vector contains NaN or infinite values")
        rows, routed = self._route(q, route)
        idx = np.arange(len(self._active)) if rows is None else rows
        norm = float(np.linalg.norm(q))
        vecs = self._vectors if rows is None else self._vectors[rows]
        sims = vecs @ (q / norm if norm > 0 else q)
        lex = np.zeros(len(idx))
        if self._bm25 is not None and len(idx):
            raw = self._bm25.scores(query)[idx]
            top = float(raw.max())
            if top > 0:
                lex = cfg.lexical_cap * raw / top
        if cfg.outcome and self._outcomes.any:
            expected, rate, evidence = self._outcomes.at(now)
        else:
            expected = rate = evidence = np.zeros(len(self._active))
        topical = on_topic(sims, cfg.similarity_floor, cfg.relevance_margin, cfg.relevance_z)
        stand_in = self._stand_in(sims, idx, vecs, now)
        for j in np.flatnonzero(topical):
            topical[j] = not stand_in.barred(int(j))
        liftable = may_lift(sims, cfg.similarity_floor, cfg.relevance_z)
        results = [self._score(int(i), float(sims[j]), float(lex[j]), now,
                               float(expected[i]), float(rate[i]), bool(topical[j]),
                               bool(liftable[j]), float(evidence[i]))
                   for j, i in enumerate(idx)]
        history = cfg.outcome and self.served is not None and len(self.served) > 0
        floor = self._nearest_floor(q, idx) if history else -np.inf
        if history:
            results = self._by_serve_history(results, idx, q, now, rate, floor, stand_in)
        if self._pairs:
            results = self._in_place(results, idx, q, sims, liftable, expected, rate, floor)
        if cfg.outcome and self.served is not None:
            results = history_first(results, cfg.gate)
        if cfg.outcome and cfg.sink_on_topic_only:
            results = sink_among_on_topic(results, cfg.gate)
        return self._decide(query, results, k, routed)

    def _in_place(self, results: list[Result], idx: np.ndarray, q: np.ndarray,
                  sims: np.ndarray, liftable: np.ndarray, expected: np.ndarray,
                  rate: np.ndarray, nearest_floor: float) -> list[Result]:
        """A failed memory on topic for the query (a retired one included) hands its place
        to the proven memory paired with it (:mod:`~memmaint.maintenance.retrieve.replacement`):
        that one scores the failed memory's similarity plus its own lift, and counts as on
        topic. A failed memory the serve history judges (a matching past query) is left to it."""
        cfg, gone = self.retrieve_config, [(m.namespace, m.id) for m in self._pairs.retired]
        scored = [(bool(liftable[j]) and r.on_topic and r.served_for is None,
                   r.similarity + r.lexical, r.memory.id) for j, r in enumerate(results)]
        norm = float(np.linalg.norm(q)) or 1.0
        judged = np.zeros(len(gone), dtype=bool)  # retired ones with a matching past query
        if cfg.outcome and self.served is not None and len(self.served) and gone:
            s, f, _l, _c = matched_counts(self.served, gone, q, self._agents.outcome_query_match,
                                          nearest_floor)
            judged = (s + f) > 0
        for jg, (base, mid, sim) in self._pairs.handovers(
                idx, sims, scored, q / norm, cfg.similarity_floor, cfg.relevance_margin,
                cfg.relevance_z, lambda s: may_lift(s, cfg.similarity_floor,
                                                     cfg.relevance_z), judged).items():
            g, i = results[jg], int(idx[jg])
            score = base + 2.0 * cfg.outcome_band * float(expected[i] - rate[i])
            if g.served_for is not None or score <= base or score <= g.final:
                continue
            if cfg.gate and g.verdict == STALE_WARN:
                score *= g.freshness / FRESH_AT
            results[jg] = dataclasses.replace(
                g, final=score, outcome=float(expected[i]), relevant=True, on_topic=True,
                outcome_bonus=score - g.similarity - g.lexical, in_place_of=(mid, sim))
        return results

    def _stand_in(self, sims: np.ndarray, idx: np.ndarray, vecs: np.ndarray,
                  now: datetime) -> StandIn:
        """Which fresh candidates may not stand in for a stale best answer
        (:class:`~memmaint.maintenance.retrieve.topic.StandIn`; none without the gate)."""
        cfg = self.retrieve_config

        def fresh(j: int) -> bool:
            return verdict(freshness(self._active[int(idx[j])], now, self.ttl_table)) == FRESH

        return stand_in_test(sims, vecs, (lambda j: True) if not cfg.gate else fresh,
                             cfg.stand_in_margin, cfg.stand_in_cosine)

    def _nearest_floor(self, q: np.ndarray, idx: np.ndarray) -> float:
        """A memory's serve history counts for this query only when one of its past queries
        comes within ``history_margin`` of the closest past query of all the candidates:
        where the log holds a question nearer this one, a memory that only served farther
        ones served a neighbouring question, whose record says nothing here."""
        assert self.served is not None
        best = closest_question(self.served, [self._keys[int(i)] for i in idx], q)
        return best - self.retrieve_config.history_margin

    def _by_serve_history(self, results: list[Result], idx: np.ndarray, q: np.ndarray,
                          now: datetime, rate: np.ndarray, nearest_floor: float,
                          stand_in: StandIn) -> list[Result]:
        """Rescore the memories with outcomes in the serve log for queries like ``q`` (step 3
        of the module docstring), in proportion to how many there are; the others keep the
        counters' score (and so their pair and handover, ``served_for`` stays ``None``)."""
        assert self.served is not None
        cfg, agents = self.retrieve_config, self._agents
        keys = [self._keys[int(i)] for i in idx]
        s, f, _logged, closest = matched_counts(self.served, keys, q,
                                                agents.outcome_query_match, nearest_floor)
        matched = (s + f) > 0  # no matching past query with an outcome: the counters decide
        if not matched.any():
            return results
        d = np.array([decay_factor(self._active[int(i)], now, agents.outcome_half_life_days)
                      for i in idx])
        s_raw, f_raw = s, f
        best = max((r.similarity for r in results), default=1.0)
        s, f = s * d, f * d
        out = []
        for j, r in enumerate(results):
            if not matched[j]:
                out.append(r)
                continue
            n = s[j] + f[j]
            r0 = float(rate[int(idx[j])])
            expected = (agents.outcome_prior_strength * r0 + s[j]) / (
                agents.outcome_prior_strength + n)
            w = n / (n + cfg.outcome_weight_evidence)
            # helped for this question before: on topic; where it cannot stand in for a
            # stale best answer, only when the question it helped is nearer this one than
            # that answer is
            helped = bool(s[j] > f[j] and (closest[j] >= best or not stand_in.barred(j)))
            base = r.similarity + r.lexical
            score = (1.0 - w) * base + w * expected
            if cfg.gate and r.verdict == STALE_WARN:
                score *= r.freshness / FRESH_AT
            out.append(dataclasses.replace(
                r, outcome=expected, outcome_bonus=score - base if n else 0.0, final=score,
                relevant=r.relevant or helped, on_topic=r.on_topic or helped,
                served_for=(float(closest[j]), int(s_raw[j]), int(f_raw[j]))))
        return out

    def _route(self, q: np.ndarray, route: bool | None) -> tuple[np.ndarray | None,
                                                                RouteDecision | None]:
        cfg = self.retrieve_config
        if not (cfg.route if route is None else route):
            return None, None
        if self.routing is None:
            raise InputError("routing needs the last maintenance run's routing table: pass "
                             "routing=latest_routing(store)")
        if self._router is None:
            self._router = Router(self.routing, self._active,
                                  getattr(self.embedder, "model_id", None))
        return self._router.candidates(q, cfg.route_clusters, cfg.route_margin,
                                       cfg.route_min_candidates)

    def _score(self, i: int, sim: float, lex: float, now: datetime, expected: float,
               rate: float, topical: bool = True, liftable: bool = True,
               evidence: float = 0.0) -> Result:
        cfg = self.retrieve_config
        mem = self._active[i]
        f = freshness(mem, now, self.ttl_table)
        v = verdict(f)
        relevant = sim >= cfg.similarity_floor
        bonus = 0.0
        if cfg.outcome and (mem.successes > 0 or mem.failures > 0):
            bonus = 2.0 * cfg.outcome_band * (expected - rate)
            if expected < rate:  # helps less often than its namespace: pulled toward m
                w = evidence / (evidence + cfg.outcome_counts_evidence)
                bonus = min(bonus, w * (expected - sim - lex))
            elif not (relevant and liftable and (topical or not cfg.lift_on_topic_only)):
                bonus = 0.0  # below the floors, or off the query's topic (the gate's test)
        score = sim + lex + bonus
        if cfg.gate and v == STALE_WARN:
            score *= f / FRESH_AT
        return Result(mem, sim, lex, f, v, expected if bonus else rate, bonus, score, relevant,
                      history=(mem.successes, mem.failures), on_topic=topical)

    def _decide(self, query: str, results: list[Result], k: int,
                routed: RouteDecision | None = None) -> Retrieval:
        cfg = self.retrieve_config

        def order(r: Result) -> tuple:
            return (-r.final, -r.memory.created_at.timestamp(), r.memory.id)

        results.sort(key=order)
        blocked: list[Result] = []
        if cfg.gate:
            blocked = [r for r in results if r.verdict == STALE_BLOCK]
            results = [r for r in results if r.verdict != STALE_BLOCK]
            if not any(r.on_topic and r.verdict == FRESH for r in results):
                why = self._refusal_reason(results, blocked)
                dropped = sorted((r for r in blocked + results if r.on_topic),
                                 key=lambda r: -r.similarity)[:k]
                out = Retrieval(query, REFUSE, (), tuple(dropped), why, routed)
                log.info("retrieve %r: %s", query[:80], why)
                return out
        served = tuple(_ranked(r, n) for n, r in enumerate(results[:k], start=1))
        relevant_blocked = tuple(r for r in blocked if r.relevant)[:k]
        why = (f"{len(served)} of {len(self._active)} active memories served"
               + (f"; {len(blocked)} blocked as expired" if blocked else ""))
        out = Retrieval(query, SERVE, served, relevant_blocked, why, routed)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("retrieve %r: %s", query[:80], out.explain())
        return out

    def _refusal_reason(self, results: list[Result], blocked: list[Result]) -> str:
        floor = self.retrieve_config.similarity_floor
        stale = sum(1 for r in results if r.on_topic and r.verdict == STALE_WARN)
        expired = sum(1 for r in blocked if r.on_topic)
        if not self._active:
            return "the pool has no active memories"
        if stale or expired:
            loose = sum(1 for r in results if r.relevant and not r.on_topic
                        and r.verdict == FRESH)
            margin = self.retrieve_config.relevance_margin
            return (f"no FRESH memory with similarity >= {floor:g} within {margin:g} of the "
                    f"best: {expired} on-topic memories expired "
                    f"(STALE_BLOCK), {stale} stale (STALE_WARN)"
                    + (f"; {loose} fresh ones only loosely related (within the floor "
                       f"{floor:g}, far below the best)" if loose else ""))
        return f"no memory with similarity >= {floor:g}"


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms == 0, 1.0, norms)


def _ranked(r: Result, rank: int) -> Result:
    return dataclasses.replace(r, rank=rank)


def retrieve(query: str, memories: Sequence[Memory], embeddings: Any, embedder: Any = None,
             config: Config | RetrieveConfig | None = None, now: datetime | None = None,
             ttl_days: Mapping[str, float] | None = None, *, query_vector: Any = None,
             k: int | None = None, route: bool | None = None,
             routing: Routing | None = None, served: ServeLog | None = None) -> Retrieval:
    """Retrieve the best active memories for ``query`` (see the module docstring).

    Args:
        query: the query text (also used for the lexical bonus).
        memories: the pool; inactive memories are ignored.
        embeddings: vectors aligned with ``memories``.
        embedder: embeds the query (not needed when ``query_vector`` is given).
        config: ``RetrieveConfig`` or a whole ``Config``.
        now: the time freshness is judged at (default: now, UTC).
        ttl_days: kind -> TTL days (default: the config's ``agents.ttl_days``, else the
            agents' defaults).
        query_vector: the query's embedding, if already computed.
        k: how many to serve (default ``config.k``).
        route: score only the clusters nearest the query (default ``config.route``).
        routing: the routing tables (``latest_routing(store)``), needed when routing.
        served: the serve history, when known (:class:`Retriever`).

    Returns a :class:`Retrieval`: a sequence of :class:`Result` (best first) with ``decision``
    ``SERVE`` or ``REFUSE``. For many queries over one pool build a :class:`Retriever` once.
    """
    retriever = Retriever(memories, embeddings, embedder, config, ttl_days, routing, served)
    return retriever.search(query, query_vector=query_vector, now=now, k=k, route=route)


def record_feedback(store: Any, result: Result | Memory, success: bool | None) -> Memory:
    """Record that a served memory was used, and whether it helped (``None``: unknown).

    Increments the memory's ``retrievals`` and ``successes`` or ``failures`` through
    ``store.record_usage``; returns the stored memory.
    """
    mem = result.memory if isinstance(result, Result) else result
    return store.record_usage(mem.namespace, mem.id, success)
