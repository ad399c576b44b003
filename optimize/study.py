"""Optuna studies: open or resume, run, pick the best feasible trial, validate it.

A study is identified by its storage URL and name. Several processes can share one storage
(each runs its own ``n_trials``); a study remembers the settings it was created with
(search space, floor, weighting, noise policy, training pools) and refuses to be resumed
under different ones, since the recorded constraints would no longer mean the same thing.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memmaint.maintenance.core.config import Config, with_overrides
from memmaint.maintenance.core.errors import UserError
from memmaint.optimize.objective import (
    CONSTRAINT_ATTR,
    Evaluator,
    LabelledPool,
    LeaveOneOut,
    Objective,
    PoolScore,
    Summary,
    constraints_func,
    leave_one_out,
    summarize,
)
from memmaint.optimize.space import SearchSpace

log = logging.getLogger(__name__)

DEFAULT_STUDY_NAME = "memmaint-tune"
SETTINGS_ATTR = "memmaint_settings"


class StudyMismatchError(UserError):
    """An existing study was created with different settings."""


@dataclass(frozen=True)
class StudySettings:
    """What a study's constraint values depend on (stored with the study)."""

    space: SearchSpace
    floor: float = 0.25
    floor_on: str = "mean"
    weighted: bool = False
    noise: str = "one_cluster"
    train_pools: tuple[str, ...] = ()  # "name:fingerprint"

    def to_json(self) -> str:
        return json.dumps({"space": self.space.to_dict(), "floor": self.floor,
                           "floor_on": self.floor_on, "weighted": self.weighted,
                           "noise": self.noise, "train_pools": list(self.train_pools)},
                          sort_keys=True)


def make_storage(url: str | None) -> Any:
    """An Optuna storage for ``url`` (None: in memory). SQLite waits on locks instead of
    failing, so several processes can share one file."""
    import optuna
    from sqlalchemy.exc import SQLAlchemyError

    if url is None:
        return None
    if url.startswith("journal:"):  # scale-out hook: an append-only file shared on one host
        return journal_storage(url)
    if url.startswith(("postgresql://", "postgres://")):  # scale-out hook (docs/scale-out.md)
        url = sqlalchemy_pg_url(url)
    if url.startswith(("sqlite:", "postgresql+psycopg:")):
        path = url.split(":///", 1)[1] if url.startswith("sqlite:") and ":///" in url else ""
        if path and path != ":memory:" and not Path(path).parent.exists():
            raise UserError(f"cannot open study storage {url}: folder "
                            f"{Path(path).parent} does not exist")
        if path and path != ":memory:":
            _use_wal(path)
        last: Exception | None = None
        connect_args = {"timeout": 60} if url.startswith("sqlite:") else {}
        for attempt in range(10):
            try:
                return optuna.storages.RDBStorage(
                    url, engine_kwargs={"connect_args": connect_args})
            except SQLAlchemyError as exc:  # table creation races between processes
                last = exc
                time.sleep(0.2 * (attempt + 1))
        raise UserError(f"cannot open study storage {url}: {last}")
    try:
        return optuna.storages.get_storage(url)
    except (ValueError, ImportError, SQLAlchemyError) as exc:
        raise UserError(f"cannot open study storage {url}: {exc}") from None


def _use_wal(path: str) -> None:
    """Put a SQLite study file in WAL mode (it persists in the file): readers, such as a
    dashboard or a second worker loading the study, then never block a trial's commit.

    Best effort: switching needs a moment with nobody else in the file, which another worker
    opening the same study at the same time may not leave; the study then stays in rollback
    mode, which works (its writers wait on locks), only with more waiting."""
    import sqlite3
    from contextlib import closing

    for attempt in range(5):
        try:
            with closing(sqlite3.connect(path, timeout=5)) as conn:
                if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                    conn.execute("PRAGMA journal_mode=WAL")
                return
        except sqlite3.OperationalError as exc:
            log.debug("study file %s: WAL mode not set yet (%s)", path, exc)
            time.sleep(0.1 * (attempt + 1))
        except sqlite3.DatabaseError:
            return  # not a database: RDBStorage says so below, with the URL
    log.info("study file %s stays in rollback-journal mode (busy)", path)


def sqlalchemy_pg_url(url: str) -> str:
    """``postgresql://...`` (libpq style, as ``--db`` takes it) as SQLAlchemy's URL for the
    psycopg 3 driver, ``postgresql+psycopg://...`` (extra ``postgres``)."""
    from memmaint.maintenance.core.errors import require

    require("psycopg", "postgres")
    return "postgresql+psycopg://" + url.split("://", 1)[1]


