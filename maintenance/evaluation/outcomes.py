"""``memmaint eval outcomes``: does outcome history beat a closer-sounding failure?

Every scenario of :func:`memmaint.datasets.outcome_scenarios.load_outcome_scenarios` puts two
memories in one shared pool (all scenarios together, so the other 58 memories are
distractors): advice that worked and advice that failed but is closer to the query. For each
scenario and configuration:

- **cosine only**: is the good advice the pool's nearest memory to the query?
- **retrieve**: is it served first by :func:`memmaint.maintenance.retrieve.search.retrieve`
  with the configuration's ``[retrieve]`` settings (outcome ranking on by default)?
- **maintenance**: after one real nightly run (:func:`~.common.maintain`) is the bad advice
  retired (any action that leaves it inactive), is the good advice still active, and is the
  good advice served first from what is left?
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import numpy as np

from memmaint.datasets.outcome_scenarios import OutcomeScenario, load_outcome_scenarios
from memmaint.maintenance.core.config import Config
from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.core.served import ServeLog
from memmaint.maintenance.evaluation.common import EvalCache, format_table, maintain
from memmaint.maintenance.retrieve.search import Retriever

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=timezone.utc)


@dataclass(frozen=True)
class ScenarioOutcome:
    """One scenario under one configuration."""

    scenario: str
    domain: str
    good_history: str
    bad_history: str
    cos_good: float
    cos_bad: float
    cosine_first: bool
    retrieve_first: bool
    bad_action: str
    good_action: str
    after_first: bool

    @property
    def bad_retired(self) -> bool:
        return self.bad_action != "keep"

    @property
    def good_retired(self) -> bool:
        return self.good_action != "keep"


@dataclass
class OutcomeReport:
    """Per configuration, the scenario rows and their totals."""

    rows: dict[str, list[ScenarioOutcome]] = field(default_factory=dict)

    def totals(self, name: str) -> dict[str, int]:
        rows = self.rows[name]
        return {"scenarios": len(rows),
                "bad_closer": sum(r.cos_bad > r.cos_good for r in rows),
                "cosine_first": sum(r.cosine_first for r in rows),
                "retrieve_first": sum(r.retrieve_first for r in rows),
                "bad_retired": sum(r.bad_retired for r in rows),
                "good_retired": sum(r.good_retired for r in rows),
                "after_first": sum(r.after_first for r in rows)}

    def format(self) -> str:
        out = []
        header = ["config", "bad closer", "good first: cosine", "retrieve", "after maint.",
                  "bad retired", "good retired"]
        rows = []
        for name in self.rows:
            t = self.totals(name)
            n = t["scenarios"]
            rows.append([name, f"{t['bad_closer']}/{n}", f"{t['cosine_first']}/{n}",
                         f"{t['retrieve_first']}/{n}", f"{t['after_first']}/{n}",
                         f"{t['bad_retired']}/{n}", f"{t['good_retired']}/{n}"])
        out.append(format_table(header, rows))
        for name, scenario_rows in self.rows.items():
            out.append(f"\n{name}: per scenario")
            out.append(format_table(
                ["scenario", "good (s/f)", "bad (s/f)", "cos good", "cos bad", "cosine",
                 "retrieve", "bad ->", "good ->", "after"],
                [[r.scenario, r.good_history, r.bad_history, f"{r.cos_good:.2f}",
                  f"{r.cos_bad:.2f}", _mark(r.cosine_first), _mark(r.retrieve_first),
                  r.bad_action, r.good_action, _mark(r.after_first)] for r in scenario_rows]))
        return "\n".join(out)

    def to_dict(self) -> dict[str, Any]:
        return {name: {"totals": self.totals(name),
                       "scenarios": [dict(r.__dict__) for r in rows]}
                for name, rows in self.rows.items()}


def _mark(ok: bool) -> str:
    return "yes" if ok else "no"


def _first(retriever: Retriever, query: str, vector: np.ndarray, good_id: str) -> bool:
    served = retriever.search(query, query_vector=vector, now=NOW)
    return bool(len(served)) and served[0].memory.id == good_id


def run_outcomes(configs: Sequence[tuple[str, Config]], cache: EvalCache,
                 scenarios: Sequence[OutcomeScenario] | None = None) -> OutcomeReport:
    """Evaluate every configuration on the scenarios (default: the packaged 30)."""
    scenarios = list(scenarios) if scenarios is not None else load_outcome_scenarios()
    pool: list[Memory] = [m for s in scenarios for m in s.memories(NOW)]
    report = OutcomeReport()
    for name, config in configs:
        vectors = cache.embed([m.text for m in pool], config.embedding)
        queries = cache.embed([s.query for s in scenarios], config.embedding)
        by_id = {m.id: i for i, m in enumerate(pool)}
        before = Retriever(pool, vectors, cache.embedder(config.embedding), config)
        done = maintain(pool, config, cache, now=NOW)
        actions = {mid: act for (_ns, mid), act in done.actions.items()}
        active_ids = {m.id for m in done.active}
        after_vectors = cache.embed([m.text for m in done.active], config.embedding)
        after = Retriever(done.active, after_vectors, cache.embedder(config.embedding), config)
        rows = []
        for s, q in zip(scenarios, queries):
            good, bad = f"{s.id}-good", f"{s.id}-bad"
            cos = vectors @ q
            rows.append(ScenarioOutcome(
                scenario=s.id, domain=s.domain,
                good_history=f"{s.good.successes}/{s.good.failures}",
                bad_history=f"{s.bad.successes}/{s.bad.failures}",
                cos_good=float(cos[by_id[good]]), cos_bad=float(cos[by_id[bad]]),
                cosine_first=pool[int(np.argmax(cos))].id == good,
                retrieve_first=_first(before, s.query, q, good),
                bad_action=actions.get(bad, "keep") if bad not in active_ids else "keep",
                good_action=actions.get(good, "keep") if good not in active_ids else "keep",
                after_first=good in active_ids and _first(after, s.query, q, good)))
        report.rows[name] = rows
    return report


# --- the generated dev set (``--part dev|validation``) ----------------------------------------


@dataclass(frozen=True)
class DevAdviceRow:
    """One advice need of the generated set under one configuration."""

    scenario: str
    namespace: str
    cos_good: float
    cos_bad: float
    pair_cosine: float
    first: str
    good_first: bool
    off_topic_first: bool
    bad_retired: bool
    good_retired: bool
    after_first: bool
    bad_fate: str = "kept"  # kept, evicted, "-> own good", "-> <id>" (another memory)


@dataclass(frozen=True)
class DevTopicRow:
    """One stale-only topic: refused without a fresh answer, fresh answer served with one."""

    topic: str
    sim_stale: float
    sim_loose: float
    decision: str
    first: str
    off_topic_first: bool
    control_first: str

    @property
    def refused(self) -> bool:
        return self.decision == "REFUSE"

    @property
    def control_served(self) -> bool:
        return self.control_first.endswith("-fresh")


@dataclass
class DevReport:
    """Per configuration, the advice rows and the topic rows of one part."""

    part: str
    advice: dict[str, list[DevAdviceRow]] = field(default_factory=dict)
    topics: dict[str, list[DevTopicRow]] = field(default_factory=dict)

    def totals(self, name: str) -> dict[str, Any]:
        rows, tops = self.advice[name], self.topics[name]
        pair = np.array([r.pair_cosine for r in rows])
        gap = np.array([r.cos_bad - r.cos_good for r in rows])
        return {"needs": len(rows), "topics": len(tops),
                "bad_closer": sum(r.cos_bad > r.cos_good for r in rows),
                "good_first": sum(r.good_first for r in rows),
                "after_first": sum(r.after_first for r in rows),
                "bad_retired": sum(r.bad_retired for r in rows),
                "bad_to_own_good": sum(r.bad_fate == "-> own good" for r in rows),
                "bad_to_other": sum(r.bad_fate.startswith("-> ") and r.bad_fate != "-> own good"
                                    for r in rows),
                "good_retired": sum(r.good_retired for r in rows),
                "off_topic_first": (sum(r.off_topic_first for r in rows)
                                    + sum(t.off_topic_first for t in tops)),
                "stale_refused": sum(t.refused for t in tops),
                "control_served": sum(t.control_served for t in tops),
                "pair_cosine": [round(float(x), 2) for x in (pair.min(), np.median(pair),
                                                             pair.max())],
                "query_gap": [round(float(x), 2) for x in (gap.min(), np.median(gap),
                                                           gap.max())]}

    def format(self) -> str:
        header = ["config", "good first", "after maint.", "bad retired", "good retired",
                  "proven first off topic", "stale-only refused", "fresh served"]
        rows = []
        for name in self.advice:
            t = self.totals(name)
            n, m = t["needs"], t["topics"]
            rows.append([name, f"{t['good_first']}/{n}", f"{t['after_first']}/{n}",
                         f"{t['bad_retired']}/{n}", f"{t['good_retired']}/{n}",
                         f"{t['off_topic_first']}/{n + m}", f"{t['stale_refused']}/{m}",
                         f"{t['control_served']}/{m}"])
        out = [f"part {self.part}", format_table(header, rows)]
        for name in self.advice:
            t = self.totals(name)
            out.append(f"\n{name}: good/bad cosine min/median/max {t['pair_cosine']}, query gap "
                       f"(bad - good) {t['query_gap']}, bad closer {t['bad_closer']}/"
                       f"{t['needs']}; failed advice superseded by its own good advice "
                       f"{t['bad_to_own_good']}, by another memory {t['bad_to_other']}")
            out.append(format_table(
                ["need", "cos good", "cos bad", "pair", "first", "bad", "after"],
                [[r.scenario, f"{r.cos_good:.2f}", f"{r.cos_bad:.2f}", f"{r.pair_cosine:.2f}",
                  r.first, r.bad_fate, _mark(r.after_first)]
                 for r in self.advice[name]]))
            out.append(format_table(
                ["topic", "sim stale", "sim loose", "decision", "first", "with fresh answer"],
                [[r.topic, f"{r.sim_stale:.2f}", f"{r.sim_loose:.2f}", r.decision, r.first,
                  r.control_first] for r in self.topics[name]]))
        return "\n".join(out)

    def to_dict(self) -> dict[str, Any]:
        return {name: {"part": self.part, "totals": self.totals(name),
                       "needs": [dict(r.__dict__) for r in self.advice[name]],
                       "topics": [dict(t.__dict__) for t in self.topics[name]]}
                for name in self.advice}


def _per_namespace(memories: Sequence[Memory], vectors: np.ndarray, embedder: Any,
                   config: Config, served: ServeLog | None = None) -> dict[str, Retriever]:
    """One retriever per namespace: an agent searches its own namespace."""
    out = {}
    for ns in sorted({m.namespace for m in memories}):
        rows = [i for i, m in enumerate(memories) if m.namespace == ns]
        out[ns] = Retriever([memories[i] for i in rows], vectors[rows], embedder, config,
                            served=served)
    return out


def serve_log(uses: Sequence[Any], cache: EvalCache, config: Config) -> ServeLog:
    """The dev set's past uses as a :class:`ServeLog`, their queries embedded like the pool."""
    if not uses:
        return ServeLog.empty(1)
    vectors = cache.embed([u.query for u in uses], config.embedding)
    return ServeLog(tuple((u.namespace, u.memory_id) for u in uses), vectors,
                    np.array([1.0 if u.success else 0.0 for u in uses]))


