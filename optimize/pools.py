"""Labelled pools for tuning: read JSONL pool files, embed them, build :class:`LabelledPool`.

A pool file is JSONL with one ``Memory.to_dict()`` object per line (as written by
``memmaint datasets make`` / ``sample``) whose ``metadata.label`` holds the ground-truth
cluster. A directory stands for every ``*.jsonl`` file in it (sorted), one pool per file.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.embed.base import MemoryEmbeddingCache
from memmaint.optimize.objective import LabelledPool

log = logging.getLogger(__name__)

LABEL_KEY = "label"


@dataclass(frozen=True)
class RawPool:
    """A pool as read from disk: memories and their string labels."""

    name: str
    memories: tuple[Memory, ...]
    labels: tuple[str, ...]
    path: str = ""


def pool_files(paths: Sequence[str | Path]) -> list[Path]:
    """Expand files and directories (``*.jsonl`` inside, sorted) into pool files."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found = sorted(p.glob("*.jsonl"))
            if not found:
                raise InputError(f"{p}: directory holds no *.jsonl pool files")
            out.extend(found)
        elif p.is_file():
            out.append(p)
        else:
            raise InputError(f"{p}: no such pool file or directory")
    if not out:
        raise InputError("no pool files given")
    return out


def read_pool(path: str | Path, name: str | None = None) -> RawPool:
    """Read one JSONL pool file; every memory needs ``metadata.label``.

    Raises :class:`InputError` naming the file, line and problem (nothing is half-read).
    """
    from memmaint.maintenance.core.io import read_entries

    p = Path(path)
    memories: list[Memory] = []
    labels: list[str] = []
    for entry in read_entries(p, "jsonl"):
        memory = entry.memory
        label = memory.metadata.get(LABEL_KEY)
        if label is None or isinstance(label, (dict, list)):
            raise InputError(f"{p}:{entry.line}: memory {memory.id!r} has no scalar "
                             f"metadata.{LABEL_KEY} (tuning needs labelled pools)")
        memories.append(memory)
        labels.append(str(label))
    if len(memories) < 2:
        raise InputError(f"{p}: a pool needs at least 2 memories, found {len(memories)}")
    return RawPool(name=name or p.stem, memories=tuple(memories), labels=tuple(labels),
                   path=str(p))


def read_pools(paths: Sequence[str | Path]) -> list[RawPool]:
    """Read every pool under ``paths``; pool names are file stems, made unique if needed."""
    files = pool_files(paths)
    stems = [f.stem for f in files]
    names = [f"{f.parent.name}/{f.stem}" if stems.count(f.stem) > 1 else f.stem for f in files]
    if len(set(names)) != len(names):
        names = [str(f) for f in files]
    return [read_pool(f, n) for f, n in zip(files, names)]


NOISE_LABELS = (-1, "-1")


def encode_labels(labels: Sequence[Any]) -> np.ndarray:
    """Integer codes for hashable labels (in order of first appearance).

    A true label of ``-1`` marks a one-off memory that belongs to no class (as
    ``memmaint datasets make`` writes them): each such memory becomes a class of its own,
    so a clusterer is neither rewarded for lumping one-offs together nor punished for
    leaving them apart.
    """
    codes: dict[Any, int] = {}
    out = []
    for x in labels:
        if x in NOISE_LABELS:
            out.append(len(codes))
            codes[("noise", len(codes))] = len(codes)
        else:
            out.append(codes.setdefault(x, len(codes)))
    return np.array(out, dtype=np.int64)


def labelled_pool(name: str, embeddings: np.ndarray, labels: Sequence[Any],
                  weights: Sequence[float] | None = None,
                  ids: Sequence[str] = ()) -> LabelledPool:
    """A :class:`LabelledPool` from vectors and labels (weights default to 1)."""
    emb = np.asarray(embeddings, dtype=np.float32)
    w = np.ones(len(labels)) if weights is None else np.asarray(weights, dtype=np.float64)
    return LabelledPool(name=name, embeddings=emb, labels=encode_labels(labels), weights=w,
                        ids=tuple(ids))


#: An in-process embedding cache (the :class:`EmbeddingCache` protocol, no store).
DictEmbeddingCache = MemoryEmbeddingCache


class SQLiteEmbeddingCache:
    """A file embedding cache keyed by (model id, sha256 of the text), without a store.

    Several processes may share one file (SQLite locking); vectors are float32 blobs.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with self._connect() as con:
                con.execute("CREATE TABLE IF NOT EXISTS embeddings (model_id TEXT NOT NULL, "
                            "hash TEXT NOT NULL, vector BLOB NOT NULL, "
                            "PRIMARY KEY (model_id, hash))")
        except sqlite3.Error as exc:
            raise InputError(f"cannot open embedding cache {self.path}: {exc}") from None

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=60)

    def get_embeddings(self, model_id: str, hashes: Any) -> dict[str, np.ndarray]:
        hashes = list(hashes)
        out: dict[str, np.ndarray] = {}
        with closing(self._connect()) as con:
            for start in range(0, len(hashes), 500):
                chunk = hashes[start:start + 500]
                marks = ",".join("?" * len(chunk))
                rows = con.execute(f"SELECT hash, vector FROM embeddings WHERE model_id = ? "
                                   f"AND hash IN ({marks})", [model_id, *chunk])
                for h, blob in rows:
                    out[h] = np.frombuffer(blob, dtype=np.float32)
        return out

    def put_embeddings(self, model_id: str, vectors: Mapping[str, np.ndarray]) -> None:
        rows = [(model_id, h, np.asarray(v, dtype=np.float32).tobytes())
                for h, v in vectors.items()]
        with closing(self._connect()) as con, con:
            con.executemany("INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?)", rows)


def embed_pools(raw: Sequence[RawPool], embedder: Any,
                cache: Any | None = None) -> list[LabelledPool]:
    """Embed every pool's memories through ``cache`` (an in-process one when None).

    Identical texts are embedded once across pools; weights are the memories'
    ``importance``.
    """
    from memmaint.maintenance.embed.base import embed_memories

    memories = [m for pool in raw for m in pool.memories]
    if not memories:
        raise InputError("no memories to embed")
    result = embed_memories(cache if cache is not None else DictEmbeddingCache(), embedder,
                            memories)
    log.info("embedded %d texts with %s (%d from the cache)", result.embedded,
             getattr(embedder, "model_id", type(embedder).__name__), result.cached)
    out, start = [], 0
    for pool in raw:
        stop = start + len(pool.memories)
        out.append(labelled_pool(pool.name, result.vectors[start:stop], pool.labels,
                                 [m.importance for m in pool.memories],
                                 [m.id for m in pool.memories]))
        start = stop
    return out


def load_pools(paths: Sequence[str | Path], embedder: Any,
               cache: Any | None = None) -> list[LabelledPool]:
    """Read and embed labelled pools from files and directories."""
    return embed_pools(read_pools(paths), embedder, cache)
