"""What the rule agents' pair tests cost (issue #32: the transition test sits in every
``slots.relation``): relation over 40,000 pairs of a support pool, and the rule agents' plan
of a 1,877-memory support pool in its 60 labelled clusters (hashing embedder). CPU seconds,
smallest of ``--reps``. Compare two checkouts by running the script under each (``git
worktree add`` and ``PYTHONPATH``), one after the other on an idle machine.

    python benchmarks/rule_agents_cost.py --reps 3
"""

from __future__ import annotations

import argparse
import time
from datetime import datetime, timezone

import numpy as np

from memmaint.datasets.pools import make_memory_pool
from memmaint.maintenance.agents.rules import plan
from memmaint.maintenance.agents.slots import relation, statement
from memmaint.maintenance.core.config import AgentsConfig, EmbeddingConfig
from memmaint.maintenance.embed.base import get_embedder

NOW = datetime(2025, 1, 1, tzinfo=timezone.utc)


def relation_cost() -> tuple[float, int]:
    pool = make_memory_pool("support", n_classes=20, per_class=(10, 20), seed=0, now=NOW)
    stmts = [statement(m.text) for m in pool.memories][:300]
    pairs = [(i, j) for i in range(len(stmts)) for j in range(i + 1, len(stmts))][:40000]
    t0 = time.process_time()
    found = sum(1 for i, j in pairs if relation(stmts[i], stmts[j], 0.7))
    return time.process_time() - t0, found


def plan_cost() -> tuple[float, int]:
    pool = make_memory_pool("support", n_classes=60, per_class=(20, 40), seed=1, now=NOW)
    vectors = np.asarray(get_embedder(EmbeddingConfig(model="hashing", dim=64)).embed(
        [m.text for m in pool.memories]))
    t0 = time.process_time()
    the_plan = plan(pool.memories, np.array(pool.labels), vectors, AgentsConfig(), now=NOW)
    return time.process_time() - t0, sum(len(c.actions) for c in the_plan.clusters)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    for name, fn in (("relation, 40,000 pairs", relation_cost),
                     ("rules.plan, 1,877 memories", plan_cost)):
        runs = [fn() for _ in range(args.reps)]
        print(f"{name}: {min(t for t, _ in runs):.2f} s CPU ({runs[0][1]} found)")


if __name__ == "__main__":
    main()
