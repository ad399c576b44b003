"""Generalised-kt sequential recombination for memory pools (jet finding without a beam).

The algorithm, exactly
----------------------
Inputs are coordinates ``x_i`` (the reduced space), optional embeddings ``e_i`` (normalised
to unit length here) and optional importance weights ``w_i`` (default 1). Weights are
divided by their maximum and clipped below at 1e-6, so ``w_i ** (2p)`` stays finite for
p < 0 (it is also clamped to the largest finite double). Objects carry ids: the inputs are
0..N-1 and the k-th merge (k = 0, 1, ...) creates object N + k, like FastJet's history.

* A pair (i, j) is *eligible* when ``dist2_ij < R**2`` and, with embeddings and
  ``cos_cut > -1``, ``cos(e_i, e_j) >= cos_cut``.
* Among the eligible pairs the one with the smallest key is merged, the key being
  ``(d_ij, dist2_ij, min(id_i, id_j), max(id_i, id_j))`` compared lexicographically, where
  ``d_ij = min(w_i**2p, w_j**2p) * dist2_ij / R**2`` (compared before the division by R^2,
  which is common to all pairs). So ties in d_ij go to the closer pair and then to the
  lowest index pair. (Without weights, or for p = 0, d_ij is the distance and this is
  simply "lowest index pair"; the distance tie-break is what keeps the nearest-neighbour
  strategies exact when different products round to the same double, see below.)
* There is no beam distance: merging stops when no eligible pair is left.
* Recombination ``weighted``: x = weighted mean, e = weighted mean renormalised to unit
  length (exactly antipodal equal-weight embeddings keep the heavier member's), w = sum.
  ``wta``: the heavier member's x and e (ties: the lower id), w = sum. ``sphere``: x = the
  weighted mean renormalised to unit length (the inputs' x normalised first: positions stay
  on the unit sphere), e = the plain weighted mean, so that ``e_a . e_b`` is the weighted
  average cosine between the two clusters' members and the cosine cut is average linkage's
  (exactly antipodal equal-weight positions keep the heavier member's x). **``weighted``
  becomes ``sphere`` when the coordinates are the embeddings** (``embeddings`` given and
  equal to ``X``: clustering in the embedding space itself, "cosine mode"): a plain mean of
  unit vectors shrinks toward the origin as a cluster grows, and a shrunken centroid is
  within R of everything (on MiniLM vectors of Banking77 and HWU64 one cluster took 50-71%
  of the texts). On the sphere ``dist2 = 2 - 2 cos`` between a centroid's direction and a
  text, so R keeps its cosine meaning; a centroid direction is nearer its members than they
  are to each other, so a cluster can still chain related topics, which the cosine cut on
  the average cosine stops. ``ClusterSequence.recombination`` says which scheme ran.
* p = 0 is Cambridge/Aachen, p = 1 kt, p = -1 anti-kt, any real p generalised-kt.

Labels are the final objects: every input gets a label >= 0 (a memory merged with nothing is
its own cluster) and labels are numbered in order of first appearance (input 0 has label 0,
the first input not in its cluster label 1, ...).

Arithmetic is canonical (sums over coordinates in index order, a four-lane dot product,
``math.pow``; see ``_kernels``), so every strategy produces the same merge sequence bit
for bit, ties included.

Strategies
----------
``reference`` is plain numpy (O(N^3), tests only). ``nn`` and ``tree`` are FastJet's
nearest-neighbour caching with a tournament tree for the minimum; ``nn`` finds neighbours by
scanning (any dimension, O(N^2)), ``tree`` with a dynamic k-d tree (FastJet's tiles would
need cells of size R, far too coarse for dense reduced pools), plus lazy searches and
neighbour caches for growing clusters. ``graph`` (any dimension, built for high dimension,
where a growing centroid becomes the nearest neighbour of thousands of points and ``nn``
turns quadratic per merge) keeps a sparse graph of candidate pairs with lower bounds that a
moving cluster updates all at once, and merges a pair only when its exact key is provably
the smallest (see ``_kernels_graph``). ``plane`` (2-D without a cosine cut, any p) is
``tree`` made lean for that case: searches climb from the slot's own leaf, reverse queries
only visit the slab where a slot can come to prefer the new object, and for p = 0 there are
none at all (see ``_kernels_plane``); it has no neighbour caches, so for p < 0 (a heavy
centroid eating its way out of a hole, searching the rim at every step) ``tree`` can be
faster on large pools. ``auto`` takes ``plane`` in 2-D without a cosine cut for p >= 0,
else ``tree`` for D <= 5, else ``graph``.

Why caching nearest neighbours is exact
---------------------------------------
Let (a, b) be the minimal pair with wp_a <= wp_b, so d_ab ~ wp_a * dist2_ab. For any other
eligible c, ``fl(min(wp_a, wp_c) * dist2_ac) <= fl(wp_a * dist2_ac)`` because rounding is
monotone. If dist2_ac < dist2_ab this is ``<= fl(wp_a * dist2_ab)``, so d_ac <= d_ab, hence
equal, and then the distance tie-break makes (a, c) smaller: a contradiction. If
dist2_ac == dist2_ab the same chain forces equal keys up to the ids, and for fixed a the
lowest pair is the lowest id c. So b is a's nearest eligible neighbour under
``(dist2, id)``: the minimum is among the N cached candidates (i, NN_i). Pairs with
wp_j < wp_i are j's to answer for, so a search for i that stops early, knowing only that
nothing eligible is nearer than rho, may stand in with the lower bound wp_i * rho^2: it
comes up (and is resumed) before any pair it answers for could be the minimum.

Re-cutting at a smaller R
-------------------------
R only enters eligibility (it scales every d_ij alike), and the pairs eligible at R' < R
are a subset of those eligible at R. So clustering at R' follows the R sequence exactly up
to the first merge whose distance is >= R', and at that point it stops iff no pair closer
than R' is eligible there. For p = 0 this always holds (d_ij = dist2 / R^2, and the merge
taken was the closest eligible pair), with any cosine cut and either recombination. For
p != 0 it has to be checked: :meth:`ClusterSequence.labels` replays the recombinations up to
that point, looks for an eligible pair closer than R', and raises ``ValueError`` if there is
one (so p != 0 sequences keep a copy of their inputs). Note that "drop every merge at distance >= R'" is *not* the rule: weighted centroids
move, so a merge farther than R' can be followed by closer merges that only exist because
of it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils._param_validation import StrOptions

from memmaint.clustering._estimators import (
    InvalidParameter,
    constraint_problems,
    parameter_constraints,
    validate_params,
)
from memmaint.maintenance.core.config import GenKTConfig
from memmaint.maintenance.core.errors import InputError

__all__ = [
    "MERGE",
    "STRATEGIES",
    "ClusterSequence",
    "GenKT",
    "GenKTDefinition",
    "GenKTInputError",
    "InvalidDefinition",
    "genkt_cluster",
    "merge_history",
]

log = logging.getLogger(__name__)

STRATEGIES = ("auto", "reference", "nn", "tree", "plane", "graph")
# p, R, cos_cut and recombination are declared once, in GenKTConfig: defaults and
# constraints come from there (the config loader checks TOML values with the same ones)
_DEFAULTS = GenKTConfig()
_DEFINITION_CONSTRAINTS = parameter_constraints(
    GenKTConfig, exclude=("use_weights", "R_mode", "R_rel", "scale_quantile"))  # GenKTClusterer's
_W_FLOOR = 1e-6
_TREE_MAX_DIM = 5  # above this the k-d tree prunes poorly: auto picks the graph strategy
# speed knobs of the kernels (never change results; tests shrink them to reach every path):
# k-d leaf size, coordinates the nn strategy checks first, neighbour-cache size, number of
# caches, how many points a tree search must read before its slot earns a cache, and how
# many it reads before it may stop with "nothing eligible nearer than rho" (lazy search);
# then the graph strategy's (see _graph and _kernels_graph)
_TUNING: dict[str, Any] = {
           "leaf_size": 8, "head": 8, "cache_k": 48, "cache_cap": 1024, "cache_scan": 64,
           "budget": 64,
           # the graph strategy: first-pass list size, skin and minimal refill growth (as
           # fractions of R), refill list size, most pivots, Lloyd steps that move the
           # pivots to centres, pivots per query, Gram tile size, BLAS threads for the Gram
           # tiles from graph_threads_from inputs on (None: BLAS's own choice, every core:
           # at 100k in 384-d the first pass is half the wall time, and on 2 cores two
           # threads take it from 52 to 32 s for 10% more CPU; below, one thread: at 10k two
           # threads cost 90% more CPU and 20% more wall time), most edges into an absorbed
           # slot for the exact re-keying of their owners, most edges into a slot for
           # walking them up front to mark its neighbours (above, ``is_joined`` decides)
           "graph_k": 8, "graph_skin": 0.02, "graph_gap": 0.02, "graph_refill": 16,
           "graph_cells": 128, "graph_lloyd": 5, "graph_pivots": 3, "graph_tile": 2048,
           "graph_threads": None, "graph_threads_from": 32768,
           "graph_exc": 512, "graph_walk": 4096,
           # more pivots (graph_cells_many, at most n / 16) when more than this share of the
           # inputs is farther than R + skin from every pivot (many small topics)
           "graph_outliers": 0.3, "graph_cells_many": 1024}


def _tune() -> np.ndarray:
    t = _TUNING
    return np.array([t["leaf_size"], t["head"], t["cache_k"], t["cache_cap"],
                     t["cache_scan"], t["budget"]], dtype=np.int64)


class InvalidDefinition(InvalidParameter):
    """A GenKT parameter is out of range (a ``UserError``, and a ``ValueError`` for
    scikit-learn)."""


class GenKTInputError(InputError, ValueError):
    """Coordinates, embeddings or weights are malformed (also a ``ValueError``)."""


_ALGO_NAMES = {0.0: "Cambridge/Aachen", 1.0: "kt", -1.0: "anti-kt"}


@dataclass(frozen=True)
class GenKTDefinition:
    """What to cluster with (FastJet's JetDefinition): exponent p, radius R, cosine cut and
    recombination scheme. Validated on construction.

    Defaults and allowed values are those of
    :class:`~memmaint.maintenance.core.config.GenKTConfig` (p in [-50, 50], R > 0 and finite,
    cos_cut in [-1, 1]), so a definition the config accepts is always valid.
    """

    p: float = _DEFAULTS.p
    R: float = _DEFAULTS.R
    cos_cut: float = _DEFAULTS.cos_cut
    recombination: str = _DEFAULTS.recombination

    def __post_init__(self) -> None:
        problems = constraint_problems(_DEFINITION_CONSTRAINTS, {
            "p": self.p, "R": self.R, "cos_cut": self.cos_cut,
            "recombination": self.recombination})
        if problems:
            raise InvalidDefinition("GenKT definition: " + "; ".join(problems))

    def algorithm_name(self) -> str:
        return _ALGO_NAMES.get(float(self.p), "generalised-kt")

    def description(self) -> str:
        """One line saying exactly what this definition does."""
        cut = ("no cosine cut" if self.cos_cut <= -1.0 else
               f"cosine cut cos(e_i, e_j) >= {self.cos_cut:g} (skipped without embeddings)")
        rec = {"weighted": "weighted recombination (weighted mean of coordinates, "
                           "renormalised weighted mean of embeddings, summed weights; sphere "
                           "when the coordinates are the embeddings)",
               "sphere": "sphere recombination (renormalised weighted mean of unit "
                         "coordinates, plain weighted mean of embeddings, summed weights)",
               "wta": "winner-takes-all recombination (heavier member's coordinates and "
                      "embedding, summed weights)"}[self.recombination]
        return (f"Generalised-kt algorithm, {self.algorithm_name()} (p = {self.p:g}), "
                f"with R = {self.R:g}, {cut}, {rec}, no beam distance")


def _is_real(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)


#: one entry of a merge history (FastJet's history element), a numpy record: merge ``step``
#: joined objects ``i`` < ``j`` (inputs are 0..n-1) into the new object ``k = n + step`` at
#: ``dij = min(w_i**2p, w_j**2p) * dist2 / R**2`` and squared geometric distance ``dist2``
MERGE = np.dtype([("step", np.int64), ("i", np.int64), ("j", np.int64), ("k", np.int64),
                  ("dij", np.float64), ("dist2", np.float64)])


def merge_history(n_inputs: int, lo: np.ndarray, hi: np.ndarray, q: np.ndarray,
                  d2: np.ndarray, R2: float) -> np.ndarray:
    """The kernels' (and the reference's) history columns, merged ids (lower, higher),
    d_ij numerators ``q`` and squared distances, as one array of :data:`MERGE` records."""
    m = int(lo.shape[0])
    history = np.empty(m, dtype=MERGE)
    history["step"] = np.arange(m, dtype=np.int64)
    history["i"] = lo
    history["j"] = hi
    history["k"] = n_inputs + history["step"]
    history["dij"] = q / R2
    history["dist2"] = d2
    return history


@dataclass(eq=False)
class ClusterSequence:
    """The full merge history of one clustering, FastJet style.

    ``history`` holds one :data:`MERGE` record per merge: merge ``step`` joined objects
    ``i`` < ``j`` into object ``k = n_inputs + step`` at ``dij`` and squared distance
    ``dist2``. The same as plain arrays: ``merged_pairs[k] = (i, j)``, ``new_objects``,
    ``dij``, geometric ``distance`` and ``step``. ``final_ids``, ``final_weights`` (scaled
    weights) and ``final_positions`` describe the objects left at the end.
    """

    definition: GenKTDefinition
    n_inputs: int
    strategy: str
    history: np.ndarray
    final_ids: np.ndarray
    final_weights: np.ndarray
    final_positions: np.ndarray
    _x: np.ndarray = field(repr=False)
    _e: np.ndarray = field(repr=False)
    _w: np.ndarray = field(repr=False)
    _use_cos: bool = field(repr=False)

    #: the recombination that ran (``weighted`` in cosine mode runs ``sphere``)
    recombination: str = "weighted"

    @property
    def n_merges(self) -> int:
        return int(self.history.shape[0])

    @cached_property
    def merged_pairs(self) -> np.ndarray:
        """(lo_id, hi_id) of every merge, int64 ``(m, 2)``."""
        return np.stack([self.history["i"], self.history["j"]], axis=1).reshape(-1, 2)

    @cached_property
    def dij(self) -> np.ndarray:
        return np.ascontiguousarray(self.history["dij"])

    @cached_property
    def distance(self) -> np.ndarray:
        return np.sqrt(self.history["dist2"])

    @property
    def new_objects(self) -> np.ndarray:
        return np.ascontiguousarray(self.history["k"])

    @property
    def step(self) -> np.ndarray:
        return np.ascontiguousarray(self.history["step"])

    def labels(self, R_cut: float | None = None) -> np.ndarray:
        """Cluster label of every input (>= 0, in order of first appearance).

        With ``R_cut < R``, the labels clustering with radius ``R_cut`` would give, taken from
        the stored history: the merges before the first one at distance >= R_cut. Exact for
        p = 0; for p != 0 this raises ``ValueError`` when a pair closer than R_cut is still
        eligible at that point (see the module docstring), re-cluster then.
        """
        from memmaint.clustering.genkt import _kernels as K

        K.ensure_fresh()
        m = self._cut_steps(R_cut)
        return K.labels_from_history(self.n_inputs, *self._ids(), m)

    def _ids(self) -> tuple[np.ndarray, np.ndarray]:
        """The merged ids (lower, higher) as contiguous arrays: the kernels' one layout (a
        strided view would compile them a second time)."""
        return (np.ascontiguousarray(self.history["i"]),
                np.ascontiguousarray(self.history["j"]))

    def n_clusters(self, R_cut: float | None = None) -> int:
        """Number of clusters (at ``R_cut``, under the rules of :meth:`labels`)."""
        return int(self.n_inputs - self._cut_steps(R_cut))

    def _cut_steps(self, R_cut: float | None) -> int:
        d = self.definition
        if R_cut is None or R_cut == d.R:
            return self.n_merges
        if not _is_real(R_cut) or not (0 < R_cut < d.R):
            raise ValueError(f"R_cut must be in (0, R = {d.R:g}], got {R_cut!r}")
        Rc2 = float(R_cut) * float(R_cut)
        beyond = np.flatnonzero(self.history["dist2"] >= Rc2)
        m = int(beyond[0]) if beyond.size else self.n_merges
        if d.p != 0 and m < self.n_merges and self._closer_pair_left(m, Rc2):
            raise ValueError(
                f"cannot re-cut this p = {d.p:g} history at R_cut = {R_cut:g}: a pair closer "
                "than R_cut is still eligible where the history passes R_cut; re-cluster")
        return m

    def _closer_pair_left(self, m: int, Rc2: float) -> bool:
        from memmaint.clustering.genkt import _kernels as K

        K.ensure_fresh()
        d = self.definition
        x, e = self._x.copy(), self._e.copy()
        rec = _REC[self.recombination]
        keep, w = K.replay(x, e, self._w.copy(), *self._ids(), m, rec, 2.0 * d.p)
        xs, es, ws = (np.ascontiguousarray(a[keep]) for a in (x, e, w))
        args = (xs, es, ws, 2.0 * d.p, Rc2, float(d.cos_cut), self._use_cos, rec)
        if xs.shape[1] <= _TREE_MAX_DIM:
            out = K.cluster(*args, True, _tune(), 1)
        else:
            from memmaint.clustering.genkt._graph import graph_cluster

            out = graph_cluster(*args, _TUNING, max_steps=1)
        return out[0].shape[0] > 0


#: the kernels' codes of the recombination schemes (``_kernels_common.WEIGHTED`` ...)
_REC = {"weighted": 0, "wta": 1, "sphere": 2}


def _unit_rows(x: np.ndarray, what: str) -> np.ndarray:
    norms = np.sqrt(np.einsum("ij,ij->i", x, x))
    if x.shape[1] == 0 or (norms == 0).any():
        raise GenKTInputError(f"{what} contain an all-zero vector")
    x /= norms[:, None]
    return x


def _prepare(X, embeddings, weights):
    """(x, e, w, same): float64 copies, e normalised, w scaled; ``same``: the coordinates
    are the embeddings (equal values, before normalising)."""
    x = np.array(X, dtype=np.float64, order="C", copy=True)
    if x.ndim != 2:
        raise GenKTInputError(f"X must be a 2-D array (n_samples, n_features), got shape "
                              f"{x.shape}")
    n, D = x.shape
    if n < 1 or D < 1:
        raise GenKTInputError(f"X must have at least one sample and one feature, got "
                              f"shape {x.shape}")
    if not np.isfinite(x).all():
        raise GenKTInputError("X contains NaN or infinite values")
    same = False
    if embeddings is None:
        e = np.zeros((n, 0))
    else:
        e = np.array(embeddings, dtype=np.float64, order="C", copy=True)
        if e.ndim != 2 or e.shape[0] != n:
            raise GenKTInputError(f"embeddings must have shape ({n}, dim), got {e.shape}")
        if not np.isfinite(e).all():
            raise GenKTInputError("embeddings contain NaN or infinite values")
        same = e.shape == x.shape and np.array_equal(e, x)
        _unit_rows(e, "embeddings")
    if weights is None:
        w = np.ones(n)
    else:
        w = np.array(weights, dtype=np.float64, copy=True).reshape(-1) \
            if np.ndim(weights) else np.full(n, float(weights))
        if w.shape != (n,):
            raise GenKTInputError(f"weights must have shape ({n},), got {w.shape}")
        if not np.isfinite(w).all() or (w < 0).any():
            raise GenKTInputError("weights must be finite and non-negative")
        if w.max() <= 0:
            raise GenKTInputError("weights must not all be zero")
        w = np.maximum(w / w.max(), _W_FLOOR)
    return x, e, w, same


def genkt_cluster(X, embeddings=None, weights=None,
                  definition: GenKTDefinition | None = None,
                  strategy: str = "auto") -> ClusterSequence:
    """Cluster ``X`` (n, D) by generalised-kt sequential recombination.

    ``embeddings`` (n, E) enable the cosine cut; ``weights`` (n,) are importances (scaled by
    their maximum). ``strategy`` changes speed, never results: ``reference`` (numpy, tiny
    inputs only), ``nn`` (FastJet's nearest-neighbour caching with brute-force scans; any
    dimension), ``tree`` (the same caching with a dynamic k-d tree; low dimension),
    ``plane`` (the k-d tree made lean for 2-D without a cosine cut; refused elsewhere),
    ``graph`` (bounded candidate graph; high dimension) or ``auto`` (``plane`` in 2-D
    without a cosine cut for p >= 0, else ``tree`` for D <= 5, else ``graph``).
    """
    d = definition if definition is not None else GenKTDefinition()
    if not isinstance(d, GenKTDefinition):
        raise TypeError(f"definition must be a GenKTDefinition, got {type(d).__name__}")
    if strategy not in STRATEGIES:
        raise InvalidDefinition(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
    x, e, w, same = _prepare(X, embeddings, weights)
    rec = "sphere" if d.recombination == "weighted" and same else d.recombination
    if rec == "sphere":  # positions start on the sphere (the embeddings themselves, if same)
        x = e.copy() if same else _unit_rows(x, "X (sphere recombination)")
    n, D = x.shape
    use_cos = e.shape[1] > 0 and d.cos_cut > -1.0
    plane_ok = D == 2 and not use_cos and rec != "sphere"
    if strategy == "auto":
        strategy = ("plane" if plane_ok and d.p >= 0 else "tree" if D <= _TREE_MAX_DIM
                    else "graph")
    elif strategy == "plane" and not plane_ok:
        raise InvalidDefinition("strategy 'plane' needs 2-D coordinates, no cosine cut and "
                                f"no sphere recombination (got D = {D}"
                                f"{' and a cosine cut' if use_cos else ''}"
                                f"{' and sphere' if rec == 'sphere' else ''})")
    twop, R2, code = 2.0 * float(d.p), float(d.R) * float(d.R), _REC[rec]
    # only p != 0 histories need the inputs again (to check a re-cut, see labels())
    keep = d.p != 0
    x0 = x.copy() if keep else np.zeros((0, D))
    e0 = e.copy() if keep and use_cos else np.zeros((x0.shape[0], 0))
    if strategy == "reference":
        from memmaint.clustering.genkt._reference import reference_cluster

        lo, hi, q, d2, fids, fw, fpos = reference_cluster(
            x, e, w, twop, R2, float(d.cos_cut), use_cos, rec == "wta", rec == "sphere")
    else:
        from memmaint.clustering.genkt import _kernels as K

        compiling = K.prepare(strategy)
        if strategy == "graph":
            from memmaint.clustering.genkt._graph import graph_cluster

            lo, hi, q, d2, fids, fw, fpos = graph_cluster(
                x, e, w, twop, R2, float(d.cos_cut), use_cos, code, _TUNING)
        elif strategy == "plane":
            from memmaint.clustering.genkt._kernels_plane import plane_cluster

            lo, hi, q, d2, fids, fw, fpos = plane_cluster(
                x, w, twop, R2, code, int(_TUNING["leaf_size"]), -1)
        else:
            lo, hi, q, d2, fids, fw, fpos = K.cluster(
                x, e, w, twop, R2, float(d.cos_cut), use_cos, code, strategy == "tree",
                _tune(), -1)
        compiling.done()
        order = np.argsort(fids, kind="stable")  # final objects by id, as the reference
        fids, fw, fpos = fids[order], fw[order], fpos[order]
    log.debug("genkt: %d inputs, %d merges, %d clusters (%s, %s)", n, lo.size, fids.size,
              strategy, rec)
    return ClusterSequence(
        definition=d, n_inputs=n, strategy=strategy,
        history=merge_history(n, lo, hi, q, d2, R2), final_ids=fids, final_weights=fw,
        final_positions=fpos, _x=x0, _e=e0, _w=w if keep else w[:0],
        _use_cos=use_cos, recombination=rec)


class GenKT(ClusterMixin, BaseEstimator):
    """Generalised-kt clustering as a scikit-learn estimator.

    Parameters are those of :class:`GenKTDefinition` plus ``strategy``; their defaults and
    constraints are :class:`~memmaint.maintenance.core.config.GenKTConfig`'s. ``fit`` takes
    ``sample_weight`` (importances) and ``embeddings`` (for the cosine cut, skipped when
    absent). After fitting: ``labels_`` (every sample >= 0), ``n_clusters_`` and
    ``sequence_`` (the :class:`ClusterSequence`, e.g. ``sequence_.labels(R_cut=0.8)``).
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_DEFINITION_CONSTRAINTS,
        "strategy": [StrOptions(set(STRATEGIES))],
    }

    def __init__(self, p=_DEFAULTS.p, R=_DEFAULTS.R, cos_cut=_DEFAULTS.cos_cut,
                 recombination=_DEFAULTS.recombination, strategy="auto"):
        self.p = p
        self.R = R
        self.cos_cut = cos_cut
        self.recombination = recombination
        self.strategy = strategy

    def fit(self, X, y=None, sample_weight=None, embeddings=None):
        from sklearn.utils.validation import _check_sample_weight, check_array, validate_data

        validate_params(self)
        X = validate_data(self, X, dtype=np.float64, ensure_min_samples=1)
        definition = GenKTDefinition(p=self.p, R=self.R, cos_cut=self.cos_cut,
                                     recombination=self.recombination)
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64,
                                                 ensure_non_negative=True)
        if embeddings is not None:
            embeddings = check_array(embeddings, dtype=np.float64)
        seq = genkt_cluster(X, embeddings, sample_weight, definition, self.strategy)
        self.sequence_ = seq
        self.labels_ = seq.labels()
        self.n_clusters_ = seq.n_clusters()
        return self

    def fit_predict(self, X, y=None, sample_weight=None, embeddings=None):
        """Fit and return ``labels_``."""
        return self.fit(X, sample_weight=sample_weight, embeddings=embeddings).labels_
