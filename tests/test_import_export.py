"""JSONL/CSV import and JSONL export (memmaint.maintenance.core.io): parsing, every bad-input case
with file, line and problem, all-or-nothing, and the lossless round-trip property."""

from __future__ import annotations

import dataclasses
import io
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_records import memories as memory_values

from memmaint.maintenance.core.errors import InputError, UserError
from memmaint.maintenance.core.io import (
    detect_format,
    import_file,
    parse_csv,
    parse_jsonl,
    read_csv,
    read_jsonl,
    write_jsonl,
)
from memmaint.maintenance.core.records import Memory, Status
from memmaint.maintenance.store.sqlite import SQLiteStore

UTC = timezone.utc


def _jsonl(memories) -> bytes:
    buf = io.StringIO()
    write_jsonl(memories, buf)
    return buf.getvalue().encode("utf-8")


# -- JSONL ---------------------------------------------------------------------------------

def test_jsonl_minimal_and_full_records(tmp_path):
    path = tmp_path / "pool.jsonl"
    path.write_bytes(
        b'{"text": "only text"}\n'
        b"\n"
        b'{"id": "b", "text": "full", "namespace": "ns", "importance": 2, "kind": "price",'
        b' "created_at": "2024-01-02T03:04:05Z", "metadata": {"k": [1, "\xc3\xbc"]},'
        b' "status": "archived", "retrievals": 4, "successes": 3, "failures": 1}\r\n'
    )
    a, b = read_jsonl(path)
    assert a.text == "only text" and a.namespace == "default" and a.importance == 1.0
    assert b == Memory(id="b", text="full", namespace="ns", importance=2.0, kind="price",
                       created_at=datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC),
                       metadata={"k": [1, "ü"]}, status=Status.ARCHIVED, retrievals=4,
                       successes=3, failures=1)


