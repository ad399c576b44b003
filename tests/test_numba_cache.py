"""UMAP's numba kernels are compiled once per machine: the second process loads them."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

SCRIPT = """
import logging, sys
import numpy as np
logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
from memmaint.clustering.reduce.reducers import make_reducer
X = np.random.default_rng(0).normal(size=(60, 16))
Y = make_reducer("umap", 2, seed=0).fit_transform(X)
np.save(sys.argv[1], Y)
"""


@pytest.mark.slow
def test_second_process_loads_the_compiled_kernels(tmp_path):
    env = dict(os.environ, MEMMAINT_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("NUMBA_CACHE_DIR", None)
    runs = []
    for i in range(2):
        out = tmp_path / f"y{i}.npy"
        res = subprocess.run([sys.executable, "-c", SCRIPT, str(out)], check=False, env=env,
                             capture_output=True, text=True, timeout=600)
        assert res.returncode == 0, res.stderr
        runs.append((res.stderr, np.load(out)))
    first, second = runs
    assert "compiling UMAP's numba kernels for this machine" in first[0]
    assert "compiled UMAP's numba kernels in" in first[0]
    assert "compiling" not in second[0]  # loaded, not compiled again
    folder = tmp_path / "cache" / "numba"
    assert any(folder.rglob("*.nbc")) and any(folder.glob("*.compiled"))
    np.testing.assert_array_equal(first[1], second[1])  # the cache changes speed, not results


def test_cache_folder_follows_the_environment(monkeypatch, tmp_path):
    from memmaint.clustering.reduce._numba_cache import cache_dir

    monkeypatch.setenv("MEMMAINT_CACHE_DIR", str(tmp_path))
    assert cache_dir() == tmp_path / "numba"
    monkeypatch.delenv("MEMMAINT_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "memmaint" / "numba"
