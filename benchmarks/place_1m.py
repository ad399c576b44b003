"""The incremental place stage's nearest search at 1M memories (issue #38 item 3).

A 1M-memory namespace cannot be first-run on the 2-core machine (see docs/benchmarks.md), so
this times the one part of its 1% night that grows with the pool times what changed: the
search of ``--changed`` unit vectors against the rest of ``--size`` (synthetic, 384-d,
float32), exact (``incremental._nearest``) and approximate (``incremental._nearest_cells``,
what ``nearest_rows`` uses above ``PLACE_EXACT_MAX`` unchanged memories) side by side in one
process, on the same vectors, with how often the two agree: on the nearest row, and on the
placement decision at ``incremental_cos`` (join the nearest's cluster, pull in a noise
nearest, or stay noise).

The pool (``--pool clustered``, the default): ``--size / 12`` topics (as ``nightly.py``) in
``--size / 2000`` themes (a topic's centre sits at cosine about 0.64 to its theme's, two
topics of a theme at about 0.4), members ``centre + s g`` (``g`` Gaussian of norm about 1,
``s`` drawn per topic in [0.5, 1.3], so two members of a topic sit at cosine 0.37-0.8,
around the 0.6 cut); 80% of the topics are clusters (their label), the rest noise.
``--themes 0``: the topics' centres at random (nearly orthogonal in 384-d: no structure
above the topic for the cells to follow, the hard case). The changed memories:
70% new members of existing topics, 30% of new topics. ``--pool random`` is the earlier
benchmark's unclustered Gaussian pool (every nearest below the cut). ``--store DB`` reads
a pool a run has left instead (one namespace's state beside a SQLite store, e.g. the 200k
store of ``nightly_incremental.py``, and its cached vectors): ``--changed`` of its memories,
drawn at random, are searched against the rest and its clusters.

    python benchmarks/place_1m.py                      # 10,000 of 1M, both ways
    python benchmarks/place_1m.py --themes 0           # the same without themes
    python benchmarks/place_1m.py --changed 1024 --no-exact
    python benchmarks/place_1m.py --store /tmp/h38/n200k/pool-200000.db --changed 2000
"""

from __future__ import annotations

import argparse
import os
import resource
import sqlite3
import time
from pathlib import Path

import numpy as np

from memmaint.maintenance.job.incremental import (
    PLACE_PROBES,
    StateDir,
    _nearest,
    _nearest_cells,
    _unit,
)


