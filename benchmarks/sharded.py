"""Sharded clustering: how far it is from the unsharded result, and how long 1M memories take.

Two parts (``--part agreement``, ``--part timing``, default both):

**agreement**: a synthetic pool (``--classes`` latent instructions from each of the support and
MTG vocabularies, 4-12 paraphrases each, 5% one-off notes; 2,490 memories by default)
embedded with the default MiniLM model (``--embedder hashing`` for a quick look), clustered
with UMAP 2-D + HDBSCAN (the default config) and UMAP 2-D + GenKT (default GenKT settings),
once unsharded and once in shards of at most half and a quarter of the pool
(``--agreement-shard-size``). Printed: B-cubed of the sharded labels against the unsharded
ones (noise as singletons), and, as the yardstick, the same figure for two unsharded runs
that differ only in the UMAP seed; B-cubed F1 of both against the true classes.

**timing**: ``--size`` (default 1,000,000) precomputed random embeddings (``--dim``, default 32,
float32: 128 MB; not 384-D MiniLM vectors, which would take 1.5 GB plus copies and embedding
time the benchmark is not about): ``size / 50`` tight groups near a 3-D subspace plus 5%
scattered noise (see :func:`make_vectors`). Clustered with PCA 3-D + HDBSCAN (min_cluster_size 10) in shards of
``--shard-size`` (default 50,000) on a Dask LocalCluster of 1 and then 2 worker processes
(one thread each). Worker start-up and imports are excluded (a warm-up task runs first);
the figure is ``cluster_sharded``'s wall time, split into partition (k-means, here),
shards (reduce + cluster, on the workers) and reconcile (here).

    python benchmarks/sharded.py                          # both parts, defaults
    python benchmarks/sharded.py --part timing --size 200000 --workers 1 2
    python benchmarks/sharded.py --part agreement --embedder hashing

The script prints the machine's load average before and after each measurement: on a shared
machine the 2-worker figure is only as good as the second core that was free.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from pathlib import Path

import numpy as np


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f}/{five:.1f} on {os.cpu_count()} cores"


# -- agreement ------------------------------------------------------------------------------

def agreement_part(args: argparse.Namespace) -> dict:
    from memmaint.clustering.metrics import bcubed
    from memmaint.clustering.pipeline import cluster_embeddings
    from memmaint.clustering.sharding import agreement, cluster_sharded
    from memmaint.datasets.pools import make_memory_pool
    from memmaint.maintenance.core.config import EmbeddingConfig, config_from_dict
    from memmaint.maintenance.embed.base import get_embedder

    memories, truth = [], []
    for k, kind in enumerate(("support", "mtg")):  # two vocabularies, one pool
        pool = make_memory_pool(kind, n_classes=args.classes, per_class=(4, 12), seed=1)
        memories += pool.memories
        truth += [lab + 1000 * k if lab >= 0 else -1 for lab in pool.labels.tolist()]
    labels_true = np.array(truth)
    texts = [m.text for m in memories]
    cache = Path(args.cache_dir) / f"sharded-{args.embedder}-{args.classes}.npy"
    if cache.exists():
        X = np.load(cache)
    else:
        t = time.perf_counter()
        X = get_embedder(EmbeddingConfig(model=args.embedder)).embed(texts)
        print(f"embedded {len(texts)} texts with {args.embedder} in "
              f"{time.perf_counter() - t:.1f} s")
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.save(cache, X)
    w = np.array([m.importance for m in memories])
    shard_sizes = args.agreement_shard_size or [math.ceil(len(X) / 2), math.ceil(len(X) / 4)]
    out = {"memories": len(X), "classes": args.classes, "embedder": args.embedder,
           "configs": [], "borders": [border_cuts(X, labels_true, s) for s in shard_sizes]}
    configs = {
        "umap2+hdbscan (default)": {},
        "umap2+genkt (default genkt)": {"clustering": {"algorithm": "genkt"}},
    }
    for name, data in configs.items():
        cfg = config_from_dict(data)
        reseeded = config_from_dict({**data, "reduction": {**data.get("reduction", {}),
                                                           "seed": 1}})
        print(f"[{name}] {_load()}", flush=True)
        t = time.perf_counter()
        full = cluster_embeddings(X, w, cfg.reduction, cfg.clustering).labels
        t_full = time.perf_counter() - t
        other = cluster_embeddings(X, w, reseeded.reduction, cfg.clustering).labels
        base = agreement(full, other)
        truth_full = bcubed(labels_true, full, noise="singletons").f1
        print(f"[{name}] unsharded {t_full:.1f} s, F1 vs truth {truth_full:.3f}; two unsharded "
              f"runs differing only in the UMAP seed agree with F1 {base.f1:.3f}", flush=True)
        for shard in shard_sizes:
            t = time.perf_counter()
            sh = cluster_sharded(X, w, cfg.reduction, cfg.clustering, max_shard_size=shard,
                                 reconcile_cos=cfg.sharding.reconcile_cos, seed=0)
            t_sh = time.perf_counter() - t
            a = agreement(full, sh.labels)
            row = {
                "config": name, "max_shard_size": shard, "shards": list(sh.shard_sizes),
                "merges": sh.merges,
                "agreement": {"precision": a.precision, "recall": a.recall, "f1": a.f1},
                "reseeded_agreement_f1": base.f1, "truth_f1_unsharded": truth_full,
                "truth_f1_sharded": bcubed(labels_true, sh.labels, noise="singletons").f1,
                "seconds_unsharded": t_full, "seconds_sharded": t_sh,
            }
            out["configs"].append(row)
            print(f"[{name}] shards {row['shards']}, {sh.merges} cross-shard merges: sharded "
                  f"vs unsharded B-cubed P {a.precision:.3f} R {a.recall:.3f} F1 {a.f1:.3f}; "
                  f"sharded F1 vs truth {row['truth_f1_sharded']:.3f}; {t_sh:.1f} s; "
                  f"{_load()}", flush=True)
    return out


def border_cuts(X: np.ndarray, truth: np.ndarray, max_shard_size: int) -> dict:
    """How the k-means partition cuts the true classes: classes cut, size of the smaller
    piece, cosine between the pieces' centroids."""
    from memmaint.clustering.sharding import partition

    shards = partition(X, max_shard_size, seed=0)
    unit = X / np.linalg.norm(X, axis=1, keepdims=True)
    cut, small, cos = 0, [], []
    classes = sorted(set(truth[truth >= 0].tolist()))
    for c in classes:
        rows = np.flatnonzero(truth == c)
        pieces = sorted((rows[shards[rows] == v] for v in np.unique(shards[rows])),
                        key=len, reverse=True)
        if len(pieces) < 2:
            continue
        cut += 1
        small.append(len(pieces[1]))
        a, b = unit[pieces[0]].mean(axis=0), unit[pieces[1]].mean(axis=0)
        cos.append(float(a @ b / np.linalg.norm(a) / np.linalg.norm(b)))
    row = {"max_shard_size": max_shard_size, "classes": len(classes), "cut": cut,
           "smaller_piece_1_or_2": float(np.mean(np.array(small) <= 2)) if small else 0.0,
           "median_piece_cos": float(np.median(cos)) if cos else None}
    print(f"shards of at most {max_shard_size}: k-means borders cut {cut} of {len(classes)} "
          f"classes; the smaller piece has 1-2 memories in {row['smaller_piece_1_or_2']:.0%} "
          f"of them; median cosine between the pieces' centroids "
          f"{row['median_piece_cos'] if cos else float('nan'):.2f}", flush=True)
    return row


