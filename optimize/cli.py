"""``memmaint tune``: tune reduction and clustering on labelled pools (thin shell).

Reads pools, embeds them, runs (or resumes) an Optuna study, re-runs the best feasible trial
on the validation pools, prints both, writes ``best.toml`` (a full memmaint config) and the
study plots.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from pathlib import Path
from typing import Any, cast

import click

from memmaint.maintenance.core.config import Config, config_to_toml, load_config, with_overrides
from memmaint.maintenance.core.errors import MemmaintError, UserError, require
from memmaint.maintenance.core.io import write_atomically

log = logging.getLogger(__name__)


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def _table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(lines)


def format_report(report: Any) -> str:
    """The training and validation figures of the best trial as plain-text tables."""
    w = report.weighted
    kind = "weighted" if w else "unweighted"
    other = "unweighted" if w else "weighted"
    header = ["set", "pool", f"P ({kind})", f"R ({kind})", f"P ({other})", f"R ({other})",
              "clusters", "noise"]
    rows = []
    for label, scores, summ in (("train", report.train, report.train_summary),
                                ("validate", report.validation, report.validation_summary)):
        for s in scores:
            p, r = s.pick(w)
            op, orr = s.pick(not w)
            rows.append([label, s.pool, _fmt(p), _fmt(r), _fmt(op), _fmt(orr),
                         str(s.n_clusters), str(s.n_noise)])
        if summ is not None:
            mean_other = [sum(s.pick(not w)[i] for s in scores) / len(scores) for i in (0, 1)]
            rows.append([label, "MEAN", _fmt(summ.precision), _fmt(summ.recall),
                         _fmt(mean_other[0]), _fmt(mean_other[1]), "", ""])
    out = [(f"best feasible trial #{report.trial_number} of {report.n_trials} completed "
           f"({report.n_feasible} feasible; floor: {report.floor_on} precision >= "
           f"{report.floor:.2f}, {kind} B-cubed)"),
           "parameters: " + ", ".join(f"{k}={v!r}" for k, v in report.params.items()),
           "", _table(rows, header)]
    if report.recall_loo is not None and report.precision_loo is not None:
        rl, pl = report.recall_loo, report.precision_loo
        out.append("")
        out.append(f"leave-one-pool-out: recall {rl.low:.3f}..{rl.high:.3f} "
                   f"(spread {rl.spread:.3f}), precision {pl.low:.3f}..{pl.high:.3f} "
                   f"(spread {pl.spread:.3f})")
        worst = rl.dropped[rl.means.index(rl.low)]
        out.append(f"  the mean recall leans most on pool {worst!r} (dropping it gives "
                   f"{rl.low:.3f})")
    if report.validation_summary is None:
        out.append("")
        out.append("no validation pools given (--validate): the training figures are optimistic")
    return "\n".join(out)


def _transfer_views(study: Any, floor: float, pareto: bool, pools: Any = (),
                    best: int | None = None) -> None:
    """Leave-one-corpus-out (when the pools span two corpora or more), each corpus's gap to
    its oracle under the best trial (issue #35) and the Pareto front."""
    from memmaint.optimize.transfer import (
        bar_by_corpus,
        corpus_of,
        format_bar,
        format_loco,
        format_pareto,
        loco,
        oracle_by_corpus,
    )
    from memmaint.optimize.transfer import pareto_front as front

    trials = [t for t in study.trials if t.user_attrs.get("pools")]
    if not trials:
        return
    if len({corpus_of(p["pool"]) for p in trials[0].user_attrs["pools"]}) >= 2:
        click.echo(f"leave-one-corpus-out (worst precision >= {floor:.2f} on the rest):")
        click.echo(format_loco(loco(trials, floor)))
    chosen = [t for t in trials if t.number == best]
    if chosen and pools:
        oracle = oracle_by_corpus([(p.name, p.embeddings, p.labels) for p in pools])
        click.echo(f"trial #{best} per corpus against its oracle (average linkage, the best "
                   "cut with its labels; issue #35):")
        click.echo(format_bar(bar_by_corpus(chosen[0].user_attrs["pools"], oracle=oracle)))
    if pareto:
        click.echo("Pareto front (mean recall, worst precision, one-offs alone):")
        click.echo(format_pareto(front(trials)))


def _write_atomic(path: Path, text: str) -> None:
    write_atomically(path, lambda fh: fh.write(text), make_parents=True)


def best_toml(report: Any, study_name: str) -> str:
    """``best.toml``: the full config, headed by comments saying where it came from."""
    s, v = report.train_summary, report.validation_summary
    kind = "weighted" if report.weighted else "unweighted"
    lines = [f"# memmaint tune: study {study_name!r}, trial #{report.trial_number}",
             f"# training ({kind} B-cubed): recall {s.recall:.3f}, precision {s.precision:.3f}"]
    if v is not None:
        lines.append(f"# validation: recall {v.recall:.3f}, precision {v.precision:.3f}"
                     + ("" if v.feasible else "  (BELOW THE PRECISION FLOOR)"))
    return "\n".join(lines) + "\n\n" + config_to_toml(report.config)


@click.command("tune")
@click.option("--train", "train", multiple=True,
              help="Training pool: a JSONL file or a directory of them (repeatable).")
@click.option("--validate", "validate", multiple=True,
              help="Validation pool file or directory (repeatable).")
@click.option("--trials", type=click.IntRange(min=0), default=200, show_default=True,
              help="Trials this process runs (0: only report the study).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Stop starting new trials after this many seconds.")
@click.option("--storage", default=None,
              help="Optuna storage URL, e.g. sqlite:///tune.db (default: in memory).")
@click.option("--study-name", default=None, help="Study name (default memmaint-tune).")
@click.option("--n-jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Trials run in parallel threads in this process.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Sampler and reducer seed.")
@click.option("--weighted/--unweighted", default=False, show_default=True,
              help="Weight B-cubed by memory importance.")
@click.option("--min-precision", "floor", type=click.FloatRange(0.0, 1.0), default=0.25,
              show_default=True, help="Precision floor (the constraint).")
@click.option("--floor-on", type=click.Choice(["mean", "worst"]), default="worst",
              show_default=True, help="Floor the mean precision or every pool's precision.")
@click.option("--noise", type=click.Choice(["one_cluster", "singletons"]),
              default="one_cluster", show_default=True, help="How noise (-1) is scored.")
@click.option("--space", "space_path", type=click.Path(dir_okay=False), default=None,
              help="Search-space TOML overriding the default space.")
@click.option("--fix", "fixes", multiple=True, metavar="NAME=VALUE",
              help="Pin a parameter, e.g. --fix clustering.genkt.p=-1 (repeatable).")
@click.option("--embedder", default=None,
              help="Embedding backend (minilm, hashing, ...); default from --config.")
@click.option("--embedding-cache", type=click.Path(dir_okay=False), default=None,
              help="SQLite file caching embeddings across runs (default: none).")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
              help="Base config for everything the search does not set.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default="best.toml",
              show_default=True, help="Where to write the best config.")
