"""How long a tuning study takes, and what the reduction cache saves.

The target (issue 5): a 100-trial study over 5 training pools of about 300 memories each
finishes in under 10 minutes on 2 cores. This script builds 5 synthetic weighted mtg pools,
embeds them (MiniLM by default), runs the default search space for ``--trials`` trials and
prints the wall time and the cache hit rates. With ``--no-cache-trials N`` it then re-runs the
first N trials with the same seed and the caches off (TPE proposes the same parameters when
it sees the same values), so the saving is measured side by side.

    python benchmarks/tune_speed.py --trials 100
    python benchmarks/tune_speed.py --trials 100 --no-cache-trials 30 --embedder hashing
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path

from memmaint.datasets.pools import make_memory_pool
from memmaint.maintenance.core.config import EmbeddingConfig
from memmaint.maintenance.embed.base import get_embedder
from memmaint.optimize.objective import Evaluator, LRUCache, Objective
from memmaint.optimize.pools import (
    DictEmbeddingCache,
    RawPool,
    SQLiteEmbeddingCache,
    embed_pools,
)
from memmaint.optimize.space import default_space
from memmaint.optimize.study import StudySettings, open_study, pool_keys, run_study


def build_pools(n_pools: int, n_classes: int, embedder_name: str, cache_path: str) -> list:
    raw = []
    for seed in range(n_pools):
        pool = make_memory_pool("mtg", n_classes=n_classes, per_class=(3, 9), seed=seed,
                                weights="powerlaw", noise_frac=0.05)
        raw.append(RawPool(name=f"mtg{seed}", memories=tuple(pool.memories),
                           labels=tuple(str(x) for x in pool.labels)))
    embedder = get_embedder(EmbeddingConfig(model=embedder_name))
    cache = SQLiteEmbeddingCache(cache_path) if cache_path else DictEmbeddingCache()
    return embed_pools(raw, embedder, cache)


def run(pools: list, trials: int, seed: int, n_jobs: int,
        cache: bool) -> tuple[float, float, Evaluator]:
    space = default_space()
    R_max = space.upper_bound("clustering.genkt.R")
    ev = Evaluator(pools, genkt_R_build=R_max) if cache else Evaluator(
        pools, reductions=LRUCache(0, "reductions"), sequences=LRUCache(0, "genkt histories"))
    study = open_study(StudySettings(space=space, train_pools=pool_keys(pools)), seed=seed)
    objective = Objective(ev, space)
    cpu0 = time.process_time()
    outcome = run_study(study, objective, n_trials=trials, n_jobs=n_jobs)
    cpu = time.process_time() - cpu0
    best = max((t for t in study.trials if t.user_attrs.get("constraint", [1])[0] <= 0),
               key=lambda t: t.value, default=None)
    if best is not None:
        print(f"  best feasible trial #{best.number}: recall {best.value:.3f}, precision "
              f"{best.user_attrs['precision']:.3f}, {best.user_attrs['params']}")
    return outcome.seconds, cpu, ev


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--pools", type=int, default=5)
    ap.add_argument("--classes", type=int, default=47, help="classes per pool (~300 memories)")
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-cache-trials", type=int, default=0)
    ap.add_argument("--embedding-cache", default=str(Path.home() / ".cache" / "memmaint" /
                                                     "bench-embeddings.sqlite"),
                    help="SQLite embedding cache ('' for none)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    import optuna

    optuna.logging.set_verbosity(logging.WARNING)

    t0 = time.perf_counter()
    pools = build_pools(args.pools, args.classes, args.embedder, args.embedding_cache)
    sizes = [p.size for p in pools]
    print(f"{len(pools)} pools of {sizes} memories, embedded with {args.embedder} in "
          f"{time.perf_counter() - t0:.1f} s; cpus: {os.cpu_count()}, "
          f"load average {os.getloadavg()[0]:.1f}")
    if args.trials:
        secs, cpu, ev = run(pools, args.trials, args.seed, args.n_jobs, cache=True)
        print(f"{args.trials} trials with caches: {secs:.1f} s wall, {cpu:.1f} s CPU "
              f"({secs / args.trials:.2f} s/trial; target < 600 s; load average now "
              f"{os.getloadavg()[0]:.1f})", flush=True)
        print(f"  {ev.describe_caches()}", flush=True)
    if args.no_cache_trials:
        n = args.no_cache_trials
        secs_c, cpu_c, ev_c = run(pools, n, args.seed, args.n_jobs, cache=True)
        print(f"  first {n} trials with caches: {ev_c.describe_caches()}", flush=True)
        secs_n, cpu_n, _ = run(pools, n, args.seed, args.n_jobs, cache=False)
        print(f"first {n} trials, same seed: with caches {secs_c:.1f} s wall / {cpu_c:.1f} s "
              f"CPU, without {secs_n:.1f} s / {cpu_n:.1f} s (CPU x{cpu_n / max(cpu_c, 1e-9):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
