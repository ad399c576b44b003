"""Generalised-kt sequential recombination: the ``GenKT`` estimator (``estimator``), its numba
kernels (``_kernels``, with its parts ``_kernels_common``, ``_kernels_brute``, ``_kernels_tree``
and ``_kernels_caches``) and the slow, obvious reference they are tested against
(``_reference``)."""

from memmaint.clustering.genkt.estimator import (
    STRATEGIES,
    ClusterSequence,
    GenKT,
    GenKTDefinition,
    GenKTInputError,
    InvalidDefinition,
    genkt_cluster,
)

__all__ = [
    "STRATEGIES",
    "ClusterSequence",
    "GenKT",
    "GenKTDefinition",
    "GenKTInputError",
    "InvalidDefinition",
    "genkt_cluster",
]
