"""Reviewed decisions as a training pool: the clustering learns from the people who review it.

``memmaint apply --decisions`` appends one JSON line per pair of memories of every reviewed
merge to the labels file beside the store (``DB.labels.jsonl``; format in
docs/maintenance.md): ``{"type": "must-link" | "cannot-link", "namespace", "a", "b", ...}``.
:func:`labels_pool` turns those pairs into one labelled pool per namespace for
``memmaint tune --labels-from``:

- classes are the connected components of the must-link pairs (the union of everything
  somebody approved merging); a memory that only appears in cannot-link pairs is a class of
  its own, so a rejected merge is a pair the clustering should keep apart;
- a cannot-link pair whose two memories end up in one component (two reviews disagree) is
  dropped with a warning, and the later must-links win;
- the texts come from the store (every status: merged sources stay in it), so the pool is
  embedded like any other. A pool needs two classes or more to say anything.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from memmaint.maintenance.core.errors import InputError
from memmaint.optimize.pools import RawPool

log = logging.getLogger(__name__)

LINK_TYPES = ("must-link", "cannot-link")


def labels_file(source: str) -> Path:
    """The labels file for ``source``: the file itself when it is a ``.jsonl`` file, else the
    ``.labels.jsonl`` file beside the store at that path."""
    p = Path(source)
    if p.suffix == ".jsonl" and p.is_file():
        return p
    beside = p.with_name(p.name + ".labels.jsonl")
    if not beside.is_file():
        raise InputError(f"no review labels at {beside} (they are written by "
                         "'memmaint apply PLAN --decisions FILE')")
    return beside


def read_links(path: Path) -> list[tuple[str, str, str, str]]:
    """``(type, namespace, a, b)`` per line; a bad line is an InputError naming it."""
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            kind, ns, a, b = row["type"], row["namespace"], row["a"], row["b"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise InputError(f"{path}:{number}: not a review label line ({exc})") from None
        if kind not in LINK_TYPES or not all(isinstance(x, str) and x for x in (ns, a, b)):
            raise InputError(f"{path}:{number}: type must be must-link or cannot-link and "
                             "namespace, a, b non-empty strings")
        out.append((kind, ns, a, b))
    return out


def _components(ids: list[str], pairs: list[tuple[str, str]]) -> dict[str, str]:
    parent = {i: i for i in ids}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    return {i: find(i) for i in ids}


def labels_pool(source: str) -> list[RawPool]:
    """One pool per namespace from the review labels of the store at ``source`` (or a
    labels file whose store is given by the lines' ids: the store must be beside it)."""
    from memmaint.maintenance.store.registry import open_store

    path = labels_file(source)
    links = read_links(path)
    store_path = str(path)[: -len(".labels.jsonl")] if path.name.endswith(".labels.jsonl") \
        else source
    by_ns: dict[str, list[tuple[str, str, str]]] = {}
    for kind, ns, a, b in links:
        by_ns.setdefault(ns, []).append((kind, a, b))
    pools: list[RawPool] = []
    store = open_store(store_path, create=False)
    try:
        for ns, rows in sorted(by_ns.items()):
            ids = sorted({x for _k, a, b in rows for x in (a, b)})
            must = [(a, b) for k, a, b in rows if k == "must-link"]
            comp = _components(ids, must)
            conflicts = sum(1 for k, a, b in rows if k == "cannot-link" and comp[a] == comp[b])
            if conflicts:
                log.warning("review labels of %s: %d cannot-link pairs contradict must-links; "
                            "dropped", ns, conflicts)
            if len(set(comp.values())) < 2:
                log.info("review labels of %s: one class only; no pool", ns)
                continue
            memories = store.get_memories(ns, ids)
            pools.append(RawPool(name=f"review-{ns}", memories=tuple(memories),
                                 labels=tuple(comp[m.id] for m in memories), path=str(path)))
    finally:
        store.close()
    if not pools:
        raise InputError(f"{path}: the review labels give no pool with two classes yet")
    return pools
