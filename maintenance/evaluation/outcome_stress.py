"""``memmaint eval outcomes --stress``: the generated set's needs in harder arrangements.

The dev and validation parts give every need both its advice that worked and its advice
that failed, one namespace per seed. A store is not so tidy: failed advice whose need has no
proven advice yet, and namespaces shared by several subjects. From the same part (no new
data) this builds:

- ``as is``: the part as the main table sees it (retrieval before maintenance);
- ``shared ns``: both seeds in one namespace (two subjects, 32 needs);
- ``drop 25%``: per repetition each need loses its proven advice with probability 1/4
  (seeded), so its failed advice has no proven pair;
- ``shared+drop``: both at once.

Counted per need's query, retrieval only (counters alone, no serve history): *good first*
over the needs that still have their good advice, and *proven first off topic* (a memory of
another need with a success served first) over all needs: where the good advice is gone,
the right answer is never another need's advice.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from memmaint.maintenance.core.config import Config
from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.evaluation.common import EvalCache, format_table
from memmaint.maintenance.retrieve.search import Retriever

CONDITIONS = ("as is", "shared ns", "drop 25%", "shared+drop")


def _counts(dev: Any, pool: Sequence[Memory], vecs: np.ndarray, qv: np.ndarray,
            config: Config, now: Any) -> tuple[int, int, int, int]:
    """(good first, needs with good advice, proven first off topic, needs)."""
    rows: dict[str, list[int]] = {}
    for i, m in enumerate(pool):
        rows.setdefault(m.namespace, []).append(i)
    search = {ns: Retriever([pool[i] for i in ix], vecs[ix], None, config)
              for ns, ix in rows.items()}
    where = {m.id: m.namespace for m in pool}
    good_first = with_good = off = 0
    for (_ns, s), q in zip(dev.scenarios, qv):
        served = search[where[f"{s.id}-bad"]].search(s.query, query_vector=q, now=now)
        first = served[0].memory if len(served) else None
        off += (first is not None and first.metadata.get("scenario") != s.id
                and first.successes > 0)
        if f"{s.id}-good" in where:
            with_good += 1
            good_first += first is not None and first.id == f"{s.id}-good"
    return good_first, with_good, off, len(dev.scenarios)


def _arrangements(dev: Any, pool: list[Memory], vecs: np.ndarray, repeats: int,
                  seed: int) -> Iterator[tuple[str, list[Memory], np.ndarray]]:
    rng = np.random.default_rng(seed)
    yield "as is", pool, vecs
    yield "shared ns", [dataclasses.replace(m, namespace="shared") for m in pool], vecs
    for _ in range(repeats):
        gone = {f"{s.id}-good" for _ns, s in dev.scenarios if rng.random() < 0.25}
        keep = [i for i, m in enumerate(pool) if m.id not in gone]
        yield "drop 25%", [pool[i] for i in keep], vecs[keep]
        yield "shared+drop", [dataclasses.replace(pool[i], namespace="shared")
                              for i in keep], vecs[keep]


def run_outcome_stress(configs: Sequence[tuple[str, Config]], cache: EvalCache,
                       part: str = "dev", repeats: int = 10, seed: int = 7) -> str:
    """The table of every configuration over the four arrangements of ``part``."""
    from memmaint.datasets.outcome_devset import load_devset
    from memmaint.maintenance.evaluation.outcomes import NOW

    dev = load_devset(part)
    pool = [m for ns, s in dev.scenarios for m in s.memories(NOW, ns)]
    pool += [m for ns, t in dev.topics for m in t.memories(NOW, ns)]
    header = ["config"] + [f"{c}: good first / off topic" for c in CONDITIONS]
    table = []
    for name, config in configs:
        vecs = cache.embed([m.text for m in pool], config.embedding)
        qv = cache.embed([s.query for _ns, s in dev.scenarios], config.embedding)
        totals = {c: [0, 0, 0, 0] for c in CONDITIONS}
        for cond, mems, v in _arrangements(dev, pool, vecs, repeats, seed):
            for k, x in enumerate(_counts(dev, mems, v, qv, config, NOW)):
                totals[cond][k] += x
        table.append([name] + [f"{t[0]}/{t[1]} / {t[2]}/{t[3]}" for t in totals.values()])
    return (f"part {part}, counters only, retrieval; drop: {repeats} repetitions, seed {seed}\n"
            + format_table(header, table))
