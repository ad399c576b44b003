"""Clustering in the embedding space itself on the transfer pools of issue #20.

Runs two methods with no reduction on the unit MiniLM embeddings of
``optimize.transfer.transfer_pools(seed)`` (Banking77, HWU64, mtg, support; 2, 4-6 and 8-12
per class; one-offs from another corpus), at a grid of cosine thresholds c:

- ``genkt``: generalised-kt C/A (p = 0) with ``cos_cut = c`` and R = sqrt(2 - 2 (c - 0.1))
  (the cosine cut does the semantic work; ``auto`` runs the graph strategy in 384-d);
- ``average``: scikit-learn's average linkage on cosine distance, cut at 1 - c.

``--lexical A`` (0 < A < 1) makes the similarity ``(1 - A) cos(embeddings) + A cos(tf-idf)``
(word tf-idf fitted on each pool, sublinear tf; average linkage only): does word overlap add what
MiniLM's space misses? (On the dev pools it does not: see docs/results.md.)

Prints, per threshold, B-cubed recall (mean and worst pool), worst precision (noise and
one-offs scored as singletons) and the worst share of one-offs left alone; ``--corpora``
adds the issue's bar per corpus and for the 2-per-class pools
(``optimize.transfer.bar_by_corpus``), ``--pools`` one line per pool, ``--st-model FOLDER``
embeds with a local sentence-transformers model instead of MiniLM. Several ``--seed`` values
pool their figures. Needs ``$MEMMAINT_SHARED_DATA`` (or ../shared/data).

    python benchmarks/transfer_embedding_space.py --seed 0
    python benchmarks/transfer_embedding_space.py --seed 0 --seed 1 --methods average \\
        --cuts 0.1,0.15,0.2,0.25,0.3,0.35,0.4 --corpora
"""

from __future__ import annotations

import argparse

import numpy as np


def _similarity(E: np.ndarray, texts: list[str], lexical: float) -> np.ndarray:
    S = E @ E.T
    if lexical > 0:
        from sklearn.feature_extraction.text import TfidfVectorizer

        T = TfidfVectorizer(sublinear_tf=True).fit_transform(texts)
        S = (1 - lexical) * S + lexical * (T @ T.T).toarray()
    return S


def _labels(method: str, c: float, E: np.ndarray, S: np.ndarray) -> np.ndarray:
    if method == "average":
        from sklearn.cluster import AgglomerativeClustering

        D = np.clip(1.0 - S, 0.0, None)
        np.fill_diagonal(D, 0.0)
        return AgglomerativeClustering(n_clusters=None, linkage="average", metric="precomputed",
                                       distance_threshold=1 - c).fit_predict(D)
    from memmaint.clustering.genkt.estimator import GenKTDefinition, genkt_cluster

    d = GenKTDefinition(p=0.0, R=float(np.sqrt(2 - 2 * (c - 0.1))), cos_cut=c)
    return np.asarray(genkt_cluster(E, embeddings=E, definition=d).labels())


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, action="append",
                    help="transfer_pools seed (repeatable; default 0)")
    ap.add_argument("--cuts", default="0.35,0.4,0.45,0.5,0.55,0.6,0.65")
    ap.add_argument("--methods", default="genkt,average")
    ap.add_argument("--lexical", type=float, default=0.0,
                    help="weight of word tf-idf cosine in the similarity (0: embeddings only)")
    ap.add_argument("--corpora", action="store_true", help="the issue's bar per corpus")
    ap.add_argument("--pools", action="store_true", help="one line per pool as well")
    ap.add_argument("--st-model", metavar="FOLDER",
                    help="embed with this local sentence-transformers model folder instead "
                         "of the default MiniLM (the st extra): is it the embedding?")
    a = ap.parse_args(argv)
    seeds = a.seed or [0]
    if not 0.0 <= a.lexical < 1.0:
        ap.error("--lexical must be in [0, 1)")
    if a.lexical > 0 and "genkt" in a.methods.split(","):
        ap.error("--lexical goes with --methods average (GenKT's cut reads the embeddings)")

    from memmaint.clustering.metrics import bcubed
    from memmaint.maintenance.core.config import EmbeddingConfig
    from memmaint.maintenance.embed.base import get_embedder
    from memmaint.optimize.pools import encode_labels
    from memmaint.optimize.transfer import (
        bar_by_corpus,
        format_bar,
        oneoffs_alone,
        transfer_pools,
    )

    embedder = get_embedder(
        EmbeddingConfig(model="sentence-transformers", path=a.st_model) if a.st_model else None)
    data = []
    for seed in seeds:
        for name, pool in transfer_pools(seed=seed):
            E = np.asarray(embedder.embed(pool.texts), dtype=np.float64)
            E /= np.linalg.norm(E, axis=1, keepdims=True)
            truth = encode_labels(pool.labels)  # every one-off is a class of its own
            data.append((name, E, _similarity(E, list(pool.texts), a.lexical), truth))
    print(f"# {len(data)} pools (seeds {seeds}), sizes {[len(d[3]) for d in data]}, "
          f"lexical weight {a.lexical}, embedder {embedder.model_id}")
    print("| method | cosine c | mean recall | worst recall | worst precision | "
          "worst one-offs alone |")
    print("|---|---:|---:|---:|---:|---:|")
    for method in a.methods.split(","):
        for c in (float(v) for v in a.cuts.split(",")):
            rows = []
            for name, E, S, truth in data:
                lab = _labels(method, c, E, S)
                b = bcubed(truth, lab, noise="singletons")
                alone = oneoffs_alone(truth, lab)
                rows.append((name, b.recall, b.precision,
                             float("nan") if alone is None else alone))
            r = np.array([x[1:] for x in rows])
            print(f"| {method} | {c:.2f} | {r[:, 0].mean():.3f} | {r[:, 0].min():.3f} | "
                  f"{r[:, 1].min():.3f} | {np.nanmin(r[:, 2]):.2f} |", flush=True)
            if a.corpora:
                figs = [{"pool": n, "recall": rc, "precision": pr,
                         "oneoffs_alone": None if np.isnan(al) else al}
                        for n, rc, pr, al in rows]
                print(format_bar(bar_by_corpus(figs)))
            if a.pools:
                for name, rec, prec, alone in rows:
                    print(f"#   {name}: recall {rec:.3f} precision {prec:.3f} alone {alone:.2f}")


if __name__ == "__main__":
    main()
