"""The memory record: defaults, validation, time handling and dict round-trips."""

from __future__ import annotations

import dataclasses
import hashlib
import math
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memmaint.maintenance.core.records import (
    Memory,
    Status,
    content_hash,
    format_time,
    new_id,
    parse_time,
)

UTC = timezone.utc


def test_defaults():
    m = Memory(text="hello")
    assert m.namespace == "default" and m.kind == "default" and m.source == ""
    assert m.status is Status.ACTIVE and m.is_active and m.version == 1
    assert m.importance == 1.0 and (m.retrievals, m.successes, m.failures) == (0, 0, 0)
    assert m.updated_at == m.created_at and m.created_at.tzinfo is not None
    assert m.last_used_at is None and m.replaced_by is None and m.valid_until is None
    assert Memory(text="x").id != Memory(text="x").id
    assert len(new_id()) == 36


def test_times_become_aware_utc():
    naive = Memory(text="x", created_at=datetime(2024, 1, 1, 12))
    assert naive.created_at == datetime(2024, 1, 1, 12, tzinfo=UTC)
    plus5 = timezone(timedelta(hours=5))
    shifted = Memory(text="x", created_at=datetime(2024, 1, 1, 17, tzinfo=plus5),
                     last_used_at=datetime(2024, 1, 2, tzinfo=plus5))
    assert shifted.created_at.utcoffset() == timedelta(0)
    assert shifted.created_at == naive.created_at
    assert shifted.last_used_at == datetime(2024, 1, 1, 19, tzinfo=UTC)


def test_status_strings_are_accepted():
    assert Memory(text="x", status="merged").status is Status.MERGED
    with pytest.raises(ValueError):
        Memory(text="x", status="deleted")


@pytest.mark.parametrize("fields, problem", [
    ({"text": ""}, "empty text"),
    ({"text": " \n\t"}, "empty text"),
    ({"id": ""}, "empty id"),
    ({"namespace": ""}, "empty namespace"),
    ({"importance": -1.0}, "negative importance -1.0"),
    ({"importance": math.nan}, "importance is nan"),
    ({"importance": math.inf}, "importance is inf"),
    ({"retrievals": -1}, "negative retrievals"),
    ({"failures": -3}, "negative failures"),
    ({"version": 0}, "version must be >= 1"),
    ({"metadata": [1, 2]}, "metadata must be a JSON object"),
])
def test_invalid_fields(fields, problem):
    with pytest.raises(ValueError, match="^" + problem.replace("(", r"\(")):
        Memory(**{"text": "ok", **fields})


def test_all_problems_are_reported_together():
    with pytest.raises(ValueError) as err:
        Memory(text="", importance=-2.0, successes=-1)
    msg = str(err.value)
    assert "empty text" in msg and "negative importance" in msg and "negative successes" in msg


def test_memory_is_immutable():
    m = Memory(text="x")
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.text = "y"  # type: ignore[misc]


def test_content_hash():
    assert content_hash("héllo") == hashlib.sha256("héllo".encode()).hexdigest()
    assert Memory(text="héllo").content_hash == content_hash("héllo")
    assert content_hash("a") != content_hash("a ")


def test_parse_and_format_time():
    assert parse_time("2024-01-02T03:04:05Z") == datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert parse_time("2024-01-02T05:04:05+02:00") == datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert parse_time("2024-01-02") == datetime(2024, 1, 2, tzinfo=UTC)
    assert format_time(None) is None
    assert format_time(datetime(2024, 1, 2, tzinfo=UTC)) == "2024-01-02T00:00:00+00:00"
    with pytest.raises(ValueError, match="unparseable date"):
        parse_time("yesterday")
    with pytest.raises(ValueError, match="ISO-8601"):
        parse_time(12)  # type: ignore[arg-type]


@pytest.mark.parametrize("data, problem", [
    ({"text": "x", "colour": "red"}, "unknown field(s): colour"),
    ({"id": "a"}, "missing required field 'text'"),
    ({"text": "x", "status": "gone"}, "unknown status 'gone' (choose from active, merged"),
    ({"text": 5}, "text must be a string"),
    ({"text": "x", "importance": "high"}, "importance must be a number"),
    ({"text": "x", "importance": True}, "importance must be a number"),
    ({"text": "x", "retrievals": 1.5}, "retrievals must be an integer"),
    ({"text": "x", "metadata": "{}"}, "metadata must be a JSON object"),
    ({"text": "x", "created_at": "soon"}, "unparseable date 'soon'"),
])
def test_from_dict_problems(data, problem):
    with pytest.raises(ValueError) as err:
        Memory.from_dict(data)
    assert str(err.value).startswith(problem)


def test_from_dict_accepts_nulls_for_optional_fields():
    m = Memory.from_dict({"text": "x", "last_used_at": None, "replaced_by": None,
                          "kind": None, "created_at": "2024-05-01T00:00:00Z"})
    assert m.kind == "default" and m.last_used_at is None
    assert m.created_at == datetime(2024, 5, 1, tzinfo=UTC)


_times = st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1),
                      timezones=st.sampled_from([UTC, timezone(timedelta(hours=-7, minutes=-30))]))
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                 max_size=3),
    max_leaves=8)
memories = st.builds(
    Memory,
    text=st.text(min_size=1, max_size=40).filter(str.strip),
    id=st.text(min_size=1, max_size=12),
    namespace=st.text(min_size=1, max_size=8),
    created_at=_times, updated_at=st.none() | _times,
    importance=st.floats(min_value=0, max_value=1e12, allow_nan=False),
    kind=st.sampled_from(["price", "availability", "schedule", "reference", "default", "mine"]),
    source=st.text(max_size=10),
    metadata=st.dictionaries(st.text(max_size=6), _json, max_size=4),
    retrievals=st.integers(0, 10**9), successes=st.integers(0, 10**9),
    failures=st.integers(0, 10**9), last_used_at=st.none() | _times,
    status=st.sampled_from(list(Status)), version=st.integers(1, 10**6),
    replaced_by=st.none() | st.text(min_size=1, max_size=8), valid_until=st.none() | _times,
)


@settings(max_examples=80, deadline=None)
@given(memories)
def test_dict_and_json_round_trip(m):
    import json

    assert Memory.from_dict(m.to_dict()) == m
    assert Memory.from_dict(json.loads(m.to_json())) == m