# -- timing ---------------------------------------------------------------------------------

def make_vectors(size: int, dim: int, seed: int = 0) -> np.ndarray:
    """``size`` unit vectors (float32) in ``size // 50`` tight groups plus 5% scattered noise.

    The groups lie near a 3-D affine subspace (random centres in a cube, mapped into ``dim``
    dimensions by a random orthonormal map, plus small isotropic noise), so a 3-D PCA of any
    shard keeps them apart, as a good reducer would for real embeddings.
    """
    rng = np.random.default_rng(seed)
    n_centres = max(1, size // 50)
    q, _ = np.linalg.qr(rng.standard_normal((dim, 4)))
    base, basis = q[:, 0], q[:, 1:].T  # a direction and a 3-D subspace orthogonal to it
    centres = rng.uniform(-0.5, 0.5, (n_centres, 3))
    spacing = n_centres ** (-1 / 3)
    z = np.empty((size, 3))
    n_noise = size // 20
    z[:size - n_noise] = centres[rng.integers(0, n_centres, size - n_noise)]
    z[:size - n_noise] += rng.normal(0, spacing / 12, (size - n_noise, 3))
    z[size - n_noise:] = rng.uniform(-0.5, 0.5, (n_noise, 3))
    X = (base + z @ basis).astype(np.float32)
    X += rng.normal(0, spacing / 100, X.shape).astype(np.float32)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X[rng.permutation(size)]


def _warm() -> bool:
    import hdbscan  # noqa: F401
    import sklearn.decomposition  # noqa: F401

    import memmaint.clustering.pipeline  # noqa: F401
    return True


def timing_part(args: argparse.Namespace) -> dict:
    from memmaint.clustering.sharding import cluster_sharded
    from memmaint.maintenance.core.config import config_from_dict
    from memmaint.maintenance.job.executors import DaskExecutor

    cfg = config_from_dict({"reduction": {"method": "pca", "n_components": 3},
                            "clustering": {"hdbscan": {"min_cluster_size": 10}}})
    t = time.perf_counter()
    X = make_vectors(args.size, args.dim)
    print(f"{args.size} x {args.dim} vectors ({X.nbytes / 2**20:.0f} MB) made in "
          f"{time.perf_counter() - t:.1f} s", flush=True)
    out = {"size": args.size, "dim": args.dim, "max_shard_size": args.shard_size, "runs": []}
    from memmaint.clustering.sharding import partition

    partition(X[:20_000], 5_000)  # imports and first-call costs out of the timed runs
    for workers in args.workers:
        t = time.perf_counter()
        with DaskExecutor(workers=workers, processes=True) as ex:
            ex.client.run(_warm)
            started = time.perf_counter() - t
            before = _load()
            t = time.perf_counter()
            res = cluster_sharded(X, None, cfg.reduction, cfg.clustering,
                                  max_shard_size=args.shard_size, seed=0, executor=ex)
            total = time.perf_counter() - t
        row = {"workers": workers, "seconds": total, "steps": dict(res.seconds),
               "startup_seconds": started, "shards": res.n_shards,
               "clusters": res.n_clusters, "noise": int((res.labels < 0).sum()),
               "merges": res.merges, "load_before": before, "load_after": _load()}
        out["runs"].append(row)
        steps = ", ".join(f"{k} {v:.1f} s" for k, v in res.seconds.items())
        print(f"{workers} worker(s): {total:.1f} s ({steps}); {res.n_shards} shards, "
              f"{res.n_clusters} clusters, {row['noise']} noise, {res.merges} cross-shard "
              f"merges; workers started in {started:.1f} s; before: {before}, after: "
              f"{row['load_after']}", flush=True)
    if args.unsharded:
        from memmaint.clustering.pipeline import cluster_embeddings
        from memmaint.clustering.sharding import agreement

        before = _load()
        t = time.perf_counter()
        full = cluster_embeddings(X, None, cfg.reduction, cfg.clustering).labels
        secs = time.perf_counter() - t
        a = agreement(full, res.labels)
        out["unsharded"] = {"seconds": secs, "clusters": int(full.max()) + 1,
                            "agreement": {"precision": a.precision, "recall": a.recall,
                                          "f1": a.f1}, "load_before": before}
        print(f"unsharded, in this process: {secs:.1f} s, {int(full.max()) + 1} clusters; "
              f"sharded vs unsharded B-cubed P {a.precision:.3f} R {a.recall:.3f} F1 "
              f"{a.f1:.3f}; before: {before}", flush=True)
    if len(out["runs"]) >= 2:
        a, b = out["runs"][0], out["runs"][1]
        print(f"speed-up {b['workers']} vs {a['workers']} worker(s): "
              f"{a['seconds'] / b['seconds']:.2f}x (shards step "
              f"{a['steps']['shards'] / b['steps']['shards']:.2f}x)")
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", choices=["agreement", "timing", "both"], default="both")
    p.add_argument("--classes", type=int, default=150, help="per vocabulary (at most 150)")
    p.add_argument("--embedder", default="minilm", choices=["minilm", "hashing"])
    p.add_argument("--agreement-shard-size", type=int, nargs="+", default=None,
                   help="default: half and a quarter of the pool")
    p.add_argument("--cache-dir", default=str(Path.home() / ".cache" / "memmaint-bench"))
    p.add_argument("--size", type=int, default=1_000_000)
    p.add_argument("--dim", type=int, default=32)
    p.add_argument("--shard-size", type=int, default=50_000)
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    p.add_argument("--unsharded", action="store_true",
                   help="timing: also cluster the whole pool at once and compare")
    p.add_argument("--json", help="also write the figures to this file")
    args = p.parse_args()
    result = {}
    if args.part in ("agreement", "both"):
        result["agreement"] = agreement_part(args)
    if args.part in ("timing", "both"):
        result["timing"] = timing_part(args)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
