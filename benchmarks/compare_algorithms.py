"""Tune HDBSCAN and four generalised-kt variants on the same pools and budget; validate.

For each data set (synthetic weighted mtg pools; pools sampled from Banking77 and HWU64 in
``../shared/data``) and each algorithm, this runs one Optuna study per objective weighting
over the same training pools with the same trial budget and the same reducer space, then
re-runs the best feasible trial on held-out validation pools and prints validation B-cubed
precision and recall, weighted and unweighted. The results table goes into
``docs/results.md`` between the ``results`` markers (the text around them is kept).

Algorithms (each a restriction of the default search space; the reducer is always free):

- ``hdbscan``: HDBSCAN and its four parameters;
- ``ca``: Cambridge/Aachen, GenKT with p = 0 and unit weights;
- ``anti-kt``: GenKT with p = -1 and importance weights;
- ``weighted-ca``: p = 0 with importance weights in the (weighted) recombination only;
- ``genkt``: generalised kt with p free in [-3, 2] and importance weights.

    python benchmarks/compare_algorithms.py --trials 40        # ~30 min on a busy 2-core box
    python benchmarks/compare_algorithms.py --trials 10 --sets mtg --embedder hashing  # smoke
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memmaint.maintenance.core.config import Config, EmbeddingConfig
from memmaint.maintenance.embed.base import get_embedder
from memmaint.optimize.objective import Evaluator, LabelledPool, Objective
from memmaint.optimize.pools import RawPool, SQLiteEmbeddingCache, embed_pools
from memmaint.optimize.space import SearchSpace, default_space
from memmaint.optimize.study import (
    StudySettings,
    open_study,
    pool_keys,
    report_best,
    run_study,
)

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
MARK_BEGIN, MARK_END = "<!-- results:begin -->", "<!-- results:end -->"

ALGORITHMS: dict[str, dict[str, Any]] = {
    "hdbscan": {"clustering.algorithm": "hdbscan"},
    "ca": {"clustering.algorithm": "genkt", "clustering.genkt.p": 0.0,
           "clustering.genkt.use_weights": False},
    "anti-kt": {"clustering.algorithm": "genkt", "clustering.genkt.p": -1.0,
                "clustering.genkt.use_weights": True},
    "weighted-ca": {"clustering.algorithm": "genkt", "clustering.genkt.p": 0.0,
                    "clustering.genkt.use_weights": True,
                    "clustering.genkt.recombination": "weighted"},
    "genkt": {"clustering.algorithm": "genkt", "clustering.genkt.use_weights": True},
}


@dataclass
class PoolSet:
    name: str
    description: str
    train: list[LabelledPool]
    validate: list[LabelledPool]


def _raw(name: str, pool: Any) -> RawPool:
    return RawPool(name=name, memories=tuple(pool.memories),
                   labels=tuple(str(x) for x in np.asarray(pool.labels).tolist()))


def mtg_pools(n_train: int, n_val: int, n_classes: int) -> tuple[list[RawPool], list[RawPool],
                                                                  str]:
    from memmaint.datasets.pools import make_memory_pool

    def make(seed: int) -> RawPool:
        return _raw(f"mtg-s{seed}", make_memory_pool(
            "mtg", n_classes=n_classes, per_class=(3, 9), seed=seed, weights="powerlaw",
            noise_frac=0.05))

    desc = (f"synthetic mtg pools, {n_classes} latent instructions x 3-9 paraphrases + 5% "
            "one-offs, power-law importance; train seeds 0.., validation seeds 100..")
    return ([make(s) for s in range(n_train)], [make(100 + s) for s in range(n_val)], desc)


def corpus_pools(corpus: str, n_train: int, n_val: int,
                 per_class: tuple[int, int]) -> tuple[list[RawPool], list[RawPool], str]:
    """Pools with disjoint intents sampled from a labelled corpus (datasets.labelled)."""
    from memmaint.datasets.labelled import CORPORA, sample_pools

    data = CORPORA[corpus](SHARED_DATA)
    n_pools = n_train + n_val
    n_classes = len(data.classes) // n_pools
    pools = sample_pools(data.texts, data.labels, n_pools=n_pools,
                         classes_per_pool=n_classes, per_class=per_class, seed=0,
                         weights="powerlaw", kind=corpus)
    raw = [_raw(f"{corpus}-p{i}", p) for i, p in enumerate(pools)]
    desc = (f"{corpus}: {n_pools} pools of {n_classes} intents x {per_class[0]}-{per_class[1]}"
            f" texts, no intent in two pools, power-law importance drawn at random "
            f"(sample_pools seed 0); first {n_train} train, last {n_val} validate")
    return raw[:n_train], raw[n_train:], desc


def run_one(pool_set: PoolSet, algo: str, weighted: bool, trials: int, seed: int,
            floor: float, space_base: Any, train_ev: Evaluator, val_ev: Evaluator,
            timeout: float | None) -> dict[str, Any]:
    space = space_base.fix_many(ALGORITHMS[algo])
    settings = StudySettings(space=space, floor=floor, weighted=weighted,
                             train_pools=pool_keys(pool_set.train))
    study = open_study(settings, seed=seed, study_name=f"{pool_set.name}-{algo}-{weighted}")
    objective = Objective(train_ev, space, floor=floor, weighted=weighted)
    outcome = run_study(study, objective, n_trials=trials, timeout=timeout)
    report = report_best(study, base=Config(), weighted=weighted, floor=floor,
                         floor_on="mean", validation=val_ev)
    row: dict[str, Any] = {"set": pool_set.name, "algorithm": algo,
                           "objective": "weighted" if weighted else "unweighted",
                           "trials": outcome.trials_run, "seconds": round(outcome.seconds, 1)}
    if report is None:
        row["feasible"] = False
        return row
    v = report.validation
    row.update({
        "feasible": True, "trial": report.trial_number, "n_feasible": report.n_feasible,
        "train_precision": report.train_summary.precision,
        "train_recall": report.train_summary.recall,
        "loo_recall_spread": report.recall_loo.spread if report.recall_loo else None,
        "val_precision": float(np.mean([s.precision for s in v])),
        "val_recall": float(np.mean([s.recall for s in v])),
        "val_wprecision": float(np.mean([s.weighted_precision for s in v])),
        "val_wrecall": float(np.mean([s.weighted_recall for s in v])),
        "val_ok": bool(report.validation_summary.feasible),
        "params": {k: v for k, v in report.params.items() if k not in ALGORITHMS[algo]},
    })
    return row


def _f(x: Any) -> str:
    return "-" if x is None else f"{x:.2f}"


def _params(p: dict[str, Any]) -> str:
    short = []
    for k, v in p.items():
        k = k.split(".")[-1]
        short.append(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}")
    return ", ".join(short)


def markdown(rows: list[dict[str, Any]], sets: list[PoolSet], args: argparse.Namespace,
             minutes: float) -> str:
    out = [(f"Generated by `python benchmarks/compare_algorithms.py {' '.join(args.argv)}` "
           f"in {minutes:.0f} min on {platform.machine()} with {os.cpu_count()} CPUs "
           f"(shared; load average {os.getloadavg()[0]:.1f} at the end). "
           f"Budget: {args.trials} trials per study, precision floor {args.floor} on the "
           f"mean over {args.train} training pools; validation on {args.validate} held-out "
           f"pools; embedder `{args.embedder}`; reducers {args.reducers}."), ""]
    for ps in sets:
        out += [f"### {ps.name}", "", ps.description, "",
                ("| algorithm | tuned on | train R | train P | LOO R spread | val P | val R "
                "| val P (w) | val R (w) | val P >= floor | best parameters |"),
                "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            if r["set"] != ps.name:
                continue
            if not r["feasible"]:
                out.append(f"| {r['algorithm']} | {r['objective']} | no feasible trial "
                           f"in {r['trials']} | | | | | | | | |")
                continue
            out.append(
                f"| {r['algorithm']} | {r['objective']} | {_f(r['train_recall'])} | "
                f"{_f(r['train_precision'])} | {_f(r['loo_recall_spread'])} | "
                f"{_f(r['val_precision'])} | {_f(r['val_recall'])} | "
                f"{_f(r['val_wprecision'])} | {_f(r['val_wrecall'])} | "
                f"{'yes' if r['val_ok'] else '**no**'} | {_params(r['params'])} |")
        out.append("")
    return "\n".join(out)


def write_results(path: Path, table: str) -> None:
    block = f"{MARK_BEGIN}\n{table}\n{MARK_END}"
    if path.exists():
        text = path.read_text(encoding="utf-8")
        if MARK_BEGIN in text and MARK_END in text:
            text = re.sub(re.escape(MARK_BEGIN) + ".*?" + re.escape(MARK_END),
                          lambda _m: block, text, flags=re.DOTALL)
            path.write_text(text, encoding="utf-8")
            return
    path.write_text("# Results: tuned HDBSCAN against generalised-kt\n\n" + block + "\n",
                    encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--train", type=int, default=3, help="training pools per set")
    ap.add_argument("--validate", type=int, default=2, help="validation pools per set")
    ap.add_argument("--sets", default="mtg,banking77,hwu64")
    ap.add_argument("--algorithms", default=",".join(ALGORITHMS))
    ap.add_argument("--objectives", default="unweighted,weighted")
    ap.add_argument("--reducers", default="none,pca,tsne,umap")
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--embedding-cache", default=str(Path.home() / ".cache" / "memmaint" /
                                                     "bench-embeddings.sqlite"))
    ap.add_argument("--floor", type=float, default=0.25)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=None, help="seconds per study")
    ap.add_argument("--mtg-classes", type=int, default=47)
    ap.add_argument("--corpus-min", type=int, default=10, help="fewest texts per intent")
    ap.add_argument("--corpus-max", type=int, default=30, help="most texts per intent")
    ap.add_argument("--out", default=str(REPO / "docs" / "results.md"))
    ap.add_argument("--json", default=None, help="also write every row as JSON here")
    args = ap.parse_args(argv)
    args.argv = argv
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    import optuna

    optuna.logging.set_verbosity(logging.WARNING)
    start = time.perf_counter()

    embedder = get_embedder(EmbeddingConfig(model=args.embedder))
    cache = SQLiteEmbeddingCache(args.embedding_cache)
    reducers = args.reducers.split(",")
    if len(reducers) == 1:
        space_base = default_space().fix("reduction.method", reducers[0])
    else:
        space_base = SearchSpace.from_dict({"params": {"reduction.method": {"choices": reducers}}})

    sets: list[PoolSet] = []
    for name in args.sets.split(","):
        if name == "mtg":
            tr, va, desc = mtg_pools(args.train, args.validate, args.mtg_classes)
        else:
            if not SHARED_DATA.is_dir():
                print(f"skipping {name}: {SHARED_DATA} not found", file=sys.stderr)
                continue
            tr, va, desc = corpus_pools(name, args.train, args.validate,
                                        (args.corpus_min, args.corpus_max))
        train = embed_pools(tr, embedder, cache)
        val = embed_pools(va, embedder, cache)
        sizes = [p.size for p in train + val]
        sets.append(PoolSet(name, f"{desc}; pool sizes {sizes}.", train, val))
        print(f"{name}: pools {sizes} ready at {time.perf_counter() - start:.0f} s",
              file=sys.stderr)

    rows: list[dict[str, Any]] = []
    table = ""
    for ps in sets:
        # one cache per pool set, shared by every study on it (same pools, same reducers)
        R_max = space_base.upper_bound("clustering.genkt.R")
        train_ev = Evaluator(ps.train, genkt_R_build=R_max)
        val_ev = Evaluator(ps.validate)
        for algo in args.algorithms.split(","):
            for objective in args.objectives.split(","):
                row = run_one(ps, algo, objective == "weighted", args.trials, args.seed,
                              args.floor, space_base, train_ev, val_ev, args.timeout)
                rows.append(row)
                print(json.dumps(row), flush=True)
        print(f"{ps.name}: {train_ev.describe_caches()}", file=sys.stderr)
        # write after every set, so a run cut short still leaves its finished tables
        done = [s for s in sets if any(r["set"] == s.name for r in rows)]
        table = markdown(rows, done, args, (time.perf_counter() - start) / 60)
        write_results(Path(args.out), table)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=2))
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
