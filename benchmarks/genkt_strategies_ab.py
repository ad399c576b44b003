"""GenKT kernel speed per strategy, for comparing two checkouts side by side.

    python benchmarks/genkt_strategies_ab.py            # one JSON line of CPU seconds
    python benchmarks/genkt_strategies_ab.py --reps 7 --cases plane_p0,plane_p1

Six cases, one per compiled loop and back end: the k-d tree (3-D, 30k points, p = -1 with the
cosine cut and p = 0), the plane strategy (2-D, 100k points, p = 0 and p = 1), ``nn`` in 10-D
(6k points) and the graph strategy on 10k 64-d unit embeddings (the sphere recombination, cut
0.5). Kernels are compiled (or loaded) by ``genkt.warm`` before timing; each case prints the
smallest CPU time (``time.process_time``) of ``--reps`` runs, steadier than wall time on a
shared machine. To compare a kernel change, run this alternately in the two checkouts (each
with its own ``NUMBA_CACHE_DIR``, warm), several rounds, and compare the smallest time per case
(docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from genkt_scaling import make_pool

from memmaint.clustering.genkt.estimator import GenKTDefinition, genkt_cluster
from memmaint.clustering.genkt.warm import warm_genkt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    args = parser.parse_args()
    warm_genkt()
    rng = np.random.default_rng(3)
    X3 = rng.normal(size=(30000, 3))
    w3 = rng.lognormal(size=30000)
    E8 = rng.normal(size=(30000, 8))
    X2 = rng.normal(size=(100000, 2))
    w2 = rng.lognormal(size=100000)
    X10 = rng.normal(size=(6000, 10))
    _, Emb, _ = make_pool(10000, 64, seed=2, spread=(0.6, 1.2))
    cases = {
        "tree_p-1_cos": lambda: genkt_cluster(
            X3, E8, w3, GenKTDefinition(p=-1.0, R=0.3, cos_cut=0.2), "tree"),
        "tree_p0": lambda: genkt_cluster(X3, None, w3, GenKTDefinition(p=0.0, R=0.3), "tree"),
        "plane_p0": lambda: genkt_cluster(X2, None, w2, GenKTDefinition(p=0.0, R=0.1), "plane"),
        "plane_p1": lambda: genkt_cluster(X2, None, w2, GenKTDefinition(p=1.0, R=0.1), "plane"),
        "nn_d10": lambda: genkt_cluster(X10, None, None, GenKTDefinition(p=0.0, R=1.5), "nn"),
        "graph_emb64": lambda: genkt_cluster(
            Emb, Emb, None, GenKTDefinition(p=0.0, R=0.9, cos_cut=0.5), "graph"),
    }
    wanted = [c for c in args.cases.split(",") if c] or list(cases)
    out = {}
    for name in wanted:
        run = cases[name]
        best = float("inf")
        for _ in range(args.reps):
            start = time.process_time()
            run()
            best = min(best, time.process_time() - start)
        out[name] = round(best, 3)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
