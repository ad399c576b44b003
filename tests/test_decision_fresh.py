"""The ``fresh`` part of the decision set (#32): hand-written groups in informal wordings,
apart from the dev/validation templates. It builds, every sentence is labelled, and the CLI
runs it; its scores are not asserted (it is a check set, never tuned on)."""

from __future__ import annotations

import json

from memmaint.datasets.decision_fresh import FRESH_HAND
from memmaint.datasets.decisions import (
    GROUP_TYPES,
    make_decision_set,
    norm,
    split_sentences,
)


def test_the_fresh_part_builds_and_every_sentence_is_labelled():
    a, b = make_decision_set("fresh"), make_decision_set("fresh")
    assert [(m.id, m.text, m.created_at) for m in a.memories] == \
        [(m.id, m.text, m.created_at) for m in b.memories]
    assert len(a.groups) == len(FRESH_HAND) >= 60
    assert {g.type for g in a.groups} == set(GROUP_TYPES)
    assert {m.namespace for m in a.memories} == {"fresh"}
    for m in a.memories:
        for s in split_sentences(m.text):
            assert (m.namespace, norm(s)) in a.sentences, s
    by_id = {m.id: m for m in a.memories}
    for g in a.groups:
        times = [by_id[i].created_at for i in g.memory_ids]
        if g.type == "contradiction":
            assert len(set(times)) == 1, g.id
        if g.type == "update":
            assert times[-1] > times[0], g.id
            assert g.retired and g.exclusive


def test_the_fresh_part_shares_no_sentence_with_dev_or_validation():
    fresh = {k for _ns, k in make_decision_set("fresh").sentences}
    for part in ("dev", "validation"):
        assert not fresh & {k for _ns, k in make_decision_set(part).sentences}, part


def test_cli_runs_the_fresh_part(tmp_path, cli):
    out = tmp_path / "fresh.json"
    res = cli("eval", "decisions", "--part", "fresh", "--set", "embedding.model=hashing",
              "--cache", tmp_path / "c.sqlite", "--json", out)
    assert res.exit_code == 0, res.output
    result = json.loads(out.read_text())["results"][0]
    assert sum(v["groups"] for v in result["per_type"].values()) == len(FRESH_HAND)
