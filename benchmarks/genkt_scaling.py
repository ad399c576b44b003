"""GenKT scaling: time against N, dimension, p and R, next to the numpy reference and FastJet.

    python benchmarks/genkt_scaling.py            # default run (about five minutes)
    python benchmarks/genkt_scaling.py --quick    # 1k and 10k only, a minute or two
    python benchmarks/genkt_scaling.py --big --emb-100k   # adds 1M (2-D, 3-D), 100k embeddings
    python benchmarks/genkt_scaling.py --emb-only --emb-sizes 2000   # embedding rows only
    python benchmarks/genkt_scaling.py --real-only   # real text embeddings and tight topics

Points look like a reduced memory pool: topics (Gaussian blobs of varied size and spread,
Zipf-like populations), 5% background, exact and near duplicates, z-scored per axis; weights
are log-normal importances. In 384-d the coordinates are the z-scored unit embeddings
themselves (reducer ``none``); in 2-D and 3-D the embeddings are generated jointly with the
coordinates, as a reduction would keep them. Every size runs in a fresh child process (numba
cache warm, one warm-up call before timing) so that peak RSS is per size. Times are CPU
seconds of the clustering call (GenKT's kernels and FastJet are single-threaded; the graph
strategy's first pass and scikit-learn call BLAS, whose threads count too), steadier than wall
time on a shared machine; wall seconds are shown too.

FastJet runs Cambridge/Aachen with the pt scheme on the same 2-D points mapped to (rapidity,
phi) in one patch that never wraps, with R scaled alike, once with each of its strategies
(``JetDefinition(algorithm, R, strategy, scheme)``: the binding's order; each run asserts
that FastJet got the strategy and scheme asked for); GenKT is compared with the fastest, and
every strategy's partition is checked equal to GenKT p = 0.

The second table is the high-dimensional case of issue #23: unit-length 384-d embeddings
(``make_pool``'s topics, tighter, so that topics really merge into growing centroids),
clustered as they are (coordinates = embeddings, no weights) by GenKT (p = 0, R = 0.8, i.e.
cosine >= 0.68; the ``graph`` strategy, and ``nn`` at small N for comparison), by
scikit-learn's average linkage cut at the same distance and by HDBSCAN (min_cluster_size 5);
each in its own process, with CPU seconds, clusters, the largest cluster and peak memory.

The third table (issue #35) is the same on real text: MiniLM vectors (the project's default
embedder, through the evaluation cache ``EvalCache``, so texts are embedded once per machine)
of N texts drawn from Banking77 + HWU64 (``$MEMMAINT_SHARED_DATA`` or ../shared/data),
clustered as they are: GenKT C/A in cosine mode (coordinates = embeddings, so ``weighted``
runs the ``sphere`` recombination) with the cosine cut at the same cosine as R (1 - R^2 / 2
= 0.68; in cosine mode the cut reads the members' average cosine), the same without the cut
(``genkt-nocut``: the sphere alone) and, at small N, the plain weighted mean (``genkt-plain``:
the same vectors without ``embeddings``, as before issue #35); and scikit-learn's average
linkage on cosine distance at the same cut. Then 10k unit vectors in 500 tight, nearly
orthogonal topics of 20 (an easy input that was slow).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def make_pool(n: int, D: int, seed: int = 0, emb_dim: int = 384, with_embeddings=True,
              overlap: bool = False, uniform: bool = False, spread=(0.6, 1.2)):
    """(X z-scored (n, D), unit embeddings (n, emb_dim) or None, weights (n,)).

    Topics nest in super-topics (related subjects: embeddings with cosine ~0.5 between
    sibling topics, ~0 across super-topics). The low-dimensional coordinates keep super-topics
    apart and siblings near, as a good reduction does; ``overlap=True`` scatters topics at
    random instead (a reduction that mixes unrelated subjects: the cosine cut's worst case).
    ``uniform=True``: uniform points, no topics (the easy case for FastJet's tiles).
    ``spread``: the range of the topics' spreads in embedding space (a topic's points are at
    cosine about 1 / (1 + spread^2) from each other; with the default few pairs are within
    R = 0.8 of each other in 384-d, with (0.3, 0.7) most topics merge whole).
    """
    rng = np.random.default_rng(seed)
    if uniform:
        X = rng.uniform(-1.0, 1.0, size=(n, D))
        E = rng.normal(size=(n, emb_dim)) if with_embeddings else None
        if E is not None:
            E /= np.linalg.norm(E, axis=1, keepdims=True)
        return (X - X.mean(0)) / X.std(0), E, rng.lognormal(0.0, 1.0, n)
    K = max(8, min(2000, n // 100))
    S = max(4, K // 25)
    sup = rng.integers(0, S, K)
    pop = rng.zipf(1.6, K).astype(float)
    topic = rng.choice(K, size=n, p=pop / pop.sum())
    w = rng.lognormal(0.0, 1.0, n)
    E = None
    if with_embeddings or D > 5:
        u = rng.normal(size=(S, emb_dim))
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        c = u[sup] + 0.9 * rng.normal(size=(K, emb_dim)) / np.sqrt(emb_dim)
        c /= np.linalg.norm(c, axis=1, keepdims=True)
        sp = rng.uniform(spread[0], spread[1], K)
        E = c[topic] + rng.normal(size=(n, emb_dim)) * (sp[topic] / np.sqrt(
            emb_dim))[:, None]
    if D > 5:
        X = E.copy()
    else:
        if overlap:
            cx = rng.normal(size=(K, D)) * 3.0
        else:
            cx = rng.normal(size=(S, D))[sup] * 3.0 + rng.normal(size=(K, D)) * 0.4
        sx = rng.uniform(0.03, 0.2, K)
        X = cx[topic] + rng.normal(size=(n, D)) * sx[topic, None]
    noise = rng.random(n) < 0.05  # unrelated one-offs scattered anywhere
    if D <= 5:
        X[noise] = rng.uniform(X.min(0), X.max(0), size=(int(noise.sum()), D))
    if E is not None:
        E[noise] = rng.normal(size=(int(noise.sum()), emb_dim))
    dup = rng.random(n) < 0.05  # the same memory saved again, exactly or nearly
    src = rng.integers(0, n, int(dup.sum()))
    X[dup] = X[src] + rng.normal(size=(len(src), X.shape[1])) * 1e-3 * (rng.random(
        (len(src), 1)) < 0.5)
    if E is not None:
        E[dup] = E[src]
        E /= np.linalg.norm(E, axis=1, keepdims=True)
    X = (X - X.mean(0)) / X.std(0)
    return np.ascontiguousarray(X), E, w


#: FastJet's strategies, with the largest N each runs at (N3Dumb is O(N^3), N2Plain O(N^2))
FASTJET_STRATEGIES = {
    "Best": None, "BestFJ30": None, "N2MHTLazy25": None, "N2MHTLazy9": None,
    "N2MHTLazy9Alt": None, "N2MinHeapTiled": None, "N2Tiled": None, "N2PoorTiled": None,
    "NlnN": None, "NlnNCam": None, "NlnNCam2pi2R": None, "NlnNCam4pi": None,
    "NlnN3pi": None, "NlnN4pi": None, "N2Plain": 30000, "N3Dumb": 2000}


def fastjet_cluster(X, w, R, strategy="Best"):
    """FastJet C/A pt-scheme on X mapped to one (y, phi) patch with the given strategy;
    (labels, CPU s, wall s, the strategy FastJet used)."""
    import fastjet as fj

    s = 2.5 / float(np.abs(X).max())
    y, phi = X[:, 0] * s, X[:, 1] * s + np.pi
    parts = []
    for i in range(len(w)):
        p = fj.PseudoJet(w[i] * np.cos(phi[i]), w[i] * np.sin(phi[i]), w[i] * np.sinh(y[i]),
                         w[i] * np.cosh(y[i]))
        p.set_user_index(i)
        parts.append(p)
    want = getattr(fj, strategy)
    # the binding's order is (algorithm, R, strategy, scheme); (algorithm, R, scheme,
    # strategy) would be read as other enum values: check what FastJet really got
    jd = fj.JetDefinition(fj.cambridge_algorithm, R * s, want, fj.pt_scheme)
    assert jd.strategy() == want and jd.recombination_scheme() == fj.pt_scheme, \
        jd.description()
    assert "pt scheme recombination" in jd.description(), jd.description()
    c0, t0 = time.process_time(), time.perf_counter()
    cs = fj.ClusterSequence(parts, jd)
    jets = cs.inclusive_jets()
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    lab = np.empty(len(w), dtype=np.int64)
    for k, j in enumerate(jets):
        for c in j.constituents():
            lab[c.user_index()] = k
    return lab, cpu, wall, cs.strategy_string()


def canonical(labels):
    _, first, inv = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty_like(first)
    rank[np.argsort(first)] = np.arange(len(first))
    return rank[inv]


def timed(fn):
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - c0, time.perf_counter() - t0


def fastjet_rows(X, w, R, n, labels):
    """FastJet with each strategy (that runs at this N): the fastest, Best, all of them."""
    try:
        import fastjet  # noqa: F401
    except ImportError:
        return {}
    runs = {}
    for name, cap in FASTJET_STRATEGIES.items():
        if cap is None or n <= cap:
            lab, cpu, wall, used = fastjet_cluster(X, w, R, name)
            runs[name] = {"cpu": cpu, "wall": wall, "used": used,
                          "same": bool(np.array_equal(canonical(lab), labels))}
    fastest = min(runs, key=lambda k: runs[k]["cpu"])
    return {"fj_cpu": runs[fastest]["cpu"], "fj_wall": runs[fastest]["wall"],
            "fj_strategy": fastest, "fj_best_cpu": runs["Best"]["cpu"],
            "fj_best_used": runs["Best"]["used"],
            "fj_same": all(r["same"] for r in runs.values()), "fj_all": runs}


def run_group(n, D, ps, radii, ref_max_n, fastjet_max_n, cos_max_n, overlap, uniform):
    """Child process: every (p, R) for one (n, D); returns a list of result rows."""
    sys.path.insert(0, ROOT)
    from memmaint.clustering.genkt.estimator import GenKTDefinition, genkt_cluster

    X, E, w = make_pool(n, D, with_embeddings=n <= cos_max_n, overlap=overlap,
                        uniform=uniform)
    warm = make_pool(64, D, seed=1)
    for emb in (None, warm[1]):
        genkt_cluster(warm[0], emb, warm[2], GenKTDefinition(cos_cut=0.26, R=2.0))
    rows = []
    for p in ps:
        for R in radii:
            d = GenKTDefinition(p=p, R=R, cos_cut=0.26)
            seq, cpu, wall = timed(lambda d=d: genkt_cluster(X, None, w, d))
            row = {"n": n, "D": D, "p": p, "R": R, "cpu": cpu, "wall": wall,
                   "strategy": seq.strategy, "clusters": seq.n_clusters()}
            if n <= cos_max_n:
                cseq, ccpu, cwall = timed(lambda d=d: genkt_cluster(X, E, w, d))
                row.update(cos_cpu=ccpu, cos_wall=cwall, cos_clusters=cseq.n_clusters())
            if n <= ref_max_n:
                ref, rcpu, _ = timed(
                    lambda d=d: genkt_cluster(X, None, w, d, strategy="reference"))
                assert np.array_equal(ref.merged_pairs, seq.merged_pairs)
                row["ref_cpu"] = rcpu
            if D == 2 and p == 0 and n <= fastjet_max_n:
                row.update(fastjet_rows(X, w, R, n, seq.labels()))
            rows.append(row)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    for row in rows:
        row["peak_rss_mb"] = peak
    return rows


def fmt(v, spec=".3f"):
    return "-" if v is None else format(v, spec)


HEAD = ("| D | N | p | R | strategy | clusters | GenKT CPU s (wall) | reference CPU s | "
        "ref / GenKT | FastJet fastest: CPU s (wall), strategy | GenKT / FastJet fastest | "
        "FastJet Best CPU s (used) | same jets (all strategies) | cos cut 0.26 CPU s | "
        "cos / no cos | peak RSS MB |")


def print_row(r):
    ref, fjc, cos = r.get("ref_cpu"), r.get("fj_cpu"), r.get("cos_cpu")
    cells = [
        str(r["D"]), f"{r['n']:,}", f"{r['p']:g}", f"{r['R']:g}", r["strategy"],
        f"{r['clusters']:,}", f"{r['cpu']:.3f} ({r['wall']:.2f})",
        fmt(ref), "-" if ref is None else f"{ref / r['cpu']:.0f}x",
        "-" if fjc is None else f"{fjc:.3f} ({r['fj_wall']:.2f}), {r['fj_strategy']}",
        "-" if fjc is None else f"{r['cpu'] / fjc:.2f}x",
        "-" if fjc is None else f"{r['fj_best_cpu']:.3f} ({r['fj_best_used']})",
        "-" if fjc is None else ("yes" if r["fj_same"] else "NO"),
        fmt(cos), "-" if cos is None else f"{cos / r['cpu']:.2f}x",
        f"{r['peak_rss_mb']:.0f}"]
    print("| " + " | ".join(cells) + " |", flush=True)
    if fjc is not None:
        print("#   FastJet CPU s by strategy: " + ", ".join(
            f"{k} {v['cpu']:.3f}" for k, v in sorted(r["fj_all"].items(),
                                                    key=lambda kv: kv[1]["cpu"])), flush=True)


# ---------------------------------------------------------------- 384-d embeddings

EMB_R = 0.8  # cosine >= 1 - R^2 / 2 = 0.68 between unit vectors
#: topic spreads of the embedding table: the issue's pool (make_pool's default) and a denser
#: one where most topics merge whole
EMB_SPREADS = ((0.6, 1.2), (0.3, 0.7))


def run_embedding(n, method, spread=(0.6, 1.2), seed=0):
    """Child process: one method on the 384-d unit embeddings of size n; one result row."""
    sys.path.insert(0, ROOT)
    _, E, _ = make_pool(n, 384, seed=seed, spread=tuple(spread))
    E = np.ascontiguousarray(E)
    if method.startswith("genkt"):
        from memmaint.clustering.genkt.estimator import GenKTDefinition, genkt_cluster

        strategy = method.split("-", 1)[1]
        d = GenKTDefinition(p=0.0, R=EMB_R, cos_cut=-1.0)
        warm = make_pool(200, 384, seed=1, spread=tuple(spread))[1]
        genkt_cluster(warm, definition=d, strategy=strategy)

        def run():
            return genkt_cluster(E, definition=d, strategy=strategy).labels()
    elif method == "average":
        from sklearn.cluster import AgglomerativeClustering

        def run():
            return AgglomerativeClustering(n_clusters=None, linkage="average",
                                           distance_threshold=EMB_R).fit_predict(E)
    else:
        import hdbscan

        def run():
            return hdbscan.HDBSCAN(min_cluster_size=5).fit_predict(E)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    lab, cpu, wall = timed(run)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    lab = np.asarray(lab)
    noise = int((lab < 0).sum())
    sizes = np.bincount(lab[lab >= 0]) if (lab >= 0).any() else np.zeros(0, dtype=int)
    return {"n": n, "method": method, "seed": seed, "cpu": cpu, "wall": wall,
            "clusters": int((sizes > 0).sum()) + noise, "noise": noise,
            "largest": int(sizes.max(initial=1)), "peak_rss_mb": peak,
            "rss_growth_mb": max(peak - base, 0.0)}


def real_embeddings(n, seed=0):
    """Unit MiniLM vectors (float64) of n texts drawn from Banking77 + HWU64."""
    from memmaint.datasets.labelled import load_banking77, load_hwu64
    from memmaint.maintenance.core.config import EmbeddingConfig
    from memmaint.maintenance.evaluation.common import EvalCache

    texts = list(load_banking77().texts) + list(load_hwu64().texts)
    pick = np.random.default_rng(seed).choice(len(texts), min(n, len(texts)), replace=False)
    with EvalCache() as cache:
        E = np.asarray(cache.embed([texts[i] for i in pick], EmbeddingConfig()), dtype=np.float64)
    return np.ascontiguousarray(E / np.linalg.norm(E, axis=1, keepdims=True))


def tight_topics(n=10000, topics=500, spread=0.3, dim=384, seed=0):
    """n unit vectors in ``topics`` tight topics around random (nearly orthogonal) centres;
    pairwise cosine about 1 / (1 + spread^2) inside a topic."""
    rng = np.random.default_rng(seed)
    c = rng.normal(size=(topics, dim))
    c /= np.linalg.norm(c, axis=1, keepdims=True)
    X = c[rng.integers(0, topics, n) if n % topics else np.repeat(np.arange(topics),
                                                                   n // topics)]
    X = X + rng.normal(size=(n, dim)) * spread / np.sqrt(dim)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return np.ascontiguousarray(X[rng.permutation(n)])


def run_real(n, method, pool="real", seed=0):
    """Child process: one method on real text embeddings (or the tight topics); one row."""
    sys.path.insert(0, ROOT)
    E = real_embeddings(n, seed) if pool == "real" else tight_topics(n, seed=seed)
    rec = "-"
    if method.startswith("genkt"):
        from memmaint.clustering.genkt.estimator import GenKTDefinition, genkt_cluster

        cut = 1.0 - EMB_R ** 2 / 2 if method == "genkt-graph" else -1.0
        d = GenKTDefinition(p=0.0, R=EMB_R, cos_cut=cut)
        emb = None if method == "genkt-plain" else E  # cosine mode: the sphere
        genkt_cluster(tight_topics(400, 20), None if emb is None else tight_topics(400, 20),
                      definition=d)

        def run():
            seq = genkt_cluster(E, emb, definition=d)
            return seq.labels(), seq.recombination
    else:
        from sklearn.cluster import AgglomerativeClustering

        def run():
            return AgglomerativeClustering(
                n_clusters=None, linkage="average", metric="cosine",
                distance_threshold=EMB_R ** 2 / 2).fit_predict(E), "-"
    (lab, rec), cpu, wall = timed(run)
    sizes = np.bincount(np.asarray(lab))
    return {"n": len(E), "pool": pool, "method": method, "recombination": rec, "cpu": cpu,
            "wall": wall, "clusters": int((sizes > 0).sum()), "largest": int(sizes.max()),
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def real_rows(sizes, plain_max_n, average_max_n, tight):
    print(f"\n# real text: MiniLM vectors of Banking77 + HWU64 texts, C/A, R = {EMB_R} (cosine "
          f">= {1 - EMB_R ** 2 / 2:.2f}), genkt-graph with the cosine cut there too; average "
          f"linkage on cosine distance at the same cut (load average "
          f"{os.getloadavg()[0]:.1f})", flush=True)
    print("| N | pool | method | recombination | CPU s (wall) | clusters (singletons incl.) "
          "| largest cluster (share) | x average CPU | peak RSS MB |")
    print("|---:|---|---|---|---:|---:|---:|---:|---:|")
    jobs = [(n, "real") for n in sizes] + ([(10000, "tight")] if tight else [])
    rows = []
    for n, pool in jobs:
        methods = ["genkt-graph", "genkt-nocut"] + (["genkt-plain"] if n <= plain_max_n
                                                     else [])
        methods += ["average"] if n <= average_max_n else []
        got = [child({"n": n, "method": m, "pool": pool}, "--real-one") for m in methods]
        avg = next((r["cpu"] for r in got if r["method"] == "average"), None)
        for r in got:
            rel = "-" if avg is None else f"{r['cpu'] / avg:.2f}x"
            print(f"| {r['n']:,} | {pool} | {r['method']} | {r['recombination']} | "
                  f"{r['cpu']:.2f} ({r['wall']:.2f}) | {r['clusters']:,} | {r['largest']:,} "
                  f"({r['largest'] / r['n']:.1%}) | {rel} | {r['peak_rss_mb']:.0f} |",
                  flush=True)
        rows.extend(got)
    return rows


EMB_HEAD = ("| N | method | CPU s (wall) | clusters (singletons incl.) | HDBSCAN noise | "
            "largest cluster | x GenKT graph CPU | peak RSS MB (growth during the call) |")


def print_emb_row(r, graph_cpu):
    rel = "-" if graph_cpu is None else f"{r['cpu'] / graph_cpu:.1f}x"
    print(f"| {r['n']:,} | {r['method']} | {r['cpu']:.2f} ({r['wall']:.2f}) | "
          f"{r['clusters']:,} | {r['noise'] if r['method'] == 'hdbscan' else '-'} | "
          f"{r['largest']:,} | {rel} | {r['peak_rss_mb']:.0f} ({r['rss_growth_mb']:.0f}) |",
          flush=True)


def embedding_rows(sizes, nn_max_n, average_max_n, hdbscan_max_n, spread):
    print(f"\n# 384-d unit embeddings, R = {EMB_R} (cosine >= {1 - EMB_R ** 2 / 2:.2f}), "
          f"p = 0, no weights; topics with spread {spread} (load average "
          f"{os.getloadavg()[0]:.1f})", flush=True)
    print(EMB_HEAD)
    print("|" + "---:|" * (EMB_HEAD.count("|") - 1))
    rows = []
    for n in sizes:
        methods = ["genkt-graph"]
        methods += ["genkt-nn"] if n <= nn_max_n else []
        methods += ["average"] if n <= average_max_n else []
        methods += ["hdbscan"] if n <= hdbscan_max_n else []
        graph_cpu = None
        for m in methods:
            r = child({"n": n, "method": m, "spread": list(spread)}, "--emb-one")
            r["spread"] = list(spread)
            graph_cpu = r["cpu"] if m == "genkt-graph" else graph_cpu
            print_emb_row(r, graph_cpu)
            rows.append(r)
    return rows


def seed_rows(n, seeds, spread):
    """GenKT's graph strategy at size n on other pools from the same generator (seeds)."""
    print(f"\n# genkt-graph at N = {n:,} on more pools of the same generator (make_pool "
          f"seeds), topics with spread {spread} (load average {os.getloadavg()[0]:.1f})",
          flush=True)
    print("| seed | CPU s (wall) | clusters (singletons incl.) | largest cluster | "
          "peak RSS MB (growth during the call) |")
    print("|---:|---:|---:|---:|---:|")
    rows = []
    for seed in seeds:
        r = child({"n": n, "method": "genkt-graph", "spread": list(spread), "seed": seed},
                  "--emb-one")
        r["spread"] = list(spread)
        print(f"| {seed} | {r['cpu']:.2f} ({r['wall']:.2f}) | {r['clusters']:,} | "
              f"{r['largest']:,} | {r['peak_rss_mb']:.0f} ({r['rss_growth_mb']:.0f}) |",
              flush=True)
        rows.append(r)
    return rows


def child(job, flag):
    out = subprocess.run([sys.executable, os.path.abspath(__file__), flag, json.dumps(job)],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="sizes 1k and 10k only")
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--big", action="store_true", help="also 1M (in --big-dims)")
    ap.add_argument("--dims", default="2,3,384")
    ap.add_argument("--ps", default="0,-1")
    ap.add_argument("--radii", default="0.4,1.2")
    ap.add_argument("--ref-max-n", type=int, default=1000)
    ap.add_argument("--fastjet-max-n", type=int, default=100000)
    ap.add_argument("--cos-max-n", type=int, default=100000,
                    help="largest N that also runs with 384-d embeddings and the cosine cut")
    ap.add_argument("--high-dim-max-n", type=int, default=10000,
                    help="largest N in 384-d (z-scored pool) in the first table")
    ap.add_argument("--big-dims", default="2,3", help="dimensions that run N >= 1M")
    ap.add_argument("--overlap", action="store_true",
                    help="topics scattered at random in the reduced space (cosine cut stress)")
    ap.add_argument("--uniform", action="store_true",
                    help="uniform points without topics (FastJet's easy case)")
    ap.add_argument("--emb-sizes", default="2000,10000",
                    help="sizes of the 384-d unit-embedding table ('' for none)")
    ap.add_argument("--emb-100k", action="store_true", help="add 100k to the embedding table")
    ap.add_argument("--emb-only", action="store_true", help="only the embedding table")
    ap.add_argument("--emb-seeds", default="",
                    help="more make_pool seeds for GenKT's graph row at the largest "
                         "embedding size, on the first spread (e.g. '1,2,3,4')")
    ap.add_argument("--emb-spreads", default=";".join(f"{a},{b}" for a, b in EMB_SPREADS),
                    help="topic spread ranges of the embedding table, 'lo,hi;lo,hi'")
    ap.add_argument("--emb-nn-max-n", type=int, default=2000,
                    help="largest N GenKT's nn strategy runs at in the embedding table")
    ap.add_argument("--average-max-n", type=int, default=20000,
                    help="largest N for average linkage (it needs N^2 / 2 doubles)")
    ap.add_argument("--hdbscan-max-n", type=int, default=20000)
    ap.add_argument("--real-sizes", default="2000,5000,10000,20000",
                    help="sizes of the real-text table ('' for none)")
    ap.add_argument("--real-plain-max-n", type=int, default=2000,
                    help="largest N for GenKT's plain weighted mean on real text")
    ap.add_argument("--no-tight", action="store_true", help="skip the 500-tight-topics row")
    ap.add_argument("--real-only", action="store_true", help="only the real-text table")
    ap.add_argument("--json", help="also write the rows to this file")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--emb-one", help=argparse.SUPPRESS)
    ap.add_argument("--real-one", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.real_one:
        print(json.dumps(run_real(**json.loads(a.real_one))))
        return
    if a.one:
        print(json.dumps(run_group(**json.loads(a.one))))
        return
    if a.emb_one:
        print(json.dumps(run_embedding(**json.loads(a.emb_one))))
        return
    sizes = [int(s) for s in a.sizes.split(",")] + ([1_000_000] if a.big else [])
    if a.quick:
        sizes = [s for s in sizes if s <= 10000]
    ps = [float(p) for p in a.ps.split(",")]
    radii = [float(r) for r in a.radii.split(",")]
    big = {int(d) for d in a.big_dims.split(",")}
    rows = []
    if a.real_only:
        a.emb_only, a.emb_sizes, a.emb_100k, a.emb_seeds = True, "", False, ""
    if not a.emb_only:
        print(f"# genkt_scaling: sizes={sizes} dims={a.dims} p={ps} R={radii} "
              f"overlap={a.overlap} uniform={a.uniform} (CPU seconds; load average "
              f"{os.getloadavg()[0]:.1f})", flush=True)
        print(HEAD)
        print("|" + "---:|" * (HEAD.count("|") - 1))
        for D in (int(d) for d in a.dims.split(",")):
            for n in sizes:
                if (D > 5 and n > a.high_dim_max_n) or (n >= 1_000_000 and D not in big):
                    continue
                job = {"n": n, "D": D, "ps": ps, "radii": radii, "ref_max_n": a.ref_max_n,
                       "fastjet_max_n": a.fastjet_max_n, "cos_max_n": a.cos_max_n,
                       "overlap": a.overlap, "uniform": a.uniform}
                got = child(job, "--one")
                for r in got:
                    print_row(r)
                rows.extend(got)
    emb = [int(s) for s in a.emb_sizes.split(",") if s] + ([100000] if a.emb_100k else [])
    if a.quick:
        emb = [s for s in emb if s <= 10000]
    if emb:
        for part in a.emb_spreads.split(";"):
            spread = tuple(float(v) for v in part.split(","))
            rows.extend(embedding_rows(emb, a.emb_nn_max_n, a.average_max_n, a.hdbscan_max_n,
                                       spread))
        seeds = [int(s) for s in a.emb_seeds.split(",") if s]
        if seeds:
            spread = tuple(float(v) for v in a.emb_spreads.split(";")[0].split(","))
            rows.extend(seed_rows(max(emb), seeds, spread))
    real = [int(v) for v in a.real_sizes.split(",") if v]
    if real or not a.no_tight:
        rows.extend(real_rows(real, a.real_plain_max_n, a.average_max_n, not a.no_tight))
    print(f"# done (load average {os.getloadavg()[0]:.1f})")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
