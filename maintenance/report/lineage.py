"""A memory's history as a graph: what it was merged from, what superseded it, and when.

:func:`lineage_graph` walks the store's provenance events outward from one memory (and the
``replaced_by`` pointers, for memories changed outside memmaint runs) and returns a
:class:`networkx.DiGraph`:

- nodes are memory ids with ``text``, ``status``, ``version``, ``kind``, ``created_at``,
  ``replaced_by``, ``valid_until`` and ``history`` (one line per event touching the memory);
- edges point from a replaced memory to its replacement, with ``relation`` (``merged_into``,
  ``superseded_by``), ``run_id``, ``agent``, ``reason``, ``time`` and ``undone`` (the run was
  undone later).

:func:`render` writes the graph as GraphML, Graphviz DOT, JSON or readable text. Memory text,
ids and reasons reach a terminal: every rendering shows their control characters (terminal
escape sequences) as escapes (:func:`~memmaint.maintenance.core.text.for_terminal`); JSON
through ``\\uXXXX`` escapes, so it still decodes to the stored values.
"""

from __future__ import annotations

import io
import json
from collections import deque
from typing import Any

from memmaint.maintenance.core.errors import UnknownIdError
from memmaint.maintenance.core.records import format_time
from memmaint.maintenance.core.text import for_terminal, json_for_terminal
from memmaint.maintenance.store.base import Event, MemoryStore

FORMATS = ("text", "json", "graphml", "dot")
RELATION = {"merge": "merged_into", "supersede": "superseded_by", "resolve": "superseded_by"}


def lineage_graph(store: MemoryStore, namespace: str, memory_id: str,
                  max_nodes: int = 500) -> Any:
    """The lineage graph around ``memory_id`` (at most ``max_nodes`` memories).

    Raises ``UnknownIdError`` when the memory does not exist in ``namespace``.
    """
    import networkx as nx

    if not store.existing_ids(namespace, [memory_id]):
        raise UnknownIdError(f"no memory {memory_id!r} in namespace {namespace!r}")
    graph = nx.DiGraph(root=memory_id, namespace=namespace)
    history: dict[str, list[str]] = {}
    undone_runs: set[str] = set()
    edges: list[tuple[str, str, dict[str, Any]]] = []
    seen_events: set[tuple[str, int | None, str]] = set()
    queue: deque[str] = deque([memory_id])
    visited: set[str] = set()
    while queue and len(visited) < max_nodes:
        mid = queue.popleft()
        if mid in visited:
            continue
        visited.add(mid)
        neighbours: set[str] = set()
        for ev in store.events(memory_id=mid, namespace=namespace):
            key = (ev.run_id, ev.seq, ev.action)
            history.setdefault(mid, []).append(_history_line(ev))
            if ev.action == "undo":
                undone_runs.add(ev.run_id)
            if key in seen_events:
                continue
            seen_events.add(key)
            for src, dst in _event_edges(ev):
                edges.append((src, dst, {"relation": RELATION.get(ev.action, ev.action),
                                         "run_id": ev.run_id, "agent": ev.agent,
                                         "reason": ev.reason, "time": format_time(ev.time)}))
                neighbours.update((src, dst))
        for mem in _memories(store, namespace, [mid]):
            if mem.replaced_by:
                neighbours.add(mem.replaced_by)
            for prior in mem.metadata.get("merged_from", []) or []:
                neighbours.add(str(prior))
        queue.extend(n for n in neighbours if n not in visited)
    for mem in _memories(store, namespace, sorted(visited)):
        graph.add_node(mem.id, text=mem.text, status=mem.status.value, version=mem.version,
                       kind=mem.kind, created_at=format_time(mem.created_at),
                       replaced_by=mem.replaced_by or "",
                       valid_until=format_time(mem.valid_until) or "",
                       history=history.get(mem.id, []))
    for src, dst, attrs in edges:
        if src in graph and dst in graph:
            attrs["undone"] = f"undo-{attrs['run_id']}" in undone_runs
            graph.add_edge(src, dst, **attrs)
    for mid in list(graph.nodes):
        target = graph.nodes[mid]["replaced_by"]
        if target and target in graph and not graph.has_edge(mid, target):
            relation = {"merged": "merged_into"}.get(graph.nodes[mid]["status"],
                                                      "superseded_by")
            graph.add_edge(mid, target, relation=relation, run_id="", agent="", reason="",
                           time="", undone=False)
    return graph


def _memories(store: MemoryStore, namespace: str, ids: list[str]) -> list[Any]:
    present = store.existing_ids(namespace, ids)
    return store.get_memories(namespace, [i for i in ids if i in present])


