"""The routing tables' attach search (issue #38): exact below ``attach.EXACT_MAX`` cosines,
inverted-file cells above it, both against a brute-force reference."""

from __future__ import annotations

import numpy as np
import pytest

from memmaint.maintenance.retrieve import attach
from memmaint.maintenance.retrieve.attach import nearest_centroids
from memmaint.maintenance.retrieve.routing import build_routing, unit_rows


def _themed(n: int, k: int, dim: int = 48, spread: float = 0.35, seed: int = 0):
    rng = np.random.default_rng(seed)
    centres = unit_rows(rng.standard_normal((k, dim)))
    topic = rng.integers(0, k, n)
    x = unit_rows(centres[topic] + spread * rng.standard_normal((n, dim)) / np.sqrt(dim))
    return x, centres, topic


def _reference(x, rows, cents):
    sims = x[rows] @ cents.T
    pick = np.argmax(sims, axis=1)
    return pick, sims[np.arange(len(rows)), pick]


def test_the_exact_search_is_the_brute_force_one():
    x, cents, _ = _themed(3000, 700)
    rows = np.arange(0, 3000, 2)
    pick, value = nearest_centroids(x, rows, cents)
    ref_pick, ref_value = _reference(x, rows, cents)
    np.testing.assert_array_equal(pick, ref_pick)
    np.testing.assert_array_equal(value, ref_value)  # same blocks: same bits


def test_above_the_limit_the_cells_find_almost_every_nearest_centroid():
    x, cents, _ = _themed(6000, 900, seed=1)
    rows = np.arange(6000)
    pick, value = nearest_centroids(x, rows, cents, exact_max=0)
    ref_pick, ref_value = _reference(x, rows, cents)
    same = pick == ref_pick
    assert same.mean() >= 0.97, same.mean()
    # where it finds the nearest, the cosine is the exact one (float32 products)
    np.testing.assert_allclose(value[same], ref_value[same], atol=1e-5)
    assert np.all(value <= ref_value + 1e-5)  # a miss returns a worse centroid, never better


@pytest.mark.parametrize("limit", [None, 0])
def test_routing_attaches_noise_through_either_search(monkeypatch, limit):
    from types import SimpleNamespace

    x, _cents, topic = _themed(2000, 40, spread=0.6, seed=2)
    labels = np.where(np.arange(2000) % 3 == 0, -1, topic)  # every third memory is noise
    mems = [SimpleNamespace(id=f"m{i}", namespace="ns", text=f"topic {t} note {i}",
                            kind="fact") for i, t in enumerate(topic)]
    if limit is not None:
        monkeypatch.setattr(attach, "EXACT_MAX", limit)
    table = build_routing(mems, labels, x, attach_floor=0.5).namespaces["ns"]
    noise = [i for i in range(2000) if labels[i] == -1]
    right = sum(table.assignment.get(f"m{i}") == topic[i] for i in noise)
    assert right >= 0.95 * len(noise)


def test_unit_rows_by_blocks_equals_the_whole_array_at_once(monkeypatch):
    """Blocking changes nothing: each row's norm is its own (bit for bit)."""
    import numpy as np

    from memmaint.maintenance.retrieve import routing

    monkeypatch.setattr(routing, "UNIT_BLOCK", 7)
    x = np.random.default_rng(3).standard_normal((50, 16)).astype(np.float32)
    x[4] = 0.0
    a = np.asarray(x, dtype=np.float64)
    norms = np.linalg.norm(a, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    assert np.array_equal(routing.unit_rows(x), a / norms)
