"""Which members of a large touched cluster an incremental run plans (issue #38).

An incremental night plans the clusters its new, changed or swept memories touch
(:mod:`~memmaint.maintenance.job.incremental`). A touched cluster of thousands of members is
planned around what changed in it instead of whole: each anchor (a new, changed or swept
member) with its :data:`AROUND_K` nearest unchanged members. The rule agents pair a member of
such a cluster only with candidates (its nearest, ``agents.updates.PARTNER_K`` = 16) anyway,
and what the anchors' neighbourhoods leave out stays as the last run left it. The planned
part gets labels of its own after the run (the cluster splits in two in the state); a full
rebuild joins them again.
"""

from __future__ import annotations

import numpy as np

#: A touched cluster larger than this is planned around what changed in it, not whole
#: (:func:`around_changes`): the rule agents read only candidate pairs in such a cluster
#: anyway (``agents.updates.ALL_PAIRS_MAX``), and on a 1M pool ten clusters of 4,000-18,000
#: memories made 60% of a night's planned memories for a few hundred new ones.
AROUND_MIN = 256
#: Unchanged members planned with each new, changed or swept member of such a cluster: its
#: nearest by cosine (the candidates the rules would pair it with: ``PARTNER_K`` = 16).
AROUND_K = 32


def around_changes(labels: np.ndarray, members: np.ndarray, anchors: np.ndarray,
                   anchor_labels: np.ndarray, unit: np.ndarray, *, block: int = 256
                   ) -> tuple[np.ndarray, int]:
    """``members`` (the unchanged members of touched clusters, a mask) with each cluster of
    more than :data:`AROUND_MIN` cut to the :data:`AROUND_K` nearest members of each of its
    ``anchors`` (rows of new, changed or swept memories, in cluster ``anchor_labels``); a
    large cluster with no anchor (touched only by a memory leaving it) is not planned. The
    rest keeps its label and stays as the last run left it. Also gives how many clusters
    were cut."""
    rows = np.flatnonzero(members)
    if not rows.size:
        return members, 0
    labs = labels[rows]
    counts = np.bincount(labs)
    big = np.flatnonzero(counts > AROUND_MIN)
    if not big.size:
        return members, 0
    out = members.copy()
    order = np.argsort(labs, kind="stable")
    starts = np.concatenate(([0], np.cumsum(counts)))
    a_order = np.argsort(anchor_labels, kind="stable")
    a_sorted = anchor_labels[a_order]
    for t in big.tolist():
        m_rows = rows[order[starts[t]:starts[t + 1]]]
        lo, hi = np.searchsorted(a_sorted, [t, t + 1])
        a_rows = anchors[a_order[lo:hi]]
        out[m_rows] = False
        k = min(AROUND_K, len(m_rows))
        for s in range(0, len(a_rows), block):
            sims = unit[a_rows[s:s + block]] @ unit[m_rows].T
            near = np.argpartition(-sims, k - 1, axis=1)[:, :k]
            out[m_rows[near.ravel()]] = True
        out[a_rows[members[a_rows]]] = True  # a swept member is planned whatever its ties
    return out, int(big.size)
