"""Whole clustering configs (reduction, clusterer, one-off guard) on the transfer pools of
issue #20, per corpus against the issue's bar, on tuning seeds and held-apart seeds.

Each config runs through ``clustering.pipeline.cluster_embeddings``, the path the job and
the tuner take, on the MiniLM embeddings of ``optimize.transfer.transfer_pools(seed)`` for
every ``--seed``. ``default`` is the shipped default; the default list adds
``examples/genkt-relative.toml``, the documented shadow config of docs/results.md; any TOML
config file may be named.
Noise and one-offs are scored as singletons.

    python benchmarks/transfer_configs.py --seed 0 --seed 1            # the tuning seeds
    python benchmarks/transfer_configs.py --seed 2 --seed 3            # held apart
    python benchmarks/transfer_configs.py --seed 2 --config my.toml
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

SHADOW = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples",
                      "genkt-relative.toml")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, action="append", help="repeatable; default 0")
    ap.add_argument("--config", action="append",
                    help="default or a TOML file (repeatable; default: the default and "
                         "examples/genkt-relative.toml)")
    ap.add_argument("--pools", action="store_true", help="one line per pool as well")
    a = ap.parse_args(argv)
    seeds = a.seed or [0]

    from memmaint.clustering.metrics import bcubed
    from memmaint.clustering.pipeline import cluster_embeddings
    from memmaint.maintenance.core.config import Config, load_config
    from memmaint.maintenance.embed.base import get_embedder
    from memmaint.optimize.pools import encode_labels
    from memmaint.optimize.transfer import (
        bar_by_corpus,
        format_bar,
        oneoffs_alone,
        transfer_pools,
    )

    configs = {}
    for name in a.config or ["default", SHADOW]:
        configs[os.path.basename(name)] = Config() if name == "default" else load_config(name)
    embedder = get_embedder()
    data = []
    for seed in seeds:
        for name, pool in transfer_pools(seed=seed):
            E = np.asarray(embedder.embed(pool.texts), dtype=np.float64)
            data.append((name, E, encode_labels(pool.labels)))  # one-offs: a class each
    print(f"# {len(data)} pools (seeds {seeds}); noise and one-offs scored as singletons")
    for cname, cfg in configs.items():
        t0 = time.perf_counter()
        figs = []
        for name, E, truth in data:
            lab = cluster_embeddings(E, None, cfg.reduction, cfg.clustering).labels
            b = bcubed(truth, lab, noise="singletons")
            figs.append({"pool": name, "recall": b.recall, "precision": b.precision,
                         "oneoffs_alone": oneoffs_alone(truth, lab)})
        print(f"\n## {cname} ({time.perf_counter() - t0:.0f} s)\n")
        print(format_bar(bar_by_corpus(figs)))
        if a.pools:
            for f in figs:
                alone = "-" if f["oneoffs_alone"] is None else f"{f['oneoffs_alone']:.2f}"
                print(f"#   {f['pool']}: recall {f['recall']:.3f} precision "
                      f"{f['precision']:.3f} alone {alone}")


if __name__ == "__main__":
    main()
