"""The incremental place stage's exact nearest search at 1M memories (issue #38 item 3).

A 1M-memory namespace cannot be first-run on the 2-core machine (see docs/benchmarks.md), so
this times the one part of its 1% night that grows with the pool times what changed:
``incremental._nearest`` of ``--changed`` unit vectors against the rest of ``--size``
(synthetic, 384-d, float32), scaled to ``--night`` changed memories.

    python benchmarks/place_1m.py                      # 1,024 of 1M, scaled to 10,000
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np

from memmaint.maintenance.job.incremental import _nearest, _unit


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=1_000_000)
    ap.add_argument("--changed", type=int, default=1024)
    ap.add_argument("--night", type=int, default=10_000)
    ap.add_argument("--dim", type=int, default=384)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((args.size, args.dim), dtype=np.float32)
    t0, c0 = time.perf_counter(), time.process_time()
    unit = _unit(vectors)
    t1, c1 = time.perf_counter(), time.process_time()
    q = args.changed
    best, _arg = _nearest(unit[:q], unit[q:])
    t2, c2 = time.perf_counter(), time.process_time()
    scale = args.night / q
    print(f"normalise {args.size:,}: {t1 - t0:.1f} s wall, {c1 - c0:.1f} s CPU; nearest of "
          f"{q:,} against {args.size - q:,}: {t2 - t1:.1f} s wall, {c2 - c1:.1f} s CPU; "
          f"scaled to {args.night:,} changed: {(t2 - t1) * scale:.0f} s wall, "
          f"{(c2 - c1) * scale:.0f} s CPU (x{scale:.2f}); load avg {os.getloadavg()[0]:.1f}; "
          f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB; "
          f"mean best cosine {float(best.mean()):.3f}")


if __name__ == "__main__":
    main()
