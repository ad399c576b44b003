r"""Clustering quality: B-cubed precision, recall and F1 (optionally weighted), and a report.

B-cubed (Bagga and Baldwin 1998; Amigo et al. 2009) scores every item. Write :math:`C(i)` for
the predicted cluster of item :math:`i`, :math:`L(i)` for its true class and :math:`w_i \ge 0`
for its importance weight (all 1 when unweighted). Then

.. math::

    P_i = \frac{\sum_{j \in C(i),\ L(j) = L(i)} w_j}{\sum_{j \in C(i)} w_j}, \qquad
    R_i = \frac{\sum_{j \in L(i),\ C(j) = C(i)} w_j}{\sum_{j \in L(i)} w_j},

    P = \frac{\sum_i w_i P_i}{\sum_i w_i}, \qquad R = \frac{\sum_i w_i R_i}{\sum_i w_i},
    \qquad F_1 = \frac{2PR}{P + R}.

In words: item i's precision is the weight of the items in its cluster that share its class
over the weight of its whole cluster (j = i included), and the average over items is weighted
by w_i; recall is the same with clusters and classes swapped. With all weights equal this is
the usual unweighted B-cubed. Grouping the items by (cluster, class) cell with weight
:math:`W_{cl}` gives the closed form used here,
:math:`P = \sum_{c,l} W_{cl}^2 / W_c \,/\, W` and :math:`R = \sum_{c,l} W_{cl}^2 / W_l \,/\, W`,
computed from contingency sums in O(n log n) (the log from sorting labels).

Noise: predicted label ``-1`` is HDBSCAN's noise. ``noise="one_cluster"`` scores all noise
items as one cluster (as the method memmaint follows scores HDBSCAN); ``noise="singletons"``
puts each noise item in a cluster of its own. The policy applies to ``labels_pred`` only;
true labels are taken as they are (any hashable values).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from memmaint.maintenance.core.errors import InputError

__all__ = ["NOISE_POLICIES", "BCubed", "ClusterReport", "bcubed", "cluster_report"]

NOISE_POLICIES = ("one_cluster", "singletons")


@dataclass(frozen=True)
class BCubed:
    """B-cubed precision, recall and their harmonic mean, each in [0, 1]."""

    precision: float
    recall: float
    f1: float


@dataclass(frozen=True)
class ClusterReport:
    """Everything :func:`cluster_report` measures for one clustering.

    ``bcubed_weighted`` equals ``bcubed`` when no weights were given. ``n_clusters`` counts
    predicted clusters other than noise; ``n_noise`` counts items labelled ``-1``. ARI, AMI
    and V-measure (scikit-learn) see the labels after the noise policy is applied.
    """

    n_items: int
    n_classes: int
    n_clusters: int
    n_noise: int
    noise: str
    bcubed: BCubed
    bcubed_weighted: BCubed
    ari: float
    ami: float
    v_measure: float


def _labels(values: Any, name: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise InputError(f"{name} must be one-dimensional, got shape {arr.shape}")
    return arr


def _is_noise(labels_pred: np.ndarray) -> np.ndarray:
    if labels_pred.dtype.kind in "iuf":
        return labels_pred == -1
    return np.zeros(labels_pred.shape, dtype=bool)


def _codes(labels: np.ndarray) -> np.ndarray:
    """Dense integer codes 0..k-1 for any labels (ints, strings...)."""
    try:
        return np.unique(labels, return_inverse=True)[1].reshape(-1)
    except TypeError:  # mixed types that numpy cannot sort
        as_str = np.array([f"{type(v).__name__}:{v}" for v in labels.tolist()])
        return np.unique(as_str, return_inverse=True)[1].reshape(-1)


def _pred_codes(labels_pred: np.ndarray, noise: str) -> np.ndarray:
    """Cluster codes after the noise policy (singleton noise items get fresh codes)."""
    codes = _codes(labels_pred)
    if noise == "singletons":
        is_noise = _is_noise(labels_pred)
        k = int(np.count_nonzero(is_noise))
        if k:
            codes = codes.copy()
            codes[is_noise] = codes.max() + 1 + np.arange(k)
    return codes


def _validate(labels_true: Any, labels_pred: Any, weights: Any,
              noise: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    if noise not in NOISE_POLICIES:
        raise InputError(f"noise policy {noise!r} is not one of {', '.join(NOISE_POLICIES)}")
    t = _labels(labels_true, "labels_true")
    p = _labels(labels_pred, "labels_pred")
    if t.shape[0] != p.shape[0]:
        raise InputError(f"labels_true has {t.shape[0]} items but labels_pred has "
                         f"{p.shape[0]}")
    if t.shape[0] == 0:
        raise InputError("no items to score (empty labels)")
    w = None
    if weights is not None:
        try:
            w = np.asarray(weights, dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError("weights must be numbers") from None
        if w.ndim != 1 or w.shape[0] != t.shape[0]:
            raise InputError(f"weights has shape {w.shape} but there are {t.shape[0]} items")
        bad = np.flatnonzero(~np.isfinite(w))
        if bad.size:
            raise InputError(f"weight of item {int(bad[0])} is {w[bad[0]]} (must be finite)")
        neg = np.flatnonzero(w < 0)
        if neg.size:
            raise InputError(f"weight of item {int(neg[0])} is negative ({w[neg[0]]})")
        if not w.sum() > 0:
            raise InputError("weights sum to zero")
    return t, p, w


def _bcubed_codes(true_codes: np.ndarray, pred_codes: np.ndarray,
                  w: np.ndarray | None) -> BCubed:
    n = true_codes.shape[0]
    if w is None:
        w = np.ones(n)
    n_true = int(true_codes.max()) + 1
    cell_key = pred_codes.astype(np.int64) * n_true + true_codes
    cells, cell_of = np.unique(cell_key, return_inverse=True)
    cell_w = np.bincount(cell_of.reshape(-1), weights=w)
    cell_pred = cells // n_true
    cell_true = cells % n_true
    pred_w = np.bincount(pred_codes, weights=w)[cell_pred]
    true_w = np.bincount(true_codes, weights=w)[cell_true]
    total = float(w.sum())
    sq = cell_w * cell_w
    # A cluster (class) of zero total weight contributes nothing: its items all weigh 0.
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = float(np.where(pred_w > 0, sq / pred_w, 0.0).sum() / total)
        recall = float(np.where(true_w > 0, sq / true_w, 0.0).sum() / total)
    precision, recall = min(precision, 1.0), min(recall, 1.0)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return BCubed(precision, recall, f1)


def bcubed(labels_true: Any, labels_pred: Any, weights: Any = None,
           noise: str = "one_cluster") -> BCubed:
    """B-cubed precision, recall and F1 of ``labels_pred`` against ``labels_true``.

    ``weights`` (non-negative, not all zero) weighs items as the module docstring writes;
    ``None`` gives unweighted B-cubed. ``noise`` is ``"one_cluster"`` or ``"singletons"``.
    Raises :class:`InputError` for empty input, mismatched lengths or bad weights.
    """
    t, p, w = _validate(labels_true, labels_pred, weights, noise)
    return _bcubed_codes(_codes(t), _pred_codes(p, noise), w)


def cluster_report(labels_true: Any, labels_pred: Any, weights: Any = None,
                   noise: str = "one_cluster") -> ClusterReport:
    """B-cubed (unweighted and weighted), cluster counts, ARI, AMI and V-measure."""
    from sklearn.metrics import (
        adjusted_mutual_info_score,
        adjusted_rand_score,
        v_measure_score,
    )

    t, p, w = _validate(labels_true, labels_pred, weights, noise)
    true_codes = _codes(t)
    pred_codes = _pred_codes(p, noise)
    is_noise = _is_noise(p)
    unweighted = _bcubed_codes(true_codes, pred_codes, None)
    weighted = unweighted if w is None else _bcubed_codes(true_codes, pred_codes, w)
    return ClusterReport(
        n_items=int(t.shape[0]),
        n_classes=int(true_codes.max()) + 1,
        n_clusters=int(np.unique(pred_codes[~is_noise]).size),
        n_noise=int(np.count_nonzero(is_noise)),
        noise=noise,
        bcubed=unweighted,
        bcubed_weighted=weighted,
        ari=float(adjusted_rand_score(true_codes, pred_codes)),
        ami=float(adjusted_mutual_info_score(true_codes, pred_codes)),
        v_measure=float(v_measure_score(true_codes, pred_codes)),
    )
