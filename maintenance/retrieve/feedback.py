"""Recording whether served memories helped: the library half of ``memmaint feedback`` and of
the MCP server's ``feedback`` tool.

The counters it writes (``successes``, ``failures``, ``retrievals``, ``last_used_at``) feed the
outcome model (:mod:`memmaint.maintenance.core.outcomes`) used by retrieval and the agents.
A batch is all-or-nothing: every line is checked, and every id looked up, before one store
transaction records them. A use reported with its ``query`` (the question the memory was
served for) also goes into the store's serve history, so the outcome counts for that question
(:mod:`memmaint.maintenance.core.served`).
"""

from __future__ import annotations

from dataclasses import dataclass

from memmaint.maintenance.core.errors import InputError, UnknownIdError
from memmaint.maintenance.core.text import json_problem, parse_json
from memmaint.maintenance.store.base import MemoryStore

OUTCOMES = {"success": True, "failure": False, "used": None}


@dataclass(frozen=True)
class Feedback:
    """One reported use of a memory (``success`` None: used, no verdict)."""

    namespace: str
    memory_id: str
    success: bool | None
    query: str | None = None


def parse_feedback_jsonl(data: bytes, name: str, default_namespace: str) -> list[Feedback]:
    """Lines like ``{"id": "m1", "outcome": "success"}`` (``namespace`` and ``query``
    optional; ``outcome`` one of success, failure, used). Any bad line is an
    :class:`InputError` naming it."""
    out: list[Feedback] = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{name}:{lineno}"
        row = parse_json(line, where)  # one line for deep nesting, surrogates, NaN...
        if not isinstance(row, dict):
            raise InputError(f"{where}: expected a JSON object")
        mid, ns, outcome = row.get("id"), row.get("namespace", default_namespace), \
            row.get("outcome")
        if not isinstance(mid, str) or not mid:
            raise InputError(f"{where}: 'id' must be a non-empty string")
        if not isinstance(ns, str) or not ns:
            raise InputError(f"{where}: 'namespace' must be a non-empty string")
        if outcome not in OUTCOMES:
            raise InputError(f"{where}: 'outcome' must be one of "
                             f"{', '.join(OUTCOMES)}, got {outcome!r}")
        query = row.get("query")
        if query is not None and (not isinstance(query, str) or not query.strip()):
            raise InputError(f"{where}: 'query' must be a non-empty string")
        out.append(Feedback(ns, mid, OUTCOMES[outcome], query))
    if not out:
        raise InputError(f"{name}: no feedback lines")
    return out


#: the longest query a use may be recorded with, in characters
MAX_QUERY_CHARS = 10_000


def check_query_text(query: str) -> None:
    """Refuse a query a store cannot hold or a search would not take."""
    problem = json_problem(query, "the query")
    if problem:
        raise InputError(problem)
    if not query.strip():
        raise InputError("the query is empty")
    if len(query) > MAX_QUERY_CHARS:
        raise InputError(f"the query has {len(query)} characters, at most {MAX_QUERY_CHARS}")


def check_id(value: str, what: str) -> None:
    """Refuse an id or namespace a store cannot hold (a lone surrogate: not Unicode text)."""
    problem = json_problem(value, what)
    if problem:
        raise InputError(problem)


def record_batch(store: MemoryStore, items: list[Feedback]) -> dict[str, int]:
    """Check every id, then record every item in one transaction; counts per outcome."""
    for item in items:
        check_id(item.memory_id, "the memory id")
        check_id(item.namespace, "the namespace")
        if item.query is not None:
            check_query_text(item.query)
    missing: list[str] = []
    by_ns: dict[str, set[str]] = {}
    for item in items:
        by_ns.setdefault(item.namespace, set()).add(item.memory_id)
    for ns, ids in by_ns.items():
        missing += [f"{ns}/{m}" for m in sorted(ids - store.existing_ids(ns, ids))]
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more"
                                          if len(missing) > 5 else "")
        raise UnknownIdError(f"unknown memory ids: {shown} (nothing recorded)")
    counts = {name: 0 for name in OUTCOMES}
    names = {v: k for k, v in OUTCOMES.items()}
    with store.transaction():
        for item in items:
            if item.query is None:
                store.record_usage(item.namespace, item.memory_id, item.success)
            else:
                store.record_usage(item.namespace, item.memory_id, item.success,
                                   query=item.query.strip())
            counts[names[item.success]] += 1
    return counts
