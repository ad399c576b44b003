"""The hand-written check parts of the decision set (#32): ``fresh`` (informal wordings apart
from the dev/validation templates) and ``blind`` (a second held-out part, run once before it
was read), ``sealed`` (a third, committed before any run, to be run once at the end of a
session), ``unseen`` (a fourth, likewise committed before any run), ``hidden`` (a fifth,
written blind and committed before any run), ``withheld`` (a sixth, written blind on
2026-11-29 and committed before any run), ``spare`` (a seventh, likewise written blind on
2026-11-29 and committed before any run), ``vault`` (an eighth, likewise written blind on
2026-11-29 and committed before any run), ``keep`` (a ninth, likewise written blind on
2026-11-29 and committed before any run), ``ledger`` (a tenth, likewise written blind on
2026-11-29 and committed before any run), ``harbour`` (an eleventh, likewise written blind
on 2026-11-29 and committed before any run), ``lantern`` (a twelfth, likewise written blind
on 2026-11-29 and committed before any run), ``quarry`` (a thirteenth, likewise written
blind on 2026-11-29 and committed before any run) and ``orchard`` (a fourteenth, likewise
written blind on 2026-11-29 and committed before any run). Each builds the same every time,
every sentence is labelled, no wording means two things, it shares no sentence with the other
parts, and the CLI runs it (``hidden``, ``withheld``, ``spare``, ``vault``, ``keep``,
``ledger``, ``harbour``, ``lantern``, ``quarry`` and ``orchard`` only offered: their one run is
kept for the end of a session); scores are not asserted (they are check sets, never tuned
on)."""

from __future__ import annotations

import json

import pytest

from memmaint.datasets.decision_blind import BLIND_HAND
from memmaint.datasets.decision_fresh import FRESH_HAND
from memmaint.datasets.decision_harbour import HARBOUR_HAND
from memmaint.datasets.decision_hidden import HIDDEN_HAND
from memmaint.datasets.decision_keep import KEEP_HAND
from memmaint.datasets.decision_lantern import LANTERN_HAND
from memmaint.datasets.decision_ledger import LEDGER_HAND
from memmaint.datasets.decision_orchard import ORCHARD_HAND
from memmaint.datasets.decision_quarry import QUARRY_HAND
from memmaint.datasets.decision_sealed import SEALED_HAND
from memmaint.datasets.decision_spare import SPARE_HAND
from memmaint.datasets.decision_unseen import UNSEEN_HAND
from memmaint.datasets.decision_vault import VAULT_HAND
from memmaint.datasets.decision_withheld import WITHHELD_HAND
from memmaint.datasets.decisions import GROUP_TYPES, make_decision_set, norm, split_sentences

PARTS = {"fresh": (FRESH_HAND, 60), "blind": (BLIND_HAND, 55),
         "sealed": (SEALED_HAND, 70), "unseen": (UNSEEN_HAND, 60),
         "hidden": (HIDDEN_HAND, 65), "withheld": (WITHHELD_HAND, 70),
         "spare": (SPARE_HAND, 70), "vault": (VAULT_HAND, 70),
         "keep": (KEEP_HAND, 70), "ledger": (LEDGER_HAND, 70),
         "harbour": (HARBOUR_HAND, 70), "lantern": (LANTERN_HAND, 70),
         "quarry": (QUARRY_HAND, 70), "orchard": (ORCHARD_HAND, 70)}
#: Parts the CLI only offers: their one run is kept for the end of a session.
OFFERED_ONLY = ("hidden", "withheld", "spare", "vault", "keep", "ledger", "harbour",
                "lantern", "quarry", "orchard")


@pytest.mark.parametrize("part", sorted(PARTS))
def test_the_part_builds_and_every_sentence_is_labelled(part):
    hand, least = PARTS[part]
    a, b = make_decision_set(part), make_decision_set(part)
    assert [(m.id, m.text, m.created_at) for m in a.memories] == \
        [(m.id, m.text, m.created_at) for m in b.memories]
    assert len(a.groups) == len(hand) >= least
    assert {g.type for g in a.groups} == set(GROUP_TYPES)
    assert {m.namespace for m in a.memories} == {part}
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


@pytest.mark.parametrize("part", sorted(PARTS))
def test_every_hand_row_labels_each_sentence_and_no_sentence_means_two_things(part):
    seen: dict[str, tuple[str, ...]] = {}
    for _gtype, rows in PARTS[part][0]:
        for text, _day, tags in rows:
            sents = split_sentences(text)
            assert len(sents) == len(tags), text
            for s, t in zip(sents, tags):
                # one wording repeated inside a group carries the same facts
                assert seen.setdefault(norm(s), t) == t, s


@pytest.mark.parametrize("part", sorted(PARTS))
def test_the_part_shares_no_sentence_with_the_other_parts(part):
    mine = {k for _ns, k in make_decision_set(part).sentences}
    for other in ("dev", "validation", *(p for p in PARTS if p != part)):
        assert not mine & {k for _ns, k in make_decision_set(other).sentences}, other


@pytest.mark.parametrize("part", sorted(set(PARTS) - set(OFFERED_ONLY)))
def test_cli_runs_the_part(tmp_path, cli, part):
    out = tmp_path / f"{part}.json"
    res = cli("eval", "decisions", "--part", part, "--set", "embedding.model=hashing",
              "--cache", tmp_path / "c.sqlite", "--json", out)
    assert res.exit_code == 0, res.output
    result = json.loads(out.read_text())["results"][0]
    assert sum(v["groups"] for v in result["per_type"].values()) == len(PARTS[part][0])


@pytest.mark.parametrize("name", OFFERED_ONLY)
def test_cli_offers_the_part_without_running_it(name):
    from memmaint.maintenance.cli.eval import decisions_cmd

    part = next(p for p in decisions_cmd.params if p.name == "part")
    assert name in part.type.choices


@pytest.mark.parametrize("part", ("withheld", "spare", "vault", "keep", "ledger",
                                  "harbour", "lantern", "quarry", "orchard"))
def test_the_written_blind_part_has_its_planned_mix(part):
    """70 groups: the planned count of each type, unique ids, dates that parse, groups of
    at least two memories except ``unrelated``, and every update, contradiction and
    refinement labelled with its own tags."""
    from datetime import date

    from memmaint.datasets.decisions import YEAR

    counts: dict[str, int] = {}
    for gtype, rows in PARTS[part][0]:
        counts[gtype] = counts.get(gtype, 0) + 1
        assert (len(rows) == 1) == (gtype == "unrelated"), rows
        for _text, day, _tags in rows:
            date(YEAR, int(day[:2]), int(day[3:]))  # parses
        tags = {t for _text, _day, rt in rows for ts in rt for t in ts}
        if gtype == "update":
            assert {"old", "new"} <= tags, rows
        if gtype == "contradiction":
            assert {"a", "b"} <= tags and len({d for _t, d, _f in rows}) == 1, rows
        if gtype == "refinement":
            assert {"f", "d"} <= tags, rows
    assert counts == {"duplicate": 14, "refinement": 10, "update": 16, "contradiction": 7,
                      "distinct_related": 10, "temporal": 7, "unrelated": 6}
    s = make_decision_set(part)
    assert len(s.groups) == 70
    assert len({g.id for g in s.groups}) == 70
    assert len({m.id for m in s.memories}) == len(s.memories)