def journal_storage(url: str) -> Any:
    """``journal:///path/to/study.log``: Optuna's journal file storage (processes on one
    machine, or on several sharing a file system with working file locks)."""
    import optuna
    from optuna.storages.journal import JournalFileBackend

    path = Path(url.split("://", 1)[1] if "://" in url else url.split(":", 1)[1])
    if not str(path) or not path.parent.exists():
        raise UserError(f"cannot open study storage {url}: folder {path.parent} "
                        "does not exist")
    return optuna.storages.JournalStorage(JournalFileBackend(str(path)))


def open_study(settings: StudySettings, *, storage: str | None = None,
               study_name: str | None = None, seed: int | None = None,
               n_startup_trials: int = 10) -> Any:
    """Create or resume (``load_if_exists``) a maximising study with a constrained TPE."""
    import optuna

    # Optuna >= 5 reads constraints the objective sets with Trial.set_constraint; older
    # versions need constraints_func (deprecated in 5.0).
    legacy = not hasattr(optuna.trial.Trial, "set_constraint")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        sampler = optuna.samplers.TPESampler(
            seed=seed, constraints_func=constraints_func if legacy else None,
            multivariate=True, group=True, n_startup_trials=n_startup_trials,
            constant_liar=True)
    study = optuna.create_study(storage=make_storage(storage),
                                study_name=study_name or DEFAULT_STUDY_NAME,
                                direction="maximize", sampler=sampler, load_if_exists=True)
    mine = settings.to_json()
    theirs = study.user_attrs.get(SETTINGS_ATTR)
    if theirs is None:
        study.set_user_attr(SETTINGS_ATTR, mine)
    elif json.loads(theirs) != json.loads(mine):
        old, new = json.loads(theirs), json.loads(mine)
        diff = sorted(k for k in new if old.get(k) != new.get(k))
        raise StudyMismatchError(
            f"study {study.study_name!r} was created with different {', '.join(diff)}; "
            "use the same settings or a new --study-name")
    return study


@dataclass
class RunOutcome:
    """What one ``run_study`` call did."""

    trials_run: int
    seconds: float
    interrupted: bool


class _GracefulInterrupt:
    """Turn the first Ctrl-C into a clean stop that never leaves a trial RUNNING.

    A bare KeyboardInterrupt can land while Optuna is sampling or writing to the storage,
    after a trial row was created but before its state is set; that trial would stay
    RUNNING for ever. The first SIGINT therefore only raises inside the objective (Optuna
    records that trial as FAIL) and otherwise sets a flag that the objective and the
    per-trial callback act on at the next safe point. A second Ctrl-C interrupts at once.
    """

    def __init__(self) -> None:
        self.requested = False
        self._inside_objective = 0
        self._previous: Any = None
        self._installed = False

    def install(self) -> None:
        import signal

        if threading.current_thread() is threading.main_thread():
            self._previous = signal.getsignal(signal.SIGINT)
            if self._previous is signal.default_int_handler:
                signal.signal(signal.SIGINT, self._handle)
                self._installed = True

    def restore(self) -> None:
        import signal

        if self._installed:
            signal.signal(signal.SIGINT, self._previous)

    def _handle(self, signum: int, frame: Any) -> None:
        import signal

        already = self.requested
        self.requested = True
        signal.signal(signal.SIGINT, self._previous)  # a second Ctrl-C is a hard stop
        self._installed = False
        if already or self._inside_objective:
            raise KeyboardInterrupt

    def wrap(self, objective: Any) -> Any:
        def guarded(trial: Any) -> Any:
            if self.requested:
                raise KeyboardInterrupt  # asked to stop while this trial was being sampled
            # the handler runs on the main thread: only an objective running there may be
            # interrupted (with n_jobs > 1 worker threads finish their trial)
            on_main = threading.current_thread() is threading.main_thread()
            self._inside_objective += on_main
            try:
                return objective(trial)
            finally:
                self._inside_objective -= on_main
        return guarded

    def callback(self, study: Any, _trial: Any) -> None:
        if self.requested:
            study.stop()


def run_study(study: Any, objective: Objective, *, n_trials: int | None,
              timeout: float | None = None, n_jobs: int = 1,
              show_progress_bar: bool = False) -> RunOutcome:
    """Run trials; Ctrl-C stops early, keeps every finished trial in the storage and leaves
    no trial of this process in the RUNNING state."""
    import optuna

    finished: list[int] = []
    start = time.perf_counter()
    interrupted = False
    guard = _GracefulInterrupt()
    guard.install()
    try:
        if n_trials != 0:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
                study.optimize(
                    guard.wrap(objective), n_trials=n_trials, timeout=timeout,
                    n_jobs=n_jobs, show_progress_bar=show_progress_bar, gc_after_trial=False,
                    callbacks=[lambda _s, t: finished.append(t.number), guard.callback])
        interrupted = guard.requested
    except KeyboardInterrupt:
        interrupted = True
    finally:
        guard.restore()
    if interrupted:
        log.warning("interrupted: finished trials are kept in the study")
    seconds = time.perf_counter() - start
    ev = objective.evaluator
    log.info("%s", ev.describe_caches())
    return RunOutcome(trials_run=len(finished),
                      seconds=seconds, interrupted=interrupted)


