"""Plans independent of floating-point noise (issue #31): the reduced map, and so the plan, is a
function of the embeddings' bits, whatever BLAS kernel or thread count the machine picks."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from memmaint.clustering.reduce.grid import (
    COORDINATE_GRID,
    duplicate_leaders,
    quantise,
    share_duplicates,
)
from memmaint.clustering.reduce.reducers import make_reducer


def _leaders_reference(X: np.ndarray) -> np.ndarray:
    """The slow definition: the first row equal to each row."""
    out = np.arange(X.shape[0])
    for i in range(X.shape[0]):
        for j in range(i):
            if np.array_equal(X[i], X[j]):
                out[i] = j
                break
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 30).flatmap(lambda n: st.tuples(
    arrays(np.float64, (n, 3), elements=st.sampled_from([0.0, -0.0, 1.0, 2.5, -1.0])),
    st.just(n))))
def test_duplicate_leaders_match_the_slow_definition(case):
    X, _ = case
    np.testing.assert_array_equal(duplicate_leaders(X), _leaders_reference(X))


def test_duplicate_leaders_survive_hash_collisions(monkeypatch):
    # every row hashes alike: the exact comparison alone must still find the groups
    from memmaint.clustering.reduce import grid

    monkeypatch.setattr(grid, "_row_hashes", lambda X: np.zeros(X.shape[0], dtype=np.uint64))
    X = np.array([[1.0, 2.0], [2.0, 1.0], [1.0, 2.0], [3.0, 3.0], [2.0, 1.0]])
    np.testing.assert_array_equal(duplicate_leaders(X), [0, 1, 0, 3, 1])


def test_share_duplicates_copies_the_first_twins_row():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    Y = np.array([[5.0], [6.0], [5.0 + 1e-14]])
    np.testing.assert_array_equal(share_duplicates(X, Y), [[5.0], [6.0], [5.0]])


def test_quantise_rounds_to_the_grid_and_absorbs_last_bit_noise():
    Y = np.array([0.1234567891, -2.0, 3.0 + 1e-14])
    Q = quantise(Y)
    assert np.all(Q / COORDINATE_GRID == np.round(Q / COORDINATE_GRID))
    assert np.abs(Q - Y).max() <= COORDINATE_GRID / 2
    np.testing.assert_array_equal(quantise(Y + 1e-13), Q)


@pytest.mark.parametrize("method", ["none", "pca", "umap"])
def test_identical_embeddings_get_identical_coordinates(method):
    rng = np.random.default_rng(5)
    base = rng.normal(size=(40, 16))
    X = np.vstack([base, base[::3], base[:7]])  # duplicates spread through the matrix
    params = {"n_neighbors": 8} if method == "umap" else {}
    Y = make_reducer(method, 3, seed=0, **params).fit_transform(X)
    leaders = duplicate_leaders(X)
    np.testing.assert_array_equal(Y, Y[leaders])
    assert np.all(Y / COORDINATE_GRID == np.round(Y / COORDINATE_GRID))


_CHILD = r"""
import json, sys
import numpy as np
from sklearn.decomposition import PCA
from memmaint.clustering.reduce.reducers import make_reducer
from memmaint.maintenance.cli.run import demo_memories
from memmaint.maintenance.embed.hashing import HashingEmbedder
texts = [m.text for m in demo_memories(200, seed=3)]
X = np.asarray(HashingEmbedder(dim=128).embed(texts), dtype=np.float64)
raw = PCA(n_components=5, random_state=0).fit_transform(X)
Y = make_reducer("pca", 5, seed=0).fit_transform(X)
print(json.dumps({"raw": raw.tobytes().hex(), "map": Y.tobytes().hex()}))
"""


def _run_child(env_changes: dict[str, str | None]) -> dict[str, str]:
    env = dict(os.environ)
    for key, value in env_changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    out = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True,
                         text=True, timeout=300, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"),
                    reason="the OpenBLAS kernel names below are x86-64's")
def test_pca_map_is_the_same_under_every_blas_kernel_and_thread_count():
    # Prescott (SSE3) runs on every x86-64 CPU; the default is the CPU's own kernel
    settings_tried = [
        {"OPENBLAS_CORETYPE": None, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
        {"OPENBLAS_CORETYPE": None, "OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "2"},
        {"OPENBLAS_CORETYPE": "Prescott", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
    ]
    results = [_run_child(s) for s in settings_tried]
    assert len({r["map"] for r in results}) == 1