def clustered(size: int, changed: int, dim: int, seed: int = 0, themes: int | None = None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unit vectors of the changed memories, of the pool and the pool's labels (-1 noise):
    ``size / 12`` topics in ``themes`` themes (``size / 2000`` unless given; 0: the topics'
    centres drawn at random, no themes)."""
    rng = np.random.default_rng(seed)
    topics = max(1, size // 12)
    new_topics = max(1, int(changed * 0.3) // 2)
    themes = max(1, size // 2000) if themes is None else themes
    raw = rng.standard_normal((topics + new_topics, dim), dtype=np.float32)
    if themes:
        theme = _unit(rng.standard_normal((themes, dim), dtype=np.float32))
        raw = theme[rng.integers(0, themes, len(raw))] + np.float32(1.2 / dim ** 0.5) * raw
    centres = _unit(raw)
    spread = rng.uniform(0.5, 1.3, size=topics + new_topics).astype(np.float32)
    is_cluster = rng.random(topics) < 0.8
    topic = np.concatenate([np.arange(topics), rng.integers(0, topics, size - topics)])
    n_old = changed - int(changed * 0.3)
    qtopic = np.concatenate([rng.integers(0, topics, n_old),
                             topics + rng.integers(0, new_topics, changed - n_old)])

    def draw(which: np.ndarray) -> np.ndarray:
        out = np.empty((len(which), dim), dtype=np.float32)
        for s in range(0, len(which), 65536):
            t = which[s:s + 65536]
            g = rng.standard_normal((len(t), dim), dtype=np.float32) / np.float32(dim ** 0.5)
            out[s:s + len(t)] = _unit(centres[t] + spread[t, None] * g)
        return out

    labels = np.where(is_cluster[topic], topic, -1).astype(np.int64)
    return draw(qtopic), draw(topic), labels


def from_store(db: str, changed: int, seed: int = 0
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`clustered`'s three arrays from a store's one namespace state and its vectors:
    ``changed`` of the state's memories (at random) against the others."""
    con = sqlite3.connect(db)
    (ns,), = con.execute("SELECT DISTINCT namespace FROM memories").fetchall()
    state = StateDir(f"{db}.state").load(ns)
    assert state is not None, f"no state for namespace {ns!r} beside {db}"
    hashes = dict(con.execute("SELECT id, content_hash FROM memories WHERE namespace = ?",
                              (ns,)).fetchall())
    (model,), = con.execute("SELECT DISTINCT model_id FROM embeddings").fetchall()
    vec = {h: np.frombuffer(v, dtype="<f4") for h, v in con.execute(
        "SELECT content_hash, vector FROM embeddings WHERE model_id = ?", (model,))}
    unit = _unit(np.stack([vec[hashes[i]] for i in state.ids.tolist()]))
    pick = np.zeros(len(unit), dtype=bool)
    pick[np.random.default_rng(seed).choice(len(unit), size=changed, replace=False)] = True
    return unit[pick], unit[~pick], state.labels[~pick]


def decisions(best: np.ndarray, arg: np.ndarray, labels: np.ndarray, cos: float) -> np.ndarray:
    """The place stage's decision per query: the joined label (>= 0), ``-2 - row`` for a
    noise nearest pulled in, -1 for noise."""
    near = best >= cos
    lab = labels[arg]
    return np.where(near & (lab >= 0), lab, np.where(near, -2 - arg, -1))


def timed(fn, *a, **kw):
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn(*a, **kw)
    return out, time.perf_counter() - t0, time.process_time() - c0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=1_000_000)
    ap.add_argument("--changed", type=int, default=10_000)
    ap.add_argument("--night", type=int, default=10_000, help="changed memories to scale to")
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--pool", choices=("clustered", "random"), default="clustered")
    ap.add_argument("--themes", type=int, help="themes of the clustered pool (size / 2000 "
                    "unless given; 0: topics at random, no themes)")
    ap.add_argument("--store", help="a SQLite store with one namespace's state (--size unused)")
    ap.add_argument("--cos", type=float, default=0.6, help="incremental_cos")
    ap.add_argument("--probes", type=int, default=PLACE_PROBES)
    ap.add_argument("--no-exact", action="store_true", help="time the approximate search only")
    args = ap.parse_args()
    q = args.changed
    t0 = time.perf_counter()
    if args.store:
        queries, base, labels = from_store(args.store, q)
        args.pool = f"{Path(args.store).name} (held out at random)"
    elif args.pool == "clustered":
        queries, base, labels = clustered(args.size - q, q, args.dim, themes=args.themes)
        if args.themes == 0:
            args.pool = "clustered (topics at random, no themes)"
    else:
        rng = np.random.default_rng(0)
        unit = _unit(rng.standard_normal((args.size, args.dim), dtype=np.float32))
        queries, base = unit[:q], unit[q:]
        labels = np.zeros(len(base), dtype=np.int64)
    print(f"pool {args.pool}: {q:,} changed against {len(base):,} ({args.dim}-d), built in "
          f"{time.perf_counter() - t0:.1f} s; load avg {os.getloadavg()[0]:.2f}", flush=True)
    scale = args.night / q
    (abest, aarg), aw, ac = timed(_nearest_cells, queries, base, probes=args.probes)
    print(f"approximate (cells, {args.probes} probes): {aw:.1f} s wall, {ac:.1f} s CPU; "
          f"scaled to {args.night:,}: {aw * scale:.0f} s wall, {ac * scale:.0f} s CPU; "
          f"load avg {os.getloadavg()[0]:.2f}", flush=True)
    if not args.no_exact:
        (ebest, earg), ew, ec = timed(_nearest, queries, base)
        print(f"exact: {ew:.1f} s wall, {ec:.1f} s CPU; scaled to {args.night:,}: "
              f"{ew * scale:.0f} s wall, {ec * scale:.0f} s CPU; load avg "
              f"{os.getloadavg()[0]:.2f}", flush=True)
        same_row = aarg == earg
        de = decisions(ebest, earg, labels, args.cos)
        da = decisions(abest, aarg, labels, args.cos)
        near = ebest >= args.cos
        print(f"CPU exact / approximate: x{ec / max(ac, 1e-9):.1f}; same nearest row "
              f"{same_row.mean():.2%} of {q:,} ({same_row[near].mean() if near.any() else 1:.2%}"
              f" of the {int(near.sum()):,} at cosine >= {args.cos:g}); same placement "
              f"decision {(da == de).mean():.2%} (exact: {int((de >= 0).sum()):,} join, "
              f"{int((de < -1).sum()):,} pull, {int((de == -1).sum()):,} noise; approximate: "
              f"{int((da >= 0).sum()):,} / {int((da < -1).sum()):,} / "
              f"{int((da == -1).sum()):,}); max best-cosine shortfall "
              f"{float((ebest - abest).max()):.3f}")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB; "
          f"load avg {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
