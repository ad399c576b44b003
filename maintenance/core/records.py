"""The memory record and small helpers shared by every part of memmaint.

A :class:`Memory` is immutable: changing one means building a new value with
:func:`dataclasses.replace` and writing it through a store, which bumps ``version``.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import math
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

BUILTIN_KINDS = ("price", "availability", "schedule", "reference", "default")


class Status(str, enum.Enum):
    """Lifecycle of a memory. Only ``active`` memories are served and maintained."""

    ACTIVE = "active"
    MERGED = "merged"
    SUPERSEDED = "superseded"
    EVICTED = "evicted"
    ARCHIVED = "archived"

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.value


def utcnow() -> datetime:
    """The current time, timezone-aware UTC, truncated to microseconds."""
    return datetime.now(timezone.utc)


def to_utc(value: datetime) -> datetime:
    """Return ``value`` as an aware UTC datetime (naive values are taken as UTC)."""
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


def parse_time(value: str | datetime) -> datetime:
    """Parse an ISO-8601 timestamp (``Z`` suffix accepted) into aware UTC.

    Raises ``ValueError`` with a readable message when it cannot be parsed.
    """
    if isinstance(value, datetime):
        return to_utc(value)
    if not isinstance(value, str):
        raise ValueError(  # noqa: TRY004 - callers report ValueError as a bad record
            f"expected an ISO-8601 timestamp string, got {type(value).__name__}")
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        return to_utc(datetime.fromisoformat(text))
    except ValueError:
        raise ValueError(f"unparseable date {value!r} (expected ISO-8601)") from None


def format_time(value: datetime | None) -> str | None:
    """Serialise an aware datetime as ISO-8601 UTC (``+00:00``), or ``None``."""
    return None if value is None else to_utc(value).isoformat()


def content_hash(text: str) -> str:
    """sha256 hex digest of ``text`` encoded as UTF-8: the embedding cache key."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def new_id() -> str:
    """A fresh random memory id (UUID4 as a string)."""
    return str(uuid.uuid4())


@dataclass(frozen=True)
class Memory:
    """One agent memory.

    Attributes:
        id: caller-supplied string or a generated UUID; unique within ``namespace``.
        namespace: tenant or agent scope; every read and write is scoped to one namespace.
        text: the memory itself.
        created_at, updated_at: timezone-aware UTC.
        importance: float >= 0 (default 1.0); the weight used by clustering and agents.
        kind: volatility class used for TTLs (``price``, ``availability``, ``schedule``,
            ``reference``, ``default`` or a user-defined class from config).
        source: lineage string (where it came from; merged memories join their sources').
        metadata: JSON object.
        retrievals, successes, failures, last_used_at: usage counters for outcome scores.
        status: lifecycle status.
        version: incremented by the store on every change (optimistic concurrency).
        replaced_by: for ``merged``/``superseded`` memories, the id of the memory that
            replaced it.
        valid_until: for superseded memories, the end of their validity window.
    """

    text: str
    id: str = field(default_factory=new_id)
    namespace: str = "default"
    created_at: datetime = field(default_factory=utcnow)
    updated_at: datetime | None = None
    importance: float = 1.0
    kind: str = "default"
    source: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    retrievals: int = 0
    successes: int = 0
    failures: int = 0
    last_used_at: datetime | None = None
    status: Status = Status.ACTIVE
    version: int = 1
    replaced_by: str | None = None
    valid_until: datetime | None = None

    def __post_init__(self) -> None:
        problems = validate_fields(self)
        if problems:
            raise ValueError("; ".join(problems))
        object.__setattr__(self, "created_at", to_utc(self.created_at))
        object.__setattr__(
            self, "updated_at", to_utc(self.updated_at or self.created_at)
        )
        if self.last_used_at is not None:
            object.__setattr__(self, "last_used_at", to_utc(self.last_used_at))
        if self.valid_until is not None:
            object.__setattr__(self, "valid_until", to_utc(self.valid_until))
        object.__setattr__(self, "status", Status(self.status))
        object.__setattr__(self, "importance", float(self.importance))

    @property
    def content_hash(self) -> str:
        """sha256 of the text (the embedding cache key)."""
        return content_hash(self.text)

    @property
    def is_active(self) -> bool:
        return self.status is Status.ACTIVE

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (datetimes as ISO-8601 strings); inverse of :meth:`from_dict`."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, datetime):
                value = format_time(value)
            elif isinstance(value, Status):
                value = value.value
            elif isinstance(value, Mapping):
                value = dict(value)
            out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Memory:
        """Build a memory from a dict of its fields (only ``text`` is required).

        Raises ``ValueError`` naming the first unparseable field; unknown keys are an error.
        """
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown field(s): {', '.join(unknown)}")
        kwargs: dict[str, Any] = {}
        for key, value in data.items():
            if value is None and key not in ("last_used_at", "replaced_by", "valid_until"):
                continue
            if key in ("created_at", "updated_at", "last_used_at", "valid_until"):
                value = None if value is None else parse_time(value)
            elif key == "status":
                try:
                    value = Status(value)
                except ValueError:
                    raise ValueError(
                        f"unknown status {value!r} (choose from "
                        f"{', '.join(s.value for s in Status)})"
                    ) from None
            elif key == "metadata":
                if not isinstance(value, Mapping):
                    raise ValueError("metadata must be a JSON object")
                value = dict(value)
            elif key in ("id", "namespace", "text", "kind", "source", "replaced_by"):
                if value is not None and not isinstance(value, str):
                    raise ValueError(f"{key} must be a string")
            elif key in ("retrievals", "successes", "failures", "version"):
                if isinstance(value, bool) or not isinstance(value, int):
                    raise ValueError(f"{key} must be an integer")
            elif key == "importance" and (isinstance(value, bool)
                                          or not isinstance(value, (int, float))):
                raise ValueError("importance must be a number")
            kwargs[key] = value
        if "text" not in kwargs:
            raise ValueError("missing required field 'text'")
        return cls(**kwargs)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True)


def validate_fields(memory: Memory) -> list[str]:
    """Every problem with a memory's field values (empty list when valid)."""
    problems: list[str] = []
    if not isinstance(memory.text, str) or not memory.text.strip():
        problems.append("empty text")
    if not isinstance(memory.id, str) or not memory.id:
        problems.append("empty id")
    if not isinstance(memory.namespace, str) or not memory.namespace:
        problems.append("empty namespace")
    if not isinstance(memory.kind, str) or not memory.kind:
        problems.append("empty kind")
    try:
        imp = float(memory.importance)
    except (TypeError, ValueError):
        problems.append(f"importance {memory.importance!r} is not a number")
    else:
        if math.isnan(imp) or math.isinf(imp):
            problems.append(f"importance is {imp} (must be a finite number >= 0)")
        elif imp < 0:
            problems.append(f"negative importance {imp}")
    for name in ("retrievals", "successes", "failures"):
        if getattr(memory, name) < 0:
            problems.append(f"negative {name}")
    if memory.version < 1:
        problems.append("version must be >= 1")
    if not isinstance(memory.metadata, Mapping):
        problems.append("metadata must be a JSON object")
    for name in ("created_at", "updated_at", "last_used_at", "valid_until"):
        value = getattr(memory, name)
        if value is not None and not isinstance(value, datetime):
            problems.append(f"{name} must be a datetime")
    return problems
