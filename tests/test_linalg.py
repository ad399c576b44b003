"""``gram``: the rows' inner products without numpy's large threaded ``syrk``."""

import os
import subprocess
import sys

import numpy as np
import pytest

from memmaint.maintenance.core.linalg import GRAM_BLOCK, gram


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", [1, 7, 64, 65, 200])
def test_gram_by_blocks_equals_the_plain_product_and_is_exactly_symmetric(n, dtype):
    x = np.random.default_rng(n).standard_normal((n, 16)).astype(dtype)
    got = gram(x, block=64)
    assert got.dtype == (x @ x.T).dtype and got.shape == (n, n)
    np.testing.assert_allclose(got, x @ x.T, rtol=1e-5 if dtype == np.float32 else 1e-12,
                               atol=1e-5 if dtype == np.float32 else 1e-12)
    assert np.array_equal(got, got.T)


def test_gram_up_to_one_block_is_bit_for_bit_the_plain_product():
    x = np.random.default_rng(1).standard_normal((300, 32))
    assert GRAM_BLOCK >= 300
    assert np.array_equal(gram(x), x @ x.T)


def test_gram_of_a_large_cluster_runs_with_threaded_blas():
    """The size that killed the 1M full rebuild (plain ``x @ x.T`` exits 139 here), in a
    child process so a crash fails this test, not the run (skipped without 12 GB free)."""
    psutil = pytest.importorskip("psutil")
    if psutil.virtual_memory().available < 12 * 2**30:
        pytest.skip("needs 12 GB of free memory (the product is 4.6 GB)")
    code = ("import numpy as np; from memmaint.maintenance.core.linalg import gram; "
            "x = np.random.default_rng(0).standard_normal((24000, 256)); "
            "g = gram(x); print(g.shape, bool(np.isfinite(g[::997, ::991]).all()))")
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True,
                          text=True, timeout=600, env={**os.environ, "OPENBLAS_NUM_THREADS": "2"})
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.strip() == "(24000, 24000) True"
