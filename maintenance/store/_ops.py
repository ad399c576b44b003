"""The external writes of one sidecar transaction, and how they become the system's writes.

:class:`~memmaint.maintenance.store.mirror.ExternalStore` notes one :class:`Op` per memory
change. A memory and the record holding it in the system usually share their id; a merge
breaks that on purpose. **Stable ids**: the merged memory (memmaint's new id) does not get a
new record: it takes over the record of one of its sources, the *survivor*, which keeps its
id, its metadata (keys and value types) and its timestamps, and only gets the merged text
(and a vector for it); the other sources' records are deleted. The survivor is

1. the source whose text the merge keeps verbatim (the most complete statement; its record
   is then not written at all), else
2. the merge's canonical source (the first of ``Merge.source_ids``, chosen by the agents'
   ``canonical`` policy).

Lineage (``merged_from``) and the sources' differing metadata stay in the sidecar (the
merged memory, its events and ``history``), never in the record.

Since a memory may then hold a record of another id, the writes are combined per *record*
id (:func:`by_record`): within one transaction an upsert of a record id wins over the delete
of the same id by another memory (undoing a merge archives the merged memory, which deletes
the survivor's id, and restores the survivor, which writes it back), and the system's state
before the transaction is the first ``previous`` known for that id.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from memmaint.maintenance.store.external import ExternalRecord


@dataclasses.dataclass
class Op:
    """One external write: ``record`` is upserted, or (``record`` None) the record removed.

    ``previous`` is the record in the system before, when ``known``; a memory that was not
    in the system (``known`` False) says nothing about its record id there (another memory
    may hold it).
    """

    namespace: str
    memory_id: str
    record: ExternalRecord | None  # None: delete
    previous: ExternalRecord | None  # the record in the system before (None: absent)
    replaced_by: str | None = None  # for a deleted merge source: the memory replacing it
    known: bool = True
    origin: str = ""  # the memory whose ``previous`` this is (combined ops)

    @property
    def delete(self) -> bool:
        """True when the write removes the record."""
        return self.record is None

    @property
    def key(self) -> str:
        """The record id this op writes in the system."""
        if self.record is not None:
            return self.record.id
        if self.previous is not None:
            return self.previous.id
        return self.memory_id


def last_per_memory(ops: Sequence[Op]) -> list[Op]:
    """One op per memory: the last target, with the first ``previous``."""
    merged: dict[tuple[str, str], Op] = {}
    for op in ops:
        key = (op.namespace, op.memory_id)
        if key in merged:
            first = merged[key]
            merged[key] = Op(op.namespace, op.memory_id, op.record, first.previous,
                             op.replaced_by or first.replaced_by, first.known)
        else:
            merged[key] = dataclasses.replace(op)
    return list(merged.values())


def survivor(new: Op, ops: Sequence[Op]) -> ExternalRecord | None:
    """The source record a merged memory's op takes over (module docstring), or None when
    ``new`` is no merge's new memory."""
    if new.record is None or new.previous is not None or not new.known:
        return None
    sources = [o.previous for o in ops if o.record is None and o.known
               and o.replaced_by == new.memory_id and o.previous is not None]
    if not sources:
        return None
    verbatim = [s for s in sources if s is not None and s.text == new.record.text]
    return verbatim[0] if verbatim else sources[0]


def alias_merges(ops: Sequence[Op]) -> None:
    """Point every merge's new memory at its survivor's record (in place)."""
    for op in ops:
        kept = survivor(op, ops)
        if kept is None or op.record is None:
            continue
        same_text = op.record.text == kept.text
        op.record = dataclasses.replace(
            op.record, id=kept.id, metadata=dict(kept.metadata), created_at=kept.created_at,
            updated_at=kept.updated_at if same_text else op.record.updated_at,
            vector=kept.vector if same_text and kept.vector is not None else op.record.vector)
        op.previous = kept


def by_record(ops: Sequence[Op]) -> list[Op]:
    """One op per (namespace, record id): an upsert wins over another memory's delete of the
    same id; ``previous`` is the first known one (module docstring)."""
    groups: dict[tuple[str, str], list[Op]] = {}
    for op in ops:
        groups.setdefault((op.namespace, op.key), []).append(op)
    out: list[Op] = []
    for (ns, _), group in groups.items():
        holder: str | None = None
        target: ExternalRecord | None = None
        for op in group:
            if op.record is not None:
                target, holder = op.record, op.memory_id
            elif holder is None or holder == op.memory_id:
                target, holder = None, op.memory_id
        first = next((op for op in group if op.known), None)
        out.append(Op(ns, holder or group[0].memory_id, target,
                      first.previous if first is not None else None,
                      next((op.replaced_by for op in group if op.replaced_by), None),
                      first is not None, first.memory_id if first else group[0].memory_id))
    return out


def noop(op: Op) -> bool:
    """True when the op would leave the system as it is."""
    if op.record is None:
        return op.previous is None
    return op.previous is not None and op.previous.fingerprint() == op.record.fingerprint() \
        and op.previous.vector is not None


def op_json(op: Op, record: ExternalRecord | None) -> dict[str, Any]:
    """The journal's form of writing ``record`` (None: deleting the op's record id)."""
    if record is None:
        return {"op": "delete", "id": op.key}
    return {"op": "upsert", "record": record.to_json()}
