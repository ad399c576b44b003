"""Dense linear algebra that stays safe at the sizes a million-memory pool reaches.

``x @ x.T`` on one array is sent by numpy to BLAS ``syrk``. The OpenBLAS that numpy's wheels
bundle (0.3.31 here) crashes the process with a segmentation fault in its threaded ``dsyrk``
once the product is large: 23,000 float64 rows of 256 dimensions on this machine's kernel, with
more than one BLAS thread; one thread, float32, or a general ``gemm`` on the same numbers do not
crash. A full rebuild of a 1M pool has clusters of that size, so the rule agents' cosine matrix
died there with no traceback (docs/benchmarks.md, "the 1M full rebuild's segfault").

:func:`gram` keeps the plain product (``syrk``, bit for bit as before) up to :data:`GRAM_BLOCK`
rows and above that fills the matrix by blocks: ``syrk`` on each diagonal block, ``gemm`` on the
blocks right of it, mirrored below, so the result stays exactly symmetric.
"""

from __future__ import annotations

import numpy as np

#: Rows up to which :func:`gram` is the plain ``x @ x.T``; also the height of its blocks.
GRAM_BLOCK = 4096


def gram(x: np.ndarray, *, block: int = GRAM_BLOCK) -> np.ndarray:
    """All inner products of the rows of ``x`` (``x @ x.T``), exactly symmetric.

    Args:
        x: a 2-D array, one row per vector.
        block: rows per block above which the product is built from blocks.

    Returns:
        An ``(n, n)`` array of the dtype ``x @ x.T`` would have.
    """
    x = np.asarray(x)
    n = x.shape[0]
    if n <= block:
        return x @ x.T
    x = np.ascontiguousarray(x)
    out = np.empty((n, n), dtype=(x[:1] @ x[:1].T).dtype)
    for r0 in range(0, n, block):
        r1 = min(n, r0 + block)
        rows = x[r0:r1]
        out[r0:r1, r0:r1] = rows @ rows.T
        if r1 < n:
            right = rows @ x[r1:].T  # two buffers: gemm, never the large syrk
            out[r0:r1, r1:] = right
            out[r1:, r0:r1] = right.T
    return out
