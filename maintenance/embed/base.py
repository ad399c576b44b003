"""The embedding stage's base: the :class:`Embedder` protocol, the registry functions and
the content-hash embedding cache. It imports no backend.

An :class:`Embedder` turns texts into float32 unit vectors. Backends are registered by name
(entry points ``memmaint.embedders`` in ``pyproject.toml``, or :func:`register_embedder`) and
built from ``config.embedding`` with :func:`get_embedder`; each lives in its own module:

- ``minilm`` (default): all-MiniLM-L6-v2 by onnxruntime (float32 weights in the int8 ONNX
  file's graph, or the int8 file as it is), no torch
  (:class:`memmaint.maintenance.embed.minilm.MiniLMEmbedder`);
- ``hashing``: :class:`~memmaint.maintenance.embed.hashing.HashingEmbedder`, deterministic
  feature hashing for fast tests;
- ``sentence-transformers``:
  :class:`~memmaint.maintenance.embed.sentence_transformers.SentenceTransformerEmbedder`, any
  local model folder (extra ``st``);
- ``openai``: :class:`~memmaint.maintenance.embed.openai.OpenAIEmbedder`, any
  OpenAI-compatible ``/embeddings`` endpoint (stdlib HTTP, no extra).

:func:`embed_memories` embeds a pool through a cache keyed by (model id, sha256 of the text),
so an unchanged memory is never embedded twice. :class:`MemoryEmbeddingCache` is that lookup
in memory, alone or as an overlay on another cache whose new vectors it keeps to itself.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from memmaint.maintenance.core.config import EmbeddingConfig
from memmaint.maintenance.core.errors import InputError, MemmaintError
from memmaint.maintenance.core.records import Memory, content_hash
from memmaint.maintenance.core.registry import EMBEDDERS

log = logging.getLogger(__name__)


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors.

    Attributes:
        model_id: names the model and everything that changes its vectors; the cache key.
        dim: vector size.
        max_tokens: the model's input window (``None`` when unknown or unlimited).
        last_truncated: how many texts of the last :meth:`embed` call exceeded the window.
    """

    model_id: str
    dim: int
    max_tokens: int | None
    last_truncated: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """A float32 ``(len(texts), dim)`` array of unit rows, in input order (batching is
        internal); ``(0, dim)`` for no texts."""
        ...


EmbedderFactory = Callable[[EmbeddingConfig], Embedder]


def register_embedder(name: str, factory: EmbedderFactory, *, replace: bool = False) -> None:
    """Make ``factory(config.embedding)`` available as ``embedding.model = name``."""
    EMBEDDERS.register(name, factory, replace=replace)


def available_embedders() -> list[str]:
    """Registered embedder names, sorted."""
    return EMBEDDERS.names()


def get_embedder(config: EmbeddingConfig | None = None) -> Embedder:
    """Build the embedder ``config.model`` names (the default config gives MiniLM)."""
    config = config if config is not None else EmbeddingConfig()
    return EMBEDDERS.get(config.model)(config)


def check_texts(texts: Sequence[str]) -> list[str]:
    """``texts`` as a list, checking that every item is a string."""
    if isinstance(texts, str):
        raise InputError("embed() takes a sequence of texts, not a single string")
    texts = list(texts)
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise InputError(f"text {i} is a {type(t).__name__}, expected a string")
    return texts


def normalise_rows(x: np.ndarray) -> np.ndarray:
    """``x`` with every row scaled to unit length, as float32 (zero rows stay zero)."""
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return (x / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)


# -- the cache ------------------------------------------------------------------------------

class EmbeddingCache(Protocol):
    """The part of :class:`~memmaint.maintenance.store.base.MemoryStore` the cache needs."""

    def get_embeddings(self, model_id: str, hashes: Any) -> dict[str, np.ndarray]: ...

    def put_embeddings(self, model_id: str, vectors: Mapping[str, np.ndarray]) -> None: ...


class MemoryEmbeddingCache:
    """An in-memory :class:`EmbeddingCache`: (model id, content hash) -> float32 vector.

    Args:
        backing: another cache to read through (a store's). Vectors put here stay here and
            are never written to it, so a dry run leaves its store unchanged.

    Attributes:
        data: the vectors held here, keyed by (model id, content hash).
    """

    def __init__(self, backing: EmbeddingCache | None = None) -> None:
        self.backing = backing
        self.data: dict[tuple[str, str], np.ndarray] = {}

    def __len__(self) -> int:
        return len(self.data)

    def get_embeddings(self, model_id: str, hashes: Collection[str]) -> dict[str, np.ndarray]:
        """Vectors for those ``hashes`` held here or (for the rest) in ``backing``."""
        out: dict[str, np.ndarray] = {}
        rest: list[str] = []
        for h in dict.fromkeys(hashes):
            vec = self.data.get((model_id, h))
            if vec is not None:
                out[h] = vec
            else:
                rest.append(h)
        if rest and self.backing is not None:
            out.update(self.backing.get_embeddings(model_id, rest))
        return out

    def put_embeddings(self, model_id: str, vectors: Mapping[str, np.ndarray]) -> None:
        """Keep copies of ``vectors`` (as float32) here; ``backing`` is not written."""
        for h, vec in vectors.items():
            self.data[(model_id, h)] = np.array(vec, dtype=np.float32)


