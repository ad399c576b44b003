"""Noise regrouping (memmaint.clustering.regroup): speed at scale and what it groups on real data.

1. Speed: blocked upper-triangle products + connected components against scikit-learn's
   ``NearestNeighbors.radius_neighbors_graph`` (brute force, cosine) on synthetic noise sets
   with planted near-duplicates; both must give the same partition. "full s" times the whole pass the job runs (attach and max_size on) for
   m noise memories in a pool of 2m.
2. Real labelled data (../shared/data: banking77, hwu64): MiniLM embeddings, the default
   clustering (2-D UMAP, HDBSCAN min_cluster_size 5), then regrouping the noise at several
   thresholds, with and without attaching and the size limit: how many noise memories move,
   how large the new clusters get, and how pure their final clusters are against the intent
   labels (do they group paraphrases of one intent, or chain across intents?).

    python benchmarks/regroup.py                       # both parts, ~10 min on a busy 2-core box
    python benchmarks/regroup.py --sizes 5000 20000 --no-data
"""

from __future__ import annotations

import argparse
import csv
import time
import warnings
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def _planted(m: int, d: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(m, d)).astype(np.float32)
    k = m // 3  # a third of the rows are noisy copies of another row
    x[:k] = x[m - k:] + 0.15 * rng.normal(size=(k, d)).astype(np.float32)
    return x


def _same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    pairs = {(int(x), int(y)) for x, y in zip(a, b)}
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


def speed(sizes: list[int], dim: int, threshold: float) -> None:
    from scipy.sparse.csgraph import connected_components
    from sklearn.neighbors import NearestNeighbors

    from memmaint.clustering.regroup import regroup_noise, similarity_components

    print(f"speed: planted near-duplicates, dim {dim}, cosine >= {threshold}")
    print(f"{'noise m':>8} {'blocked s':>10} {'sklearn s':>10} {'ratio':>6} {'same':>5} "
          f"{'components>=2':>14} {'full s':>7}")
    for m in sizes:
        x = _planted(m, dim, seed=m)
        t0 = time.perf_counter()
        ours = similarity_components(x, threshold)
        t_ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        nn = NearestNeighbors(radius=1.0 - threshold, metric="cosine", algorithm="brute")
        graph = nn.fit(x).radius_neighbors_graph(x)
        _k, theirs = connected_components(graph, directed=False)
        t_sk = time.perf_counter() - t0
        big = int((np.bincount(ours) >= 2).sum())
        # the whole pass the job runs: m noise rows in a pool of 2m (the other m in 100
        # clusters), attach and max_size on
        pool = np.concatenate([x, _planted(m, dim, seed=m + 1)])
        labels = np.concatenate([np.full(m, -1), np.arange(m) % 100])
        t0 = time.perf_counter()
        regroup_noise(labels, pool, threshold, attach=True, max_size=50)
        t_full = time.perf_counter() - t0
        print(f"{m:>8} {t_ours:>10.2f} {t_sk:>10.2f} {t_sk / t_ours:>6.2f} "
              f"{_same_partition(ours, theirs)!s:>5} {big:>14} {t_full:>7.2f}")


def _read(name: str) -> tuple[list[str], list[str]]:
    if name == "banking77":
        files, text_col, label_col = ["train.csv", "test.csv"], "text", "category"
    else:
        files, text_col, label_col = ["hwu64_all.csv"], "text", "label"
    texts: list[str] = []
    labels: list[str] = []
    for f in files:
        with (DATA / name / f).open(encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh):
                texts.append(row[text_col])
                labels.append(row[label_col])
    return texts, labels


def _moved_precision(truth: np.ndarray, labels: np.ndarray, moved: np.ndarray) -> float:
    """Mean over moved memories of the share of their (final) cluster with their own label."""
    if not moved.any():
        return float("nan")
    out = []
    for i in np.flatnonzero(moved):
        members = labels == labels[i]
        out.append(float(np.mean(truth[members] == truth[i])))
    return float(np.mean(out))


def real(thresholds: list[float], max_sizes: list[int | None], cache_path: str) -> None:
    from memmaint.clustering.metrics import bcubed
    from memmaint.clustering.pipeline import cluster_embeddings
    from memmaint.clustering.regroup import regroup_noise
    from memmaint.maintenance.core.config import Config
    from memmaint.maintenance.evaluation.common import EvalCache

    cfg = Config()
    with EvalCache(cache_path) as cache:
        for name in ("banking77", "hwu64"):
            if not (DATA / name).is_dir():
                print(f"{name}: not found under {DATA}, skipped")
                continue
            texts, labels = _read(name)
            emb = cache.embed(texts, cfg.embedding)
            saved = Path(f"{cache_path}.{name}.labels.npy")  # the slow UMAP step, once
            t_cluster = float("nan")
            if saved.is_file():
                base_labels = np.load(saved)
            else:
                t0 = time.perf_counter()
                base_labels = cluster_embeddings(emb, None, cfg.reduction,
                                                 cfg.clustering).labels
                t_cluster = time.perf_counter() - t0
                np.save(saved, base_labels)
            noise = base_labels < 0
            truth = np.unique(labels, return_inverse=True)[1]
            base = bcubed(truth, base_labels, noise="singletons")
            n_clusters = len(set(base_labels[~noise].tolist()))
            print(f"\n{name}: {len(texts)} texts, {len(set(labels))} intents; default "
                  f"clustering ({t_cluster:.0f} s): {n_clusters} clusters, "
                  f"{int(noise.sum())} noise; B-cubed (noise as singletons) "
                  f"P {base.precision:.3f} R {base.recall:.3f}")
            print(f"{'cosine':>6} {'attach':>6} {'max':>4} {'moved':>6} {'new cl':>6} "
                  f"{'largest':>7} {'moved P':>7} {'all P':>6} {'all R':>6} {'seconds':>7}")
            for thr in thresholds:
                for attach in (False, True):
                    for cap in max_sizes:
                        t0 = time.perf_counter()
                        new = regroup_noise(base_labels, emb, thr, attach=attach, max_size=cap)
                        secs = time.perf_counter() - t0
                        moved = new != base_labels
                        fresh = moved & (new > base_labels.max())
                        largest = int(np.bincount(new[fresh]).max()) if fresh.any() else 0
                        n_new = len(set(new[fresh].tolist()))
                        after = bcubed(truth, new, noise="singletons")
                        print(f"{thr:>6.2f} {attach!s:>6} {cap!s:>4} "
                              f"{int(moved.sum()):>6} {n_new:>6} {largest:>7} "
                              f"{_moved_precision(truth, new, moved):>7.3f} "
                              f"{after.precision:>6.3f} {after.recall:>6.3f} {secs:>7.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[5000, 10000, 20000])
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--thresholds", nargs="+", type=float, default=[0.75, 0.8, 0.85])
    parser.add_argument("--max-sizes", nargs="+", default=["none", "50"],
                        help="regroup max_size values ('none': no limit)")
    parser.add_argument("--no-data", action="store_true", help="skip the real-data part")
    parser.add_argument("--cache", default="/tmp/memmaint-regroup-bench.sqlite",
                        help="embedding cache for the real data")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    speed(args.sizes, args.dim, 0.8)
    if not args.no_data:
        caps = [None if v.lower() == "none" else int(v) for v in args.max_sizes]
        real(args.thresholds, caps, args.cache)


if __name__ == "__main__":
    main()
