"""CPU time of the update grouping (``agents.updates.group_updates``) on nightly.py's text.

The job groups memories that update or restate one another before planning, over every
active memory of a namespace; at 100k memories this step alone had grown to minutes. Run it
on the same text at several sizes (hashing embedder, every memory noise, as after a
clustering that left them apart)::

    python benchmarks/group_updates.py --sizes 3000 20000

Above ``agents.updates.EXACT_MAX`` (20,000) memories the neighbours are approximate
(``agents.neighbours``); ``--recall`` compares, at each size, the exact search with the
cells (forced on both sides of the limit): time of each, share of the exact neighbour pairs
the cells find, and B-cubed of the grouped labels (singletons for the ungrouped)::

    python benchmarks/group_updates.py --recall --sizes 30000 60000
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nightly  # the pool's synthetic text


def measure(n: int) -> float:
    """CPU seconds of one ``group_updates`` call over ``n`` memories."""
    from memmaint.maintenance.agents.updates import group_updates
    from memmaint.maintenance.core.config import AgentsConfig, EmbeddingConfig
    from memmaint.maintenance.core.records import Memory
    from memmaint.maintenance.embed.base import get_embedder

    texts = nightly.synth_texts(n, 0, 0, max(10, n // 20))
    mems = [Memory(id=f"m{i}", text=t) for i, t in enumerate(texts)]
    vecs = np.asarray(get_embedder(EmbeddingConfig(model="hashing", dim=128)).embed(texts))
    t0 = time.process_time()
    group_updates(mems, np.full(n, -1), vecs, AgentsConfig(), [np.arange(n)])
    return time.process_time() - t0


def recall(n: int) -> str:
    """One table row: exact against cells at ``n`` memories."""
    from memmaint.clustering.metrics import bcubed
    from memmaint.maintenance.agents import updates
    from memmaint.maintenance.agents.neighbours import approximate_pairs
    from memmaint.maintenance.core.config import AgentsConfig, EmbeddingConfig
    from memmaint.maintenance.core.records import Memory
    from memmaint.maintenance.embed.base import get_embedder

    texts = nightly.synth_texts(n, 0, 0, max(10, n // 12))
    mems = [Memory(id=f"m{i}", text=t) for i, t in enumerate(texts)]
    vecs = np.asarray(get_embedder(EmbeddingConfig(model="hashing", dim=384)).embed(texts),
                      dtype=np.float32)
    unit = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
    rows = np.arange(n)
    t0 = time.process_time()
    exact = updates._neighbour_pairs(unit, rows)
    t1 = time.process_time()
    cells = set(map(tuple, approximate_pairs(unit, rows, updates.NEIGHBOURS,
                                             updates.UPDATE_VERB_COSINE).tolist()))
    t2 = time.process_time()
    labels, cpu = {}, {}
    for name, limit in (("exact", n), ("cells", 0)):
        updates.EXACT_MAX = limit
        c0 = time.process_time()
        labels[name] = updates.group_updates(mems, np.full(n, -1), vecs, AgentsConfig(),
                                             [rows])
        cpu[name] = time.process_time() - c0

    def single(x: np.ndarray) -> np.ndarray:
        x = x.copy()
        x[x < 0] = np.arange(int((x < 0).sum())) + int(x.max(initial=-1)) + 1
        return x

    b = bcubed(single(labels["exact"]), single(labels["cells"]))
    return (f"| {n:,} | {t1 - t0:.1f} | {t2 - t1:.1f} | {len(exact & cells) / len(exact):.3f} "
            f"| {cpu['exact']:.1f} | {cpu['cells']:.1f} | {int((labels['exact'] >= 0).sum()):,}"
            f" / {int((labels['cells'] >= 0).sum()):,} | {b.f1:.3f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[3000, 20000])
    ap.add_argument("--recall", action="store_true",
                    help="exact against approximate neighbours (see the docstring)")
    args = ap.parse_args()
    if args.recall:
        print("| memories | exact search CPU s | cells CPU s | exact pairs found | "
              "group_updates exact CPU s | with cells CPU s | grouped exact / cells | "
              "B-cubed F1 |\n|---:|---:|---:|---:|---:|---:|---|---:|")
        for n in args.sizes:
            print(recall(n), flush=True)
        return
    print("| memories | group_updates CPU s |\n|---:|---:|")
    for n in args.sizes:
        print(f"| {n:,} | {measure(n):.1f} |")


if __name__ == "__main__":
    main()
