"""Importance-weighted HDBSCAN beside plain HDBSCAN, weighted GenKT and the default linkage,
on the weighted dev pools (issue #35 item 6).

The pools are ``compare_algorithms.py``'s weighted sets: synthetic mtg pools with power-law
importance (train seeds 0.., validation seeds 100..) and Banking77 / HWU64 pools with disjoint
intents and power-law importance drawn at random (first pools train, the last validate).
Each family's settings are chosen on the training pools only (highest mean weighted B-cubed
recall with mean weighted precision >= ``--floor``; noise and one-offs as singletons) and
reported on the validation pools, weighted and unweighted:

- ``linkage``: the shipped default, untuned;
- ``genkt-w``: GenKT in the embedding space with importance weights (``use_weights``; the
  ``sphere`` recombination), C/A or anti-kt, cosine cut c and R = sqrt(2 - 2c);
- ``hdbscan`` and ``whdbscan``: the same grid (UMAP 2-D or no reducer; min_cluster_size,
  min_samples, eom / leaf), plain and importance-weighted core distances;
  ``whdbscan@hdbscan``: the weighted one at plain HDBSCAN's chosen settings (the weights'
  own effect).

    python benchmarks/weighted_density.py                  # ~10 min on the shared 2-core box
    python benchmarks/weighted_density.py --sets mtg --embedder hashing   # smoke
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


def grids() -> dict[str, list[dict[str, Any]]]:
    """Each family's settings, as config overrides."""
    dens = []
    for red, mcs, ms, method in itertools.product(("umap", "none"), (3, 5, 8, 12), (1, 2, 4, 8),
                                                  ("eom", "leaf")):
        dens.append({"reduction.method": red, "clustering.hdbscan.min_cluster_size": mcs,
                     "clustering.hdbscan.min_samples": ms,
                     "clustering.hdbscan.cluster_selection_method": method})
    genkt = []
    for p, c in itertools.product((0.0, -1.0), (0.2, 0.3, 0.4, 0.5)):
        genkt.append({"reduction.method": "none", "clustering.algorithm": "genkt",
                      "clustering.genkt.p": p, "clustering.genkt.use_weights": True,
                      "clustering.genkt.cos_cut": c,
                      "clustering.genkt.R": float(np.sqrt(2 - 2 * c))})
    return {"linkage": [{}], "genkt-w": genkt,
            "hdbscan": [{**d, "clustering.algorithm": "hdbscan"} for d in dens],
            "whdbscan": [{**d, "clustering.algorithm": "whdbscan"} for d in dens],
            "whdbscan@hdbscan": []}  # hdbscan's chosen settings, weighted


def score(pool: Any, labels: np.ndarray) -> tuple[float, float, float, float]:
    """(weighted P, weighted R, P, R): B-cubed, noise as singletons."""
    from memmaint.clustering.metrics import bcubed

    w = bcubed(pool.labels, labels, weights=pool.weights, noise="singletons")
    u = bcubed(pool.labels, labels, noise="singletons")
    return w.precision, w.recall, u.precision, u.recall


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="mtg,banking77,hwu64")
    ap.add_argument("--train", type=int, default=3)
    ap.add_argument("--validate", type=int, default=4)
    ap.add_argument("--mtg-classes", type=int, default=20)
    ap.add_argument("--per-class", default="4,12", help="corpus pools: texts per intent")
    ap.add_argument("--floor", type=float, default=0.5)
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--embedding-cache", default=str(Path.home() / ".cache" / "memmaint" /
                                                     "bench-embeddings.sqlite"))
    a = ap.parse_args(argv)

    from compare_algorithms import corpus_pools, mtg_pools

    from memmaint.clustering.pipeline import fit_labels
    from memmaint.clustering.reduce.reducers import reducer_from_config
    from memmaint.maintenance.core.config import Config, EmbeddingConfig, with_overrides
    from memmaint.maintenance.embed.base import get_embedder
    from memmaint.optimize.pools import SQLiteEmbeddingCache, embed_pools

    embedder = get_embedder(EmbeddingConfig(model=a.embedder))
    cache = SQLiteEmbeddingCache(a.embedding_cache)
    lo, hi = (int(x) for x in a.per_class.split(","))
    families = grids()
    rows = []
    for name in a.sets.split(","):
        if name == "mtg":
            tr, va, desc = mtg_pools(a.train, a.validate, a.mtg_classes)
        else:
            tr, va, desc = corpus_pools(name, a.train, a.validate, (lo, hi))
        train, val = embed_pools(tr, embedder, cache), embed_pools(va, embedder, cache)
        print(f"## {name}: {desc}", flush=True)
        reduced: dict[tuple[str, int], np.ndarray] = {}

        def run(cfg: Config, pool: Any, k: int,
                reduced: dict[tuple[str, int], np.ndarray] = reduced) -> np.ndarray:
            if cfg.clustering.algorithm in ("linkage", "genkt"):
                coords = pool.embeddings  # GenKT on the unit vectors: the sphere
            else:
                key = (cfg.reduction.method, k)
                if key not in reduced:
                    reduced[key] = reducer_from_config(cfg.reduction).fit_transform(
                        pool.embeddings)
                coords = reduced[key]
            return fit_labels(coords, pool.embeddings, pool.weights, cfg.clustering)

        pools = [(p, i) for i, p in enumerate(train)] + [(p, 100 + i) for i, p in enumerate(val)]
        chosen: dict[str, dict[str, Any]] = {}
        for family, grid in families.items():
            if family == "whdbscan@hdbscan":
                grid = [{**chosen["hdbscan"], "clustering.algorithm": "whdbscan"}]
            t0 = time.process_time()
            best = None
            for over in grid:
                cfg = with_overrides(Config(), over)
                s = np.array([score(p, run(cfg, p, k)) for p, k in pools[:len(train)]])
                wp, wr = s[:, 0].mean(), s[:, 1].mean()
                key = (wp >= a.floor, wr, wp)
                if best is None or key > best[0]:
                    best = (key, over, cfg)
            assert best is not None
            _, over, cfg = best
            chosen[family] = over
            v = np.array([score(p, run(cfg, p, k)) for p, k in pools[len(train):]])
            shown = ", ".join(f"{k.split('.')[-1]}={val}" for k, val in over.items()
                              if k != "clustering.algorithm") or "shipped default"
            row = (name, family, v[:, 0].mean(), v[:, 0].min(), v[:, 1].mean(), v[:, 2].mean(),
                   v[:, 3].mean(), best[0][0], shown, time.process_time() - t0)
            rows.append(row)
            print(f"{name:10s} {family:9s} val wP {row[2]:.2f} (worst {row[3]:.2f}) wR "
                  f"{row[4]:.2f} | P {row[5]:.2f} R {row[6]:.2f} | train feasible {row[7]} | "
                  f"{shown} | {row[9]:.0f} s CPU", flush=True)
    print("\n| set | method | val weighted P (worst) | val weighted R | val P | val R | "
          "chosen on train |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]:.2f} ({r[3]:.2f}) | {r[4]:.2f} | {r[5]:.2f} | "
              f"{r[6]:.2f} | {r[8]}{'' if r[7] else ' (infeasible on train)'} |")


if __name__ == "__main__":
    main()
