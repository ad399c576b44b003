"""A clusterer's merge history, carried from clustering to the plan and the report (issue #31).

Both clusterers build clusters by merging: GenKT records every recombination
(:class:`~memmaint.clustering.genkt.estimator.ClusterSequence`), HDBSCAN builds a single-linkage
tree over mutual-reachability distances before it selects clusters. :class:`MergeHistory` is
the common form, FastJet's and SciPy's alike: merge ``k`` joined objects ``pairs[k]`` (inputs
are ``0..n-1``; merge ``k`` created object ``n + k``) at ``distance[k]``.

What the job does with it:

- :meth:`MergeHistory.joined`: the step and distance at which each memory first joined another
  (the report's "joined at step k, distance d" for every decision);
- :meth:`MergeHistory.split`: clusters larger than a limit cut along their own history (the
  last merges undone first) instead of being handed whole to a planner with a size limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["MergeHistory", "history_of", "split_large"]


@dataclass(frozen=True, eq=False)
class MergeHistory:
    """Merge ``k`` joined ``pairs[k]`` (int64, ``(m, 2)``) at ``distance[k]`` (``(m,)``);
    inputs are objects ``0..n_inputs-1`` and merge ``k`` made object ``n_inputs + k``.
    ``metric`` names the distance (for explanations)."""

    n_inputs: int
    pairs: np.ndarray
    distance: np.ndarray
    metric: str = "distance"

    @classmethod
    def from_genkt(cls, sequence: Any) -> MergeHistory:
        """From a GenKT :class:`~memmaint.clustering.genkt.estimator.ClusterSequence`."""
        return cls(int(sequence.n_inputs), np.asarray(sequence.merged_pairs, dtype=np.int64),
                   np.asarray(sequence.distance, dtype=np.float64), "genkt distance")

    @classmethod
    def from_linkage(cls, linkage: Any, metric: str = "distance") -> MergeHistory:
        """From a SciPy-style linkage matrix ``(n - 1, 4)``: left, right, distance, size."""
        Z = np.asarray(linkage, dtype=np.float64)
        return cls(Z.shape[0] + 1, Z[:, :2].astype(np.int64), Z[:, 2].copy(), metric)

    @property
    def n_merges(self) -> int:
        return int(self.pairs.shape[0])

    def joined(self) -> tuple[np.ndarray, np.ndarray]:
        """For each input, the step of the merge that first took it (``-1``: never merged)
        and that merge's distance (NaN when never merged)."""
        step = np.full(self.n_inputs, -1, dtype=np.int64)
        dist = np.full(self.n_inputs, np.nan)
        ks = np.arange(self.n_merges, dtype=np.int64)
        for column in (0, 1):
            ids = self.pairs[:, column]
            inputs = ids < self.n_inputs
            step[ids[inputs]] = ks[inputs]  # an input object takes part in one merge at most
            dist[ids[inputs]] = self.distance[inputs]
        return step, dist

    def split(self, labels: Any, max_size: int) -> np.ndarray:
        """``labels`` (int64 copy) with every cluster of more than ``max_size`` members cut
        into pieces of at most ``max_size``: its members' merges are replayed in order and a
        merge that would make a piece larger than ``max_size`` is left out, so the pieces are
        the tightest groups the history made. New pieces get labels above the current maximum;
        noise (-1) and clusters within the limit are untouched."""
        out = np.array(labels, dtype=np.int64, copy=True)
        if max_size < 1 or out.size == 0:
            return out
        ids, counts = np.unique(out[out >= 0], return_counts=True)
        big = ids[counts > max_size]
        if big.size == 0:
            return out
        next_label = int(out.max()) + 1
        for label in big:
            next_label = self._split_one(out, np.flatnonzero(out == label), max_size,
                                         next_label)
        return out

    def _split_one(self, out: np.ndarray, members: np.ndarray, max_size: int,
                   next_label: int) -> int:
        """Union-find over ``members``: the history's merges in order, each joining a member
        of either side (objects may also hold memories of other clusters or noise) unless the
        group would grow beyond ``max_size``; writes the pieces' labels into ``out``."""
        n = self.n_inputs
        group = np.arange(n, dtype=np.int64)
        size = np.ones(n, dtype=np.int64)
        member_of = np.full(n + self.n_merges, -1, dtype=np.int64)  # object -> a member in it
        member_of[members] = members

        def find(i: int) -> int:
            while group[i] != i:
                group[i] = group[group[i]]
                i = int(group[i])
            return i

        for k, (a, b) in enumerate(self.pairs):
            ma, mb = int(member_of[a]), int(member_of[b])
            member_of[n + k] = ma if ma >= 0 else mb
            if ma < 0 or mb < 0:
                continue
            ga, gb = find(ma), find(mb)
            if ga != gb and size[ga] + size[gb] <= max_size:
                group[gb] = ga
                size[ga] += size[gb]
        labels_of: dict[int, int] = {}
        for i in members:  # the piece of the first member keeps the cluster's label
            root = find(int(i))
            if root not in labels_of:
                labels_of[root] = int(out[i]) if not labels_of else next_label
                next_label += bool(len(labels_of) > 1)
            out[i] = labels_of[root]
        return next_label


