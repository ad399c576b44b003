"""Rule-based planning, apply (dry and real) and undo on a synthetic pool: wall time and rates.

Usage: python benchmarks/maintenance_apply.py [--classes 250] [--per-class 4 12] [--seed 0]

The pool comes from memmaint.datasets.make_memory_pool (its true classes serve as cluster
labels, so clustering is not timed) with the HashingEmbedder; apply writes to a fresh SQLite
file in a temporary folder. Prints one line per stage.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from memmaint.datasets.pools import make_memory_pool
from memmaint.maintenance.agents.rules import plan
from memmaint.maintenance.apply.applier import apply_plan, undo_run
from memmaint.maintenance.core.config import AgentsConfig
from memmaint.maintenance.embed.hashing import HashingEmbedder
from memmaint.maintenance.store.sqlite import SQLiteStore


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--classes", type=int, default=250)
    parser.add_argument("--per-class", type=int, nargs=2, default=(4, 12))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    pool = make_memory_pool("mtg", n_classes=args.classes, per_class=tuple(args.per_class),
                            seed=args.seed)
    memories, labels = pool.memories, pool.labels
    vectors = HashingEmbedder().embed(pool.texts)
    n = len(memories)
    print(f"pool: {n} memories, {pool.n_classes} classes")

    def timed(name: str, fn):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t0
        print(f"{name:<12} {dt:8.3f} s  {n / dt:10.0f} memories/s")
        return out

    the_plan = timed("plan", lambda: plan(memories, labels, vectors, AgentsConfig()))
    print(f"             actions: {the_plan.summary()}")
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp) / "bench.db")
        store.add_memories(memories)
        timed("apply (dry)", lambda: apply_plan(the_plan, store, "dry", dry_run=True))
        result = timed("apply", lambda: apply_plan(the_plan, store, "run"))
        print(f"             counts: {dict(result.counts)}, events: {len(result.events)}")
        timed("undo", lambda: undo_run(store, "run"))
        store.close()


if __name__ == "__main__":
    main()
