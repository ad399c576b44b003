"""The routing tables' centroids: one pass over the pool against a scan per cluster (#38).

A night rebuilds the routing tables over the whole namespace; their centroids were the mean
of ``x[labels == c]`` for every cluster ``c``, one scan of the pool each (quadratic in rows
and clusters; a second 1M night measured no shorter with the fix, so its routing time lies
elsewhere: docs/benchmarks.md). ``routing._group_means`` groups the
rows once and takes each mean as before. This prints both timings side by side in one
process on the same synthetic unit rows, their ratio, and whether the centroids are equal
bit for bit (they must be).

    python benchmarks/routing_centroids.py                          # 200k rows, 20k clusters
    python benchmarks/routing_centroids.py --size 1000000 --clusters 100000 --skip-scan
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np

from memmaint.maintenance.retrieve.routing import _group_means, unit_rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=200_000)
    ap.add_argument("--clusters", type=int, default=20_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--skip-scan", action="store_true", help="time the one-pass means only")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    x = unit_rows(rng.standard_normal((args.size, args.dim)).astype(np.float32))
    lab = rng.integers(-1, args.clusters, args.size)
    counts = Counter(int(v) for v in lab if v >= 0)
    keep = sorted(c for c, n in counts.items() if n >= 2)
    t0 = time.perf_counter()
    fast = _group_means(x, lab, keep)
    one_pass = time.perf_counter() - t0
    print(f"{args.size:,} rows, {len(keep):,} clusters: one pass {one_pass:.2f} s")
    if args.skip_scan:
        return
    t0 = time.perf_counter()
    slow = np.stack([x[lab == c].mean(axis=0) for c in keep])
    scan = time.perf_counter() - t0
    print(f"a scan per cluster {scan:.2f} s; ratio {scan / one_pass:.1f}x; "
          f"equal bit for bit: {np.array_equal(fast, slow)}")


if __name__ == "__main__":
    main()
