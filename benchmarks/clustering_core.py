"""Speed of the clustering core other than GenKT, measured side by side in one run.

- B-cubed: the vectorised :func:`memmaint.clustering.metrics.bcubed` (weighted) against a plain
  Python dict-counting implementation of the same closed form, at growing N;
- HDBSCAN: the adapter (``hdbscan`` library) against :class:`sklearn.cluster.HDBSCAN` on the
  same 2-D points;
- reducers: each method on the same 384-d embeddings (numba warmed up first).

Timings are the best of ``--repeats`` runs. Usage::

    python benchmarks/clustering_core.py [--repeats 3] [--hdbscan-n 20000 100000]
        [--sklearn-max 100000] [--reduce-n 2000]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

import numpy as np


def best_of(repeats: int, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn(*args, **kwargs)
        times.append(time.perf_counter() - t)
    return min(times)


def python_bcubed(true, pred, w) -> tuple[float, float]:
    """The same closed form with dicts and a Python loop (the obvious O(n) code)."""
    cell: dict[tuple[int, int], float] = defaultdict(float)
    cw: Counter = Counter()
    lw: Counter = Counter()
    for t, p, x in zip(true.tolist(), pred.tolist(), w.tolist()):
        cell[(p, t)] += x
        cw[p] += x
        lw[t] += x
    total = sum(cw.values())
    prec = sum(v * v / cw[p] for (p, _t), v in cell.items()) / total
    rec = sum(v * v / lw[t] for (_p, t), v in cell.items()) / total
    return prec, rec


def bench_bcubed(repeats: int) -> None:
    from memmaint.clustering.metrics import bcubed

    print("B-cubed (weighted), best of", repeats)
    print(f"{'N':>10} {'vectorised s':>13} {'python s':>10} {'ratio':>7}")
    rng = np.random.default_rng(0)
    for n in (10_000, 100_000, 1_000_000):
        true = rng.integers(0, max(10, n // 100), n)
        pred = np.where(rng.random(n) < 0.7, true, rng.integers(-1, n // 50, n))
        w = rng.gamma(1.0, 2.0, n)
        fast = best_of(repeats, bcubed, true, pred, weights=w)
        slow = best_of(1, python_bcubed, true, pred, w)
        got = bcubed(true, pred, weights=w)
        ref = python_bcubed(true, pred, w)
        assert abs(got.precision - ref[0]) < 1e-9 and abs(got.recall - ref[1]) < 1e-9
        print(f"{n:>10} {fast:>13.4f} {slow:>10.3f} {slow / fast:>6.1f}x")


def bench_hdbscan(sizes: list[int], sklearn_max: int) -> None:
    from sklearn.cluster import HDBSCAN

    from memmaint.clustering.density.hdbscan_adapter import HDBSCANClusterer

    print("\nHDBSCAN on 2-D points (20 Gaussian blobs + 10% uniform noise), min_cluster_size=5")
    print(f"{'N':>10} {'adapter s':>10} {'sklearn s':>10} {'ratio':>7}")
    rng = np.random.default_rng(1)
    for n in sizes:
        centres = rng.uniform(-50, 50, (20, 2))
        k = int(n * 0.9)
        X = np.vstack([centres[rng.integers(0, 20, k)] + rng.normal(size=(k, 2)),
                       rng.uniform(-60, 60, (n - k, 2))])
        t = time.perf_counter()
        HDBSCANClusterer(min_cluster_size=5).fit_predict(X)
        ours = time.perf_counter() - t
        if n <= sklearn_max:
            t = time.perf_counter()
            HDBSCAN(min_cluster_size=5, copy=True).fit_predict(X)
            theirs = time.perf_counter() - t
            print(f"{n:>10} {ours:>10.2f} {theirs:>10.2f} {theirs / ours:>6.1f}x")
        else:
            print(f"{n:>10} {ours:>10.2f} {'-':>10} {'-':>7}")


def bench_reducers(n: int, repeats: int) -> None:
    from memmaint.clustering.reduce.reducers import make_reducer

    rng = np.random.default_rng(2)
    centres = rng.normal(size=(30, 384))
    X = centres[rng.integers(0, 30, n)] + rng.normal(size=(n, 384)) * 0.5
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    setups = [
        ("none", {}), ("pca", {}),
        ("umap", {"metric": "cosine"}),
        ("tsne", {"gradient": "bh"}), ("tsne", {"gradient": "fft"}),
    ]
    print(f"\nreducers on {n} x 384 unit embeddings, 2 components, seed 0 (warm), "
          f"best of {repeats}")
    make_reducer("umap", 2, 0).fit_transform(X[:200])  # numba compilation
    for method, params in setups:
        label = method + (f" ({params['gradient']})" if "gradient" in params else "")
        secs = best_of(repeats, lambda r: r.fit_transform(X), make_reducer(method, 2, 0, **params))
        print(f"{label:>12} {secs:>8.2f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--hdbscan-n", type=int, nargs="+", default=[20_000, 100_000])
    ap.add_argument("--sklearn-max", type=int, default=100_000)
    ap.add_argument("--reduce-n", type=int, default=2000)
    args = ap.parse_args()
    bench_bcubed(args.repeats)
    bench_hdbscan(args.hdbscan_n, args.sklearn_max)
    bench_reducers(args.reduce_n, args.repeats)


if __name__ == "__main__":
    main()
