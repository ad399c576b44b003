"""The noise regrouping's searches (issue #38): the exact attach search tiled over rows and
columns gives a slow reference's answer exactly; above ``regroup.EXACT_MAX`` cosines the
components and the attach search go through the cells of ``clustering.cells``, measured here
against the exact regrouping on a synthetic pool big enough to be cut into many cells."""

from __future__ import annotations

import numpy as np
import pytest

from memmaint.clustering import regroup
from memmaint.clustering.regroup import _nearest, regroup_noise, similarity_components

THRESHOLD = 0.75  # regroup_threshold of the default agents (min of merge and cover)


def slow_nearest(x: np.ndarray, rows: np.ndarray, cols: np.ndarray):
    """One row at a time, in float64 (exact on small integers): the best value and the first
    column (in ``cols`` order) reaching it; zero rows and columns are near nothing."""
    best = np.full(rows.size, -np.inf)
    arg = np.zeros(rows.size, dtype=np.int64)
    live = [c for c in cols if np.any(x[c] != 0)]
    for k, r in enumerate(rows):
        if not live or not np.any(x[r] != 0):
            continue
        for c in live:
            v = float(np.dot(x[r].astype(np.float64), x[c].astype(np.float64)))
            if v > best[k]:
                best[k], arg[k] = v, c
    return best, arg


@pytest.mark.parametrize("block", [1, 7, 64, 1000, 5000, regroup.BLOCK_ENTRIES])
@pytest.mark.parametrize("tile", [3, 16, regroup.TILE])
def test_the_tiled_attach_search_equals_a_slow_reference_exactly(block, tile, monkeypatch):
    # small integer coordinates: every float32 product is exact, whatever the BLAS kernel,
    # and many rows tie for the best (the first column must win, across tiles too)
    monkeypatch.setattr(regroup, "TILE", tile)
    rng = np.random.default_rng(block + tile)
    x = rng.integers(-2, 3, size=(260, 6)).astype(np.float32)
    x[[5, 40, 77]] = 0  # zero rows: near nothing, and never anyone's nearest
    x[100:130] = x[130:160]  # exact copies on either side of tile borders
    rows = rng.permutation(260)[:90]
    cols = np.setdiff1d(np.arange(260), rows)[::-1].copy()  # not in row order
    best, arg = _nearest(x, rows, cols, block)
    want_best, want_arg = slow_nearest(x, rows, cols)
    np.testing.assert_array_equal(best.astype(np.float64), want_best)
    np.testing.assert_array_equal(arg[np.isfinite(want_best)], want_arg[np.isfinite(want_best)])
    empty_best, _ = _nearest(x, rows, np.array([5, 40], dtype=np.int64), block)
    assert np.isneginf(empty_best).all()


def themed_pool(size: int, dim: int = 64, seed: int = 0):
    """Vectors and HDBSCAN-like labels: topics of about 8 members in ``size / 400`` themes,
    members at cosine about 0.65-0.95 with each other; 60% of topics are clusters (their label,
    10% of their members left as noise), the rest noise."""
    rng = np.random.default_rng(seed)

    def unit(v):
        return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)

    topics, themes = size // 8, max(1, size // 400)
    theme = unit(rng.standard_normal((themes, dim)))
    centres = unit(theme[rng.integers(0, themes, topics)]
                   + 1.2 / dim ** 0.5 * rng.standard_normal((topics, dim)))
    spread = rng.uniform(0.2, 0.7, size=topics)
    topic = np.concatenate([np.arange(topics), rng.integers(0, topics, size - topics)])
    x = unit(centres[topic] + spread[topic, None] * rng.standard_normal((size, dim))
             / dim ** 0.5)
    clustered = rng.random(topics) < 0.6
    labels = np.where(clustered[topic] & (rng.random(size) >= 0.1), topic, -1)
    return x, labels.astype(np.int64)


def canonical(out: np.ndarray, before: np.ndarray) -> np.ndarray:
    """What regrouping did to each memory, free of the new labels' numbering: an old label
    (noise left alone, or the cluster it attached to), else ``-2 - first row`` of its new
    cluster."""
    base = int(before.max()) + 1
    res = out.copy()
    fresh = out >= base
    firsts = {int(v): int(np.flatnonzero(out == v)[0]) for v in np.unique(out[fresh])}
    res[fresh] = [-2 - firsts[int(v)] for v in out[fresh]]
    return res


@pytest.fixture(scope="module")
def pool():
    return themed_pool(40_000)


def test_the_cells_regroup_as_the_exact_search_does(pool):
    x, labels = pool
    noise = labels < 0
    kw = {"attach": True, "max_size": 50}
    exact = regroup_noise(labels, x, THRESHOLD, **kw)
    cells = regroup_noise(labels, x, THRESHOLD, exact_max=0, **kw)
    # the pool exercises every branch: attached, new clusters, left alone
    attached = noise & (exact >= 0) & (exact <= labels.max())
    assert attached.sum() > 1_500 and (exact > labels.max()).sum() > 10_000
    assert (noise & (exact < 0)).sum() > 100
    counts = np.bincount(labels[~noise])
    kept = ~noise & (counts[np.maximum(labels, 0)] > 1)  # singletons are candidates too
    np.testing.assert_array_equal(cells[kept], labels[kept])  # clusters only grow
    same = canonical(cells, labels)[noise] == canonical(exact, labels)[noise]
    # measured: 99.66% of the 18,587 noise memories regrouped alike, 99.91% of the 2,243
    # attached ones attached to the same cluster
    assert same.mean() >= 0.98, same.mean()
    assert (canonical(cells, labels) == canonical(exact, labels))[attached].mean() >= 0.98


def test_approximate_components_only_miss_edges(pool):
    x, labels = pool
    rows = np.flatnonzero(labels < 0)
    exact = similarity_components(x[rows], THRESHOLD)
    cells = similarity_components(x[rows], THRESHOLD, exact_max=0)
    # every pair the cells join the exact components join too (a finer partition)
    pairs = np.unique(np.stack([cells, exact], axis=1), axis=0)
    assert np.unique(pairs[:, 0]).size == pairs.shape[0]
    sizes = np.bincount(exact)
    same = [np.array_equal(cells[exact == c] == cells[exact == c][0], np.ones(s, bool))
            for c, s in enumerate(sizes) if s > 1]
    assert np.mean(same) >= 0.97
    # deterministic (seeded cells)
    np.testing.assert_array_equal(cells, similarity_components(x[rows], THRESHOLD, exact_max=0))


def test_the_threshold_picks_the_search(monkeypatch):
    x, labels = themed_pool(2_000, seed=1)
    calls = []
    real = regroup._nearest_cells
    monkeypatch.setattr(regroup, "_nearest_cells",
                        lambda *a: calls.append(1) or real(*a))
    m = int((labels < 0).sum())
    exact = regroup_noise(labels, x, THRESHOLD, attach=True)
    assert not calls  # default threshold: far above this pool
    same = regroup_noise(labels, x, THRESHOLD, attach=True,
                         exact_max=m * (labels >= 0).sum())
    assert not calls
    np.testing.assert_array_equal(same, exact)
    regroup_noise(labels, x, THRESHOLD, attach=True, exact_max=m * (labels >= 0).sum() - 1)
    assert calls
