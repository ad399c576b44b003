"""The labelled decision set and its scorer (#32, Deliver 1): the scorer on hand-made store
states whose right answer is known, the set's construction, and the CLI on a small part."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timezone

import pytest

from memmaint.datasets.decision_items import DEV_FAMILIES, VAL_FAMILIES
from memmaint.datasets.decisions import (
    GROUP_TYPES,
    hand_set,
    make_decision_set,
    norm,
    split_sentences,
)
from memmaint.maintenance.core.records import Memory, Status
from memmaint.maintenance.evaluation.decisions import score_state

HAND = (
    ("duplicate", (("User is allergic to peanuts.", "01-12", (("f",),)),
                   ("The user has a peanut allergy.", "03-02", (("f",),)))),
    ("refinement", (("Kenji's cat is called Tofu.", "02-14", (("name",),)),
                    ("Kenji's cat Tofu is a grey Maine Coon.", "05-30",
                     (("name", "breed"),)))),
    ("update", (("The user's timezone is Europe/Paris.", "01-10", (("old",),)),
                ("The user's timezone is Europe/Berlin.", "05-14", (("new",),)))),
    ("contradiction", (("The team offsite is in Valencia.", "03-01", (("a",),)),
                       ("The team offsite is in Bologna.", "03-01", (("b",),)))),
    ("distinct_related", (("Invoice 1043 was paid on 3 March.", "03-03", (("a",),)),
                          ("Invoice 1044 was paid on 5 March.", "03-05", (("b",),)))),
    ("temporal", (("Maya went to the dentist yesterday.", "03-11", (("a",),)),
                  ("Maya saw the dentist again this morning.", "08-20", (("b",),)))),
    ("unrelated", (("The Pro plan has a 14-day free trial.", "04-01", (("f",),)),)),
)
DUP, REF, UPD, CON, DIS, TMP, UNR = (f"hand-g{i:02d}" for i in range(7))


@pytest.fixture()
def dset():
    return hand_set(HAND)


def _state(dset, *, retire=(), add=(), edit=None):
    """The store after a run: every memory of the set, those in ``retire`` superseded (a
    dict names what replaced each), plus new active memories ``add`` = ``[(text, created
    day "MM-DD")]``."""
    out = []
    for m in dset.memories:
        if m.id in retire:
            m = replace(m, status=Status.SUPERSEDED,
                        replaced_by=retire[m.id] if isinstance(retire, dict) else None)
        if edit and m.id in edit:
            m = replace(m, text=edit[m.id])
        out.append(m)
    for k, (text, day) in enumerate(add):
        out.append(Memory(text=text, id=f"new-{k}", namespace="hand",
                          created_at=datetime(2024, int(day[:2]), int(day[3:]), 9,
                                              tzinfo=timezone.utc)))
    return out


def _ok(score):
    return {g.id: g.ok for g in score.groups}


def _count(score, key):
    return score.budget.counts.get(key, 0)


def test_the_right_outcome_scores_every_group_correct(dset):
    after = _state(dset, retire={f"{DUP}-0", f"{REF}-0", f"{UPD}-0"})
    score = score_state(dset, after)
    assert all(_ok(score).values()), [g.problems for g in score.groups if not g.ok]
    for key in ("false_merges", "contradictions_glued", "not_collapsed", "repeated_content",
                "updates_missed", "facts_lost", "dated_moved", "unrecognised"):
        assert _count(score, key) == 0, key
    assert score.per_type()["update"] == (1, 1)


def test_doing_nothing_leaves_paraphrases_and_the_update(dset):
    score = score_state(dset, _state(dset))
    ok = _ok(score)
    assert not ok[DUP] and not ok[REF] and not ok[UPD]
    assert ok[CON] and ok[DIS] and ok[TMP] and ok[UNR]
    assert _count(score, "not_collapsed") == 2
    assert _count(score, "updates_missed") == 1
    assert _count(score, "facts_lost") == 0


def test_a_concatenated_merge_is_repeated_content_not_a_collapse(dset):
    """Packing both paraphrases into one memory keeps every fact (nothing lost) but states
    one twice: the group is not correct and the budget counts repeated content."""
    glued = "User is allergic to peanuts. The user has a peanut allergy."
    after = _state(dset, retire={f"{DUP}-0", f"{DUP}-1", f"{REF}-0", f"{UPD}-0"},
                   add=[(glued, "03-02")])
    score = score_state(dset, after)
    assert not _ok(score)[DUP]
    assert _count(score, "repeated_content") == 1
    assert _count(score, "facts_lost") == 0
    assert "repeated content" in next(g for g in score.groups if g.id == DUP).problems


def test_a_refinement_that_repeats_the_short_fact_is_not_collapsed(dset):
    text = "Kenji's cat Tofu is a grey Maine Coon. Kenji's cat is called Tofu."
    after = _state(dset, retire={f"{DUP}-0", f"{REF}-0", f"{REF}-1", f"{UPD}-0"},
                   add=[(text, "05-30")])
    score = score_state(dset, after)
    assert not _ok(score)[REF] and _count(score, "repeated_content") == 1


def test_an_update_glued_to_its_old_value_is_a_contradiction_glued(dset):
    both = "The user's timezone is Europe/Berlin. The user's timezone is Europe/Paris."
    after = _state(dset, retire={f"{DUP}-0", f"{REF}-0", f"{UPD}-0", f"{UPD}-1"},
                   add=[(both, "05-14")])
    score = score_state(dset, after)
    assert not _ok(score)[UPD]
    assert _count(score, "contradictions_glued") == 1
    assert _count(score, "updates_missed") == 1  # the old value is still active, in the glue


def test_a_contradiction_resolved_by_a_guess_loses_a_fact(dset):
    after = _state(dset, retire={f"{DUP}-0", f"{REF}-0", f"{UPD}-0", f"{CON}-0"})
    score = score_state(dset, after)
    assert not _ok(score)[CON] and _count(score, "facts_lost") == 1


def test_two_invoices_in_one_text_are_a_false_merge(dset):
    text = "Invoice 1044 was paid on 5 March. Invoice 1043 was paid on 3 March."
    after = _state(dset, retire={f"{DUP}-0", f"{REF}-0", f"{UPD}-0", f"{DIS}-0",
                                 f"{DIS}-1"}, add=[(text, "03-05")])
    score = score_state(dset, after)
    assert not _ok(score)[DIS]
    assert _count(score, "false_merges") == 1 and _count(score, "apart_hit") == 1
    assert _count(score, "facts_lost") == 0


def test_a_text_joining_two_groups_is_a_false_merge_for_both(dset):
    text = "The user has a peanut allergy. The Pro plan has a 14-day free trial."
    after = _state(dset, retire={f"{DUP}-0", f"{DUP}-1", f"{REF}-0", f"{UPD}-0",
                                 f"{UNR}-0"}, add=[(text, "04-01")])
    score = score_state(dset, after)
    assert not _ok(score)[DUP] and not _ok(score)[UNR]
    assert _count(score, "false_merges") == 2 and _count(score, "apart_hit") == 1


def test_an_event_merged_under_a_later_date_is_moved(dset):
    text = "Maya saw the dentist again this morning. Maya went to the dentist yesterday."
    after = _state(dset, retire={f"{DUP}-0", f"{REF}-0", f"{UPD}-0", f"{TMP}-0",
                                 f"{TMP}-1"}, add=[(text, "08-20")])
    score = score_state(dset, after)
    assert not _ok(score)[TMP]
    assert _count(score, "dated_moved") == 1  # "yesterday" of 11 March now reads 19 August


def test_a_rewritten_text_is_unrecognised_and_its_fact_lost(dset):
    after = _state(dset, retire={f"{DUP}-0", f"{REF}-0", f"{UPD}-0"},
                   edit={f"{UNR}-0": "There is a trial."})
    score = score_state(dset, after)
    assert _count(score, "unrecognised") == 1 and _count(score, "facts_lost") == 1
    assert not _ok(score)[UNR]


# -- the set itself -------------------------------------------------------------------------

@pytest.mark.parametrize("part", ["dev", "validation"])
def test_each_part_is_deterministic_labelled_and_varied(part):
    a, b = make_decision_set(part), make_decision_set(part)
    assert [(m.id, m.text, m.created_at) for m in a.memories] == \
        [(m.id, m.text, m.created_at) for m in b.memories]
    assert 150 <= len(a.memories) <= 300
    assert {g.type for g in a.groups} == set(GROUP_TYPES)
    for m in a.memories:  # every sentence labelled in its namespace
        for s in split_sentences(m.text):
            assert (m.namespace, norm(s)) in a.sentences, s
    assert len({m.text for m in a.memories}) > 0.9 * len(a.memories)
    for g in a.groups:
        if g.type == "contradiction":
            times = {m.created_at for m in a.memories if m.id in g.memory_ids}
            assert len(times) == 1
        if g.type == "update":
            by_id = {m.id: m for m in a.memories}
            assert by_id[g.memory_ids[-1]].created_at > by_id[g.memory_ids[0]].created_at


def test_tuning_and_validation_share_no_family_holder_or_sentence():
    dev, val = make_decision_set("dev"), make_decision_set("validation")
    assert not {f.key for f in DEV_FAMILIES} & {f.key for f in VAL_FAMILIES}
    assert not {h for f in DEV_FAMILIES for h in f.holders} & \
        {h for f in VAL_FAMILIES for h in f.holders}
    assert not {k for _ns, k in dev.sentences} & {k for _ns, k in val.sentences}


def test_cli_scores_a_small_part_with_the_hashing_embedder(tmp_path, cli):
    out = tmp_path / "dec.json"
    res = cli("eval", "decisions", "--part", "validation", "--pools", "1", "--set",
              "embedding.model=hashing", "--cache", tmp_path / "c.sqlite", "--json", out,
              "--failures", "2")
    assert res.exit_code == 0, res.output
    assert "error budget" in res.output and "dated facts moved" in res.output
    data = json.loads(out.read_text())
    result = data["results"][0]
    assert data["part"] == "validation" and result["name"] == "default"
    assert sum(v["groups"] for v in result["per_type"].values()) == 12 + 7
    assert set(result["budget"]) >= {"false_merges", "facts_lost", "repeated_content"}


def test_a_memory_retired_for_another_group_s_memory_is_wrong_though_no_fact_is_lost(dset):
    """The duplicate's first memory retired "in favour of" the unrelated trial note: its
    paraphrase still states the allergy, so nothing is lost, but the user reads a wrong
    retirement, and the group is not correct."""
    good = score_state(dset, _state(dset, retire={f"{DUP}-0": f"{DUP}-1", f"{UPD}-0":
                                                  f"{UPD}-1"}))
    assert _count(good, "wrong_retirements") == 0 and _ok(good)[DUP] and _ok(good)[UPD]
    bad = score_state(dset, _state(dset, retire={f"{DUP}-0": f"{UNR}-0", f"{UPD}-0":
                                                 f"{UPD}-1"}))
    assert _count(bad, "wrong_retirements") == 1 and _count(bad, "facts_lost") == 0
    assert not _ok(bad)[DUP] and _ok(bad)[UPD]
    # within an apart group, one invoice retired for the other is wrong too
    apart = score_state(dset, _state(dset, retire={f"{DIS}-0": f"{DIS}-1"}))
    assert _count(apart, "wrong_retirements") == 1
