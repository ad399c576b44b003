"""Shared machinery of the end-to-end evaluation suites (``memmaint eval``).

Each suite (:mod:`~memmaint.maintenance.evaluation.locomo`, :mod:`~memmaint.maintenance.evaluation.stale`,
:mod:`~memmaint.maintenance.evaluation.scenarios`) builds a pool, runs the *real* nightly job on it
(:func:`maintain`: a temporary SQLite store, :func:`~memmaint.maintenance.job.run.run_job`, read
back), and retrieves with :mod:`memmaint.maintenance.retrieve.search` before and after.

Embeddings are computed once per (model, text) and kept in an :class:`EvalCache`: a SQLite
store used only for its content-hash embedding cache (by default in the system's temporary
folder), so a rerun, a second configuration or a sweep never embeds the same text twice.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from memmaint.maintenance.core.config import Config, EmbeddingConfig, with_overrides
from memmaint.maintenance.core.errors import ConfigError
from memmaint.maintenance.core.records import Memory, Status, content_hash

if TYPE_CHECKING:
    from typing_extensions import Self

log = logging.getLogger(__name__)

DEFAULT_CACHE_NAME = "memmaint-eval-cache.sqlite"


def default_cache_path() -> Path:
    """Where the evaluation keeps embeddings between runs (the system temporary folder)."""
    return Path(tempfile.gettempdir()) / DEFAULT_CACHE_NAME


class EvalCache:
    """Embeddings for evaluation texts, through a SQLite store's content-hash cache.

    Args:
        path: the cache file (created if missing); ``None`` uses :func:`default_cache_path`,
            ``":memory:"`` keeps nothing between runs.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        from memmaint.maintenance.store.sqlite import SQLiteStore

        self.path = str(default_cache_path() if path is None else path)
        self.store = SQLiteStore(self.path)
        self._embedders: dict[EmbeddingConfig, Any] = {}

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def embedder(self, config: EmbeddingConfig) -> Any:
        """The embedder for ``config`` (built once per config)."""
        from memmaint.maintenance.embed.base import get_embedder

        if config not in self._embedders:
            self._embedders[config] = get_embedder(config)
        return self._embedders[config]

    def embed(self, texts: Sequence[str], config: EmbeddingConfig) -> np.ndarray:
        """float32 unit rows for ``texts`` (cached by content hash)."""
        from memmaint.maintenance.embed.base import embed_memories

        if not texts:
            return np.zeros((0, self.embedder(config).dim), dtype=np.float32)
        wrapped = [Memory(text=t, id=str(i)) for i, t in enumerate(texts)]
        result = embed_memories(self.store, self.embedder(config), wrapped,
                                batch_size=config.batch_size)
        return result.vectors

    def seed_store(self, store: Any, memories: Sequence[Memory], config: EmbeddingConfig) -> None:
        """Copy the vectors of ``memories`` into another store's cache (so a run embeds none)."""
        vecs = self.embed([m.text for m in memories], config)
        model_id = self.embedder(config).model_id
        store.put_embeddings(model_id, {content_hash(m.text): v
                                        for m, v in zip(memories, vecs)})


@dataclass
class Maintained:
    """A pool after one maintenance run.

    Attributes:
        memories: every memory of the store after the run (all statuses), store order.
        active: the active ones.
        actions: (namespace, id) -> the action the run took on it (``keep`` when none).
        report: the run's ``RunReport`` as a dict.
    """

    memories: list[Memory]
    active: list[Memory]
    actions: dict[tuple[str, str], str]
    report: dict[str, Any] = field(default_factory=dict)


def maintain(memories: Sequence[Memory], config: Config, cache: EvalCache, *,
             now: datetime | None = None, store: Any = None,
             uses: Sequence[Any] = ()) -> Maintained:
    """Run the nightly job once over ``memories`` and read the pool back.

    With ``store=None`` a temporary SQLite store is created, filled with ``memories`` and
    thrown away afterwards; with a store, ``memories`` are added to it first (use this to
    grow one pool across several runs). Embeddings come from ``cache``. ``uses`` (each with
    ``namespace``, ``memory_id``, ``query``, ``success``) are recorded as feedback with its
    query after the memories are added, so the store keeps a serve history (and the counters
    grow by them).
    """
    from memmaint.maintenance.job.run import run_job
    from memmaint.maintenance.store.sqlite import SQLiteStore

    if store is None:
        with tempfile.TemporaryDirectory(prefix="memmaint-eval-") as tmp:
            tmp_store = SQLiteStore(Path(tmp) / "pool.db")
            try:
                return maintain(memories, config, cache, now=now, store=tmp_store, uses=uses)
            finally:
                tmp_store.close()
    if memories:
        store.add_memories(list(memories))
    for u in uses:
        store.record_usage(u.namespace, u.memory_id, u.success, query=u.query)
    active_before = list(store.iter_memories(statuses=[Status.ACTIVE]))
    cache.seed_store(store, active_before, config.embedding)
    report = run_job(store, config, force=True, now=now)
    actions: dict[tuple[str, str], str] = {}
    if report.primary is not None:
        for d in report.primary.decisions:
            actions[(d.namespace, d.memory_id)] = d.type
    everything = list(store.iter_memories())
    for m in active_before:
        actions.setdefault((m.namespace, m.id), "keep")
    return Maintained(everything, [m for m in everything if m.is_active], actions,
                      report.to_dict())


def expand_grid(base: Config, grid: Mapping[str, Sequence[Any]]) -> list[tuple[str, Config]]:
    """Every combination of ``grid`` values applied to ``base``: ``[(name, config)]``.

    ``grid`` maps a dotted key (``agents.merge_threshold``) to its values; the name of each
    combination lists its settings (``agents.merge_threshold=0.8 ...``).
    """
    import itertools

    keys = list(grid)
    out: list[tuple[str, Config]] = []
    for values in itertools.product(*(grid[k] for k in keys)):
        overrides = dict(zip(keys, values))
        name = " ".join(f"{k}={v}" for k, v in overrides.items())
        out.append((name, with_overrides(base, overrides)))
    return out


def parse_grid_value(text: str) -> tuple[str, list[Any]]:
    """``"agents.merge_threshold=0.8,0.85"`` -> ``("agents.merge_threshold", [0.8, 0.85])``.

    Values are read as TOML scalars (numbers, booleans, quoted or bare strings).
    """
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key or not raw.strip():
        raise ConfigError(f"grid {text!r}: expected KEY=V1,V2,... (e.g. "
                          "agents.merge_threshold=0.8,0.85)")
    values: list[Any] = []
    for item in raw.split(","):
        item = item.strip()
        try:
            values.append(tomllib.loads(f"v = {item}")["v"])
        except tomllib.TOMLDecodeError:
            values.append(item)
    return key, values


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A plain-text table (also valid Markdown) with right-aligned numbers."""

    def cell(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.3f}"
        return str(v)

    cells = [[cell(v) for v in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    numeric = [all(isinstance(row[i], (int, float)) for row in rows) if rows else False
               for i in range(len(headers))]

    def line(values: Sequence[str]) -> str:
        return "| " + " | ".join(v.rjust(w) if num else v.ljust(w)
                                 for v, w, num in zip(values, widths, numeric)) + " |"

    sep = "|" + "|".join(("-" * (w + 1) + ":") if num else ("-" * (w + 2))
                         for w, num in zip(widths, numeric)) + "|"
    return "\n".join([line(list(headers)), sep] + [line(r) for r in cells])
