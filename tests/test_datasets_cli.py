"""``memmaint datasets make|scenario|sample``: files that ``memmaint import`` accepts, and
one-line errors with exit code 2."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from click.testing import CliRunner

from memmaint.maintenance.cli.main import main
from memmaint.maintenance.core.records import Memory


def run(*args, env=None):
    return CliRunner().invoke(main, [str(a) for a in args], env=env)


def _memories(path):
    return [Memory.from_dict(json.loads(line)) for line in path.read_text().splitlines()]


def _one_error_line(result):
    assert result.exit_code == 2, (result.exit_code, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr
    return lines[0]


def test_make_writes_an_importable_pool(tmp_path):
    out = tmp_path / "pool.jsonl"
    res = run("datasets", "make", "--kind", "mtg", "--classes", "7", "--per-class", "5",
              "--weights", "bimodal", "--seed", "1", "-o", out)
    assert res.exit_code == 0, res.output
    memories = _memories(out)
    labels = Counter(m.metadata["label"] for m in memories)
    assert {k: v for k, v in labels.items() if k >= 0} == {k: 5 for k in range(7)}
    assert "wrote" in res.output and str(len(memories)) in res.output
    assert any(m.importance >= 5 for m in memories)
    # the same pool as the library call, and memmaint import reads the file
    from memmaint.maintenance.core import io
    assert [m.id for m in io.read_jsonl(out)] == [m.id for m in memories]
    res = run("datasets", "make", "--kind", "support", "--classes", "4", "--per-class", "2-3",
              "-o", out)
    assert "already exists" in _one_error_line(res)
    res = run("datasets", "make", "--kind", "support", "--classes", "4", "--per-class", "2-3",
              "-o", out, "--force")
    assert res.exit_code == 0
    counts = Counter(m.metadata["label"] for m in _memories(out) if m.metadata["label"] >= 0)
    assert set(counts) == set(range(4)) and set(counts.values()) <= {2, 3}


def test_make_imports_into_a_store(tmp_path):
    out, db = tmp_path / "pool.jsonl", tmp_path / "store.db"
    assert run("datasets", "make", "--classes", "5", "-o", out).exit_code == 0
    assert run("init", "--db", db).exit_code == 0
    res = run("import", out, "--db", db)
    assert res.exit_code == 0, res.output + res.stderr
    from memmaint.maintenance.store.sqlite import SQLiteStore

    store = SQLiteStore(db, create=False)
    try:
        stored = {m.id: m for m in store.iter_memories()}
    finally:
        store.close()
    assert {m.id: m.metadata["label"] for m in _memories(out)} == \
        {i: m.metadata["label"] for i, m in stored.items()}


@pytest.mark.parametrize("args, message", [
    (["--per-class", "8-3"], "1 <= LO <= HI"),
    (["--per-class", "lots"], "N or LO-HI"),
    (["--classes", "100000"], "exceeds the"),
    (["--noise-frac", "1.5"], "noise_frac"),
])
def test_make_bad_arguments(tmp_path, args, message):
    out = tmp_path / "pool.jsonl"
    res = run("datasets", "make", *args, "-o", out)
    assert message in _one_error_line(res)
    assert not out.exists() and not list(tmp_path.iterdir())  # nothing half-written


def test_scenario_writes_memories_and_expectations(tmp_path):
    out = tmp_path / "scen.jsonl"
    res = run("datasets", "scenario", "--kind", "support", "--seed", "2", "--keep-noise",
              "-o", out)
    assert res.exit_code == 0, res.output
    memories = _memories(out)
    payload = json.loads((tmp_path / "scen.expected.json").read_text())
    assert set(payload["expected"]) == {m.id for m in memories}
    assert payload["agents"] == {"evict_stale": True, "evict_noise": False}
    noise = [e for e in payload["expected"].values() if e["scenario_type"] == "noise"]
    assert noise and all(e["action"] == "keep" for e in noise)
    assert payload["expected"]["chg-1-old"] == {
        "action": "supersede", "scenario_type": "changed_fact", "item": "chg-1",
        "target": "chg-1-new", "reason": payload["expected"]["chg-1-old"]["reason"]}


def test_sample_from_a_file(tmp_path):
    corpus = tmp_path / "corpus.csv"
    rows = ["utterance,intent"] + [f"request {c} number {j},intent_{c}"
                                  for c in range(9) for j in range(6)]
    corpus.write_text("\n".join(rows) + "\n")
    out = tmp_path / "pools"
    res = run("datasets", "sample", corpus, "--pools", "3", "--classes", "3", "--per-class",
              "4", "--text-col", "utterance", "--label-col", "intent", "--seed", "1", "-o", out)
    assert res.exit_code == 0, res.output + res.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    seen = set()
    for entry in manifest["pools"]:
        memories = _memories(out / entry["file"])
        assert len(memories) == entry["memories"] == 12
        classes = {m.metadata["class"] for m in memories}
        assert classes == set(entry["classes"]) and seen.isdisjoint(classes)
        seen |= classes
        assert {m.metadata["label"] for m in memories} == {0, 1, 2}
    res = run("datasets", "sample", corpus, "--pools", "3", "--classes", "3",
              "--text-col", "utterance", "--label-col", "intent", "-o", out)
    assert "is not empty" in _one_error_line(res)
    res = run("datasets", "sample", corpus, "--pools", "4", "--classes", "3",
              "--text-col", "utterance", "--label-col", "intent", "-o", tmp_path / "other")
    assert "needs 12 classes" in _one_error_line(res)
    res = run("datasets", "sample", corpus, "-o", tmp_path / "third")
    assert "no column 'text'" in _one_error_line(res)
    res = run("datasets", "sample", tmp_path / "nope.csv", "-o", tmp_path / "fourth")
    assert "not a known corpus" in _one_error_line(res)


def test_sample_named_corpus(tmp_path, shared_data):
    out = tmp_path / "pools"
    res = run("datasets", "sample", "hwu64", "--pools", "2", "--classes", "10", "--per-class",
              "5-8", "--seed", "3", "-o", out, env={"MEMMAINT_DATA_DIR": str(shared_data)})
    assert res.exit_code == 0, res.output + res.stderr
    pools = [_memories(out / f"pool-{i}.jsonl") for i in range(2)]
    classes = [{m.metadata["class"] for m in p} for p in pools]
    assert all(len(c) == 10 for c in classes) and classes[0].isdisjoint(classes[1])
    res = run("datasets", "sample", "banking77", "-o", tmp_path / "b",
              env={"MEMMAINT_DATA_DIR": str(tmp_path / "missing")})
    assert "not found" in _one_error_line(res)