def is_feasible(trial: Any) -> bool:
    con = trial.user_attrs.get(CONSTRAINT_ATTR)
    return con is not None and all(c <= 0.0 for c in con)


def best_feasible_trial(study: Any) -> Any | None:
    """The completed feasible trial with the highest recall (ties: higher precision, then
    lower number), or None."""
    import optuna

    trials = [t for t in study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
              if is_feasible(t) and t.value is not None]
    if not trials:
        return None
    return max(trials, key=lambda t: (t.value, t.user_attrs.get("precision", 0.0), -t.number))


def trial_config(trial: Any, base: Config | None = None) -> Config:
    """The full memmaint :class:`Config` a finished trial evaluated."""

    params = trial.user_attrs.get("params")
    if params is None:
        params = dict(trial.params)
    return with_overrides(base or Config(), params)


def trial_scores(trial: Any) -> list[PoolScore]:
    return [PoolScore.from_dict(d) for d in trial.user_attrs.get("pools", [])]


@dataclass
class TuneReport:
    """The best feasible trial, its training figures and its validation figures."""

    trial_number: int
    params: dict[str, Any]
    config: Config
    weighted: bool
    floor: float
    floor_on: str
    train: list[PoolScore]
    train_summary: Summary
    recall_loo: LeaveOneOut | None
    precision_loo: LeaveOneOut | None
    validation: list[PoolScore] = field(default_factory=list)
    validation_summary: Summary | None = None
    n_trials: int = 0
    n_feasible: int = 0

    @property
    def validation_warning(self) -> str | None:
        """A warning when the validation precision falls below the floor."""
        v = self.validation_summary
        if v is None or v.feasible:
            return None
        which = "mean" if self.floor_on == "mean" else "worst-pool"
        got = v.precision if self.floor_on == "mean" else v.worst_precision
        return (f"validation {which} precision {got:.3f} is below the floor {self.floor:.2f}: "
                "this configuration does not generalise (clusters too coarse on unseen pools)")

    def to_dict(self) -> dict[str, Any]:
        def loo(x: LeaveOneOut | None) -> dict[str, Any] | None:
            return None if x is None else {"means": list(x.means), "dropped": list(x.dropped),
                                            "spread": x.spread}

        def summ(s: Summary | None) -> dict[str, Any] | None:
            return None if s is None else {"precision": s.precision, "recall": s.recall,
                                            "worst_precision": s.worst_precision,
                                            "feasible": s.feasible}

        return {"trial": self.trial_number, "params": self.params, "weighted": self.weighted,
                "floor": self.floor, "floor_on": self.floor_on,
                "train": [s.to_dict() for s in self.train], "train_summary": summ(
                    self.train_summary),
                "recall_leave_one_out": loo(self.recall_loo),
                "precision_leave_one_out": loo(self.precision_loo),
                "validation": [s.to_dict() for s in self.validation],
                "validation_summary": summ(self.validation_summary),
                "n_trials": self.n_trials, "n_feasible": self.n_feasible}


def report_best(study: Any, *, base: Config, weighted: bool, floor: float, floor_on: str,
                validation: Evaluator | None = None) -> TuneReport | None:
    """Build the report for the best feasible trial, re-running it on validation pools."""
    import optuna

    best = best_feasible_trial(study)
    done = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
    if best is None:
        return None
    config = trial_config(best, base)
    train = trial_scores(best)
    train_summary = summarize(train, weighted=weighted, floor=floor, floor_on=floor_on)
    names = [s.pool for s in train]
    rec_loo = prec_loo = None
    if len(train) >= 2:
        rec_loo = leave_one_out([s.pick(weighted)[1] for s in train], names)
        prec_loo = leave_one_out([s.pick(weighted)[0] for s in train], names)
    report = TuneReport(trial_number=best.number, params=dict(best.user_attrs.get("params", {})),
                        config=config, weighted=weighted, floor=floor, floor_on=floor_on,
                        train=train, train_summary=train_summary, recall_loo=rec_loo,
                        precision_loo=prec_loo, n_trials=len(done),
                        n_feasible=sum(is_feasible(t) for t in done))
    if validation is not None:
        report.validation = validation.evaluate(config)
        report.validation_summary = summarize(report.validation, weighted=weighted,
                                              floor=floor, floor_on=floor_on)
        if report.validation_warning:
            log.warning("%s", report.validation_warning)
    return report


def pool_keys(pools: Sequence[LabelledPool]) -> tuple[str, ...]:
    return tuple(f"{p.name}:{p.fingerprint}" for p in pools)