def test_namespace_option_overrides_the_file(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('{"text": "a", "namespace": "x"}\n{"text": "b"}\n')
    assert {m.namespace for m in read_jsonl(path)} == {"x", "default"}
    assert {m.namespace for m in read_jsonl(path, namespace="agent-7")} == {"agent-7"}


def test_bom_and_unicode_line_separators_are_not_line_breaks():
    data = "\ufeff".encode() + b'{"text": "a\xe2\x80\xa8b\xc2\x85c"}\n{"text": "d"}'
    entries = parse_jsonl(data, "p.jsonl")
    assert [e.memory.text for e in entries] == ["a\u2028b\x85c", "d"]
    assert [e.line for e in entries] == [1, 2]


BAD_JSONL = [
    (b'{"text": "ok"}\n{"text": "broken"\n', "p.jsonl:2: malformed JSON"),
    (b'{"text": "a", "id": "x"}\n{"text": "b"}\n{"text": "c", "id": "x"}\n',
     "p.jsonl:3: duplicate id 'x' (also on line 1)"),
    (b'{"text": "a"}\n{"text": "   "}\n', "p.jsonl:2: empty text"),
    (b'{"text": "a"}\n{"text": "b"}\n{"text": "c", "importance": -1.0}\n',
     "p.jsonl:3: negative importance -1.0"),
    (b'{"text": "a", "importance": NaN}\n', "p.jsonl:1: importance is nan"),
    (b'{"text": "a", "importance": Infinity}\n', "p.jsonl:1: importance is inf"),
    (b'{"text": "a", "created_at": "last tuesday"}\n',
     "p.jsonl:1: unparseable date 'last tuesday'"),
    (b'{"text": "a"}\n{"text": "caf\xe9"}\n', "p.jsonl:2: invalid UTF-8 byte 0xe9"),
    (b'{"text": "a", "colour": "red"}\n', "p.jsonl:1: unknown field(s): colour"),
    (b'["text", "a"]\n', "p.jsonl:1: expected a JSON object, got list"),
    (b'{"id": "a"}\n', "p.jsonl:1: missing required field 'text'"),
    (b'{"text": "a", "status": "deleted"}\n', "p.jsonl:1: unknown status 'deleted'"),
    (b'{"text": "a", "kind": ""}\n', "p.jsonl:1: empty kind"),
    (b'{"text": "a", "replaced_by": 7}\n', "p.jsonl:1: replaced_by must be a string"),
]


@pytest.mark.parametrize("data, message", BAD_JSONL, ids=[m.split(": ", 1)[1][:20]
                                                         for _, m in BAD_JSONL])
def test_bad_jsonl(data, message):
    with pytest.raises(InputError) as err:
        parse_jsonl(data, "p.jsonl")
    assert str(err.value).startswith(message)
    assert "\n" not in str(err.value)


def test_all_problems_are_counted_in_one_line():
    data = b'{"text": ""}\n{"text": "ok"}\n{bad\n{"text": "x", "importance": -2}\n'
    with pytest.raises(InputError) as err:
        parse_jsonl(data, "p.jsonl")
    assert str(err.value) == "p.jsonl:1: empty text (and 2 more problems)"


def test_missing_file_and_format_detection(tmp_path):
    with pytest.raises(InputError, match="cannot read"):
        read_jsonl(tmp_path / "nope.jsonl")
    assert detect_format("a.JSONL") == "jsonl" and detect_format("a.csv") == "csv"
    assert detect_format("-") == "jsonl"
    with pytest.raises(UserError, match="--format"):
        detect_format("pool.txt")


# -- CSV ------------------------------------------------------------------------------------

CSV = (b"note,key,weight,type,when,channel\n"
       b"Price of pro is $10,k1,2.5,price,2024-02-01T00:00:00Z,web\n"
       b'"multi\nline, quoted",k2,,,,"mail"\n'
       b"plain,k3,0,reference,2024-02-03,\n")


def test_csv_columns_and_metadata():
    entries = parse_csv(CSV, "p.csv", "note", id_col="key", importance_col="weight",
                        kind_col="type", created_col="when", namespace="ns")
    a, b, c = (e.memory for e in entries)
    assert [e.line for e in entries] == [2, 3, 5]
    assert (a.id, a.text, a.importance, a.kind, a.namespace) == (
        "k1", "Price of pro is $10", 2.5, "price", "ns")
    assert a.created_at == datetime(2024, 2, 1, tzinfo=UTC)
    assert a.metadata == {"channel": "web"}
    assert b.text == "multi\nline, quoted" and b.importance == 1.0 and b.kind == "default"
    assert c.importance == 0.0 and c.metadata == {"channel": ""}


def test_read_csv_defaults(tmp_path):
    path = tmp_path / "p.csv"
    path.write_bytes(b"text,label\r\nhello,1\r\nworld,2\r\n")
    got = read_csv(path)
    assert [(m.text, m.metadata) for m in got] == [("hello", {"label": "1"}),
                                                   ("world", {"label": "2"})]
    assert got[0].id != got[1].id


BAD_CSV = [
    (b"text,w\na,1\nb,-1\n", {"importance_col": "w"}, "p.csv:3: negative importance -1.0"),
    (b"text,w\na,nan\n", {"importance_col": "w"}, "p.csv:2: importance is nan"),
    (b"text,w\na,lots\n", {"importance_col": "w"}, "p.csv:2: importance 'lots' is not a number"),
    (b"text,d\na,2024-13-45\n", {"created_col": "d"}, "p.csv:2: unparseable date '2024-13-45'"),
    (b"text,i\na,x\nb,y\nc,x\n", {"id_col": "i"}, "p.csv:4: duplicate id 'x' (also on line 2)"),
    (b"text\na\n \n", {}, "p.csv:3: empty text"),
    (b"text,n\na,1\nb\n", {}, "p.csv:3: expected 2 fields, got 1"),
    (b"text\nok\n\xff\xfe\n", {}, "p.csv:3: invalid UTF-8 byte 0xff"),
    (b"body,n\na,1\n", {}, "p.csv:1: no column 'text' for text (columns: body, n)"),
    (b"text,w\na,1\n", {"kind_col": "k"}, "p.csv:1: no column 'k' for kind"),
    (b"text,text\na,b\n", {}, "p.csv:1: column 'text' appears twice"),
    (b'text\n"open quote\n', {}, "p.csv:2: malformed CSV"),
]


@pytest.mark.parametrize("data, options, message", BAD_CSV,
                         ids=[m.split(": ", 1)[1][:20] for _, _, m in BAD_CSV])
def test_bad_csv(data, options, message):
    with pytest.raises(InputError) as err:
        parse_csv(data, "p.csv", **options)
    assert str(err.value).startswith(message)


def test_jsonl_refuses_csv_options(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('{"text": "a"}\n')
    from memmaint.maintenance.core.io import read_entries

    with pytest.raises(UserError, match="id_col"):
        read_entries(path, id_col="key")


# -- store ----------------------------------------------------------------------------------

def test_import_file_is_all_or_nothing(tmp_path):
    path = tmp_path / "p.jsonl"
    with SQLiteStore(tmp_path / "s.db") as store:
        store.add_memories([Memory(id="taken", text="old", namespace="ns")])
        path.write_text('{"id": "new", "text": "a"}\n{"id": "taken", "text": "b"}\n')
        result = import_file(store, path)  # "taken" is free in the default namespace
        assert (result.count, result.namespaces) == (2, {"default": 2})
        path.write_text('{"id": "n1", "text": "a"}\n{"id": "taken", "text": "b"}\n')
        with pytest.raises(InputError) as err:
            import_file(store, path, namespace="ns")
        assert str(err.value) == f"{path}:2: id 'taken' already exists in namespace 'ns'"
        assert store.count_memories() == 3 and store.existing_ids("ns", ["n1"]) == set()


_unique = st.lists(memory_values, max_size=6, unique_by=lambda m: (m.namespace, m.id))


@settings(max_examples=60, deadline=None)
@given(_unique)
def test_write_then_parse_is_lossless(memories):
    assert [e.memory for e in parse_jsonl(_jsonl(memories), "x.jsonl")] == memories


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_unique, st.sampled_from([None, "copy"]))
def test_export_then_import_round_trips_through_stores(memories, namespace):
    with SQLiteStore(":memory:") as source, SQLiteStore(":memory:") as target:
        source.add_memories(memories)
        exported = _jsonl(source.iter_memories())
        if namespace is None:
            target.add_memories([e.memory for e in parse_jsonl(exported, "x.jsonl")])
            got = list(target.iter_memories())
            assert got == list(source.iter_memories())
            assert sorted(got, key=repr) == sorted(memories, key=repr)
            assert _jsonl(got) == exported
            return
        ids = [m.id for m in memories]
        if len(set(ids)) < len(ids):  # one id from two namespaces lands in one
            with pytest.raises(InputError, match="duplicate id"):
                parse_jsonl(exported, "x.jsonl", namespace)
            return
        target.add_memories([e.memory for e in parse_jsonl(exported, "x.jsonl", namespace)])
        moved = [dataclasses.replace(m, namespace="copy") for m in memories]
        assert sorted(target.iter_memories(), key=repr) == sorted(moved, key=repr)


def test_namespace_override_can_collide():
    data = _jsonl([Memory(id="a", text="x", namespace="n1"),
                   Memory(id="a", text="y", namespace="n2")])
    assert len(parse_jsonl(data, "x.jsonl")) == 2
    with pytest.raises(InputError, match="x.jsonl:2: duplicate id 'a' \\(also on line 1\\)"):
        parse_jsonl(data, "x.jsonl", "one")


def test_round_trip_keeps_microseconds_and_offsets():
    m = Memory(id="t", text="t", created_at=datetime(2001, 2, 3, 4, 5, 6, 7,
                                                     tzinfo=timezone(timedelta(hours=-3))))
    (back,) = [e.memory for e in parse_jsonl(_jsonl([m]), "x")]
    assert back == m and back.created_at.microsecond == 7
