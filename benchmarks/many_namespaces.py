"""Per-namespace overhead of the nightly job over many small namespaces (issue #38 item 2).

Builds ``--namespaces`` K namespaces of ``--per`` M memories each (``nightly.py``'s synthetic
text, hashing embedder, UMAP 2-D, HDBSCAN, rule agents, SQLite, ``[job] incremental = true``,
``min_new_memories = 1``), runs the job once (full: no state yet), adds 1% new memories, each
in a namespace drawn at random, and copies the store and its state. Then, each phase in its own
process and every run with ``force`` (so every namespace is at least checked):

1. **full rebuild** (``full=True``, dry) of the first ``--full-sample`` namespaces (all by
   default) on each ``--full-executors``, its time per namespace scaled to K where it is a
   sample;
2. the **incremental night** (applied) on each ``--executors`` in turn, each from the same copy
   of the store and state: ``local`` (this process) and ``dask`` (a ``LocalCluster`` of 2
   worker processes, 1 thread each; its start is timed apart).

``--clone-from K0`` builds and first-runs K0 namespaces only and copies them up to K
(``phase_clone``: what K / K0 first runs would leave, without running them). Prints
per-namespace wall times, their ratios side by side, and whether the executors'
plans decide alike. Compare with one namespace of K x M memories
(``nightly_incremental.py --size``).

    python benchmarks/many_namespaces.py --namespaces 1000 --per 100 --workdir /tmp/nbm
    python benchmarks/many_namespaces.py --namespaces 10000 --clone-from 1000 \
        --full-sample 500 --full-executors local dask --workdir /tmp/nbm10k
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


def phase_clone(db: str, k0: int, k: int) -> dict:
    """The store after a first run over ``k0`` namespaces, grown to ``k``: every namespace,
    its memories (same ids, texts, times and change numbers), its state and its place in the
    first run's record copied under new names (``ns{i + c * k0}``). Clustering is per
    namespace and seeded, so each copy is what a first run over it would leave; only the
    first run's routing tables and events are not copied (an incremental night needs
    neither). Saves ``k / k0 - 1`` first runs; the benchmark says when it was used."""
    import sqlite3

    from memmaint.maintenance.job.incremental import StateDir

    t0 = time.perf_counter()
    copies = k // k0
    con = sqlite3.connect(db)
    cols = [r[1] for r in con.execute("PRAGMA table_info(memories)")]
    num = "CAST(substr(namespace, 3) AS INTEGER)"
    sel = ", ".join(f"printf('ns%05d', {num} + ?)" if c == "namespace" else c for c in cols)
    for c in range(1, copies):
        con.execute(f"INSERT INTO memories ({', '.join(cols)}) SELECT {sel} FROM memories "
                    f"WHERE {num} < ?", (c * k0, k0))
    (run_id, report), = con.execute("SELECT run_id, report FROM runs WHERE status = "
                                    "'succeeded'").fetchall()
    names = [f"ns{i:05d}" for i in range(copies * k0)]
    rep = json.loads(report)
    rep["changes"] = {ns: rep["changes"][f"ns{i % k0:05d}"] for i, ns in enumerate(names)}
    rep["namespaces"] = names
    con.execute("UPDATE runs SET namespaces = ?, report = ? WHERE run_id = ?",
                (json.dumps(names), json.dumps(rep), run_id))
    con.commit()
    con.close()
    states = StateDir(f"{db}.state")
    for i in range(k0):
        state = states.load(f"ns{i:05d}")
        assert state is not None and state.run_id == run_id
        for c in range(1, copies):
            state.namespace = f"ns{i + c * k0:05d}"
            states.save(state)
    return {"namespaces": copies * k0, "seconds": time.perf_counter() - t0}


def phase_night(db: str, config_path: str, out: str, full: bool, dry: bool, executor: str,
                only: int, force: bool = True) -> dict:
    from memmaint.maintenance.core.config import load_config
    from memmaint.maintenance.core.records import parse_time
    from memmaint.maintenance.job.executors import make_executor
    from memmaint.maintenance.job.run import run_job
    from memmaint.maintenance.store.sqlite import SQLiteStore

    t0 = time.perf_counter()
    ex = make_executor(executor, workers=2) if executor != "local" else None
    start = time.perf_counter() - t0
    plans: list = []
    t1 = time.perf_counter()
    with SQLiteStore(db, create=False) as store:
        names = store.namespaces()[:only] if only else None
        report = run_job(store, load_config(config_path), force=force, full=full, dry_run=dry,
                         now=parse_time(NOW), plan_sink=plans.append, executor=ex,
                         namespaces=names)
    wall = time.perf_counter() - t1
    if ex is not None:
        ex.close()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    decisions = plans[0].decisions() if plans else {}
    Path(out).write_text(json.dumps({f"{ns}/{mid}": kind for (ns, mid), kind in
                                     sorted(decisions.items())}), encoding="utf-8")
    modes = report.apply.get("incremental") or {}
    skipped = report.apply.get("skipped_namespaces") or {}
    return {
        "status": report.status, "wall": wall, "executor_start": start,
        "rss_mb": usage.ru_maxrss / 1024.0, "cpu_s": usage.ru_utime + usage.ru_stime,
        "loadavg": os.getloadavg()[0],
        "stages": {s.name: round(s.seconds, 2) for s in report.stages},
        "namespaces": len(names) if names else None,
        "run": len(report.namespaces) if report.status != "skipped" else 0,
        "incremental_ns": sum(1 for m in modes.values() if m.get("mode") == "incremental"),
        "idle_ns": sum(1 for w in skipped.values() if w.startswith("incremental:")),
        "skipped_ns": len(skipped),
        "pool_before": report.pool_before,
        "planned_clusters": len(plans[0].clusters) if plans else 0,
        "llm_clusters": sum(1 for c in plans[0].clusters if len(c.memory_ids) > 1)
        if plans else 0,
    }


def _child(args: list[str]) -> dict:
    return nightly.run_phase(__file__, args)


def _copy_store(src: Path, dst: Path) -> None:
    import shutil
    import sqlite3

    for suffix in ("", "-wal", "-shm", ".lock"):
        Path(f"{dst}{suffix}").unlink(missing_ok=True)
    shutil.rmtree(f"{dst}.state", ignore_errors=True)
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)
    shutil.copytree(f"{src}.state", f"{dst}.state")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--namespaces", type=int, default=200)
    ap.add_argument("--per", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workdir")
    ap.add_argument("--full-sample", type=int, default=0,
                    help="full rebuild of this many namespaces only (0: all)")
    ap.add_argument("--executors", nargs="+", default=["local", "dask"],
                    choices=("local", "threads", "dask"))
    ap.add_argument("--full-executors", nargs="+", default=["local"],
                    choices=("local", "threads", "dask"))
    ap.add_argument("--clone-from", type=int, default=0,
                    help="build and first-run this many namespaces, then copy them up to "
                         "--namespaces (phase_clone) instead of a first run over all")
    ap.add_argument("--no-force", action="store_true",
                    help="incremental nights without force: namespaces with no news are "
                         "counted in the store, not read (default: force, every namespace "
                         "read and swept)")
    ap.add_argument("--reuse", action="store_true",
                    help="reuse the store in --workdir after its first run (snapshot.db)")
    ap.add_argument("--phase", choices=("build", "add", "night", "clone"),
                    help=argparse.SUPPRESS)
    ap.add_argument("--db", help=argparse.SUPPRESS)
    ap.add_argument("--config", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    ap.add_argument("--full", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--dry", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--executor", default="local", help=argparse.SUPPRESS)
    ap.add_argument("--only", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    k, per = args.namespaces, args.per
    if args.phase == "build":
        print(json.dumps(phase_build(args.db, k, per, args.seed, False)))
        return
    if args.phase == "add":  # 1% new, each in a namespace drawn at random
        print(json.dumps(phase_build(args.db, k, max(1, per // 100), args.seed + 7, True)))
        return
    if args.phase == "clone":
        print(json.dumps(phase_clone(args.db, args.clone_from, k)))
        return
    if args.phase == "night":
        print(json.dumps(phase_night(args.db, args.config, args.out, args.full, args.dry,
                                     args.executor, args.only, not args.no_force)))
        return
    work = Path(args.workdir or tempfile.mkdtemp(prefix="memmaint-namespaces-"))
    work.mkdir(parents=True, exist_ok=True)
    cfg = work / "many.toml"
    cfg.write_text(nightly_incremental._config_toml("hashing")
                   + "min_new_memories = 1\n", encoding="utf-8")
    db, snap = work / f"ns-{k}x{per}.db", work / "snapshot.db"
    print(f"# {k} namespaces x {per} memories, cpus={os.cpu_count()}, work={work}", flush=True)
    rows = []
    if not (args.reuse and snap.exists()):
        for suffix in ("", "-wal", "-shm", ".lock"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        import shutil

        shutil.rmtree(f"{db}.state", ignore_errors=True)
        k0 = args.clone_from if 0 < args.clone_from < k else k
        _child(["--phase", "build", "--db", str(db), "--namespaces", str(k0), "--per",
                str(per), "--seed", str(args.seed)])
        first = _child(["--phase", "night", "--db", str(db), "--config", str(cfg), "--out",
                        str(work / "first.json")])
        print(f"first run: {json.dumps(first)}", flush=True)
        rows.append(("first run (full, local)", first, k0))
        if k0 < k:
            cloned = _child(["--phase", "clone", "--db", str(db), "--clone-from", str(k0),
                             "--namespaces", str(k)])
            print(f"first run's store copied from {k0:,} to {k:,} namespaces in "
                  f"{cloned['seconds']:.1f} s (no first run over all of them)", flush=True)
        _child(["--phase", "add", "--db", str(db), "--namespaces", str(k), "--per", str(per),
                "--seed", str(args.seed)])
        _copy_store(db, snap)
    night = ["--phase", "night", "--config", str(cfg)]
    sample = args.full_sample if 0 < args.full_sample < k else 0
    fulls = {}
    for name in args.full_executors:
        _copy_store(snap, db)
        got = _child([*night, "--db", str(db), "--full", "--dry", "--only", str(sample),
                      "--executor", name, "--out", str(work / f"full-{name}.json")])
        print(f"full rebuild on {name}: {json.dumps(got)}", flush=True)
        fulls[name] = got
        label = f"full rebuild, dry (+1%), {name}"
        rows.append((label + (f", first {sample:,} namespaces" if sample else ""), got,
                     sample or k))
    full = fulls[args.full_executors[0]]
    nights = {}
    for name in args.executors:
        _copy_store(snap, db)
        got = _child([*night, "--db", str(db), "--executor", name,
                      *(["--no-force"] if args.no_force else []),
                      "--out", str(work / f"incremental-{name}.json")])
        print(f"incremental night on {name}: {json.dumps(got)}", flush=True)
        nights[name] = got
        rows.append((f"incremental night (+1%), {name}", got, k))
    stages = ("load", "place", "embed", "reduce", "cluster", "plan", "apply")
    print("\ncells: wall s (shared machine: see load avg)")
    print("\n| run | namespaces | run in full / incremental / left out (idle or no news) | "
          + " | ".join(stages) + " | process wall s | executor start s | wall per namespace ms"
          " | peak RSS MB | load avg | LLM calls (clusters >= 2) |")
    print("|---" * (len(stages) + 9) + "|")
    for name, r, covered in rows:
        cells = " | ".join(f"{r['stages'].get(s, 0):.1f}" for s in stages)
        n_full = r["run"] - r["incremental_ns"]
        print(f"| {name} | {covered:,} | {n_full:,} / {r['incremental_ns']:,} / "
              f"{r.get('skipped_ns', r['idle_ns']):,} | {cells} | {r['process_wall']:.1f} | "
              f"{r['executor_start']:.1f} | {1000 * r['wall'] / covered:.1f} | "
              f"{r['rss_mb']:.0f} | {r['loadavg']:.1f} | {r['llm_clusters']:,} |")
    print()
    for name, got in fulls.items():
        rate = got["wall"] / (sample or k)
        print(f"full rebuild on {name}: {1000 * rate:.0f} ms per namespace"
              f"{f' (measured on {sample:,}, scaled to {k:,}: {rate * k:.0f} s)' if sample else ''}"
              f"; {got['wall'] / full['wall']:.2f}x the {args.full_executors[0]} rebuild")
    full_rate = full["wall"] / (sample or k)
    ref = json.loads((work / f"incremental-{args.executors[0]}.json").read_text())
    for name, got in nights.items():
        same = json.loads((work / f"incremental-{name}.json").read_text()) == ref
        print(f"incremental night on {name}: {got['wall']:.1f} s in the job "
              f"({1000 * got['wall'] / k:.1f} ms per namespace), "
              f"{full_rate * k / got['wall']:.1f}x faster than the full rebuild"
              f"{' (scaled)' if sample else ''}; "
              f"{got['wall'] / nights[args.executors[0]]['wall']:.2f}x "
              f"the {args.executors[0]} night; plan "
              f"{'identical to' if same else 'DIFFERS from'} the {args.executors[0]} night's")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"children CPU {usage.ru_utime + usage.ru_stime:.1f} s")


if __name__ == "__main__":
    main()
