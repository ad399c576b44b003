"""Labelled corpora: JSONL/CSV loading with clear errors, the real Banking77/HWU64 files, and
disjoint-class pool sampling."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memmaint.datasets.labelled import (
    data_root,
    load_banking77,
    load_hwu64,
    load_labelled,
    sample_pools,
)
from memmaint.maintenance.core.errors import InputError


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_jsonl_and_csv_load_alike(tmp_path):
    rows = [{"utterance": "where is my card", "intent": "card_arrival", "w": 2},
            {"utterance": "card not here yet", "intent": "card_arrival", "w": 0.5},
            {"utterance": "top up failed", "intent": 7, "w": 1}]
    jl = _write(tmp_path / "c.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n\n")
    csv_path = _write(tmp_path / "c.csv", 'utterance,intent,w\nwhere is my card,card_arrival,2\n'
                      '"card not here yet",card_arrival,0.5\ntop up failed,7,1\n')
    for path in (jl, csv_path):
        corpus = load_labelled(path, "utterance", "intent", weight_col="w")
        assert corpus.texts == ["where is my card", "card not here yet", "top up failed"]
        assert corpus.labels == ["card_arrival", "card_arrival", "7"]
        assert np.array_equal(corpus.weights, [2.0, 0.5, 1.0])
        assert corpus.classes == ["7", "card_arrival"]
    assert load_labelled(jl, "utterance", "intent").weights is None
    tsv = _write(tmp_path / "c.tsv", "text\tlabel\nhello there\tgreet\n")
    assert load_labelled(tsv).labels == ["greet"]
    assert load_labelled(_write(tmp_path / "c.txt", "text,label\nhi,a\n"), fmt="csv").texts == ["hi"]


@pytest.mark.parametrize("name, content, kwargs, message", [
    ("a.csv", "text,category\nhi,a\n", {}, r"no column 'label' \(columns: text, category\)"),
    ("a.csv", "text,label,w\nhi,a,1\n", {"weight_col": "weight"}, "no column 'weight'"),
    ("a.csv", "text,label\nhi,a\nbye\n", {}, r"a.csv:3: expected 2 fields"),
    ("a.csv", "text,label\nhi,a,extra\n", {}, r"a.csv:2: expected 2 fields"),
    ("a.csv", "text,label\n ,a\n", {}, r"a.csv:2: empty or missing text"),
    ("a.csv", "text,label\nhi,\n", {}, r"a.csv:2: empty label"),
    ("a.csv", "text,label,w\nhi,a,-1\n", {"weight_col": "w"}, "finite number >= 0"),
    ("a.csv", "text,label,w\nhi,a,lots\n", {"weight_col": "w"}, "is not a number"),
    ("a.csv", "text,label\n", {}, "no rows"),
    ("a.jsonl", '{"text": "hi", "label": "a"}\n{"text": "x"\n', {}, r"a.jsonl:2: invalid JSON"),
    ("a.jsonl", '["hi", "a"]\n', {}, "expected a JSON object"),
    ("a.jsonl", '{"text": "hi"}\n', {}, r"a.jsonl:1: missing key 'label' \(keys: text\)"),
    ("a.jsonl", '{"text": "hi", "label": null}\n', {}, "label must be a string"),
    ("a.jsonl", '{"text": 3, "label": "a"}\n', {}, "empty or missing text"),
    ("a.jsonl", '{"text": "hi", "label": "a", "w": NaN}\n', {"weight_col": "w"}, "finite"),
    ("a.parquet", "", {}, "cannot tell the format"),
])
def test_bad_input_names_the_problem(tmp_path, name, content, kwargs, message):
    path = _write(tmp_path / name, content)
    with pytest.raises(InputError, match=message):
        load_labelled(path, **kwargs)


def test_missing_file_and_bad_encoding(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_labelled(tmp_path / "nope.csv")
    (tmp_path / "latin.csv").write_bytes(b"text,label\ncaf\xe9,a\n")
    with pytest.raises(InputError, match="not UTF-8"):
        load_labelled(tmp_path / "latin.csv")
    with pytest.raises(InputError, match="unknown format"):
        load_labelled(tmp_path / "latin.csv", fmt="xml")
    with pytest.raises(InputError, match="data folder .* not found"):
        data_root(tmp_path / "missing")


def test_real_corpora(shared_data):
    banking = load_banking77(shared_data)
    assert len(banking) == 13083 and len(banking.classes) == 77
    assert "card_arrival" in banking.classes
    assert len(load_banking77(shared_data / "banking77", splits=("test",))) < len(banking)
    hwu = load_hwu64(shared_data)
    assert len(hwu) == 11036 and len(hwu.classes) == 64
    assert "alarm_query" in hwu.classes


def test_sample_pools_from_a_real_corpus(shared_data):
    corpus = load_banking77(shared_data)
    pools = sample_pools(corpus.texts, corpus.labels, n_pools=3, classes_per_pool=20,
                         per_class=(8, 12), seed=1, kind="banking77")
    seen: set[str] = set()
    for pool in pools:
        assert len(pool.classes) == 20 and seen.isdisjoint(pool.classes)
        seen |= set(pool.classes)
        counts = np.bincount(pool.labels, minlength=20)
        assert counts.min() >= 8 and counts.max() <= 12
        for memory, label in zip(pool.memories, pool.labels):
            assert memory.metadata == {"label": int(label), "class": pool.classes[label]}
            assert memory.text in corpus.texts
    again = sample_pools(corpus.texts, corpus.labels, 3, 20, (8, 12), seed=1, kind="banking77")
    assert [p.texts for p in again] == [p.texts for p in pools]
    other = sample_pools(corpus.texts, corpus.labels, 3, 20, (8, 12), seed=2, kind="banking77")
    assert [p.classes for p in other] != [p.classes for p in pools]


@settings(max_examples=30, deadline=None)
@given(n_classes=st.integers(1, 12), sizes=st.lists(st.integers(1, 9), min_size=12, max_size=12),
       n_pools=st.integers(1, 4), k=st.integers(1, 4), lo=st.integers(1, 4),
       extra=st.integers(0, 3), seed=st.integers(0, 1000))
def test_sample_pools_properties(n_classes, sizes, n_pools, k, lo, extra, seed):
    texts, labels = [], []
    for c in range(n_classes):
        for j in range(sizes[c]):
            texts.append(f"text {c}-{j}")
            labels.append(f"class-{c}")
    eligible = sum(1 for c in range(n_classes) if sizes[c] >= lo)
    if n_pools * k > eligible:
        with pytest.raises(InputError, match="needs .* classes"):
            sample_pools(texts, labels, n_pools, k, (lo, lo + extra), seed=seed)
        return
    pools = sample_pools(texts, labels, n_pools, k, (lo, lo + extra), seed=seed,
                         weights="bimodal")
    assert len(pools) == n_pools
    all_classes = [c for p in pools for c in p.classes]
    assert len(all_classes) == len(set(all_classes)) == n_pools * k
    for pool in pools:
        for memory, label in zip(pool.memories, pool.labels):
            assert memory.text.startswith(f"text {pool.classes[label].split('-')[1]}-")
        counts = np.bincount(pool.labels, minlength=k)
        assert counts.min() >= lo and counts.max() <= lo + extra
        assert np.all(pool.weights > 0)
        assert len({m.id for m in pool.memories}) == len(pool)


def test_sample_pools_weights_and_errors():
    texts = [f"t{i}" for i in range(30)]
    labels = [str(i % 3) for i in range(30)]
    given_w = np.arange(30, dtype=float) / 10
    (pool,) = sample_pools(texts, labels, 1, 3, 4, seed=0, weights=given_w)
    for memory in pool.memories:
        assert memory.importance == pytest.approx(int(memory.text[1:]) / 10)
    (plain,) = sample_pools(texts, labels, 1, 3, 4, seed=0)
    assert np.all(plain.weights == 1.0)
    with pytest.raises(InputError, match="30 texts but 29 labels"):
        sample_pools(texts, labels[:-1], 1, 3, 4)
    with pytest.raises(InputError, match="weights has shape"):
        sample_pools(texts, labels, 1, 3, 4, weights=[1.0])
    with pytest.raises(InputError, match="n_pools must be a positive integer"):
        sample_pools(texts, labels, 0, 3, 4)
    with pytest.raises(InputError, match="text 2 is empty"):
        sample_pools(texts[:2] + [" "] + texts[3:], labels, 1, 3, 4)
