"""A store served to agents: search and feedback over any store or connector.

:class:`SearchService` is what ``memmaint search`` and the MCP server (``memmaint mcp``,
:mod:`memmaint.maintenance.retrieve.mcp_server`) call. It reads the store's *active*
memories (one namespace, or all), takes their vectors from the store's embedding cache
(embedding what the cache lacks in memory only: searching never writes to the store; run
``memmaint embed`` to cache them), and scores them with
:class:`~memmaint.maintenance.retrieve.search.Retriever`: similarity, the capped lexical bonus,
the outcome bonus and the freshness gate, so the answer carries the gate's decision
(``SERVE``/``REFUSE`` and why) and each result its outcome evidence.

:meth:`SearchService.feedback` records whether a served memory helped through the same code as
``memmaint feedback`` (:func:`memmaint.maintenance.retrieve.feedback.record_batch`), so the next
search sees it. The pool is read again on every search: feedback, new memories and a
nightly run between two calls are all seen.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

import numpy as np

from memmaint.maintenance.core.config import Config
from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.core.records import Memory, Status
from memmaint.maintenance.core.served import ServeLog
from memmaint.maintenance.core.text import json_problem
from memmaint.maintenance.retrieve.feedback import MAX_QUERY_CHARS
from memmaint.maintenance.retrieve.replacement import failed
from memmaint.maintenance.retrieve.search import Result, Retrieval, Retriever

log = logging.getLogger(__name__)

#: retired failed memories read as pointers per search (the newest; retrieve.replacement)
MAX_RETIRED = 1000

#: the most results one search may ask for
MAX_K = 100
#: the most past uses per memory the serve history is read with (the newest)
MAX_SERVES_PER_MEMORY = 50
#: feedback outcomes, as ``memmaint feedback`` takes them
OUTCOMES = ("success", "failure", "used")


def check_query(query: Any) -> str:
    """The query, stripped; an :class:`InputError` (one line) when it cannot be searched."""
    if not isinstance(query, str):
        raise InputError(f"the query must be text, got {type(query).__name__}")
    problem = json_problem(query, "the query")
    if problem:
        raise InputError(problem)
    text = query.strip()
    if not text:
        raise InputError("the query is empty")
    if len(text) > MAX_QUERY_CHARS:
        raise InputError(f"the query has {len(text)} characters, at most {MAX_QUERY_CHARS}")
    return text


def check_k(k: Any) -> int | None:
    """``k`` as an int in ``1..MAX_K`` (None: the config's ``retrieve.k``)."""
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, int):
        raise InputError(f"k must be a whole number, got {k!r}")
    if not 1 <= k <= MAX_K:
        raise InputError(f"k must be between 1 and {MAX_K}, got {k}")
    return k


def result_record(r: Result) -> dict[str, Any]:
    """One result as JSON-ready data: the memory (id, namespace, kind, text, created_at),
    the scores, the gate's verdict and the outcome evidence (``successes``, ``failures``,
    ``uses`` as stored; ``outcome`` the expected success rate; ``outcome_bonus`` the weight
    outcome added to the score)."""
    m = r.memory
    out = r.to_dict()
    out.update({"kind": m.kind, "text": m.text, "created_at": m.created_at.isoformat(),
                "uses": m.retrievals,
                "last_used_at": None if m.last_used_at is None else m.last_used_at.isoformat()})
    return out


def retrieval_record(ret: Retrieval) -> dict[str, Any]:
    """A :class:`Retrieval` as JSON-ready data: ``decision`` (SERVE/REFUSE), ``reason``,
    ``results`` (served, best first) and ``not_served`` (relevant memories the gate
    dropped: expired, or on a refusal the stale ones), each a :func:`result_record`."""
    return {"query": ret.query, "decision": ret.decision, "reason": ret.reason,
            "results": [result_record(r) for r in ret.results],
            "not_served": [result_record(r) for r in ret.blocked],
            "route": None if ret.route is None else ret.route.to_dict()}


