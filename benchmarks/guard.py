"""The one-off guard at scale: ``lone_rows`` with each memory's nearest neighbours on the
reduced map as candidates, against the exact blocked pass over every pair
(``best_cosines(E) < cut``), side by side in one process on the same memories.

The memories are ``genkt_scaling.make_pool``'s: unit 384-d embeddings in topics and a 2-D
map that keeps a topic's memories near (as UMAP does), so most memories have a paraphrase
among their map neighbours and only the rest need the pass over the whole namespace.

    python benchmarks/guard.py --sizes 10000,100000 --cut 0.45
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--cut", type=float, default=0.45, help="singleton_cos")
    a = ap.parse_args(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from genkt_scaling import make_pool
    from sklearn.neighbors import NearestNeighbors

    from memmaint.clustering.pipeline import GUARD_MAP_NEIGHBOURS
    from memmaint.clustering.scale import best_cosines, lone_rows

    print("| N | exact pass s | map neighbours s (k-d tree + check + rest) | settled by "
          "neighbours | lone | speed-up |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n in (int(s) for s in a.sizes.split(",")):
        X, E, _ = make_pool(n, 2)
        t0 = time.perf_counter()
        exact = best_cosines(E) < a.cut
        t_exact = time.perf_counter() - t0
        t0 = time.perf_counter()
        cand = NearestNeighbors(n_neighbors=GUARD_MAP_NEIGHBOURS + 1).fit(X).kneighbors(
            X, return_distance=False)
        fast = lone_rows(E, a.cut, cand)
        t_fast = time.perf_counter() - t0
        assert np.array_equal(fast, exact), "lone_rows and best_cosines disagree"
        sims = np.einsum("ij,ikj->ik", E, E[cand[:, 1:]])
        settled = float((sims >= a.cut).any(axis=1).mean())
        print(f"| {n:,} | {t_exact:.1f} | {t_fast:.1f} | {settled:.0%} | "
              f"{exact.mean():.0%} | {t_exact / t_fast:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
