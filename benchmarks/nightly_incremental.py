"""The 1% night at 100k memories, incremental against full (issue #38 items 1 and 3).

Reuses ``nightly.py``'s pool (synthetic text, one namespace, hashing embedder, UMAP 2-D,
HDBSCAN, rule agents, SQLite) with ``[job] incremental = true``. Each phase runs in its own
process (its own peak RSS):

1. build the pool and run the job once (full: there is no state yet; it keeps one);
2. add 1% new memories (their topics are the pool's);
3. **full rebuild**: a dry run of the same store with ``full=True`` (reduce, cluster and plan
   everything; no apply, so it does not spend the night's changes);
4. **incremental night**: the real run (applied) with the same ``now``.

Then the decisions of 3 and 4 are compared memory by memory (a memory the incremental run did
not plan is kept): agreement over the whole pool and over the memories either run changes. The
clusters handed to the planner are what the LLM backend would be called for (one call per
cluster of two or more memories; noise and singletons are decided by rules), before and after.

    python benchmarks/nightly_incremental.py --workdir /tmp/nbi            # 100k
    python benchmarks/nightly_incremental.py --size 10000 --workdir /tmp/nbi10
    python benchmarks/nightly_incremental.py --workdir /tmp/nbi --reuse    # one more night

Large pools (issue #38's 1M in one namespace): ``--shard-size 50000`` turns ``[sharding]``
on (reduction and clustering in shards of at most that many memories) and ``--reduction
pca`` replaces UMAP (whose fit over a large pool does not fit a night on 2 cores); the
update grouping's neighbours are approximate above 20,000 memories (``agents.neighbours``):

    python benchmarks/nightly_incremental.py --size 200000 --reduction pca \
        --shard-size 50000 --workdir /tmp/nbi200k
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nightly  # the pool, its phases and its config live there

TARGET_SECONDS = 30.0  # issue #38: the nightly 100k incremental run in 30 s on 2 cores
NOW = "2026-11-28T03:00:00Z"  # one fixed time for both plans of a night


def _config_toml(embedder: str, reduction: str = "umap", shard_size: int = 0) -> str:
    toml = nightly._config_toml(embedder).replace('method = "umap"', f'method = "{reduction}"')
    if shard_size:
        toml += f"[sharding]\nenabled = true\nmax_shard_size = {shard_size}\n"
    return toml + "[job]\nincremental = true\n"


def phase_run(db: str, config_path: str, full: bool, dry: bool, out: str,
              executor_name: str = "local") -> dict:
    from memmaint.maintenance.core.config import load_config
    from memmaint.maintenance.core.records import parse_time
    from memmaint.maintenance.job.executors import make_executor
    from memmaint.maintenance.job.run import run_job
    from memmaint.maintenance.store.sqlite import SQLiteStore

    plans: list = []
    t0 = time.perf_counter()
    with SQLiteStore(db, create=False) as store, make_executor(executor_name) as executor:
        start = time.perf_counter() - t0  # a Dask LocalCluster's start, inside the wall
        report = run_job(store, load_config(config_path), force=True, full=full, dry_run=dry,
                         now=parse_time(NOW), plan_sink=plans.append,
                         executor=None if executor_name == "local" else executor)
    wall = time.perf_counter() - t0
    usage = resource.getrusage(resource.RUSAGE_SELF)
    plan = plans[0]
    Path(out).write_text(json.dumps({mid: kind for (_ns, mid), kind in
                                     plan.decisions().items()}), encoding="utf-8")
    return {
        "status": report.status, "wall": wall, "executor": executor_name,
        "executor_start": round(start, 2), "rss_mb": usage.ru_maxrss / 1024.0,
        "cpu_s": usage.ru_utime + usage.ru_stime, "loadavg": os.getloadavg()[0],
        "stages": {s.name: round(s.seconds, 2) for s in report.stages},
        "stages_cpu": {s.name: round(s.cpu_seconds, 2) for s in report.stages},
        "embedded": report.embedding.get("embedded"), "pool_before": report.pool_before,
        "incremental": report.apply.get("incremental"),
        "planned_clusters": len(plan.clusters),
        "llm_clusters": sum(1 for c in plan.clusters if len(c.memory_ids) > 1),
        "actions": {k: v for k, v in (report.primary.actions_by_type
                                      if report.primary else {}).items() if v},
    }


def agreement(full: dict[str, str], inc: dict[str, str], pool: int) -> dict[str, float]:
    """Share of the pool decided alike (unplanned = keep); of the memories either run
    changes; and where they differ: inside what the incremental run planned (its touched
    clusters) or outside (the full rebuild re-deciding memories nothing new touched)."""
    ids = set(full) | set(inc)
    differ = [i for i in ids if full.get(i, "keep") != inc.get(i, "keep")]
    changed = {i for i in ids if full.get(i, "keep") != "keep" or inc.get(i, "keep") != "keep"}
    same_changed = sum(1 for i in changed if full.get(i, "keep") == inc.get(i, "keep"))
    inside = sum(1 for i in differ if i in inc)
    return {"pool": 1.0 - len(differ) / max(pool, 1), "differ": len(differ),
            "changed_either": len(changed),
            "changed_agree": same_changed / max(len(changed), 1),
            "planned": len(inc), "differ_planned": inside,
            "differ_outside": len(differ) - inside}


def _child(args: list[str]) -> dict:
    return nightly.run_phase(__file__, args)


def _nightly(args: list[str]) -> dict:
    """A phase of nightly.py (build, add) in its own process."""
    return nightly.run_phase(nightly.__file__, args)


def _row(name: str, r: dict) -> str:
    stages = ("load", "embed", "place", "reduce", "cluster", "plan", "apply")
    cpu = r.get("stages_cpu", {})
    cells = " | ".join(f"{r['stages'].get(s, 0):.1f} / {cpu.get(s, 0):.1f}" for s in stages)
    return (f"| {name} | {cells} | {r['process_wall']:.1f} | {r['cpu_s']:.1f} | "
            f"{r['rss_mb']:.0f} | {r['loadavg']:.1f} | {r['planned_clusters']:,} | "
            f"{r['llm_clusters']:,} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--embedder", choices=("hashing", "minilm"), default="hashing")
    ap.add_argument("--new-frac", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reduction", choices=("umap", "pca", "none"), default="umap")
    ap.add_argument("--shard-size", type=int, default=0,
                    help="turn [sharding] on with this max_shard_size (0: off)")
    ap.add_argument("--workdir", help="keep the store here (default: a temp folder)")
    ap.add_argument("--reuse", action="store_true",
                    help="reuse pool-N.db in --workdir: skip the build and first run")
    ap.add_argument("--phase", choices=("run",), help=argparse.SUPPRESS)
    ap.add_argument("--db", help=argparse.SUPPRESS)
    ap.add_argument("--config", help=argparse.SUPPRESS)
    ap.add_argument("--full", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--dry", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    ap.add_argument("--executor", choices=("local", "dask"), default="local",
                    help="the run phase's executor (dask: a LocalCluster of 2 workers)")
    args = ap.parse_args()
    if args.phase == "run":
        print(json.dumps(phase_run(args.db, args.config, args.full, args.dry, args.out,
                                   args.executor)))
        return

    n = args.size
    work = Path(args.workdir or tempfile.mkdtemp(prefix="memmaint-incremental-"))
    work.mkdir(parents=True, exist_ok=True)
    cfg = work / "incremental.toml"
    cfg.write_text(_config_toml(args.embedder, args.reduction, args.shard_size),
                   encoding="utf-8")
    db = work / f"pool-{n}.db"
    print(f"# incremental nightly benchmark: n={n}, embedder={args.embedder}, "
          f"{args.reduction} 2-D, hdbscan, sharding "
          f"{args.shard_size or 'off'}, rules, cpus={os.cpu_count()}, work={work}", flush=True)
    topic_args = ["--vocab-seed", str(args.seed), "--topics", str(max(10, n // 12))]
    run = ["--phase", "run", "--db", str(db), "--config", str(cfg)]
    first = None
    if not (args.reuse and db.exists()):
        for suffix in ("", "-wal", "-shm", ".lock"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        import shutil

        shutil.rmtree(f"{db}.state", ignore_errors=True)
        built = _nightly(["--phase", "build", "--db", str(db), "--n", str(n),
                          "--seed", str(args.seed), *topic_args])
        print(f"built {n} memories in {built['seconds']:.1f} s", flush=True)
        first = _child([*run, "--out", str(work / "first.json")])
        print(f"first run: {json.dumps(first)}", flush=True)
    n_new = max(1, round(n * args.new_frac))
    _nightly(["--phase", "add", "--db", str(db), "--n", str(n_new),
              "--seed", str(args.seed + 1000 + int(time.time()) % 100_000), *topic_args])
    full = _child([*run, "--full", "--dry", "--out", str(work / "full.json")])
    print(f"full rebuild (dry): {json.dumps(full)}", flush=True)
    inc = _child([*run, "--out", str(work / "incremental.json")])
    print(f"incremental night: {json.dumps(inc)}", flush=True)
    agree = agreement(json.loads((work / "full.json").read_text()),
                      json.loads((work / "incremental.json").read_text()), inc["pool_before"])

    print("\ncells: wall s / process CPU s")
    print("\n| run | load | embed | place | reduce | cluster | plan | apply | process wall s | "
          "process CPU s | peak RSS MB | load avg | clusters planned | LLM calls (clusters "
          ">= 2) |")
    print("|---" * 14 + "|")
    if first is not None:
        print(_row("first run (full, keeps the state)", first))
    print(_row(f"full rebuild, dry (+{n_new})", full))
    print(_row(f"incremental night (+{n_new})", inc))
    mode = (inc.get("incremental") or {}).get("bench", {})
    print(f"\nincremental: {json.dumps(mode)}")
    print(f"agreement with the full rebuild: {agree['pool']:.4f} of {inc['pool_before']:,} "
          f"memories ({agree['differ']} differ); of the {agree['changed_either']} memories "
          f"either run changes, {agree['changed_agree']:.3f} decided alike; of the "
          f"{agree['planned']:,} memories the incremental run planned, "
          f"{agree['differ_planned']} differ; outside them the full rebuild changes "
          f"{agree['differ_outside']} the incremental run leaves as they are")
    wall = inc["process_wall"]
    print(f"incremental night: {wall:.1f} s wall ({wall / TARGET_SECONDS:.2f} of the 30 s "
          f"target), full rebuild {full['process_wall']:.1f} s; LLM calls "
          f"{full['llm_clusters']:,} -> {inc['llm_clusters']:,}")


if __name__ == "__main__":
    main()
