"""Generalised-kt sequential recombination: the ``GenKT`` estimator (``estimator``), its numba
kernels (``_kernels``) and the slow, obvious reference they are tested against
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