class SearchService:
    """Search and feedback over one open store.

    Args:
        store: any :class:`~memmaint.maintenance.store.base.MemoryStore` (``open_store``).
        config: the whole config: ``embedding`` picks the query and memory embedder,
            ``retrieve`` the scoring, ``agents`` the TTLs and the outcome model.
        embedder: overrides the config's embedder (tests).
    """

    def __init__(self, store: Any, config: Config | None = None, embedder: Any = None) -> None:
        from memmaint.maintenance.embed.base import MemoryEmbeddingCache, get_embedder

        self.store = store
        self.config = config if config is not None else Config()
        self.embedder = embedder if embedder is not None else get_embedder(
            self.config.embedding)
        # reads through to the store's cache; vectors embedded here stay in this process
        self.cache = MemoryEmbeddingCache(store)
        self._query_vectors: dict[str, np.ndarray] = {}  # past queries, embedded once
        #: the query each memory was last served for by this service ((namespace, id) ->
        #: query): feedback that names no query is recorded for that one
        self.served_for: dict[tuple[str, str], str] = {}

    def check_namespace(self, namespace: str | None) -> None:
        """An :class:`InputError` naming the store's namespaces when ``namespace`` is not
        one of them (None: every namespace)."""
        if namespace is None:
            return
        problem = json_problem(namespace, "the namespace")
        if problem:
            raise InputError(problem)
        known = self.store.namespaces()
        if namespace not in known:
            shown = ", ".join(sorted(known)[:10]) or "none"
            raise InputError(f"namespace {namespace!r} is not in the store (namespaces: "
                             f"{shown})")

    def _pool(self, namespace: str | None) -> tuple[list[Memory], np.ndarray]:
        from memmaint.maintenance.embed.base import embed_memories

        memories = list(self.store.iter_memories(namespace, statuses=[Status.ACTIVE]))
        # retired failed memories (the newest MAX_RETIRED) point to the proven memory that
        # takes their place (retrieve.replacement)
        memories += [m for m in self.store.iter_memories(
            namespace, statuses=[Status.SUPERSEDED, Status.EVICTED]) if failed(m)][-MAX_RETIRED:]
        done = embed_memories(self.cache, self.embedder, memories,
                              batch_size=self.config.embedding.batch_size)
        if done.embedded:
            log.debug("embedded %d memories the store's cache lacked for %s (kept in memory; "
                     "`memmaint embed` caches them)", done.embedded, self.embedder.model_id)
        return memories, done.vectors

    def search(self, query: str, namespace: str | None = None, k: int | None = None, *,
               now: datetime | None = None, route: bool | None = None) -> Retrieval:
        """Serve the best active memories of ``namespace`` (None: all) for ``query``.

        A refusal (nothing relevant is fresh) is an answer: ``decision`` is ``REFUSE`` and
        ``reason`` says why. Bad input raises :class:`InputError`.
        """
        query = check_query(query)
        k = check_k(k)
        self.check_namespace(namespace)
        memories, vectors = self._pool(namespace)
        routing = None
        if route if route is not None else self.config.retrieve.route:
            from memmaint.maintenance.retrieve.routing import latest_routing

            routing = latest_routing(self.store, None if namespace is None else [namespace])
        retriever = Retriever(memories, vectors, self.embedder, self.config, routing=routing,
                              served=self.serve_log(memories))
        out = retriever.search(query, now=now, k=k, route=route)
        for r in out.results:
            self.served_for[(r.memory.namespace, r.memory.id)] = query
        log.info("search %r in %s: %s", query[:80], namespace or "all namespaces", out.reason)
        return out

    def serve_log(self, memories: list[Memory]) -> ServeLog | None:
        """The store's serve history of ``memories`` (:func:`serve_log_of`), past queries
        embedded once per service."""
        return serve_log_of(self.store, memories, self.embedder.embed, self._query_vectors)

    def feedback(self, memory_id: str, outcome: str, namespace: str = "default",
                 query: str | None = None) -> Memory:
        """Record that ``memory_id`` was used and whether it helped (``outcome``: success,
        failure or used), as ``memmaint feedback`` does; returns the memory as stored now.
        ``query`` is the question it was used for (default: the last query this service
        served it for), kept in the store's serve history so the outcome counts for that
        question. An unknown id or outcome is an :class:`InputError` and records nothing."""
        from memmaint.maintenance.retrieve.feedback import OUTCOMES as SUCCESS
        from memmaint.maintenance.retrieve.feedback import Feedback, record_batch

        if outcome not in SUCCESS:
            raise InputError(f"outcome must be one of {', '.join(OUTCOMES)}, got {outcome!r}")
        if not isinstance(memory_id, str) or not memory_id:
            raise InputError("the memory id must be a non-empty string")
        if not isinstance(namespace, str) or not namespace:
            raise InputError("the namespace must be a non-empty string")
        query = (self.served_for.get((namespace, memory_id)) if query is None
                 else check_query(query))
        record_batch(self.store, [Feedback(namespace, memory_id, SUCCESS[outcome], query)])
        stored = self.store.get_memories(namespace, [memory_id])[0]
        log.info("feedback %s/%s: %s", namespace, memory_id, outcome)
        return stored


def serve_log_of(store: Any, memories: list[Memory], embed: Callable[[list[str]], Any],
                 vectors: dict[str, np.ndarray] | None = None) -> ServeLog | None:
    """The store's serve history of ``memories`` (the newest :data:`MAX_SERVES_PER_MEMORY`
    uses of each), its queries embedded with ``embed`` (the pool's embedder; ``vectors``
    caches them across calls); None when the store keeps none or none of them has a use
    with a query. The search service and the job (``job.served``) read it alike."""
    history = getattr(store, "serve_history", None)
    if history is None or not memories:
        return None
    vectors = {} if vectors is None else vectors
    wanted = {(m.namespace, m.id) for m in memories}
    uses: dict[tuple[str, str], list[Any]] = {}
    for ns in sorted({m.namespace for m in memories}):
        for s in history(ns):
            if (s.namespace, s.memory_id) in wanted:
                uses.setdefault((s.namespace, s.memory_id), []).append(s)
    rows = [s for key in sorted(uses) for s in uses[key][-MAX_SERVES_PER_MEMORY:]]
    if not rows:
        return None
    todo = sorted({s.query for s in rows} - set(vectors))
    if todo:
        vectors.update(zip(todo, np.asarray(embed(todo), dtype=np.float64)))
    return ServeLog(tuple((s.namespace, s.memory_id) for s in rows),
                    np.array([vectors[s.query] for s in rows]),
                    np.array([np.nan if s.success is None else float(s.success)
                              for s in rows]))


def feedback_record(memory: Memory, outcome: str) -> Mapping[str, Any]:
    """What :meth:`SearchService.feedback` recorded, as JSON-ready data."""
    return {"id": memory.id, "namespace": memory.namespace, "recorded": outcome,
            "successes": memory.successes, "failures": memory.failures,
            "uses": memory.retrievals}
