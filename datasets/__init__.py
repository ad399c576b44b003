"""memmaint.datasets: synthetic memory pools, maintenance scenarios, labelled-corpus loaders.

- :func:`make_memory_pool`: pools of noisy observations of latent instructions (``mtg``,
  ``support``) with ground-truth classes and importance weights.
- :func:`make_scenario`: small pools labelled with the maintenance action each memory should get.
- :func:`load_labelled`, :func:`load_banking77`, :func:`load_hwu64`, :func:`sample_pools`: real
  labelled corpora and disjoint-class pools cut from them.

See docs/datasets.md.
"""

from memmaint.datasets.labelled import (
    LabelledCorpus,
    load_banking77,
    load_hwu64,
    load_labelled,
    sample_pools,
)
from memmaint.datasets.pools import MemoryPool, make_memory_pool
from memmaint.datasets.scenarios import ExpectedAction, Scenario, make_scenario

__all__ = [
    "ExpectedAction",
    "LabelledCorpus",
    "MemoryPool",
    "Scenario",
    "load_banking77",
    "load_hwu64",
    "load_labelled",
    "make_memory_pool",
    "make_scenario",
    "sample_pools",
]
