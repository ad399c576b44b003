"""Generalised-kt sequential recombination: the ``GenKT`` estimator (``estimator``), its numba
kernels (``_kernels``, with its parts ``_kernels_common``, ``_kernels_brute``, ``_kernels_tree``
and ``_kernels_caches``; the graph strategy's ``_kernels_graph``, ``_kernels_graph_heap`` and
``_kernels_graph_index``, driven by ``_graph``) and the slow, obvious reference they are
tested against (``_reference``)."""

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
