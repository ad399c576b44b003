"""Whole clustering configs (reduction, clusterer, one-off guard) on the transfer pools of
issue #20, per corpus against the issue's bar, on tuning seeds and held-apart seeds.

Each config runs through ``clustering.pipeline.cluster_embeddings``, the path the job and
the tuner take, on the MiniLM embeddings of ``optimize.transfer.transfer_pools(seed)`` for
every ``--seed``. ``default`` is the shipped default; the default list adds
``examples/genkt-relative.toml``, the documented shadow config of docs/results.md; any TOML
config file may be named.
Noise and one-offs are scored as singletons. Each corpus is judged against its oracle (issue
#35: ``optimize.transfer.oracle_by_corpus``, average linkage on cosine distance with the cut
best for that corpus with its labels, computed on the same pools) and the bar ``BAR35``
(recall within 0.03 of the oracle, worst precision >= 0.30, safe one-offs >= 80%).

    python benchmarks/transfer_configs.py --seed 0 --seed 1            # the tuning seeds
    python benchmarks/transfer_configs.py --seed 2 --seed 3            # held apart
    python benchmarks/transfer_configs.py --seed 2 --config my.toml
    python benchmarks/transfer_configs.py --seed 2 --seed 3 --config default \
        --config examples/linkage.toml --set clustering.linkage.cut_z=1.0
    python benchmarks/transfer_configs.py --seed 2 --seed 3 --config default --embedder mpnet
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
    ap.add_argument("--classes", type=int, default=15, help="classes per pool (default 15)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="also run each --config with this override (repeatable: one more "
                         "config per value)")
    ap.add_argument("--embedder", default="minilm",
                    help="[embedding] model for the pools (default minilm; mpnet: the extra)")
    a = ap.parse_args(argv)
    seeds = a.seed or [0]

    from memmaint.clustering.metrics import bcubed
    from memmaint.clustering.pipeline import cluster_embeddings
    from memmaint.maintenance.core.config import Config, load_config, with_overrides
    from memmaint.maintenance.embed.base import get_embedder
    from memmaint.optimize.pools import encode_labels
    from memmaint.optimize.space import parse_fix
    from memmaint.optimize.transfer import (
        _one_offs,
        bar_by_corpus,
        format_bar,
        oneoffs_alone,
        oneoffs_safe,
        oracle_by_corpus,
        transfer_pools,
    )

    configs = {}
    for name in a.config or ["default", SHADOW]:
        base = Config() if name == "default" else load_config(name)
        configs[os.path.basename(name)] = base
        for fix in a.set:
            key, value = parse_fix(fix)
            configs[f"{os.path.basename(name)} {key}={value}"] = with_overrides(base,
                                                                              {key: value})
    from memmaint.maintenance.core.config import EmbeddingConfig

    embedder = get_embedder(EmbeddingConfig(model=a.embedder))
    data = []
    for seed in seeds:
        for name, pool in transfer_pools(seed=seed, classes=a.classes):
            E = np.asarray(embedder.embed(pool.texts), dtype=np.float64)
            data.append((name, E, encode_labels(pool.labels)))  # one-offs: a class each
    oracle = oracle_by_corpus(data)
    print(f"# {len(data)} pools (seeds {seeds}, {a.classes} classes); noise and one-offs "
          "scored as singletons; oracle (cosine cut): "
          + ", ".join(f"{g} {o.recall:.2f} ({o.cut:.2f})" for g, o in sorted(oracle.items())))
    for cname, cfg in configs.items():
        t0 = time.perf_counter()
        figs = []
        for name, E, truth in data:
            lab = cluster_embeddings(E, None, cfg.reduction, cfg.clustering).labels
            b = bcubed(truth, lab, noise="singletons")
            figs.append({"pool": name, "recall": b.recall, "precision": b.precision,
                         "oneoffs_alone": oneoffs_alone(truth, lab),
                         "oneoffs_safe": oneoffs_safe(truth, lab),
                         "oneoffs": int(_one_offs(truth).sum())})
        print(f"\n## {cname} ({time.perf_counter() - t0:.0f} s)\n")
        print(format_bar(bar_by_corpus(figs, oracle=oracle)))
        if a.pools:
            for f in figs:
                alone = "-" if f["oneoffs_alone"] is None else f"{f['oneoffs_alone']:.2f}"
                safe = "-" if f["oneoffs_safe"] is None else f"{f['oneoffs_safe']:.2f}"
                print(f"#   {f['pool']}: recall {f['recall']:.3f} precision "
                      f"{f['precision']:.3f} alone {alone} safe {safe}")


if __name__ == "__main__":
    main()
