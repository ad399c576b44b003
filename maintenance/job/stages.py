"""The job's bookkeeping: run and plan ids, the package versions a report records, per-stage timings
and the dry run's embedding cache."""

from __future__ import annotations

import platform
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from memmaint.maintenance.core.records import utcnow
from memmaint.maintenance.embed.base import MemoryEmbeddingCache
from memmaint.maintenance.report.model import StageTiming
from memmaint.maintenance.store.base import MemoryStore

VERSION_PACKAGES = ("memmaint", "numpy", "scikit-learn", "hdbscan", "umap-learn", "openTSNE",
                    "numba", "onnxruntime")


def new_run_id(now: datetime | None = None) -> str:
    """A sortable, unique run id: ``YYYYMMDDTHHMMSSZ-xxxxxxxx``."""
    when = (now or utcnow()).strftime("%Y%m%dT%H%M%SZ")
    return f"{when}-{uuid.uuid4().hex[:8]}"


_PLAN_IDS = uuid.UUID("0b7d4f6e-3c1a-5e2b-9a8d-6f4c2e1b3a5d")


def plan_id_for(seen: int | None, namespaces: Sequence[str], config_hash: str,
                role: str = "primary") -> str | None:
    """The id of the plan a run makes, a function of what the plan is made from: the
    store's change sequence when the run loaded the pool (``seen``), the namespaces, the
    configuration and the plan's role (primary or shadow). The rule agents derive merged
    memory ids from it (uuid5 of the plan id and the sources), so the dry run, ``memmaint
    plan`` and the real run of an unchanged store plan and apply the same ids; every write
    (an applied run, an undo, a sync) takes a new sequence number, so a later plan never
    reuses the id of a merged memory a run created (or an undo archived).

    ``None`` (a random id, as before) for a store that keeps no change sequence."""
    if seen is None:
        return None
    key = f"{int(seen)}|{role}|{config_hash}|{','.join(sorted(namespaces))}"
    return str(uuid.uuid5(_PLAN_IDS, key))


def package_versions() -> dict[str, str]:
    """Versions of Python and of the packages that decide a run's results."""
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for name in VERSION_PACKAGES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out


class Stages:
    """Collects per-stage wall times and counts (a stage may be entered several times)."""

    def __init__(self) -> None:
        self.items: dict[str, StageTiming] = {}

    @contextmanager
    def __call__(self, name: str) -> Iterator[StageTiming]:
        timing = self.items.setdefault(name, StageTiming(name, 0.0, 0))
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            yield timing
        finally:
            timing.seconds += time.perf_counter() - t0
            timing.cpu_seconds += time.process_time() - c0

    def as_list(self) -> list[StageTiming]:
        return [StageTiming(s.name, round(s.seconds, 4), s.count, s.detail,
                            round(s.cpu_seconds, 4)) for s in self.items.values()]


class DryRunCache(MemoryEmbeddingCache):
    """A read-through view of a store's embedding cache that keeps new vectors in memory.

    A dry run must leave the store byte-for-byte unchanged, so vectors computed during it
    are not written back. Every other attribute is the wrapped store's.
    """

    def __init__(self, store: MemoryStore) -> None:
        super().__init__(backing=store)
        self._store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)
