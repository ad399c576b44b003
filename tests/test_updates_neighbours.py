"""The update grouping's neighbour search above EXACT_MAX: approximate, sub-quadratic cells."""

from __future__ import annotations

import numpy as np

from memmaint.maintenance.agents import updates
from memmaint.maintenance.agents.neighbours import approximate_pairs
from memmaint.maintenance.agents.updates import NEIGHBOURS, _neighbour_pairs
from memmaint.maintenance.core.config import AgentsConfig
from memmaint.maintenance.core.records import Memory


def _topics(n_topics: int, per: int, dim: int = 48, spread: float = 0.08,
            seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n_topics, dim))
    x = np.repeat(centres, per, axis=0) + spread * np.sqrt(dim) * rng.normal(
        size=(n_topics * per, dim)) / np.sqrt(dim)
    x = x[rng.permutation(len(x))].astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_cells_find_the_exact_pairs_of_separate_topics():
    """5,000 memories in 400 tight topics (12-13 each, far apart): every exact pair (each
    memory's 8 nearest at cosine >= 0.4) is found, nothing below the floor, and the same
    pairs twice (seeded)."""
    x = _topics(400, 13)[:5000]
    rows = np.arange(7, 5007)
    exact = _neighbour_pairs(x, rows)
    got = approximate_pairs(x, rows, NEIGHBOURS, 0.4)
    assert got.shape[1] == 2 and (got[:, 0] < got[:, 1]).all()
    pos = {int(r): i for i, r in enumerate(rows)}
    cos = np.array([float(x[pos[a]] @ x[pos[b]]) for a, b in got.tolist()])
    assert (cos >= 0.4 - 1e-6).all()
    found = set(map(tuple, got.tolist()))
    assert len(exact & found) / len(exact) >= 0.99, len(exact & found) / len(exact)
    assert np.array_equal(got, approximate_pairs(x, rows, NEIGHBOURS, 0.4))


def test_cells_of_identical_vectors_are_still_cut():
    """A namespace of one repeated vector (k-means cannot cut it) gives cells of bounded size
    and each memory some neighbours."""
    x = np.ones((5000, 8), dtype=np.float32) / np.sqrt(8)
    got = approximate_pairs(x, np.arange(5000), NEIGHBOURS, 0.4)
    assert len(np.unique(got)) == 5000
    assert len(got) <= 5000 * NEIGHBOURS


def test_group_updates_above_exact_max_groups_as_the_exact_search(monkeypatch):
    """The same restatements grouped whether the neighbours come from the exact product or the
    cells (2,400 memories in 600 topics far apart: the cells miss nothing)."""
    rng = np.random.default_rng(5)
    centres = rng.normal(size=(600, 48))
    texts, rows = [], []
    for t in range(600):
        texts += [f"Project {t} deploys run on port {8000 + t}."] * 3 + [f"User {t} likes tea."]
        rows += [centres[t] + 0.05 * rng.normal(size=48) for _ in range(4)]
    vecs = np.asarray(rows, dtype=np.float32)
    mems = [Memory(id=f"m{i}", text=s) for i, s in enumerate(texts)]
    labels = np.full(len(mems), -1)
    exact = updates.group_updates(mems, labels, vecs, AgentsConfig(), [np.arange(len(mems))])
    monkeypatch.setattr(updates, "EXACT_MAX", 10)
    approx = updates.group_updates(mems, labels, vecs, AgentsConfig(), [np.arange(len(mems))])
    assert (exact >= 0).sum() >= 1800
    assert np.array_equal(exact, approx)
