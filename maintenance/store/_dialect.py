"""How the SQL stores (SQLite, PostgreSQL) spell queries and encode values, written once.

:class:`Dialect` says how a backend spells a query parameter (``?`` or ``%s``), a JSON
parameter, ``TRUE``, an id-list filter (chunked ``IN (...)`` or one ``= ANY(%s)``), a status
filter and the event memory-id filter, and how it encodes and decodes values (timestamps,
JSON, vectors). Row <-> :class:`Memory` / :class:`RunRecord` / :class:`Event` conversion is
written once on top of those hooks. Also here: the column lists and the small helpers both
backends use (JSON dumping, chunking, duplicate-id messages, lock names).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any, ClassVar

import numpy as np

from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.core.records import Memory, Status, content_hash, parse_time
from memmaint.maintenance.store.base import Event, RunRecord

MEMORY_COLUMNS = (
    "namespace", "id", "text", "content_hash", "created_at", "updated_at", "importance", "kind",
    "source", "metadata", "retrievals", "successes", "failures", "last_used_at", "status",
    "version", "replaced_by", "valid_until",
)
#: The outcome counters: written by ``record_usage`` only, never by a content write
#: (``update``/``restore``), and not part of a memory's content version.
OUTCOME_COLUMNS = ("retrievals", "successes", "failures", "last_used_at")
#: What ``update``/``restore`` write (everything but the key and the outcome counters).
CONTENT_COLUMNS = tuple(c for c in MEMORY_COLUMNS[2:] if c not in OUTCOME_COLUMNS)
_CONTENT_INDEX = tuple(MEMORY_COLUMNS.index(c) for c in CONTENT_COLUMNS)
SELECT_MEMORY = f"SELECT {', '.join(MEMORY_COLUMNS)} FROM memories"
#: The store's change sequence (schema version 2): the one-row table ``change_seq`` holds the
#: last sequence number handed out; every write of a memory's content (insert, update,
#: restore) first bumps it with :data:`BUMP_SEQ` and stamps the row's ``seq`` column with the
#: new value (:data:`CURRENT_SEQ`). ``record_usage`` never does: outcomes are not content. In
#: PostgreSQL the bump's row lock is held to commit, so sequence order is commit order.
BUMP_SEQ = "UPDATE change_seq SET value = value + 1"
CURRENT_SEQ = "(SELECT value FROM change_seq)"
RUN_COLUMNS = "run_id, started_at, finished_at, status, namespaces, report"
EVENT_COLUMNS = "seq, run_id, time, action, namespace, memory_ids, before, after, reason, agent"
PAGE = 1000  # rows per page of iter_memories
LOCK_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


def dump_json(value: Any, what: str) -> str:
    """Canonical JSON text (sorted keys, no NaN); ``InputError`` naming ``what`` otherwise."""
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{what} is not JSON-serialisable: {exc}") from None


def dupe_message(keys: Sequence[tuple[str, str]], problem: str) -> str:
    shown = ", ".join(f"{i!r} (namespace {ns!r})" for ns, i in keys[:5])
    more = f" and {len(keys) - 5} more" if len(keys) > 5 else ""
    return f"memory id {problem}: {shown}{more}"


def chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def check_lock_name(name: str) -> None:
    if not LOCK_NAME.match(name):
        raise ValueError(f"invalid lock name {name!r}")


class Dialect:
    """How one SQL backend spells parameters and filters and encodes values.

    Subclasses set the class attributes and implement the ``encode``/``decode`` hooks;
    the row conversions below are shared.
    """

    param: ClassVar[str]  # one query parameter
    json_param: ClassVar[str]  # a parameter holding JSON text
    true: ClassVar[str]  # an always-true condition
    event_memory_filter: ClassVar[str]  # events touching one memory id (one parameter)
    run_tiebreak: ClassVar[str]  # the column ordering runs started at the same instant
    lock_row: ClassVar[str] = ""  # appended to a SELECT to lock the rows it reads
    #: follows ``FROM memories`` in the paged ordered scan: a planner that would pick the
    #: status index and sort every page instead of walking ``memories_order`` is told
    ordered_scan_hint: ClassVar[str] = ""

    def __init__(self) -> None:
        p, j = self.param, self.json_param
        self.insert_memory_sql = (  # run after BUMP_SEQ in the same transaction
            f"INSERT INTO memories ({', '.join(MEMORY_COLUMNS)}, seq) "
            f"VALUES ({', '.join(j if c == 'metadata' else p for c in MEMORY_COLUMNS)}, "
            f"{CURRENT_SEQ})"
        )
        self.write_memory_sql = (  # likewise
            "UPDATE memories SET "
            + ", ".join(f"{c} = {j if c == 'metadata' else p}" for c in CONTENT_COLUMNS)
            + f", seq = {CURRENT_SEQ} WHERE namespace = {p} AND id = {p} AND version = {p}"
        )

    # -- hooks ------------------------------------------------------------------------------
    def encode_time(self, value: datetime | None) -> Any:
        """A timestamp (or None) as a query parameter."""
        raise NotImplementedError

    def decode_json(self, value: Any) -> Any:
        """A JSON column's value as read back."""
        raise NotImplementedError

    def encode_memory_ids(self, ids: Sequence[str]) -> Any:
        """The ``events.memory_ids`` parameter."""
        raise NotImplementedError

    def decode_vector(self, value: Any) -> np.ndarray:
        """A stored embedding as float32."""
        raise NotImplementedError

    def in_batches(self, column: str, values: Sequence[Any]) -> Iterator[tuple[str, list[Any]]]:
        """``(condition, params)`` pairs that together select ``column`` in ``values``
        (nothing when ``values`` is empty)."""
        raise NotImplementedError

    def status_filter(self, values: list[str]) -> tuple[str, list[Any]]:
        """``(condition, params)`` selecting rows whose status is one of ``values``."""
        raise NotImplementedError

    def text(self, value: str | None, what: str) -> str | None:
        """``value`` if the backend can store it as text (``InputError`` otherwise)."""
        return value

    def check_memory(self, m: Memory) -> None:
        """Refuse a memory the backend cannot store, before anything is written."""

    def check_event(self, event: Event) -> None:
        """Refuse an event the backend cannot store, before anything is written."""

    # -- shared conversions -----------------------------------------------------------------
    def placeholders(self, n: int) -> str:
        return ", ".join([self.param] * n)

    def memory_row(self, m: Memory) -> tuple[Any, ...]:
        self.check_memory(m)
        t = self.encode_time
        return (
            m.namespace, m.id, m.text, content_hash(m.text), t(m.created_at), t(m.updated_at),
            float(m.importance), m.kind, m.source,
            dump_json(dict(m.metadata), f"metadata of memory {m.id!r}"),
            m.retrievals, m.successes, m.failures, t(m.last_used_at), Status(m.status).value,
            m.version, m.replaced_by, t(m.valid_until),
        )

    def content_params(self, m: Memory) -> tuple[Any, ...]:
        """The parameters of :attr:`write_memory_sql`'s SET list (:data:`CONTENT_COLUMNS`)."""
        row = self.memory_row(m)
        return tuple(row[i] for i in _CONTENT_INDEX)

    def row_memory(self, row: Sequence[Any]) -> Memory:
        r = dict(zip(MEMORY_COLUMNS, row))
        return Memory(
            id=r["id"], namespace=r["namespace"], text=r["text"],
            created_at=parse_time(r["created_at"]), updated_at=parse_time(r["updated_at"]),
            importance=r["importance"], kind=r["kind"], source=r["source"],
            metadata=self.decode_json(r["metadata"]), retrievals=r["retrievals"],
            successes=r["successes"], failures=r["failures"],
            last_used_at=None if r["last_used_at"] is None else parse_time(r["last_used_at"]),
            status=Status(r["status"]), version=r["version"], replaced_by=r["replaced_by"],
            valid_until=None if r["valid_until"] is None else parse_time(r["valid_until"]),
        )

    def row_run(self, r: Sequence[Any]) -> RunRecord:
        return RunRecord(run_id=r[0], started_at=parse_time(r[1]),
                         finished_at=None if r[2] is None else parse_time(r[2]), status=r[3],
                         namespaces=tuple(self.decode_json(r[4])),
                         report=self.decode_json(r[5]))

    def row_event(self, r: Sequence[Any]) -> Event:
        return Event(run_id=r[1], time=parse_time(r[2]), action=r[3], namespace=r[4],
                     memory_ids=tuple(self.decode_json(r[5])),
                     before=tuple(self.decode_json(r[6])), after=tuple(self.decode_json(r[7])),
                     reason=r[8], agent=r[9], seq=int(r[0]))


def existing_keys(conn: Any, dialect: Dialect,
                  memories: Sequence[Memory]) -> list[tuple[str, str]]:
    """The ``(namespace, id)`` keys of ``memories`` already stored, read through ``conn``."""
    by_ns: dict[str, list[str]] = {}
    for m in memories:
        by_ns.setdefault(m.namespace, []).append(m.id)
    existing: list[tuple[str, str]] = []
    for ns, ids in by_ns.items():
        for clause, params in dialect.in_batches("id", ids):
            existing += [(ns, r[0]) for r in conn.execute(
                f"SELECT id FROM memories WHERE namespace = {dialect.param} AND {clause}",
                [ns, *params])]
    return existing