def _top(retrievers: dict[str, Retriever], ns: str, query: str,
         vector: np.ndarray) -> tuple[str, Memory | None]:
    served = retrievers[ns].search(query, query_vector=vector, now=NOW)
    return served.decision, (served[0].memory if len(served) else None)


def _off_topic(first: Memory | None, scenario: str) -> bool:
    """Served first a proven memory (one that has helped) of another need or topic."""
    return (first is not None and first.metadata.get("scenario") != scenario
            and first.successes > 0)


def _fate(bad: str, good: str, active: set[str],
          replaced: dict[str, tuple[str | None, str]]) -> str:
    """What maintenance did to the failed advice: kept, evicted, or superseded by its own
    good advice or by another memory (a sibling of another need)."""
    if bad in active:
        return "kept"
    target, status = replaced.get(bad, (None, ""))
    if target is None:
        return status or "retired"
    return "-> own good" if target == good else f"-> {target}"


def _maintain_devset(pool: list[Memory], uses: Sequence[Any], config: Config,
                     cache: EvalCache) -> Any:
    """One nightly run over the pool; with ``uses`` the store keeps them as its serve
    history (recorded as feedback with the query, on counters that start at zero, so they
    end where the set's counters are), as a store that keeps one would."""
    used = {u.memory_id for u in uses}
    start = [dataclasses.replace(m, successes=0, failures=0, retrievals=0, last_used_at=None)
             if m.id in used else m for m in pool]
    return maintain(start, config, cache, now=NOW, uses=uses)


