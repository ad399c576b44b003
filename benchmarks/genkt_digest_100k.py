"""GenKT's graph strategy on the 100k 384-d unit-embedding pool of ``genkt_scaling.py``
(``make_pool``, one seed): wall time and a digest of the merge history.

Run it in two checkouts (for example ``git worktree add ../before REV``, each with the
package importable from its own tree) to compare a kernel change side by side on the same
machine: the digests must be equal and the times close. Usage:
``python benchmarks/genkt_digest_100k.py [SEED] [N]``.
"""

from __future__ import annotations

import hashlib
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from genkt_scaling import EMB_R, make_pool

from memmaint.clustering.genkt.estimator import GenKTDefinition, genkt_cluster


def main(seed: int = 0, n: int = 100_000) -> None:
    _, E, _ = make_pool(n, 384, seed=seed, spread=(0.6, 1.2))
    E = np.ascontiguousarray(E)
    definition = GenKTDefinition(p=0.0, R=EMB_R, cos_cut=-1.0)
    genkt_cluster(make_pool(200, 384, seed=1)[1], definition=definition, strategy="graph")
    start = time.perf_counter()
    seq = genkt_cluster(E, definition=definition, strategy="graph")
    wall = time.perf_counter() - start
    digest = hashlib.sha256(np.ascontiguousarray(seq.merged_pairs).tobytes()
                            + seq.distance.tobytes()).hexdigest()[:16]
    print(f"n {n} seed {seed}: wall {wall:.1f} s, {seq.n_merges} merges, digest {digest}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
