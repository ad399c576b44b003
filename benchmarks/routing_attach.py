"""The routing tables' attach search on a real store: exact against cells (issue #38).

A night's routing tables attach every loose (noise) memory of the namespace to its nearest
centroid; exactly, that is every loose memory against every centroid (164 s of the 1M
benchmark's 975 s night). Above ``attach.EXACT_MAX`` cosines the search goes through
inverted-file cells. This reads a namespace of a store the incremental benchmark kept (its
memories, cached vectors and the last run's labels from the incremental state), takes the
centroids of the clusters of two or more memories, and prints, side by side in one process:
the cells search over every loose memory, the exact search over a sample of them (its time
scaled to all), and on that sample how many loose memories get the same decision (the same
cluster, or none below the attach floor of 0.5).

    python benchmarks/routing_attach.py --db /tmp/h38/n1m/pool-1000000.db --namespace bench
"""

from __future__ import annotations

import argparse
import glob
import time

import numpy as np

from memmaint.maintenance.core.records import Status
from memmaint.maintenance.retrieve.attach import EXACT_MAX, nearest_centroids
from memmaint.maintenance.retrieve.routing import _group_means, unit_rows
from memmaint.maintenance.store.sqlite import SQLiteStore


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--namespace", default="bench")
    ap.add_argument("--sample", type=int, default=20_000)
    ap.add_argument("--floor", type=float, default=0.5)
    args = ap.parse_args()
    t0 = time.perf_counter()
    (state,) = glob.glob(f"{args.db}.state/*.npz")
    with np.load(state, allow_pickle=False) as data:
        ids, labels = data["ids"], data["labels"]
    with SQLiteStore(args.db, create=False) as store:
        by_id = {m.id: m for m in store.iter_memories(args.namespace, statuses=[Status.ACTIVE])}
        keep = [i for i, mid in enumerate(ids.tolist()) if mid in by_id]
        mems = [by_id[ids[i]] for i in keep]
        model_id = _model_id(store)
        vecs = store.get_embeddings(model_id, [m.content_hash for m in mems])
    lab = labels[keep]
    x = unit_rows(np.stack([vecs[m.content_hash] for m in mems]).astype(np.float32))
    counts = np.bincount(lab[lab >= 0])
    clusters = np.flatnonzero(counts >= 2)
    cents = unit_rows(_group_means(x, lab, clusters.tolist()))
    loose = np.flatnonzero((lab < 0) | (counts[np.maximum(lab, 0)] < 2))
    print(f"read {len(x)} memories in {time.perf_counter() - t0:.1f} s: {len(loose)} loose, "
          f"{len(clusters)} clusters ({len(loose) * len(clusters):.3g} cosines; exact up to "
          f"{EXACT_MAX:.3g})", flush=True)
    t0 = time.perf_counter()
    c_pick, c_val = nearest_centroids(x, loose, cents, exact_max=0)
    cells_s = time.perf_counter() - t0
    sample = np.sort(np.random.default_rng(0).choice(len(loose), min(args.sample, len(loose)),
                                                     replace=False))
    t0 = time.perf_counter()
    e_pick, e_val = nearest_centroids(x, loose[sample], cents, exact_max=len(loose) * len(cents))
    exact_s = (time.perf_counter() - t0) * len(loose) / len(sample)
    e_dec = np.where(e_val >= args.floor, e_pick, -1)
    c_dec = np.where(c_val[sample] >= args.floor, c_pick[sample], -1)
    same = float(np.mean(e_dec == c_dec))
    print(f"cells: {cells_s:.1f} s for all {len(loose)}; exact: {exact_s:.1f} s scaled from "
          f"{len(sample)} ({exact_s / cells_s:.1f}x); same decision for {same:.2%} of the sample "
          f"({int(np.sum(e_dec >= 0))} attached exactly, {int(np.sum(c_dec >= 0))} by cells)")


def _model_id(store: SQLiteStore) -> str:
    rows = store._read("SELECT model_id FROM embeddings LIMIT 1")
    return str(rows[0][0])


if __name__ == "__main__":
    main()