@click.option("--plots", "plots_dir", type=click.Path(file_okay=False), default=None,
              help="Folder for the plots (default: <output stem>_plots next to -o).")
@click.option("--no-plots", is_flag=True, help="Skip the plots.")
@click.option("--report-json", type=click.Path(dir_okay=False), default=None,
              help="Also write the report as JSON.")
@click.option("--show-space", is_flag=True, help="Print the effective search space and exit.")
@click.option("--make-pools", "make_pools", type=click.Path(file_okay=False), default=None,
              help="Write the transfer training pools (banking77, hwu64, mtg, support x 2, "
                   "4-6, 8-12 per class, cross-corpus one-offs) to this folder and exit.")
@click.option("--labels-from", "labels_from", default=None, metavar="STORE",
              help="Add the review labels of STORE (DB.labels.jsonl beside it, written by "
                   "'memmaint apply --decisions') as extra training pools, one per namespace.")
@click.option("--pareto/--no-pareto", default=True, show_default=True,
              help="Print the Pareto front (recall, worst precision, one-offs alone).")
def tune_cmd(make_pools: str | None, labels_from: str | None, pareto: bool, train: tuple[str, ...], validate: tuple[str, ...], trials: int,
             timeout: float | None, storage: str | None, study_name: str | None, n_jobs: int,
             seed: int, weighted: bool, floor: float, floor_on: str, noise: str,
             space_path: str | None, fixes: tuple[str, ...], embedder: str | None,
             embedding_cache: str | None, config_path: str | None, output: str, plots_dir: str | None, no_plots: bool,
             report_json: str | None, show_space: bool) -> None:
    """Tune reduction and clustering: maximise B-cubed recall under a precision floor.

    Every training pool is reduced and clustered per trial; the value is the mean recall,
    the constraint the mean (or, with --floor-on worst, every) precision >= the floor.
    The best feasible trial is re-run on the validation pools. The study is resumable
    (same --storage and --study-name) and several processes may share one storage.
    """
    require("optuna", "tune")  # an extra: tuning is not part of the nightly job
    from memmaint.optimize.space import SearchSpace, default_space, parse_fix

    if make_pools:
        from memmaint.optimize.transfer import write_transfer_pools

        written = write_transfer_pools(make_pools, seed=seed)
        click.echo(f"wrote {len(written)} pools to {make_pools}")
        return

    space = SearchSpace.from_toml(space_path) if space_path else default_space()
    space = space.fix_many(dict(parse_fix(f) for f in fixes))
    if show_space:
        click.echo(space.to_toml(), nl=False)
        return
    if not train:
        raise click.UsageError("Missing option '--train' (a pool file or directory).")

    from memmaint.optimize.objective import Evaluator, Objective
    from memmaint.optimize.pools import load_pools
    from memmaint.optimize.study import (
        DEFAULT_STUDY_NAME,
        StudySettings,
        open_study,
        pool_keys,
        report_best,
        run_study,
    )

    base: Config = load_config(config_path)
    overrides: dict[str, Any] = {"reduction.seed": seed}
    if embedder:
        overrides["embedding.model"] = embedder
    base = with_overrides(base, overrides)

    from memmaint.maintenance.embed.base import get_embedder
    from memmaint.optimize.pools import DictEmbeddingCache, SQLiteEmbeddingCache

    emb = get_embedder(base.embedding)
    cache = SQLiteEmbeddingCache(embedding_cache) if embedding_cache else DictEmbeddingCache()
    train_pools = load_pools(train, emb, cache)
    if labels_from:
        from memmaint.optimize.pools import embed_pools
        from memmaint.optimize.review_labels import labels_pool

        train_pools += embed_pools(labels_pool(labels_from), emb, cache)
    val_pools = load_pools(validate, emb, cache) if validate else []
    click.echo(f"training pools: {len(train_pools)} ({sum(p.size for p in train_pools)} "
               f"memories); validation pools: {len(val_pools)} "
               f"({sum(p.size for p in val_pools)} memories)", err=True)

    settings = StudySettings(space=space, floor=floor, floor_on=floor_on, weighted=weighted,
                             noise=noise, train_pools=pool_keys(train_pools))
    name = study_name or DEFAULT_STUDY_NAME
    study = open_study(settings, storage=storage, study_name=name, seed=seed)
    evaluator = Evaluator(train_pools, noise=noise,
                          genkt_R_build=space.upper_bound("clustering.genkt.R"))
    objective = Objective(evaluator, space, base_config=base, floor=floor, floor_on=floor_on,
                          weighted=weighted)
    _quiet_optuna()
    counted = _TrialProgress(objective, trials)
    try:
        outcome = run_study(study, cast(Objective, counted), n_trials=trials,
                            timeout=timeout, n_jobs=n_jobs, show_progress_bar=False)
    finally:
        counted.close()
    per = outcome.seconds / outcome.trials_run if outcome.trials_run else 0.0
    click.echo(f"{outcome.trials_run} trials in {outcome.seconds:.1f} s ({per:.2f} s/trial); "
               f"{evaluator.describe_caches()}", err=True)
    if outcome.interrupted:
        click.echo("interrupted: the finished trials are kept; reporting on them", err=True)

    val_eval = Evaluator(val_pools, noise=noise) if val_pools else None
    report = report_best(study, base=base, weighted=weighted, floor=floor, floor_on=floor_on,
                         validation=val_eval)
    if report is None:
        raise MemmaintError(f"no feasible trial in study {name!r} yet: no configuration reached "
                            f"{floor_on} precision {floor:.2f}; run more trials, widen the "
                            "space or lower --min-precision")
    click.echo(format_report(report))
    _transfer_views(study, floor, pareto, train_pools, report.trial_number)
    if report.validation_warning:
        click.secho(f"WARNING: {report.validation_warning}", err=True, fg="yellow")

    out = Path(output)
    _write_atomic(out, best_toml(report, name))
    load_config(out)  # what we wrote must be what `memmaint run --config` accepts
    click.echo(f"wrote {out}", err=True)
    if report_json:
        _write_atomic(Path(report_json), json.dumps(report.to_dict(), indent=2, default=str))
    if not no_plots:
        from memmaint.optimize.plots import write_plots

        folder = Path(plots_dir) if plots_dir else out.with_name(f"{out.stem}_plots")
        try:
            paths = write_plots(study, folder, floor=floor, best_number=report.trial_number)
        except UserError as exc:  # matplotlib missing: the result is still written
            click.echo(f"memmaint: plots skipped: {exc}", err=True)
        else:
            click.echo(f"wrote {len(paths)} plot files to {folder}", err=True)


