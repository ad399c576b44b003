"""The ``blind`` part of the decision set (#32): a second held-out part of hand-written
groups, in subjects, holders and wordings no other part uses. It builds, every sentence is
labelled, it shares no sentence with the other parts, and the CLI runs it; its scores are
not asserted (it was run once and is never tuned on)."""

from __future__ import annotations

import json

from memmaint.datasets.decision_blind import BLIND_HAND
from memmaint.datasets.decisions import (
    GROUP_TYPES,
    make_decision_set,
    norm,
    split_sentences,
)


def test_the_blind_part_builds_and_every_sentence_is_labelled():
    a, b = make_decision_set("blind"), make_decision_set("blind")
    assert [(m.id, m.text, m.created_at) for m in a.memories] == \
        [(m.id, m.text, m.created_at) for m in b.memories]
    assert len(a.groups) == len(BLIND_HAND) >= 55
    assert {g.type for g in a.groups} == set(GROUP_TYPES)
    assert {m.namespace for m in a.memories} == {"blind"}
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


def test_every_hand_row_labels_each_sentence_and_no_sentence_means_two_things():
    seen: dict[str, tuple[str, ...]] = {}
    for gtype, rows in BLIND_HAND:
        for text, _day, tags in rows:
            sents = split_sentences(text)
            assert len(sents) == len(tags), text
            for s, t in zip(sents, tags):
                # one wording repeated inside a group carries the same facts
                assert seen.setdefault(norm(s), t) == t, s


def test_the_blind_part_shares_no_sentence_with_the_other_parts():
    blind = {k for _ns, k in make_decision_set("blind").sentences}
    for part in ("dev", "validation", "fresh"):
        assert not blind & {k for _ns, k in make_decision_set(part).sentences}, part


def test_cli_runs_the_blind_part(tmp_path, cli):
    out = tmp_path / "blind.json"
    res = cli("eval", "decisions", "--part", "blind", "--set", "embedding.model=hashing",
              "--cache", tmp_path / "c.sqlite", "--json", out)
    assert res.exit_code == 0, res.output
    result = json.loads(out.read_text())["results"][0]
    assert sum(v["groups"] for v in result["per_type"].values()) == len(BLIND_HAND)
