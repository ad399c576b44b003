"""The place stage's nearest search above ``PLACE_EXACT_MAX`` (issue #38 item 3): an
inverted file (``incremental._nearest_cells``) instead of the exact search; below the
threshold the exact search runs unchanged."""

from __future__ import annotations

import numpy as np
import pytest

from memmaint.maintenance.job import incremental
from memmaint.maintenance.job.incremental import _nearest, _nearest_cells, _unit, nearest_rows

COS = 0.6  # incremental_cos's default


def clustered_pool(size: int, changed: int, dim: int = 128, seed: int = 0):
    """Queries, pool and pool labels: ``size / 12`` topics in ``size / 500`` themes, members
    around their topic at cosine 0.37-0.8 with each other, 80% of topics clusters (their
    label), the rest noise; 70% of the queries new members of old topics, 30% of new ones
    (as ``benchmarks/place_1m.py``'s clustered pool, smaller)."""
    rng = np.random.default_rng(seed)
    topics, new_topics, themes = size // 12, max(1, changed // 7), max(1, size // 500)
    theme = _unit(rng.standard_normal((themes, dim), dtype=np.float32))
    raw = rng.standard_normal((topics + new_topics, dim), dtype=np.float32)
    centres = _unit(theme[rng.integers(0, themes, len(raw))]
                    + np.float32(1.2 / dim ** 0.5) * raw)
    spread = rng.uniform(0.5, 1.3, size=len(raw)).astype(np.float32)
    topic = np.concatenate([np.arange(topics), rng.integers(0, topics, size - topics)])
    n_old = changed - int(changed * 0.3)
    qtopic = np.concatenate([rng.integers(0, topics, n_old),
                             topics + rng.integers(0, new_topics, changed - n_old)])

    def draw(t):
        g = rng.standard_normal((len(t), dim), dtype=np.float32) / np.float32(dim ** 0.5)
        return _unit(centres[t] + spread[t, None] * g)

    labels = np.where(rng.random(topics)[topic] < 0.8, topic, -1).astype(np.int64)
    return draw(qtopic), draw(topic), labels


def decisions(best, arg, labels):
    """The place stage's decision: joined label (>= 0), ``-2 - row`` (a noise nearest pulled
    in), -1 (noise)."""
    near = best >= COS
    return np.where(near & (labels[arg] >= 0), labels[arg], np.where(near, -2 - arg, -1))


def agreement(queries, base, labels, **kw):
    """Shares of the queries whose nearest row and whose placement decision the cells find
    as the exact search does, and how many of them the exact search places (cosine >= COS)."""
    eb, ea = _nearest(queries, base)
    ab, aa = _nearest_cells(queries, base, **kw)
    assert (ab <= eb + 1e-5).all()  # never better than the exact nearest
    found = aa == ea
    assert np.allclose(ab[found], eb[found], atol=1e-5)
    same = decisions(ab, aa, labels) == decisions(eb, ea, labels)
    return float(found.mean()), float(same.mean()), int((eb >= COS).sum())


@pytest.fixture(scope="module")
def pool():
    return clustered_pool(24_000, 1_500)


def test_cells_find_the_exact_nearest_on_a_clustered_pool(pool):
    found, same, placed = agreement(*pool)
    assert placed >= 300  # the pool exercises the cut: many queries have a near memory
    assert found >= 0.97
    assert same >= 0.99


def test_the_agreement_check_can_fail(pool):
    # one probe among many cells: the nearest is often in a cell the query does not search
    found, same, _ = agreement(*pool, probes=1, cells=400)
    assert found < 0.97 and same < 0.99


def test_below_the_threshold_the_search_is_exact(pool, monkeypatch):
    queries, base, _ = pool
    assert len(base) <= incremental.PLACE_EXACT_MAX
    called = []
    monkeypatch.setattr(incremental, "_nearest_cells",
                        lambda *a, **k: called.append(1) or _nearest_cells(*a, **k))
    eb, ea = _nearest(queries, base)
    nb, na = nearest_rows(queries, base)
    assert not called and (nb == eb).all() and (na == ea).all()
    monkeypatch.setattr(incremental, "PLACE_EXACT_MAX", len(base) - 1)
    nearest_rows(queries[:incremental.PLACE_BLOCK - 1], base)  # too few queries: exact
    assert not called
    nearest_rows(queries, base)
    assert called


def test_cells_are_deterministic_and_handle_tiny_inputs(pool):
    queries, base, _ = pool
    a = _nearest_cells(queries[:300], base)
    b = _nearest_cells(queries[:300], base)
    assert (a[0] == b[0]).all() and (a[1] == b[1]).all()
    best, arg = _nearest_cells(queries[:5], base[:3])
    eb, ea = _nearest(queries[:5], base[:3])
    assert (arg == ea).all() and np.allclose(best, eb)
    best, arg = _nearest_cells(queries[:0], base)
    assert best.shape == (0,) and arg.shape == (0,)


def test_an_incremental_night_places_through_the_cells_above_the_threshold(tmp_path,
                                                                           monkeypatch):
    """The job's wiring: with the threshold lowered, the night's placement reports the cells
    and (on this tiny pool, every cell probed) decides as the exact search."""
    from test_incremental import additions, inc_cfg, plan_of, pool

    from memmaint.maintenance.core.records import utcnow
    from memmaint.maintenance.job.run import run_job
    from memmaint.maintenance.store.sqlite import SQLiteStore

    path = tmp_path / "pool.db"
    with SQLiteStore(path) as store:
        store.add_memories(pool())
        assert run_job(store, inc_cfg()).status == "succeeded"
        store.add_memories(additions("new"))
    now = utcnow()
    exact_report, exact = plan_of(path, inc_cfg(), now=now)
    monkeypatch.setattr(incremental, "PLACE_EXACT_MAX", 0)
    monkeypatch.setattr(incremental, "PLACE_BLOCK", 1)
    cells_report, cells = plan_of(path, inc_cfg(), now=now)
    assert "place_search" not in exact_report.apply["incremental"]["ns"]
    assert cells_report.apply["incremental"]["ns"]["place_search"] == "cells"
    assert cells.decisions() == exact.decisions()