class _TrialProgress:
    """The objective, counting trials: on a terminal a bar (``tune`` n/N, with the best
    feasible recall so far), else one log line when the trials end, with their time. Every
    other attribute is the objective's."""

    def __init__(self, objective: Any, trials: int, tty: bool | None = None) -> None:
        self._objective, self._trials = objective, trials
        self._done = 0
        self._best: float | None = None
        self._lock = threading.Lock()
        self._start = time.perf_counter()
        self._bar: Any = None
        if (sys.stderr.isatty() if tty is None else tty) and trials > 0:
            from tqdm import tqdm

            self._bar = tqdm(total=trials, desc="tune", unit="trial", file=sys.stderr,
                             dynamic_ncols=True)

    def __call__(self, trial: Any) -> Any:
        value = None
        try:
            value = self._objective(trial)
            return value
        finally:
            self._count(trial, value)

    def _count(self, trial: Any, value: Any) -> None:
        from memmaint.optimize.study import is_feasible

        with self._lock:
            self._done += 1
            if value is not None and is_feasible(trial) and (
                    self._best is None or value > self._best):
                self._best = value
            if self._bar is not None:
                if self._best is not None:
                    self._bar.set_postfix_str(self.note(), refresh=False)
                self._bar.update(1)

    def note(self) -> str:
        return "no feasible trial yet" if self._best is None else \
            f"best feasible recall {self._best:.3f}"

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self._done:
            log.info("tune: %d/%d trials in %.1f s; %s", self._done, self._trials,
                     time.perf_counter() - self._start, self.note())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._objective, name)


def _quiet_optuna() -> None:
    """Optuna logs every trial at INFO; keep that for -vv only."""
    import optuna

    verbose = logging.getLogger("memmaint").getEffectiveLevel() <= logging.DEBUG
    optuna.logging.set_verbosity(logging.INFO if verbose else logging.WARNING)
