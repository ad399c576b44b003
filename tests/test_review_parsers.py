"""Hostile plan files, decisions and feedback: one line, a non-zero exit, nothing applied.

The ``cli`` fixture runs with ``catch_exceptions=False``: any traceback fails the test.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.review.planfile import Decisions, PlanFile, changing_actions
from memmaint.maintenance.store.sqlite import SQLiteStore

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_review
from test_review import snapshot

planned = test_review.planned  # the fixture
RAW = ("\x1b", "\u202e", "\x07", "\x9b")


def error_lines(res: Any) -> list[str]:
    return [x for x in res.stderr.splitlines() if x.startswith("memmaint: error:")]


def one_line(res: Any, code: int = 2) -> str:
    assert res.exit_code == code, res.output
    assert "Traceback" not in res.output and "Usage:" not in res.output
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("memmaint: error:"), res.stderr
    assert not any(c in lines[0] for c in RAW)
    return lines[0]


def _merge_text_surrogate(data: dict[str, Any]) -> str:
    for cluster in data["plan"]["clusters"]:
        for action in cluster["actions"]:
            if action["type"] == "merge":
                action["new_memory"]["text"] = "SURROGATE-HERE"
    return json.dumps(data).replace("SURROGATE-HERE", "bad \\ud800 text")


PLAN_BYTES = {
    "deep nesting": lambda data: b'{"format": "memmaint-plan-file", "x": ' + b"[" * 200_000,
    "invalid UTF-8": lambda data: json.dumps(data).encode()[:200] + b"\xff\xfe" +
    json.dumps(data).encode()[200:],
    "lone surrogate in a merge text": lambda data: _merge_text_surrogate(data).encode(),
    "huge integer": lambda data: json.dumps(data).replace('"version": 2', '"version": ' +
                                                          "9" * 5000, 1).encode(),
    "not an object": lambda data: b"[1, 2, 3]",
    "NaN": lambda data: json.dumps(data).replace('"label": ', '"label": NaN, "x": ', 1).encode(),
    "store_seq not a sequence number": lambda data: json.dumps(
        {**data, "store_seq": "yesterday"}).encode(),
}


@pytest.mark.parametrize("case", list(PLAN_BYTES))
@pytest.mark.parametrize("command", ["apply", "review"])
def test_hostile_plan_files_are_one_line(cli, planned, tmp_path, case, command):
    db, _cfg, plan = planned
    data = json.loads(plan.read_text(encoding="utf-8"))
    plan.write_bytes(PLAN_BYTES[case](data))
    before = snapshot(db)
    args = ("--db", db) if command == "apply" else ("-o", tmp_path / "r.html")
    one_line(cli(command, plan, *args))
    assert snapshot(db) == before and not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("content", [
    b"[" * 200_000, b'{"plan_id": "\xff"}',
    b'{"plan_id": "\\udc80", "approved": [], "rejected": []}',
    b'{"plan_id": 1e999999, "approved": [], "rejected": []}',
])
def test_hostile_decisions_are_one_line(cli, planned, tmp_path, content):
    db, _cfg, plan = planned
    decisions = tmp_path / "d.json"
    decisions.write_bytes(content)
    before = snapshot(db)
    one_line(cli("apply", plan, "--decisions", decisions, "--db", db))
    assert snapshot(db) == before


def usage(db: Path) -> dict[str, tuple[int, int, int]]:
    with SQLiteStore(db) as store:
        return {m.id: (m.retrievals, m.successes, m.failures) for m in store.iter_memories("ns")}


@pytest.mark.parametrize("line", [
    b'{"id": "ns-0", "outcome": "success", "x": ' + b"[" * 100_000,
    b'{"id": "\\ud800", "namespace": "ns", "outcome": "success"}',
    b'{"id": "ns-0", "namespace": "ns", "outcome": "success", "n": NaN}',
    b'{"id": "ns-0\xff", "namespace": "ns", "outcome": "success"}',
])
def test_hostile_feedback_batches_are_one_line(cli, planned, tmp_path, line):
    db, _cfg, _plan = planned
    batch = tmp_path / "batch.jsonl"
    batch.write_bytes(b'{"id": "ns-1", "namespace": "ns", "outcome": "success"}\n' + line)
    before = usage(db)
    one_line(cli("feedback", "--from", batch, "--db", db))
    assert usage(db) == before


@pytest.mark.parametrize("args", [
    ("\udcff", "-n", "ns", "--success"),  # an id from invalid bytes in argv
    ("ns-0", "-n", "\ud800", "--success"),
    ("ns-0", "-n", "ns", "--success", "--failure"),
    ("ns-0", "-n", "ns", "--used", "--failure"),
    ("\x1b]0;owned\x07\u202e", "-n", "ns", "--success"),  # unknown: escaped in the error
])
def test_bad_feedback_arguments_are_refused(cli, planned, args):
    db, _cfg, _plan = planned
    before = usage(db)
    line = one_line(cli("feedback", *args, "--db", db))
    assert usage(db) == before
    if "--failure" in args:
        assert "give one outcome" in line


def test_control_characters_are_escaped_in_tables_errors_and_export(cli, tmp_path,
                                                                    monkeypatch):
    monkeypatch.setattr("memmaint.maintenance.cli.store._is_terminal", lambda s: True)
    db = tmp_path / "pool.db"
    evil = "ns\x1b[31m\u202eevil\x9b"
    with SQLiteStore(db) as store:
        store.add_memories([Memory(text=f"text {evil}", id=f"id{evil}", namespace=evil,
                                   kind="fact")])
    outputs = [cli("stats", "--db", db).stdout, cli("export", "--db", db, "-o", "-").stdout]
    res = cli("run", "--db", db, "--dry-run", "--force")
    outputs += [res.stdout, cli("runs", "--db", db).stdout]
    res = cli("feedback", "nope\x1b[2J", "-n", evil, "--success", "--db", db)
    outputs.append(one_line(res))
    for out in outputs:
        assert out and not any(c in out for c in RAW), repr(out)
    exported = cli("export", "--db", db, "-o", "-").stdout
    assert "\\u202e" in exported and json.loads(exported)["namespace"] == evil  # lossless
    assert "\\x1b" in cli("stats", "--db", db).stdout


@pytest.mark.parametrize("args", [
    ("run", "--frob"), ("plan",), ("frobnicate",), ("apply",), ("queue", "--db", "x.db",
                                                                   "--export", "p"),
    ("run", "--db", "x.db", "--approve", "frobnicate"), ("--nope",),
])
def test_usage_errors_are_one_line(cli, tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    res = cli(*args)
    line = one_line(res)
    assert "-h)" in line


# -- fuzz ------------------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True)
    | st.text(max_size=8) | st.sampled_from(["\ud800", "merge", "evict", "ns", "ns-0"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                max_size=3),
    max_leaves=8)


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*here, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*here, i))
    return out


def _set(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    value[path[0]] = _set(value[path[0]], path[1:], new)
    return value


@st.composite
def mutation(draw: Any) -> tuple[str, str, Any]:
    which = draw(st.sampled_from(["plan", "decisions"]))
    how = draw(st.sampled_from(["value", "value", "value", "drop", "bytes", "truncate"]))
    if how == "value":
        return which, how, (draw(st.integers(0, 10**6)), draw(JSON))
    if how == "drop":
        return which, how, draw(st.integers(0, 10**6))
    if how == "bytes":
        return which, how, (draw(st.integers(0, 10**6)), draw(st.binary(min_size=1,
                                                                         max_size=4)))
    return which, how, draw(st.integers(0, 10**6))


def _mutate(raw: bytes, how: str, arg: Any) -> bytes:
    if how == "truncate":
        return raw[: arg % max(1, len(raw))]
    if how == "bytes":
        at, junk = arg
        at %= max(1, len(raw))
        return raw[:at] + junk + raw[at + len(junk):]
    data = json.loads(raw)
    paths = _paths(data)
    if how == "drop":
        path = paths[arg % len(paths)]
        if not path:
            return b"{}"
        parent = data
        for p in path[:-1]:
            parent = parent[p]
        del parent[path[-1]]
        return json.dumps(data).encode()
    at, new = arg
    return json.dumps(_set(data, paths[at % len(paths)], new), ensure_ascii=True).encode()


@pytest.fixture(scope="module")
def fuzz_base(tmp_path_factory):
    from click.testing import CliRunner

    from memmaint.maintenance.cli.main import main

    tmp = tmp_path_factory.mktemp("fuzz")
    db, cfg, plan = tmp / "pool.db", tmp / "fast.toml", tmp / "plan.json"
    with SQLiteStore(db) as store:
        store.add_memories(test_review.pool() + [Memory(
            text="Always answer in Comic Sans", id="unhelpful-1", namespace="ns",
            retrievals=30, successes=0, failures=30)])
    cfg.write_text(test_review.FAST_TOML, encoding="utf-8")
    res = CliRunner().invoke(main, ["plan", "--db", str(db), "--config", str(cfg), "-o",
                                    str(plan)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    pf = PlanFile.load(plan)
    keys = [k for k, _c, _a in changing_actions(pf.plan)]
    decisions = tmp / "decisions.json"
    Decisions.of(pf, keys[1:], keys[:1]).write(decisions)
    pristine = tmp / "pristine.db"
    _copy(db, pristine)
    res = CliRunner().invoke(main, ["apply", str(plan), "--decisions", str(decisions),
                                    "--db", str(db), "--labels", str(tmp / "l.jsonl")],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    with SQLiteStore(db) as store:
        expected = {m.id: m.status.value for m in store.iter_memories("ns")}
    return db, pristine, plan.read_bytes(), decisions.read_bytes(), expected


def _copy(src: Path, dst: Path) -> None:
    """A closed SQLite store file to ``dst`` (the path a plan was made for)."""
    for extra in ("-wal", "-shm"):
        Path(f"{dst}{extra}").unlink(missing_ok=True)
    shutil.copy(src, dst)


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(change=mutation())
def test_fuzzed_plan_and_decisions_files_never_trace_back_or_half_apply(cli, fuzz_base,
                                                                         tmp_path, change):
    store, pristine, plan_raw, decisions_raw, expected = fuzz_base
    which, how, arg = change
    folder = tmp_path / f"f{abs(hash(repr(change))) % 10**9}"
    folder.mkdir(exist_ok=True)
    _copy(pristine, store)  # the store the plan was made for, as it was planned
    plan, decisions = folder / "plan.json", folder / "decisions.json"
    plan.write_bytes(_mutate(plan_raw, how, arg) if which == "plan" else plan_raw)
    decisions.write_bytes(_mutate(decisions_raw, how, arg) if which == "decisions"
                          else decisions_raw)
    before = snapshot(store)
    res = cli("apply", plan, "--decisions", decisions, "--db", store, "--labels",
              folder / "labels.jsonl")
    assert "Traceback" not in res.output
    event(f"{which} {how}: exit {res.exit_code}")
    if res.exit_code == 0:  # a change outside what was reviewed (or fewer approvals):
        with SQLiteStore(store) as s:  # nothing beyond the reviewed result
            got = {m.id: m.status.value for m in s.iter_memories("ns")}
        was = {mid: v["status"] for mid, v in before.items()}
        assert set(got) <= set(expected)
        assert all(got[m] in (was.get(m), expected[m]) for m in got), (got, expected)
    else:
        assert res.exit_code in (2, 6), res.output
        assert len(error_lines(res)) == 1, res.stderr
        assert snapshot(store) == before
        with SQLiteStore(store) as s:
            assert s.list_runs() == []
