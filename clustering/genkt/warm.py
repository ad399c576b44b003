"""Compile the numba kernels ahead of the first run: ``python -m memmaint.clustering.genkt.warm``.

GenKT's strategies and UMAP compile their kernels on first use on a machine (tens of seconds
each on 2 cores, announced in the log) and keep them in memmaint's cache folder
(:func:`~memmaint.clustering.reduce._numba_cache.cache_dir`). This module pays that cost on a
few tiny pools instead: after ``pip install`` (or in an image build), so the first nightly run
or ``memmaint demo`` does not.

``--only genkt`` or ``--only umap`` limits it to one of them. Exit status 0 when everything
compiled (or was already cached).
"""

from __future__ import annotations

import argparse
import logging
import sys
import time

import numpy as np

__all__ = ["main", "warm_genkt", "warm_umap"]

#: every GenKT strategy with kernels of its own, and whether it takes the cosine cut
_STRATEGIES = (("nn", True), ("plane", False), ("graph", True))


def warm_genkt() -> float:
    """Run every compiled GenKT strategy once on a tiny pool (with and without the cosine
    cut, where the strategy has one); returns the seconds it took."""
    from memmaint.clustering.genkt.estimator import GenKTDefinition, genkt_cluster

    start = time.perf_counter()
    rng = np.random.default_rng(0)
    for strategy, with_cut in _STRATEGIES:
        dims = 2 if strategy == "plane" else 3
        X = rng.normal(size=(40, dims))
        E = rng.normal(size=(40, 8))
        E /= np.linalg.norm(E, axis=1, keepdims=True)
        genkt_cluster(X, definition=GenKTDefinition(p=-1.0, R=1.0), strategy=strategy)
        if with_cut:
            genkt_cluster(X, embeddings=E, strategy=strategy,
                          definition=GenKTDefinition(p=-1.0, R=1.0, cos_cut=0.2))
    return time.perf_counter() - start


def warm_umap() -> float:
    """Fit UMAP once on a tiny pool (its kernels go to the same cache); the seconds taken."""
    from memmaint.clustering.reduce.reducers import make_reducer

    start = time.perf_counter()
    X = np.random.default_rng(0).normal(size=(60, 16))
    make_reducer("umap", 2, seed=0, n_neighbors=10).fit_transform(X)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m memmaint.clustering.genkt.warm",
                                     description="compile memmaint's numba kernels now")
    parser.add_argument("--only", choices=("genkt", "umap"), default=None)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s", stream=sys.stderr)
    if args.only in (None, "genkt"):
        print(f"genkt kernels ready in {warm_genkt():.1f} s", file=sys.stderr)
    if args.only in (None, "umap"):
        print(f"umap kernels ready in {warm_umap():.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
