"""The tuning objective: B-cubed recall under a precision floor, over labelled pools.

Pure core: pools are values (:class:`LabelledPool`), a configuration is a
:class:`~memmaint.maintenance.core.config.Config`, and :class:`Evaluator` returns one
:class:`PoolScore` per pool. :class:`Objective` adapts that to Optuna: value = mean recall,
constraint = ``floor - mean precision`` (or ``floor - worst precision`` with
``floor_on="worst"``), feasible when <= 0, given to Optuna with ``Trial.set_constraint``.

Speed: reductions dominate the cost, so an in-process :class:`LRUCache` keyed by pool
fingerprint and the reducer parameters that matter lets trials that share reducer settings
skip UMAP/t-SNE. For p = 0 (where a re-cut is always exact) GenKT merge histories are
cached too, built once at the largest R of the space and cut at each trial's R.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import socket
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from memmaint.maintenance.core.config import ClusteringConfig, Config, ReductionConfig
from memmaint.maintenance.core.errors import InputError, UserError

log = logging.getLogger(__name__)

NOISE_POLICIES = ("one_cluster", "singletons")
FLOOR_ON = ("mean", "worst")
# Trials whose parameters a pool cannot take (t-SNE perplexity above what n allows, UMAP
# with too few points...) are recorded as infeasible, not crashed; any other exception is
# a bug and propagates.
TRIAL_ERRORS: tuple[type[BaseException], ...] = (ValueError, ArithmeticError,
                                                 np.linalg.LinAlgError, UserError)


@dataclass(frozen=True, eq=False)
class LabelledPool:
    """One labelled pool: embeddings, ground-truth labels and importance weights."""

    name: str
    embeddings: np.ndarray
    labels: np.ndarray
    weights: np.ndarray
    ids: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        emb = np.asarray(self.embeddings)
        n = len(self.labels)
        if emb.ndim != 2 or emb.shape[0] != n or len(self.weights) != n:
            raise InputError(f"pool {self.name!r}: embeddings {emb.shape}, {n} labels and "
                             f"{len(self.weights)} weights do not line up")
        if n < 2:
            raise InputError(f"pool {self.name!r} has {n} memories; tuning needs at least 2")
        if not np.all(np.isfinite(emb)):
            raise InputError(f"pool {self.name!r}: embeddings contain NaN or infinity")
        w = np.asarray(self.weights, dtype=np.float64)
        if not np.all(np.isfinite(w)) or np.any(w < 0) or not w.sum() > 0:
            raise InputError(f"pool {self.name!r}: weights must be finite, >= 0 and not all 0")

    @property
    def size(self) -> int:
        return len(self.labels)

    @cached_property
    def fingerprint(self) -> str:
        """Content hash: the cache key part that identifies this pool."""
        h = hashlib.sha256()
        for arr in (np.ascontiguousarray(self.embeddings, dtype=np.float32),
                    np.ascontiguousarray(self.labels), np.ascontiguousarray(self.weights,
                                                                           dtype=np.float64)):
            h.update(str(arr.shape).encode())
            h.update(arr.tobytes())
        return h.hexdigest()[:16]


@dataclass(frozen=True)
class PoolScore:
    """B-cubed figures of one pool under one configuration (both weightings)."""

    pool: str
    precision: float
    recall: float
    weighted_precision: float
    weighted_recall: float
    n_clusters: int
    n_noise: int
    oneoffs_alone: float | None = None  # share of one-offs (true classes of one) left alone
    oneoffs_safe: float | None = None  # share in no cluster with a real class (issue #35)
    oneoffs: int = 0  # how many one-offs the pool holds

    def pick(self, weighted: bool) -> tuple[float, float]:
        """(precision, recall) under the requested weighting."""
        if weighted:
            return self.weighted_precision, self.weighted_recall
        return self.precision, self.recall

    def to_dict(self) -> dict[str, Any]:
        return {"pool": self.pool, "precision": self.precision, "recall": self.recall,
                "weighted_precision": self.weighted_precision,
                "weighted_recall": self.weighted_recall, "n_clusters": self.n_clusters,
                "n_noise": self.n_noise, "oneoffs_alone": self.oneoffs_alone,
                "oneoffs_safe": self.oneoffs_safe, "oneoffs": self.oneoffs}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PoolScore:
        return cls(**data)


@dataclass(frozen=True)
class Summary:
    """Means over pools of the chosen weighting, and the constraint value."""

    precision: float
    recall: float
    worst_precision: float
    constraint: float

    @property
    def feasible(self) -> bool:
        return self.constraint <= 0.0


def summarize(scores: Sequence[PoolScore], *, weighted: bool, floor: float,
              floor_on: str = "mean") -> Summary:
    """Mean precision/recall over pools and the constraint (<= 0 means the floor holds)."""
    if floor_on not in FLOOR_ON:
        raise UserError(f"floor_on must be one of {', '.join(FLOOR_ON)}, got {floor_on!r}")
    if not scores:
        raise InputError("no pools to score")
    pr = np.array([s.pick(weighted) for s in scores], dtype=np.float64)
    mean_p, mean_r = float(pr[:, 0].mean()), float(pr[:, 1].mean())
    worst_p = float(pr[:, 0].min())
    binding = mean_p if floor_on == "mean" else worst_p
    return Summary(precision=mean_p, recall=mean_r, worst_precision=worst_p,
                   constraint=float(floor - binding))


@dataclass(frozen=True)
class LeaveOneOut:
    """The mean recomputed without each pool in turn, and its spread (max - min)."""

    means: tuple[float, ...]
    dropped: tuple[str, ...]

    @property
    def low(self) -> float:
        return min(self.means)

    @property
    def high(self) -> float:
        return max(self.means)

    @property
    def spread(self) -> float:
        return self.high - self.low


def leave_one_out(values: Sequence[float], names: Sequence[str] | None = None) -> LeaveOneOut:
    """Leave-one-pool-out means of ``values`` (needs at least two pools)."""
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 1 or len(v) < 2:
        raise InputError("leave-one-out needs at least two pools")
    total = v.sum()
    means = tuple(float((total - x) / (len(v) - 1)) for x in v)
    names = tuple(names) if names is not None else tuple(str(i) for i in range(len(v)))
    return LeaveOneOut(means=means, dropped=names)


# -- caching -----------------------------------------------------------------------------

class LRUCache:
    """A small thread-safe LRU with hit/miss counters (values are computed outside the lock)."""

    def __init__(self, maxsize: int = 1024, name: str = "cache"):
        if maxsize < 0:
            raise ValueError("maxsize must be >= 0")
        self.maxsize = maxsize
        self.name = name
        self.hits = 0
        self.misses = 0
        self._data: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_compute(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                self.hits += 1
                return self._data[key]
            self.misses += 1
        value = compute()
        if self.maxsize:
            with self._lock:
                self._data[key] = value
                self._data.move_to_end(key)
                while len(self._data) > self.maxsize:
                    self._data.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._data)

    @property
    def lookups(self) -> int:
        return self.hits + self.misses

    @property
    def hit_rate(self) -> float:
        return self.hits / self.lookups if self.lookups else 0.0

    def describe(self) -> str:
        return (f"{self.name}: {self.hits} hits / {self.lookups} lookups "
                f"({100 * self.hit_rate:.0f}%), {len(self)} entries")


def reduction_key(cfg: ReductionConfig) -> tuple[Any, ...]:
    """The reducer parameters that change the output (others are left out of the key)."""
    if cfg.method == "none":
        return ("none",)
    if cfg.method == "pca":
        return ("pca", cfg.n_components, cfg.seed)
    if cfg.method == "tsne":
        return ("tsne", cfg.n_components, cfg.seed, float(cfg.perplexity))
    return ("umap", cfg.n_components, cfg.seed, cfg.n_neighbors, float(cfg.min_dist),
            cfg.metric)


# -- evaluation --------------------------------------------------------------------------

#: The slice of the declared pipeline (``job.pipeline.PIPELINE``) a trial runs: its pools
#: come embedded, and the plan is not scored.
TUNED_FROM = "reduce and cluster"
TUNED_THROUGH = "reduce and cluster"

@dataclass
class Evaluator:
    """Reduce and cluster every pool under a config and score it (caches shared by trials).

    Args:
        pools: the labelled pools.
        noise: B-cubed noise policy (``one_cluster``: all noise points form one cluster).
        reductions: cache of reduced coordinates keyed by (pool, reducer parameters).
        sequences: cache of GenKT merge histories, re-cut at each trial's R when valid.
        genkt_R_build: build GenKT histories at this R and re-cut them at each trial's R
            (the largest R of the search space; None: cluster every trial directly).
        recut_refused: how many re-cuts the history refused (those trials re-clustered).
    """

    pools: Sequence[LabelledPool]
    noise: str = "one_cluster"
    reductions: LRUCache = field(default_factory=lambda: LRUCache(512, "reductions"))
    sequences: LRUCache = field(default_factory=lambda: LRUCache(64, "genkt histories"))
    genkt_R_build: float | None = None
    recut_refused: int = 0

    def __post_init__(self) -> None:
        if not self.pools:
            raise InputError("no pools to evaluate")
        if self.noise not in NOISE_POLICIES:
            raise UserError(f"noise policy must be one of {', '.join(NOISE_POLICIES)}, "
                            f"got {self.noise!r}")
        names = [p.name for p in self.pools]
        if len(set(names)) != len(names):
            raise InputError(f"pool names must be unique, got {names}")

    def describe_caches(self) -> str:
        """One line on cache use (logged by studies, printed by the CLI)."""
        text = f"{self.reductions.describe()}; {self.sequences.describe()}"
        if self.recut_refused:
            text += f" ({self.recut_refused} re-cuts refused and re-clustered)"
        return text

    def reduce(self, pool: LabelledPool, cfg: ReductionConfig) -> np.ndarray:
        from memmaint.clustering.reduce.reducers import reduce

        key = (pool.fingerprint, reduction_key(cfg))
        return self.reductions.get_or_compute(
            key, lambda: np.asarray(reduce(np.asarray(pool.embeddings), cfg),
                                    dtype=np.float64))

    def cluster(self, pool: LabelledPool, reduced: np.ndarray, red_cfg: ReductionConfig,
                cfg: ClusteringConfig) -> np.ndarray:
        from memmaint.clustering.pipeline import fit_labels, guard_singletons

        if cfg.algorithm == "genkt" and cfg.genkt.R_mode == "absolute":
            labels = self._cluster_genkt(pool, reduced, red_cfg, cfg)
            return guard_singletons(labels, pool.embeddings, cfg.singleton_cos)
        # relative R (GenKT takes milliseconds: no history cache) and every other clusterer
        return fit_labels(reduced, pool.embeddings, pool.weights, cfg)

    def _cluster_genkt(self, pool: LabelledPool, reduced: np.ndarray,
                       red_cfg: ReductionConfig, cfg: ClusteringConfig) -> np.ndarray:
        from memmaint.clustering.genkt.estimator import GenKTDefinition, genkt_cluster

        g = cfg.genkt
        weights = pool.weights if g.use_weights else None
        emb = pool.embeddings
        R_build = self.genkt_R_build
        # Only Cambridge/Aachen (p = 0) re-cuts are always exact; for other p the history
        # refuses most cuts (3 of 4 at p = -1 on test blobs), so building it would be wasted.
        if R_build is None or g.R > R_build or g.p != 0:
            definition = GenKTDefinition(p=g.p, R=g.R, cos_cut=g.cos_cut,
                                         recombination=g.recombination)
            return genkt_cluster(reduced, emb, weights, definition).labels()
        # R only decides which pairs may merge, so for p = 0 one history built at the
        # largest R of the space answers every smaller R exactly (ClusterSequence.labels).
        key = (pool.fingerprint, reduction_key(red_cfg), float(g.p), float(g.cos_cut),
               g.recombination, bool(g.use_weights))
        wide = GenKTDefinition(p=g.p, R=R_build, cos_cut=g.cos_cut,
                               recombination=g.recombination)
        seq = self.sequences.get_or_compute(
            key, lambda: genkt_cluster(reduced, emb, weights, wide))
        try:
            return seq.labels(R_cut=g.R)
        except ValueError:  # not expected for p = 0; stay correct if it ever happens
            self.recut_refused += 1
            definition = GenKTDefinition(p=g.p, R=g.R, cos_cut=g.cos_cut,
                                         recombination=g.recombination)
            return genkt_cluster(reduced, emb, weights, definition).labels()

    def score(self, pool: LabelledPool, labels_pred: np.ndarray) -> PoolScore:
        from memmaint.clustering.metrics import bcubed

        un = bcubed(pool.labels, labels_pred, weights=None, noise=self.noise)
        wt = bcubed(pool.labels, labels_pred, weights=pool.weights, noise=self.noise)
        labels_pred = np.asarray(labels_pred)
        found = set(labels_pred[labels_pred >= 0].tolist())
        from memmaint.optimize.transfer import _one_offs, oneoffs_alone, oneoffs_safe

        return PoolScore(pool=pool.name, precision=float(un.precision), recall=float(un.recall),
                         weighted_precision=float(wt.precision),
                         weighted_recall=float(wt.recall), n_clusters=len(found),
                         n_noise=int(np.sum(labels_pred < 0)),
                         oneoffs_alone=oneoffs_alone(pool.labels, labels_pred),
                         oneoffs_safe=oneoffs_safe(pool.labels, labels_pred),
                         oneoffs=int(_one_offs(pool.labels).sum()))

    def labels(self, pool: LabelledPool, config: Config) -> np.ndarray:
        """The labels the job's reduce-and-cluster stage gives ``pool`` under ``config``: the
        declared stages from :data:`TUNED_FROM` through :data:`TUNED_THROUGH`
        (:mod:`memmaint.maintenance.job.pipeline`; the pool comes embedded), with this
        evaluator's caches in place of the per-namespace clustering of an unsharded pool
        (reduced coordinates per reducer setting, GenKT histories re-cut at each R:
        strategies that change speed, not labels). A sharded pool is sharded by the stage
        itself, as in a run."""
        from memmaint.maintenance.job.outcome import Pool
        from memmaint.maintenance.job.pipeline import run_stages
        from memmaint.maintenance.job.state import RunState

        whole = Pool([], {pool.name: np.arange(pool.size)}, vectors=np.asarray(pool.embeddings),
                     weights=np.asarray(pool.weights))
        state = RunState(config, whole=whole,
                         cluster_one=lambda _v, _w, cfg: self.cluster_result(pool, cfg))
        run_stages(state, start=TUNED_FROM, through=TUNED_THROUGH)
        assert state.clustered is not None
        return state.clustered.labels

    def cluster_result(self, pool: LabelledPool, config: Config) -> Any:
        """``pool`` reduced and clustered under ``config`` through the caches, as the
        :class:`~memmaint.clustering.pipeline.ClusteringResult` the stage expects."""
        from memmaint.clustering.pipeline import ClusteringResult, make_clusterer

        if getattr(make_clusterer(config.clustering), "embedding_space", False):
            reduced = np.asarray(pool.embeddings, dtype=np.float64)  # no reducer runs
        else:
            reduced = self.reduce(pool, config.reduction)
        labels = self.cluster(pool, reduced, config.reduction, config.clustering)
        return ClusteringResult(labels=np.asarray(labels), reduced=reduced)

    def evaluate_pool(self, pool: LabelledPool, config: Config) -> PoolScore:
        labels = self.labels(pool, config)
        if len(labels) != pool.size:
            raise RuntimeError(f"clusterer returned {len(labels)} labels for {pool.size} points")
        return self.score(pool, labels)

    def evaluate(self, config: Config) -> list[PoolScore]:
        """One :class:`PoolScore` per pool, in pool order."""
        return [self.evaluate_pool(pool, config) for pool in self.pools]


# -- Optuna adapter ----------------------------------------------------------------------

CONSTRAINT_ATTR = "constraint"
CONSTRAINT_NAME = "precision_floor"


def constraints_func(trial: Any) -> tuple[float, ...]:
    """For ``TPESampler(constraints_func=...)``: the recorded constraint (<= 0 feasible).

    Used with Optuna < 5 only; Optuna 5 deprecates ``constraints_func`` in favour of
    ``Trial.set_constraint``, which :class:`Objective` calls when it exists.
    """
    return tuple(trial.user_attrs[CONSTRAINT_ATTR])


def _record_constraint(trial: Any, value: float) -> None:
    trial.set_user_attr(CONSTRAINT_ATTR, [value])
    if hasattr(trial, "set_constraint"):
        trial.set_constraint(CONSTRAINT_NAME, value)


@dataclass
class Objective:
    """Optuna objective: maximise mean B-cubed recall; constraint = precision floor.

    Every completed trial records user attributes: ``params`` (every active parameter,
    fixed ones included), ``pools`` (per-pool :class:`PoolScore` dicts), ``precision``,
    ``recall``, ``worst_precision``, ``constraint``, ``worker`` (host:pid, for studies shared
    by several processes) and, for a trial the pools could not take, ``error``.
    """

    evaluator: Evaluator
    space: Any  # SearchSpace (kept untyped to avoid an import cycle in type checkers)
    base_config: Config = field(default_factory=Config)
    floor: float = 0.25
    floor_on: str = "mean"
    weighted: bool = False

    def __post_init__(self) -> None:
        if not (0.0 <= self.floor <= 1.0) or math.isnan(self.floor):
            raise UserError(f"the precision floor must be between 0 and 1, got {self.floor}")
        if self.floor_on not in FLOOR_ON:
            raise UserError(f"--floor-on must be one of {', '.join(FLOOR_ON)}, "
                            f"got {self.floor_on!r}")

    def __call__(self, trial: Any) -> float:
        params = self.space.suggest(trial)
        trial.set_user_attr("params", params)
        trial.set_user_attr("worker", f"{socket.gethostname()}:{os.getpid()}")
        config = self.space.to_config(params, self.base_config)
        try:
            scores = self.evaluator.evaluate(config)
        except TRIAL_ERRORS as exc:
            log.warning("trial %s: parameters rejected (%s: %s); recorded as infeasible",
                        trial.number, type(exc).__name__, exc)
            trial.set_user_attr("error", f"{type(exc).__name__}: {exc}")
            _record_constraint(trial, 1.0)
            trial.set_user_attr("precision", 0.0)
            trial.set_user_attr("recall", 0.0)
            return 0.0
        summ = summarize(scores, weighted=self.weighted, floor=self.floor,
                         floor_on=self.floor_on)
        trial.set_user_attr("pools", [s.to_dict() for s in scores])
        trial.set_user_attr("precision", summ.precision)
        trial.set_user_attr("recall", summ.recall)
        trial.set_user_attr("worst_precision", summ.worst_precision)
        _record_constraint(trial, summ.constraint)
        log.debug("trial %s: recall %.3f precision %.3f (%s)", trial.number, summ.recall,
                  summ.precision, self.evaluator.describe_caches())
        return summ.recall
