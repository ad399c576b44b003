"""CPU time of the update grouping (``agents.updates.group_updates``) on nightly.py's text.

The job groups memories that update or restate one another before planning, over every
active memory of a namespace; at 100k memories this step alone had grown to minutes. Run it
on the same text at several sizes (hashing embedder, every memory noise, as after a
clustering that left them apart)::

    python benchmarks/group_updates.py --sizes 3000 20000
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[3000, 20000])
    args = ap.parse_args()
    print("| memories | group_updates CPU s |\n|---:|---:|")
    for n in args.sizes:
        print(f"| {n:,} | {measure(n):.1f} |")


if __name__ == "__main__":
    main()
