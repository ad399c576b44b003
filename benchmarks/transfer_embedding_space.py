"""Clustering in the embedding space itself on the transfer pools of issue #20.

Runs two methods with no reduction on the unit MiniLM embeddings of
``optimize.transfer.transfer_pools(seed)`` (Banking77, HWU64, mtg, support; 2, 4-6 and 8-12
per class; one-offs from another corpus), at a grid of cosine thresholds c:

- ``genkt``: generalised-kt C/A (p = 0) with ``cos_cut = c`` and R = sqrt(2 - 2 (c - 0.1))
  (the cosine cut does the semantic work; ``auto`` runs the graph strategy in 384-d);
- ``average``: scikit-learn's average linkage on cosine distance, cut at 1 - c.

Prints, per threshold, B-cubed recall (mean and worst pool), worst precision (noise and
one-offs scored as singletons) and the worst share of one-offs left alone; ``--pools``
adds one line per pool. Needs ``$MEMMAINT_SHARED_DATA`` (or ../shared/data).

    python benchmarks/transfer_embedding_space.py --seed 0
"""

from __future__ import annotations

import argparse

import numpy as np


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cuts", default="0.35,0.4,0.45,0.5,0.55,0.6,0.65")
    ap.add_argument("--pools", action="store_true", help="one line per pool as well")
    a = ap.parse_args(argv)

    from sklearn.cluster import AgglomerativeClustering

    from memmaint.clustering.genkt.estimator import GenKTDefinition, genkt_cluster
    from memmaint.clustering.metrics import bcubed
    from memmaint.maintenance.embed.base import get_embedder
    from memmaint.optimize.transfer import transfer_pools

    embedder = get_embedder()
    data = []
    for name, pool in transfer_pools(seed=a.seed):
        E = np.asarray(embedder.embed(pool.texts), dtype=np.float64)
        E /= np.linalg.norm(E, axis=1, keepdims=True)
        raw = np.asarray(pool.labels)
        truth = raw.copy()
        one = truth < 0  # every one-off is a class of its own
        truth[one] = truth.max(initial=0) + 1 + np.arange(int(one.sum()))
        data.append((name, E, truth, one))
    print(f"# {len(data)} pools (seed {a.seed}), sizes {[len(d[2]) for d in data]}")
    print("| method | cosine c | mean recall | worst recall | worst precision | "
          "worst one-offs alone |")
    print("|---|---:|---:|---:|---:|---:|")
    for method in ("genkt", "average"):
        for c in (float(v) for v in a.cuts.split(",")):
            rows = []
            for name, E, truth, one in data:
                if method == "genkt":
                    d = GenKTDefinition(p=0.0, R=float(np.sqrt(2 - 2 * (c - 0.1))), cos_cut=c)
                    lab = genkt_cluster(E, embeddings=E, definition=d).labels()
                else:
                    lab = AgglomerativeClustering(
                        n_clusters=None, linkage="average", metric="cosine",
                        distance_threshold=1 - c).fit_predict(E)
                b = bcubed(truth, lab, noise="singletons")
                _, inv, cnt = np.unique(lab, return_inverse=True, return_counts=True)
                alone = float((cnt[inv] == 1)[one].mean()) if one.any() else float("nan")
                rows.append((name, b.recall, b.precision, alone))
            r = np.array([x[1:] for x in rows])
            print(f"| {method} | {c:.2f} | {r[:, 0].mean():.3f} | {r[:, 0].min():.3f} | "
                  f"{r[:, 1].min():.3f} | {np.nanmin(r[:, 2]):.2f} |", flush=True)
            if a.pools:
                for name, rec, prec, alone in rows:
                    print(f"#   {name}: recall {rec:.3f} precision {prec:.3f} alone {alone:.2f}")


if __name__ == "__main__":
    main()
