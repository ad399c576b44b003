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

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import numpy as np

from memmaint.datasets.outcome_scenarios import OutcomeScenario, load_outcome_scenarios
from memmaint.maintenance.core.config import Config
from memmaint.maintenance.core.records import Memory
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
