"""The serve history before planning (issue #37): which proven memory answers the questions
a failed memory was served for.

A store that keeps feedback with its query (``store.serve_history``; the MCP server and
``memmaint feedback --query`` record it) says more than the counters: for a memory that failed
for some questions, the memories that helped for the same questions are its siblings
(:func:`memmaint.maintenance.agents.outcome_rules.served_siblings`), whatever the clusterer
made of their wording. The job reads them once, after embedding, so that regrouping
(``group_outcome_siblings``) and the planner retire failed advice for the proven memory that
served its queries, not for the nearest proven memory of its cluster.

A failed memory that never helped and that the history names nothing for (feedback recorded
as plain counts) gets its pair instead: the proven memory paired with it one to one by
:func:`memmaint.maintenance.retrieve.replacement.replacements` (``retrieve.replacement_cosine``),
the one search serves in its place, so the planner retires it for the advice search already
prefers. One that helped once keeps the cluster rule and its stricter bar.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from memmaint.maintenance.agents.outcome_rules import served_siblings
from memmaint.maintenance.core.config import AgentsConfig
from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.core.served import Key
from memmaint.maintenance.embed.base import embed_memories
from memmaint.maintenance.retrieve.replacement import replacements
from memmaint.maintenance.retrieve.service import serve_log_of


def serve_siblings(store: Any, embedder: Any, memories: Sequence[Memory],
                   cfg: AgentsConfig, vectors: Any = None,
                   pair_cosine: float = 2.0) -> dict[Key, tuple[str, ...]]:
    """Per failing memory of ``memories`` with failures logged with their query, the ids of
    the memories that helped for the same questions (best first); empty when the store keeps
    no serve history or nothing in the pool failed more often than it helped. Only the
    namespaces with such a memory are read; their past queries are embedded through the
    store's embedding cache. With ``vectors`` (aligned with ``memories``) a failed memory
    that never helped and that the history names nothing for gets its pair at
    ``pair_cosine`` (see the module docstring)."""
    if not any(m.failures > m.successes for m in memories):
        return {}
    failing_ns = {m.namespace for m in memories if m.failures > m.successes}
    log = serve_log_of(store, [m for m in memories if m.namespace in failing_ns],
                       lambda texts: _through_cache(store, embedder, texts))
    named = {} if log is None else served_siblings(log, cfg.outcome_query_match)
    if vectors is None or pair_cosine > 1.0:
        return named
    rows = np.asarray(vectors, dtype=np.float64)
    rows = rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
    for b, g in replacements(memories, rows, pair_cosine).items():
        key = (memories[b].namespace, memories[b].id)
        if memories[b].successes == 0 and key not in named:
            named[key] = (memories[g].id,)
    return named


def _through_cache(store: Any, embedder: Any, texts: list[str]) -> Any:
    """The queries' vectors through the store's content-hash embedding cache (a dry run's
    :class:`~memmaint.maintenance.job.stages.DryRunCache` keeps new ones in memory), so a
    nightly run embeds only the questions asked since the last one."""
    queries = [Memory(text=t, id=f"query-{i}") for i, t in enumerate(texts)]
    return embed_memories(store, embedder, queries).vectors
