"""GenKT scaling: time against N, dimension, p and R, next to the numpy reference and FastJet.

    python benchmarks/genkt_scaling.py            # full run (several minutes)
    python benchmarks/genkt_scaling.py --quick    # 1k and 10k only, a minute or two

Points look like a reduced memory pool: topics (Gaussian blobs of varied size and spread,
Zipf-like populations), 5% background, exact and near duplicates, z-scored per axis; weights
are log-normal importances. In 384-d the coordinates are the z-scored unit embeddings
themselves (reducer ``none``); in 2-D and 3-D the embeddings are generated jointly with the
coordinates, as a reduction would keep them. Every size runs in a fresh child process (numba
cache warm, one warm-up call before timing) so that peak RSS is per size. Times are CPU
seconds of the clustering call (single-threaded for GenKT and FastJet alike, and steadier
than wall time on a shared machine); wall seconds are shown too. FastJet runs
Cambridge/Aachen with the pt scheme on the same 2-D points mapped to (rapidity, phi) in one
patch that never wraps, with R scaled alike; its partition is checked equal to GenKT p = 0.
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
              overlap: bool = False, uniform: bool = False):
    """(X z-scored (n, D), unit embeddings (n, emb_dim) or None, weights (n,)).

    Topics nest in super-topics (related subjects: embeddings with cosine ~0.5 between
    sibling topics, ~0 across super-topics). The low-dimensional coordinates keep super-topics
    apart and siblings near, as a good reduction does; ``overlap=True`` scatters topics at
    random instead (a reduction that mixes unrelated subjects: the cosine cut's worst case).
    ``uniform=True``: uniform points, no topics (the easy case for FastJet's tiles).
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
        spread = rng.uniform(0.6, 1.2, K)
        E = c[topic] + rng.normal(size=(n, emb_dim)) * (spread[topic] / np.sqrt(
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


def fastjet_cluster(X, w, R):
    """FastJet C/A pt-scheme on X mapped to one (y, phi) patch; (labels, CPU s, wall s)."""
    import fastjet as fj

    s = 2.5 / float(np.abs(X).max())
    y, phi = X[:, 0] * s, X[:, 1] * s + np.pi
    parts = []
    for i in range(len(w)):
        p = fj.PseudoJet(w[i] * np.cos(phi[i]), w[i] * np.sin(phi[i]), w[i] * np.sinh(y[i]),
                         w[i] * np.cosh(y[i]))
        p.set_user_index(i)
        parts.append(p)
    jd = fj.JetDefinition(fj.cambridge_algorithm, R * s, fj.pt_scheme)
    c0, t0 = time.process_time(), time.perf_counter()
    cs = fj.ClusterSequence(parts, jd)
    jets = cs.inclusive_jets()
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    lab = np.empty(len(w), dtype=np.int64)
    for k, j in enumerate(jets):
        for c in j.constituents():
            lab[c.user_index()] = k
    return lab, cpu, wall


def canonical(labels):
    _, first, inv = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty_like(first)
    rank[np.argsort(first)] = np.arange(len(first))
    return rank[inv]


def timed(fn):
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - c0, time.perf_counter() - t0


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
                try:
                    lab, fcpu, fwall = fastjet_cluster(X, w, R)
                except ImportError:
                    pass
                else:
                    row.update(fj_cpu=fcpu, fj_wall=fwall,
                               fj_same=bool(np.array_equal(canonical(lab), seq.labels())))
            rows.append(row)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    for row in rows:
        row["peak_rss_mb"] = peak
    return rows


def fmt(v, spec=".3f"):
    return "-" if v is None else format(v, spec)


HEAD = ("| D | N | p | R | strategy | clusters | GenKT CPU s (wall) | reference CPU s | "
        "ref / GenKT | FastJet C/A CPU s (wall) | GenKT / FastJet | same jets | "
        "cos cut 0.26 CPU s | cos / no cos | peak RSS MB |")


def print_row(r):
    ref, fjc, cos = r.get("ref_cpu"), r.get("fj_cpu"), r.get("cos_cpu")
    cells = [
        str(r["D"]), f"{r['n']:,}", f"{r['p']:g}", f"{r['R']:g}", r["strategy"],
        f"{r['clusters']:,}", f"{r['cpu']:.3f} ({r['wall']:.2f})",
        fmt(ref), "-" if ref is None else f"{ref / r['cpu']:.0f}x",
        "-" if fjc is None else f"{fjc:.3f} ({r['fj_wall']:.2f})",
        "-" if fjc is None else f"{r['cpu'] / fjc:.2f}x",
        "-" if fjc is None else ("yes" if r["fj_same"] else "NO"),
        fmt(cos), "-" if cos is None else f"{cos / r['cpu']:.2f}x",
        f"{r['peak_rss_mb']:.0f}"]
    print("| " + " | ".join(cells) + " |", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="sizes 1k and 10k only")
    ap.add_argument("--sizes", default="1000,10000,100000,1000000")
    ap.add_argument("--dims", default="2,3,384")
    ap.add_argument("--ps", default="0,-1")
    ap.add_argument("--radii", default="0.4,1.2")
    ap.add_argument("--ref-max-n", type=int, default=1000)
    ap.add_argument("--fastjet-max-n", type=int, default=100000)
    ap.add_argument("--cos-max-n", type=int, default=100000,
                    help="largest N that also runs with 384-d embeddings and the cosine cut")
    ap.add_argument("--high-dim-max-n", type=int, default=10000,
                    help="largest N in 384-d (the nn strategy is O(N^2) there)")
    ap.add_argument("--big-dims", default="2,3", help="dimensions that run N >= 1M")
    ap.add_argument("--overlap", action="store_true",
                    help="topics scattered at random in the reduced space (cosine cut stress)")
    ap.add_argument("--uniform", action="store_true",
                    help="uniform points without topics (FastJet's easy case)")
    ap.add_argument("--json", help="also write the rows to this file")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.one:
        print(json.dumps(run_group(**json.loads(a.one))))
        return
    sizes = [int(s) for s in a.sizes.split(",")]
    if a.quick:
        sizes = [s for s in sizes if s <= 10000]
    ps = [float(p) for p in a.ps.split(",")]
    radii = [float(r) for r in a.radii.split(",")]
    big = {int(d) for d in a.big_dims.split(",")}
    print(f"# genkt_scaling: sizes={sizes} dims={a.dims} p={ps} R={radii} "
          f"overlap={a.overlap} uniform={a.uniform} (CPU seconds; load average {os.getloadavg()[0]:.1f})",
          flush=True)
    print(HEAD)
    print("|" + "---:|" * (HEAD.count("|") - 1))
    rows = []
    for D in (int(d) for d in a.dims.split(",")):
        for n in sizes:
            if (D > 5 and n > a.high_dim_max_n) or (n >= 1_000_000 and D not in big):
                continue
            job = {"n": n, "D": D, "ps": ps, "radii": radii, "ref_max_n": a.ref_max_n,
                   "fastjet_max_n": a.fastjet_max_n, "cos_max_n": a.cos_max_n,
                   "overlap": a.overlap, "uniform": a.uniform}
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--one",
                                  json.dumps(job)], capture_output=True, text=True,
                                 check=True).stdout
            got = json.loads(out.strip().splitlines()[-1])
            for r in got:
                print_row(r)
            rows.extend(got)
    print(f"# done (load average {os.getloadavg()[0]:.1f})")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