def run_outcome_devset(configs: Sequence[tuple[str, Config]], cache: EvalCache,
                       part: str = "dev", history: bool = True) -> DevReport:
    """Evaluate every configuration on one part of the generated set
    (:func:`memmaint.datasets.outcome_devset.load_devset`): each seed is one shared namespace
    with all needs and topics of the part; maintenance runs once over the whole pool.

    With ``history`` the retrievers and the nightly run get the set's serve history (which
    wording of each need served each advice, and the verdict), as a store that keeps one
    would give them; without it they see the counters only."""
    from memmaint.datasets.outcome_devset import load_devset

    dev = load_devset(part)
    pool: list[Memory] = [m for ns, s in dev.scenarios for m in s.memories(NOW, ns)]
    pool += [m for ns, t in dev.topics for m in t.memories(NOW, ns)]
    control = pool + [m for ns, t in dev.topics for m in t.memories(NOW, ns, control=True)
                      if m.id.endswith("-fresh")]
    queries = [s.query for _ns, s in dev.scenarios] + [t.query for _ns, t in dev.topics]
    report = DevReport(part)
    for name, config in configs:
        embedder = cache.embedder(config.embedding)
        vectors = cache.embed([m.text for m in control], config.embedding)
        qv = cache.embed(queries, config.embedding)
        by_id = {m.id: i for i, m in enumerate(control)}
        log = serve_log(dev.uses, cache, config) if history else None
        before = _per_namespace(pool, vectors[:len(pool)], embedder, config, log)
        with_fresh = _per_namespace(control, vectors, embedder, config, log)
        done = _maintain_devset(pool, dev.uses if history else (), config, cache)
        active = {m.id for m in done.active}
        replaced = {m.id: (m.replaced_by, m.status.value) for m in done.memories}
        # every memory: the retired failed ones point to the advice that takes their place
        after = _per_namespace(done.memories, cache.embed([m.text for m in done.memories],
                                                          config.embedding), embedder, config,
                               log)
        rows = []
        for (_ns, s), q in zip(dev.scenarios, qv):
            good, bad = by_id[f"{s.id}-good"], by_id[f"{s.id}-bad"]
            _d, first = _top(before, _ns, s.query, q)
            _d, first_after = _top(after, _ns, s.query, q)
            rows.append(DevAdviceRow(
                s.id, _ns, float(vectors[good] @ q), float(vectors[bad] @ q),
                float(vectors[good] @ vectors[bad]), first.id if first else "-",
                first is not None and first.id == f"{s.id}-good", _off_topic(first, s.id),
                f"{s.id}-bad" not in active, f"{s.id}-good" not in active,
                first_after is not None and first_after.id == f"{s.id}-good",
                _fate(f"{s.id}-bad", f"{s.id}-good", active, replaced)))
        tops = []
        for (_ns, t), q in zip(dev.topics, qv[len(dev.scenarios):]):
            decision, first = _top(before, _ns, t.query, q)
            _d, cfirst = _top(with_fresh, _ns, t.query, q)
            tops.append(DevTopicRow(
                t.id, float(vectors[by_id[f"{t.id}-stale"]] @ q),
                float(vectors[by_id[f"{t.id}-loose"]] @ q), decision,
                first.id if first else "-", _off_topic(first, t.id),
                cfirst.id if cfirst else "-"))
        report.advice[name], report.topics[name] = rows, tops
    return report