def _event_edges(ev: Event) -> list[tuple[str, str]]:
    """(replaced, replacement) pairs an apply event records."""
    if ev.action not in RELATION:
        return []
    created = [m for m, b, a in zip(ev.memory_ids, ev.before, ev.after)
               if b is None and a is not None]
    changed = [m for m, b, a in zip(ev.memory_ids, ev.before, ev.after)
               if b is not None and a is not None]
    referenced = [m for m, b, a in zip(ev.memory_ids, ev.before, ev.after)
                  if b is None and a is None]
    targets = created if ev.action == "merge" else referenced[:1]
    return [(src, dst) for src in changed for dst in targets]


def _history_line(ev: Event) -> str:
    return f"{format_time(ev.time)} run {ev.run_id}: {ev.action} by {ev.agent}: {ev.reason}"


# -- rendering ---------------------------------------------------------------------------

def render(graph: Any, fmt: str = "text") -> str:
    """``graph`` as ``text``, ``json``, ``graphml`` or ``dot``."""
    if fmt == "json":
        return json_for_terminal(json.dumps(to_json_dict(graph), indent=2, ensure_ascii=False))
    if fmt == "graphml":
        return _graphml(graph)
    if fmt == "dot":
        return _dot(graph)
    if fmt == "text":
        return _text(graph)
    raise ValueError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")


def to_json_dict(graph: Any) -> dict[str, Any]:
    return {
        "root": graph.graph.get("root"),
        "namespace": graph.graph.get("namespace"),
        "nodes": [{"id": n, **graph.nodes[n]} for n in graph.nodes],
        "edges": [{"source": u, "target": v, **d} for u, v, d in graph.edges(data=True)],
    }


def _graphml(graph: Any) -> str:
    import networkx as nx

    def safe(value: Any) -> Any:  # XML 1.0 cannot hold most control characters at all
        return for_terminal(value, keep_newlines=True) if isinstance(value, str) else value

    flat = nx.relabel_nodes(graph, {n: safe(n) for n in graph.nodes}, copy=True)
    for n in flat.nodes:
        flat.nodes[n]["history"] = "\n".join(flat.nodes[n].get("history", []))
        for key, value in flat.nodes[n].items():
            flat.nodes[n][key] = safe(value)
    for _u, _v, data in flat.edges(data=True):
        for key, value in data.items():
            data[key] = safe(value)
    for key in list(flat.graph):
        flat.graph[key] = safe(str(flat.graph[key]))
    buf = io.BytesIO()
    nx.write_graphml(flat, buf)
    return buf.getvalue().decode("utf-8")


def _quote(value: Any) -> str:
    return '"' + for_terminal(value, keep_newlines=True).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _dot(graph: Any) -> str:
    lines = ["digraph lineage {", "  rankdir=LR;", "  node [shape=box];"]
    root = graph.graph.get("root")
    for n, d in graph.nodes(data=True):
        label = f"{n}\n[{d['status']} v{d['version']}]\n{_snip(d['text'], 40)}"
        style = ", style=bold" if n == root else ""
        lines.append(f"  {_quote(n)} [label={_quote(label)}{style}];")
    for u, v, d in graph.edges(data=True):
        label = d["relation"] + (" (undone)" if d.get("undone") else "")
        lines.append(f"  {_quote(u)} -> {_quote(v)} [label={_quote(label)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _snip(text: str, limit: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "\u2026"


def _text(graph: Any) -> str:
    root = graph.graph.get("root")
    out = []

    def describe(n: str) -> str:
        d = graph.nodes[n]
        return f"{n} [{d['status']}, v{d['version']}, {d['kind']}] {_snip(d['text'], 70)}"

    out.append(describe(root))
    preds = sorted(graph.predecessors(root))
    succs = sorted(graph.successors(root))
    for label, nodes, edge in (("replaces", preds, lambda n: graph.edges[n, root]),
                               ("replaced by", succs, lambda n: graph.edges[root, n])):
        for n in nodes:
            e = edge(n)
            undone = " (undone)" if e.get("undone") else ""
            out.append(f"  {label} ({e['relation']}{undone}, run {e['run_id'] or '?'}, "
                       f"{e['agent'] or '?'}): {describe(n)}")
            if e.get("reason"):
                out.append(f"      reason: {e['reason']}")
    others = [n for n in graph.nodes if n != root and n not in preds and n not in succs]
    if others:
        out.append(f"  further lineage: {len(others)} more memories (use --format json)")
    hist = graph.nodes[root].get("history", [])
    out.append("history:" if hist else "history: no maintenance events")
    out.extend(f"  {line}" for line in hist)
    return "\n".join(for_terminal(line) for line in out) + "\n"
