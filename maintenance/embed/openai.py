"""The ``openai`` embedder: any OpenAI-compatible ``POST {base_url}/embeddings`` endpoint.

HTTP goes through :class:`memmaint.maintenance.core.http.JSONClient` (stdlib ``urllib``, no
extra), the client the LLM agent uses too: retries on 429, 5xx, timeouts and connection
errors with exponential backoff honouring ``Retry-After``, ``timeout_s`` per attempt, a
deadline per call, a cap on reply bytes, the key redacted from every message.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import numpy as np

from memmaint.maintenance.core.config import EmbeddingConfig
from memmaint.maintenance.core.errors import ConfigError, MemmaintError
from memmaint.maintenance.core.http import (
    DEFAULT_MAX_REPLY_BYTES,
    EndpointError,
    JSONClient,
    RetryPolicy,
)
from memmaint.maintenance.embed.base import check_texts, normalise_rows

#: Reply bytes allowed per text of a batch (a 3072-d vector is about 70 KB of JSON).
REPLY_BYTES_PER_TEXT = 256 << 10


class OpenAIEmbedder:
    """Any OpenAI-compatible ``POST {base_url}/embeddings`` endpoint.

    The API key is read from the environment variable ``api_key_env`` when set (local servers
    often need none) and is never logged or put into error messages. Rows are L2-normalised.
    ``dim`` is learnt from the first response (a one-text probe if asked before any call).

    Args:
        timeout_s: cap on one HTTP attempt (body included).
        max_retries: retries on 429, 5xx, timeouts and connection errors (backoff 0.25 s,
            doubled per retry, or ``Retry-After`` when longer, at most 60 s per wait).
        deadline_s: cap on one batch's call, retries included (``None``: every attempt at
            its full timeout plus the nominal backoff waits).
        max_reply_bytes: cap on one reply (``None``: 4 MiB or 256 KiB per text of a batch,
            whichever is larger).
    """

    max_tokens: int | None = None

    def __init__(self, base_url: str, model_name: str, api_key_env: str = "OPENAI_API_KEY",
                 batch_size: int = 64, timeout_s: float = 60.0, max_retries: int = 2,
                 deadline_s: float | None = None, max_reply_bytes: int | None = None) -> None:
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
        if max_reply_bytes is None:
            max_reply_bytes = max(DEFAULT_MAX_REPLY_BYTES, self.batch_size * REPLY_BYTES_PER_TEXT)
        self.policy = RetryPolicy(retries=self.max_retries, backoff_s=0.25, max_wait_s=60.0,
                                  timeout_s=self.timeout_s, deadline_s=deadline_s,
                                  max_reply_bytes=max_reply_bytes)
        self._http = JSONClient(self.url, api_key_env=api_key_env or None, policy=self.policy)
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
        items = check_texts(texts)
        self.last_truncated = 0
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [self._request(items[i:i + self.batch_size])
                 for i in range(0, len(items), self.batch_size)]
        return normalise_rows(np.vstack(parts))

    def _request(self, batch: list[str]) -> np.ndarray:
        try:
            payload = self._http.post({"model": self.model_name, "input": batch})
        except EndpointError as exc:
            note = f" ({exc.note})" if exc.note else ""
            if exc.kind == "http":
                raise MemmaintError(f"embedding endpoint {self.url} answered HTTP "
                                    f"{exc.status}: {exc.detail}{note}") from None
            if exc.kind in ("unreachable", "timeout"):
                raise MemmaintError(f"cannot reach embedding endpoint {self.url}: "
                                    f"{exc.reason}{note}") from None
            raise MemmaintError(f"embedding endpoint {self.url}: {exc.reason}{note}") from None
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


def openai_from_config(config: EmbeddingConfig) -> OpenAIEmbedder:
    """The ``openai`` entry of the embedder registry (``embedding.base_url``,
    ``model_name``, ``api_key_env``, ``timeout_s``)."""
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


__all__ = ["OpenAIEmbedder", "openai_from_config"]
