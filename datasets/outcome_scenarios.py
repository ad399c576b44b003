"""Adversarial outcome scenarios: advice that worked against advice that failed but reads
closer to the question (``data/outcome_scenarios.json``, 30 scenarios in 15 domains).

Each scenario has a ``query``, a ``good`` memory (successes, few or no failures) and a ``bad``
one (failures, at most one success) whose text is nearer the query in embedding space, the
trap a similarity-only retriever falls into. Used by ``memmaint eval outcomes``
(:mod:`memmaint.maintenance.evaluation.outcomes`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from importlib import resources

from memmaint.maintenance.core.records import Memory


@dataclass(frozen=True)
class Advice:
    text: str
    successes: int
    failures: int


@dataclass(frozen=True)
class OutcomeScenario:
    id: str
    domain: str
    query: str
    good: Advice
    bad: Advice

    def memories(self, now: datetime, namespace: str = "advice") -> tuple[Memory, Memory]:
        """The two memories, the failed advice written later (so recency favours it too) and
        both last used a day before ``now``."""
        used = now - timedelta(days=1)

        def make(kind: str, a: Advice, age: float) -> Memory:
            return Memory(text=a.text, id=f"{self.id}-{kind}", namespace=namespace,
                          created_at=now - timedelta(days=age),
                          retrievals=a.successes + a.failures, successes=a.successes,
                          failures=a.failures, last_used_at=used,
                          metadata={"scenario": self.id, "role": kind})
        return make("good", self.good, 30.0), make("bad", self.bad, 10.0)


def load_outcome_scenarios() -> list[OutcomeScenario]:
    """The packaged scenarios, in file order."""
    raw = json.loads(resources.files("memmaint.datasets").joinpath(
        "data/outcome_scenarios.json").read_text(encoding="utf-8"))
    return [OutcomeScenario(s["id"], s["domain"], s["query"], Advice(**s["good"]),
                            Advice(**s["bad"])) for s in raw["scenarios"]]
