"""One large cluster planned by the rules with every pair read and with candidate pairs
(issue #38: the planning of a touched cluster, ``agents.updates.cluster_partners``).

The cluster is ``nightly.py``'s synthetic text (topics of nonsense words, numbers, ~8%
duplicates, stale kinds) with ``--topics`` topics of about 12 memories each, hashing
embedder, all of it handed to ``rules.plan_cluster`` as one cluster (as the sharded layout's
large clusters are). Prints the CPU seconds of each path and whether the two plans are
the same action for action:

    python benchmarks/plan_cluster_pairs.py --sizes 1500 3000 6000
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nightly  # the synthetic texts


def cluster(n: int, seed: int = 7):
    from memmaint.maintenance.core.records import Memory, parse_time
    from memmaint.maintenance.embed.hashing import HashingEmbedder

    texts = nightly.synth_texts(n, seed, 0, max(4, n // 12))
    rng = np.random.default_rng(seed + 1)
    now = parse_time("2026-11-28T03:00:00Z")
    kinds = ("default", "reference", "schedule", "price")
    mems = [Memory(text=t, id=f"m{i}", namespace="bench",
                   created_at=now - timedelta(days=float(rng.uniform(1, 180))),
                   importance=round(float(rng.pareto(1.5) + 0.3), 3),
                   kind=kinds[int(rng.integers(4))]) for i, t in enumerate(texts)]
    vecs = HashingEmbedder().embed(texts)
    return mems, vecs / np.linalg.norm(vecs, axis=1, keepdims=True), now


def main() -> None:
    from memmaint.maintenance.agents import rules, updates
    from memmaint.maintenance.core.config import AgentsConfig

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1500, 3000])
    args = ap.parse_args()
    small, small_vecs, now = cluster(60)
    rules.plan_cluster(small, small_vecs, 0, AgentsConfig(), now)  # imports and caches warm
    print("| memories | all pairs CPU s | candidate pairs CPU s | pairs read by the candidate "
          "path | of all pairs | same plan |")
    print("|---|---|---|---|---|---|")
    for n in args.sizes:
        mems, vecs, now = cluster(n)
        out = {}
        for name, limit in (("all", 10**9), ("candidates", updates.ALL_PAIRS_MAX)):
            rules.ALL_PAIRS_MAX = limit
            updates.statement_of.cache_clear()  # each path parses its texts itself
            t0 = time.process_time()
            plan = rules.plan_cluster(mems, vecs, 0, AgentsConfig(), now, id_seed="bench")
            out[name] = (time.process_time() - t0, sorted(repr(a) for a in plan.actions))
        pairs = updates.cluster_partners([updates.statement_of(m.text) for m in mems],
                                         vecs @ vecs.T, AgentsConfig()).pairs()
        print(f"| {n:,} | {out['all'][0]:.2f} | {out['candidates'][0]:.2f} | {pairs:,} | "
              f"{pairs / (n * (n - 1) / 2):.1%} | {out['all'][1] == out['candidates'][1]} |",
              flush=True)


if __name__ == "__main__":
    main()
