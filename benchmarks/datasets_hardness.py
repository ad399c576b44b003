"""How hard are the synthetic pools? B-cubed of the default pipeline and of bag-of-words
baselines on many seeds.

For each kind, per-class range and seed this builds a 20-class pool with
:func:`memmaint.datasets.make_memory_pool`, embeds it with the default embedder (MiniLM),
clusters it with the default pipeline (2-D UMAP, HDBSCAN min_cluster_size 5), and scores
B-cubed precision and recall (noise as one cluster). Two baselines get the true number of
classes: TF-IDF + k-means and TF-IDF + average-linkage agglomerative (cosine); their ARI is
printed too. The figures in docs/datasets.md come from:

    python benchmarks/datasets_hardness.py --seeds 12              # ~4 min on a busy 2-core box
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kinds", nargs="+", default=["mtg", "support"])
    parser.add_argument("--per-class", nargs="+", default=["3-8", "5-10"],
                        help="LO-HI ranges to try")
    parser.add_argument("--classes", type=int, default=20)
    parser.add_argument("--seeds", type=int, default=12, help="seeds 0..N-1")
    args = parser.parse_args()

    from sklearn.cluster import AgglomerativeClustering, KMeans
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics import adjusted_rand_score

    from memmaint.clustering.metrics import bcubed
    from memmaint.clustering.pipeline import cluster_embeddings
    from memmaint.datasets.pools import make_memory_pool
    from memmaint.maintenance.core.config import ClusteringConfig, EmbeddingConfig, ReductionConfig
    from memmaint.maintenance.embed.base import get_embedder

    warnings.filterwarnings("ignore")
    embedder = get_embedder(EmbeddingConfig())
    print(f"{'kind':<8} {'per':<5} {'seed':>4} {'n':>4} | {'hdbP':>5} {'hdbR':>5} {'ncl':>3} | "
          f"{'kmP':>5} {'kmR':>5} {'kmARI':>5} | {'agP':>5} {'agR':>5} {'agARI':>5}")
    for kind in args.kinds:
        for rng_text in args.per_class:
            lo, hi = (int(v) for v in rng_text.split("-"))
            rows = []
            for seed in range(args.seeds):
                pool = make_memory_pool(kind, n_classes=args.classes, per_class=(lo, hi),
                                        seed=seed)
                result = cluster_embeddings(embedder.embed(pool.texts), pool.weights,
                                            ReductionConfig(), ClusteringConfig())
                hdb = bcubed(pool.labels, result.labels)
                tfidf = TfidfVectorizer(sublinear_tf=True).fit_transform(pool.texts)
                k = pool.n_classes + 1
                km = KMeans(k, n_init=10, random_state=0).fit_predict(tfidf)
                ag = AgglomerativeClustering(k, metric="cosine", linkage="average") \
                    .fit_predict(tfidf.toarray())
                bkm, bag = bcubed(pool.labels, km), bcubed(pool.labels, ag)
                row = (hdb.precision, hdb.recall, bkm.precision, bkm.recall,
                       adjusted_rand_score(pool.labels, km), bag.precision, bag.recall,
                       adjusted_rand_score(pool.labels, ag))
                rows.append(row)
                print(f"{kind:<8} {rng_text:<5} {seed:>4} {len(pool):>4} | {row[0]:5.2f} "
                      f"{row[1]:5.2f} {result.n_clusters:>3} | {row[2]:5.2f} {row[3]:5.2f} "
                      f"{row[4]:5.2f} | {row[5]:5.2f} {row[6]:5.2f} {row[7]:5.2f}", flush=True)
            a = np.array(rows)
            inside = int(np.all((a[:, :2] > 0.2) & (a[:, :2] < 0.95), axis=1).sum())
            print(f"{kind:<8} {rng_text:<5} mean | {a[:, 0].mean():5.2f} {a[:, 1].mean():5.2f}"
                  f"     | {a[:, 2].mean():5.2f} {a[:, 3].mean():5.2f} {a[:, 4].mean():5.2f} | "
                  f"{a[:, 5].mean():5.2f} {a[:, 6].mean():5.2f} {a[:, 7].mean():5.2f}   "
                  f"HDBSCAN P and R both in (0.2, 0.95): {inside}/{len(rows)} seeds")


if __name__ == "__main__":
    main()
