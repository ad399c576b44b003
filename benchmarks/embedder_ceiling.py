"""The ceiling each embedder allows (issue #35's oracle per corpus) and its speed: MiniLM, the
default, beside the optional all-mpnet-base-v2 (the ``mpnet`` extra).

Ceiling: ``optimize.transfer.oracle_by_corpus`` on the transfer pools of every ``--seed``
(average linkage on cosine distance, the single cut best for each corpus with its labels:
mean recall at worst precision >= 0.50), once per embedder on the same pools. Speed: sentences
per second embedding ``--speed-texts`` Banking77 and HWU64 texts (seed 0, one warm-up call
first), in one process, one embedder after the other, with the same thread count.

    python benchmarks/embedder_ceiling.py --seed 0 --seed 1 --seed 2 --seed 3
    python benchmarks/embedder_ceiling.py --seed 0 --embedders minilm,mpnet --speed-texts 500
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, action="append", help="repeatable; default 0")
    ap.add_argument("--embedders", default="minilm,mpnet")
    ap.add_argument("--classes", type=int, default=15)
    ap.add_argument("--speed-texts", type=int, default=1000, help="0: no speed measurement")
    ap.add_argument("--threads", type=int, default=0, help="onnxruntime threads (0: all CPUs)")
    ap.add_argument("--embedding-cache", default=str(Path.home() / ".cache" / "memmaint" /
                                                     "bench-embeddings.sqlite"))
    a = ap.parse_args(argv)
    seeds = a.seed or [0]

    from memmaint.datasets.labelled import load_banking77, load_hwu64
    from memmaint.maintenance.core.config import EmbeddingConfig
    from memmaint.maintenance.core.records import content_hash
    from memmaint.maintenance.embed.base import get_embedder
    from memmaint.optimize.pools import SQLiteEmbeddingCache, encode_labels
    from memmaint.optimize.transfer import oracle_by_corpus, transfer_pools

    pools = [(name, pool) for seed in seeds for name, pool in
             transfer_pools(seed=seed, classes=a.classes)]
    rng = np.random.default_rng(0)
    corpus = list(load_banking77().texts) + list(load_hwu64().texts)
    speed_texts = [corpus[i] for i in rng.choice(len(corpus), a.speed_texts, replace=False)]
    speed_texts = speed_texts if a.speed_texts > 0 else []
    cache = SQLiteEmbeddingCache(a.embedding_cache)
    print(f"# {len(pools)} pools (seeds {seeds}, {a.classes} classes), {os.cpu_count()} CPUs")
    results = {}
    for name in a.embedders.split(","):
        t0 = time.perf_counter()
        embedder = get_embedder(EmbeddingConfig(model=name, threads=a.threads))
        load_s = time.perf_counter() - t0
        speed = "speed not measured"
        if speed_texts:
            embedder.embed(speed_texts[:32])  # warm-up
            t0, c0 = time.perf_counter(), time.process_time()
            embedder.embed(speed_texts)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            speed = (f"{len(speed_texts) / wall:.1f} sentences/s ({wall:.1f} s wall, "
                     f"{cpu:.1f} s CPU)")
        texts = sorted({t for _, p in pools for t in p.texts})
        hashes = [content_hash(t) for t in texts]
        known = cache.get_embeddings(embedder.model_id, hashes)
        todo = [(t, h) for t, h in zip(texts, hashes) if h not in known]
        if todo:
            vecs = embedder.embed([t for t, _ in todo])
            new = {h: v for (_, h), v in zip(todo, vecs)}
            cache.put_embeddings(embedder.model_id, new)
            known.update(new)
        data = [(pname, np.stack([known[content_hash(t)] for t in pool.texts]),
                 encode_labels(pool.labels)) for pname, pool in pools]
        oracle = oracle_by_corpus(data)
        results[name] = oracle
        print(f"{name} ({embedder.model_id}, dim {embedder.dim}): load {load_s:.1f} s, {speed}; "
              "oracle recall (cut): " + ", ".join(
                  f"{g} {o.recall:.2f} ({o.cut:.2f})" for g, o in sorted(oracle.items())),
              flush=True)
    groups = sorted({g for o in results.values() for g in o})
    names = list(results)
    print("\n| corpus | " + " | ".join(f"{n}: oracle recall (cut)" for n in names) + " |")
    print("|---|" + "---|" * len(names))
    for g in groups:
        print(f"| {g} | " + " | ".join(
            f"{results[n][g].recall:.2f} ({results[n][g].cut:.2f})" for n in names) + " |")


if __name__ == "__main__":
    main()