@dataclass(frozen=True)
class EmbedResult:
    """What :func:`embed_memories` did.

    Attributes:
        vectors: float32 ``(len(memories), dim)``, row ``i`` for ``memories[i]``.
        embedded: distinct texts sent to the model in this call.
        cached: distinct texts whose vector came from the cache.
        truncated: texts (of those embedded) longer than the model's window.
    """

    vectors: np.ndarray
    embedded: int
    cached: int
    truncated: int


def _bad_rows(vecs: np.ndarray) -> np.ndarray:
    """Indices of rows that are not finite unit vectors."""
    finite = np.isfinite(vecs).all(axis=1)
    norms = np.linalg.norm(np.where(np.isfinite(vecs), vecs, 0.0), axis=1)
    return np.flatnonzero(~finite | (np.abs(norms - 1.0) > 1e-3))


def embed_memories(
    store: EmbeddingCache,
    embedder: Embedder,
    memories: Sequence[Memory],
    batch_size: int = 64,
    progress: Callable[[int, int], None] | None = None,
) -> EmbedResult:
    """Vectors for ``memories``, embedding only texts the cache lacks for this model.

    Identical texts are embedded once, in batches of similar length. New vectors are checked
    (finite, unit length) and written to the cache batch by batch, so an interrupted run keeps
    what it finished; a batch with a bad vector raises :class:`InputError` before anything of
    it is cached.
    ``progress(done, total)`` is called with counts of distinct texts to embed.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be >= 1")
    dim = embedder.dim
    model_id = embedder.model_id
    slot: dict[str, int] = {}  # content hash -> row in `unique`
    inverse = np.empty(len(memories), dtype=np.int64)
    first: list[int] = []  # index of the first memory with each distinct text
    for i, m in enumerate(memories):
        h = content_hash(m.text)
        j = slot.get(h)
        if j is None:
            j = slot[h] = len(first)
            first.append(i)
        inverse[i] = j
    unique = np.zeros((len(first), dim), dtype=np.float32)
    have = np.zeros(len(first), dtype=bool)
    found = store.get_embeddings(model_id, list(slot)) if slot else {}
    hits = [(slot[h], np.asarray(v, dtype=np.float32).reshape(-1))
            for h, v in found.items() if h in slot]
    ok = [(j, v) for j, v in hits if v.shape == (dim,)]
    if ok:
        rows = np.fromiter((j for j, _ in ok), dtype=np.int64, count=len(ok))
        mat = np.stack([v for _, v in ok])
        good = np.ones(len(ok), dtype=bool)
        good[_bad_rows(mat)] = False
        unique[rows[good]] = mat[good]
        have[rows[good]] = True
    if len(hits) > int(have.sum()):
        log.warning("ignoring %d cached %s vectors of the wrong size or not unit length",
                    len(hits) - int(have.sum()), model_id)
    hashes = list(slot)
    cached = int(have.sum())
    todo = np.flatnonzero(~have)
    # similar lengths share a batch: less padding for models that pad to the longest text
    todo = todo[np.argsort([len(memories[first[j]].text) for j in todo], kind="stable")]
    total = len(todo)
    truncated = 0
    if progress is not None:
        progress(0, total)
    for start in range(0, total, batch_size):
        chunk = todo[start:start + batch_size]
        texts = [memories[first[j]].text for j in chunk]
        vecs = np.asarray(embedder.embed(texts))
        if vecs.shape != (len(chunk), dim):
            raise MemmaintError(f"embedder {model_id} returned shape {vecs.shape} for "
                                f"{len(chunk)} texts, expected ({len(chunk)}, {dim})")
        vecs = vecs.astype(np.float32, copy=False)
        bad = _bad_rows(vecs)
        if len(bad):
            mem = memories[first[chunk[bad[0]]]]
            raise InputError(
                f"embedder {model_id} returned {len(bad)} vector(s) that are NaN, infinite or "
                f"not unit length (first: memory {mem.id!r}); nothing of this batch was cached"
            )
        truncated += int(getattr(embedder, "last_truncated", 0) or 0)
        store.put_embeddings(model_id, {hashes[j]: v for j, v in zip(chunk, vecs)})
        unique[chunk] = vecs
        if progress is not None:
            progress(min(start + batch_size, total), total)
    out = unique[inverse]
    if total:
        log.info("embedded %d texts with %s (%d from cache, %d truncated)",
                 total, model_id, cached, truncated)
    return EmbedResult(vectors=out, embedded=total, cached=cached, truncated=truncated)


__all__ = [
    "EmbedResult",
    "Embedder",
    "EmbedderFactory",
    "EmbeddingCache",
    "MemoryEmbeddingCache",
    "available_embedders",
    "check_texts",
    "embed_memories",
    "get_embedder",
    "normalise_rows",
    "register_embedder",
]
