"""Per-namespace overhead of the nightly job (issue #38 item 2: measured, not yet cut).

Builds ``--namespaces`` K namespaces of ``--per`` M memories each (``nightly.py``'s synthetic
text, hashing embedder, UMAP 2-D, HDBSCAN, rule agents, SQLite, ``[job] incremental = true``,
``min_new_memories = 1``), runs the job once (full: no state yet), adds 1% new memories spread
over the namespaces at random, then runs a full rebuild (dry) and the incremental night (applied)
of the same store, each phase in its own process. Per-namespace overhead is each stage's time
divided by the namespaces the run covered; compare with one namespace of K x M memories
(``nightly_incremental.py --size``).

    python benchmarks/many_namespaces.py --namespaces 200 --per 100 --workdir /tmp/nbm
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nightly  # the pool's text
import nightly_incremental  # its config and the agreement of two plans

NOW = nightly_incremental.NOW


def phase_build(db: str, k: int, per: int, seed: int, fresh: bool) -> dict:
    import numpy as np

    from memmaint.maintenance.core.records import Memory, utcnow
    from memmaint.maintenance.store.sqlite import SQLiteStore

    n = k * per
    rng = np.random.default_rng(seed + 1)
    now = utcnow()
    texts = nightly.synth_texts(n, seed, 0, max(10, n // 12))
    spaces = (rng.integers(k, size=n) if fresh else np.repeat(np.arange(k), per))
    mems = [Memory(text=t, id=f"s{seed}-{i}", namespace=f"ns{int(s):05d}",
                   created_at=now - timedelta(days=0.0 if fresh else float(rng.uniform(1, 180)),
                                              seconds=1),
                   importance=round(float(rng.pareto(1.5) + 0.3), 3))
            for i, (t, s) in enumerate(zip(texts, spaces))]
    t0 = time.perf_counter()
    with SQLiteStore(db) as store:
        store.add_memories(mems)
    return {"inserted": n, "seconds": time.perf_counter() - t0}


def _child(args: list[str]) -> dict:
    return nightly.run_phase(__file__, args)


def _run_child(args: list[str]) -> dict:
    return nightly.run_phase(nightly_incremental.__file__, args)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--namespaces", type=int, default=200)
    ap.add_argument("--per", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workdir")
    ap.add_argument("--phase", choices=("build", "add"), help=argparse.SUPPRESS)
    ap.add_argument("--db", help=argparse.SUPPRESS)
    args = ap.parse_args()
    k, per = args.namespaces, args.per
    if args.phase == "build":
        print(json.dumps(phase_build(args.db, k, per, args.seed, False)))
        return
    if args.phase == "add":  # 1% new, each in a namespace drawn at random
        print(json.dumps(phase_build(args.db, k, max(1, per // 100), args.seed + 7, True)))
        return
    work = Path(args.workdir or tempfile.mkdtemp(prefix="memmaint-namespaces-"))
    work.mkdir(parents=True, exist_ok=True)
    cfg = work / "many.toml"
    cfg.write_text(nightly_incremental._config_toml("hashing")
                   + "min_new_memories = 1\n", encoding="utf-8")
    db = work / f"ns-{k}x{per}.db"
    for suffix in ("", "-wal", "-shm", ".lock"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    import shutil

    shutil.rmtree(f"{db}.state", ignore_errors=True)
    print(f"# {k} namespaces x {per} memories, cpus={os.cpu_count()}, work={work}", flush=True)
    _child(["--phase", "build", "--db", str(db), "--namespaces", str(k), "--per", str(per),
            "--seed", str(args.seed)])
    run = ["--phase", "run", "--db", str(db), "--config", str(cfg)]
    rows = [("first run (full)", _run_child([*run, "--out", str(work / "first.json")]))]
    _child(["--phase", "add", "--db", str(db), "--namespaces", str(k), "--per", str(per),
            "--seed", str(args.seed)])
    rows.append(("full rebuild, dry (+1%)",
                 _run_child([*run, "--full", "--dry", "--out", str(work / "full.json")])))
    rows.append(("incremental night (+1%)",
                 _run_child([*run, "--out", str(work / "incremental.json")])))
    stages = ("load", "embed", "place", "reduce", "cluster", "plan", "apply")
    print("\n| run | namespaces run | " + " | ".join(stages) + " | process wall s | "
          "wall per namespace ms | peak RSS MB | load avg |")
    print("|---" * (len(stages) + 6) + "|")
    for name, r in rows:
        modes = r.get("incremental") or {}
        covered = len(modes) or k
        cells = " | ".join(f"{r['stages'].get(s, 0):.1f}" for s in stages)
        print(f"| {name} | {covered:,} | {cells} | {r['process_wall']:.1f} | "
              f"{1000 * r['wall'] / covered:.0f} | {r['rss_mb']:.0f} | {r['loadavg']:.1f} |")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"children CPU {usage.ru_utime + usage.ru_stime:.1f} s")


if __name__ == "__main__":
    main()