def history_of(clusterer: Any) -> MergeHistory | None:
    """The merge history a fitted clusterer kept (its ``history_``), or ``None``."""
    history = getattr(clusterer, "history_", None)
    return history if isinstance(history, MergeHistory) else None


def split_large(labels: Any, embeddings: Any, max_size: int,
                history: MergeHistory | None = None) -> np.ndarray:
    """``labels`` with every cluster of more than ``max_size`` members cut into pieces of at
    most ``max_size``: along ``history`` (the clusterer's) when given, else along an
    average-linkage history of the cluster's own embeddings (cosine distance), so a pool
    clustered without a history (sharded) is cut the same way. Noise and small clusters are
    untouched; new pieces get labels above the current maximum."""
    out = np.array(labels, dtype=np.int64, copy=True)
    if history is not None and history.n_inputs == out.size:
        return history.split(out, max_size)
    if max_size < 1 or out.size == 0:
        return out
    from scipy.cluster.hierarchy import linkage

    E = np.asarray(embeddings, dtype=np.float64)
    ids, counts = np.unique(out[out >= 0], return_counts=True)
    next_label = int(out.max()) + 1
    for label in ids[counts > max_size]:
        members = np.flatnonzero(out == label)
        parts = _bisect(E, members, max(LINKAGE_MAX, max_size))
        for k, part in enumerate(parts):
            local = MergeHistory.from_linkage(linkage(E[part], "average", metric="cosine")) \
                if part.size > max_size else None
            pieces = local.split(np.zeros(part.size, dtype=np.int64), max_size) \
                if local is not None else np.zeros(part.size, dtype=np.int64)
            first = label if k == 0 else next_label
            if k:
                next_label += 1
            out[part] = np.where(pieces == 0, first, pieces - 1 + next_label)
            next_label += int(pieces.max())
    return out


#: Members of one cluster up to which ``split_large`` cuts it along an average linkage of
#: their own (its distances take ``8 n**2 / 2`` bytes: 268 MB here); a larger cluster (a
#: full rebuild of a 1M pool makes some of 20,000 and more) is first halved by spherical
#: 2-means, seeded, until each part is within it.
LINKAGE_MAX = 8192


def _bisect(E: np.ndarray, members: np.ndarray, limit: int) -> list[np.ndarray]:
    """``members`` cut in two by a seeded spherical 2-means, recursively, into parts of at
    most ``limit`` (a part the 2-means cannot cut is halved in row order)."""
    if members.size <= limit:
        return [members]
    from memmaint.clustering.cells import kmeans, nearest_centres

    x = E[members]
    unit = (x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)).astype(np.float32)
    side = nearest_centres(unit, kmeans(unit, 2, np.random.default_rng(members.size)), 1)[:, 0]
    if side.min() == side.max():
        side = (np.arange(members.size) >= members.size // 2).astype(side.dtype)
    return [p for s in (0, 1) for p in _bisect(E, members[side == s], limit)]
