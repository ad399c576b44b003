"""What changed since the last successful run: the store's change sequence, not the memories'
own dates.

Every insert and content write of a memory takes the next number of the store's change
sequence (``MemoryStore.change_seq``; feedback never does). A run notes, per namespace it
covered, ``{"seen": L, "own": [S, H]}`` in its report's ``changes``: ``L`` is the sequence
when it started loading (it saw everything up to ``L``), ``(S, H]`` are the numbers its own
apply took (``S`` read under the store's write lock at the start of its transaction, ``H`` at
its end). The next run counts as new or changed the memories whose sequence is in ``(L, S]``
(written by others while the run worked, which it never saw) or above ``H``; the run's own
merges and edits are not news.

A store without a change sequence (an older connector) and a last run that recorded none (a
store migrated from schema 1) fall back to the old rule once: memories created after that
run's start.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memmaint.maintenance.core.records import Memory, Status
from memmaint.maintenance.store.base import MemoryStore, RunRecord


def current_seq(store: MemoryStore, lock: bool = False) -> int | None:
    """The store's change sequence, or None when the store keeps none."""
    fn = getattr(store, "change_seq", None)
    return None if fn is None else int(fn(lock))


def ranges_since(run: RunRecord, namespace: str) -> list[tuple[int, int | None]] | None:
    """The sequence ranges ``(after, upto]`` holding what changed in ``namespace`` since
    ``run`` (None when the run recorded no sequence for it)."""
    changes = run.report.get("changes") if isinstance(run.report, Mapping) else None
    mark = changes.get(namespace) if isinstance(changes, Mapping) else None
    if not isinstance(mark, Mapping) or "seen" not in mark:
        return None
    seen = int(mark["seen"])
    own = mark.get("own")
    if not own:
        return [(seen, None)]
    start, end = int(own[0]), int(own[1])
    return [(seen, start), (end, None)]


def count_new(store: MemoryStore, namespace: str, memories: Sequence[Memory],
              since: RunRecord | None) -> int:
    """Active memories of ``namespace`` added or changed in the store since ``since`` (the
    last successful run that covered it; all of ``memories`` when there is none)."""
    if since is None:
        return len(memories)
    ranges = ranges_since(since, namespace)
    counter = getattr(store, "count_changed", None)
    if ranges is None or counter is None:  # the old rule, once
        cutoff = since.started_at
        return sum(1 for m in memories if m.created_at > cutoff)
    return int(counter(namespace, ranges, statuses=[Status.ACTIVE]))


def count_unread(store: MemoryStore, namespace: str, since: RunRecord | None) -> int | None:
    """:func:`count_new` from the store's change sequence alone, before any memory is read
    (None when that needs the memories: no earlier run, no recorded sequence, or a store
    without ``count_changed``). The job reads no memory of a namespace this skips."""
    ranges = None if since is None else ranges_since(since, namespace)
    counter = getattr(store, "count_changed", None)
    if ranges is None or counter is None:
        return None
    return int(counter(namespace, ranges, statuses=[Status.ACTIVE]))


def marks(namespaces: Sequence[str], seen: int | None, own_start: int | None,
          own_end: int | None) -> dict[str, Any]:
    """The report's ``changes`` entry for a run over ``namespaces`` (empty without a
    sequence)."""
    if seen is None:
        return {}
    own = None if own_start is None or own_end is None else [own_start, own_end]
    return {ns: {"seen": seen, "own": own} for ns in namespaces}
