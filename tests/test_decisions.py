"""What a user finds after a run (#32): each fact once, the newest value current, different
things apart. End to end through the real job, and on hand-written pairs per decision type."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from maint_fixtures import NOW, mem

from memmaint.maintenance.agents.consolidate import Clause, clauses_of, paraphrase
from memmaint.maintenance.agents.coverage import sentences
from memmaint.maintenance.agents.rules import plan
from memmaint.maintenance.agents.slots import relation, statement
from memmaint.maintenance.agents.updates import CONFLICT
from memmaint.maintenance.core.config import AgentsConfig
from memmaint.maintenance.plan.model import Keep, Merge, Resolve, check_plan


def _at(day: str) -> str:
    return f"2024-{day}T09:00:00Z"


# the eleven profile memories of the issue, dated, and the identifier memories
ELEVEN = [
    ("tz-paris", "The user's timezone is Europe/Paris.", "01-10"),
    ("tz-berlin", "The user's timezone is Europe/Berlin.", "05-14"),
    ("peanut-1", "User is allergic to peanuts.", "01-12"),
    ("peanut-2", "The user has a peanut allergy.", "03-02"),
    ("dog-1", "User has a dog named Biscuit.", "01-20"),
    ("dog-2", "The user's dog is called Biscuit.", "04-08"),
    ("job-acme", "The user works at Acme as a data engineer.", "01-15"),
    ("job-globex", "The user now works at Globex.", "06-03"),
    ("standup-mon", "The team standup is on Mondays at 9:15.", "02-05"),
    ("standup-tue", "The standup moved to Tuesdays at 9:30.", "05-06"),
    ("lang", "The user prefers answers in British English.", "02-20"),
]
INVOICES = [(f"inv-{n}", f"Invoice {n} was paid on {d} March.", f"03-{d:02d}")
            for n, d in ((1043, 3), (1044, 5), (1045, 9))]
DECK = [(f"deck-{n}", (f"Deck note {n}: keep {2 + n % 3} removal spells against aggro in game "
         f"{n}."), f"04-{n:02d}") for n in range(1, 13)]


def _pool_file(path, rows):
    with open(path, "w", encoding="utf-8") as fh:
        fh.writelines(json.dumps({"id": mid, "text": text, "created_at": _at(day)}) + "\n" for mid, text, day in rows)


@pytest.mark.parametrize("rows", [ELEVEN, ELEVEN + INVOICES + DECK], ids=["eleven", "all"])
def test_the_issues_memories_through_import_and_plan(tmp_path, cli, rows):
    """``memmaint import`` + ``memmaint plan`` with the default config (MiniLM, UMAP,
    HDBSCAN, rules), as a new user would run them."""
    src, db, out = tmp_path / "pool.jsonl", tmp_path / "m.db", tmp_path / "plan.json"
    _pool_file(src, rows)
    assert cli("init", "--db", db).exit_code == 0
    assert cli("import", src, "--db", db).exit_code == 0
    res = cli("plan", "--db", db, "-o", out, "--now", "2024-07-01T00:00:00Z")
    assert res.exit_code == 0, res.output
    data = json.loads(out.read_text())
    status: dict[str, str] = {}
    merged: list[tuple[set[str], str]] = []
    reasons: dict[str, str] = {}
    for cluster in data["plan"]["clusters"]:
        for action in cluster["actions"]:
            if action["type"] == "merge":
                merged.append((set(action["source_ids"]), action["new_memory"]["text"]))
                for sid in action["source_ids"]:
                    status[sid], reasons[sid] = "merged", action["reason"]
            elif action["type"] == "resolve":
                for sid in action["superseded_ids"]:
                    status[sid] = f"superseded by {action['kept_ids'][0]}"
                    reasons[sid] = action["reason"]
            elif action["type"] == "supersede":
                status[action["old_id"]] = f"superseded by {action['new_id']}"
            else:
                status[action["memory_id"]] = action["type"]
                reasons[action["memory_id"]] = action["reason"]
    # one memory for each paraphrase pair, its text stated once
    by_sources = {frozenset(s): t for s, t in merged}
    assert by_sources[frozenset({"peanut-1", "peanut-2"})] in (
        "User is allergic to peanuts.", "The user has a peanut allergy.")
    assert by_sources[frozenset({"dog-1", "dog-2"})] in (
        "User has a dog named Biscuit.", "The user's dog is called Biscuit.")
    assert len(merged) == 2  # nothing else is glued
    # the newer value is current, the older superseded, the reason names the update
    assert status["tz-paris"] == "superseded by tz-berlin" and status["tz-berlin"] == "keep"
    assert status["job-acme"] == "superseded by job-globex" and status["job-globex"] == "keep"
    assert status["standup-mon"] == "superseded by standup-tue"
    assert status["standup-tue"] == "keep"
    for old in ("tz-paris", "job-acme", "standup-mon"):
        assert reasons[old].startswith("update: "), reasons[old]
    assert "europe/paris vs europe/berlin" in reasons["tz-paris"]
    # the invoices and deck notes all stay active
    for mid, _t, _d in INVOICES + DECK:
        if any(mid == r[0] for r in rows):
            assert status[mid] == "keep", (mid, status[mid], reasons.get(mid))
    assert status["lang"] == "keep"


# -- hand-written pairs, one per decision type --------------------------------------------

def _pair(a: str, b: str, *, cos: float = 0.95, days=(30, 2), **kw):
    pool = [mem(a, "a", days[0], **kw), mem(b, "b", days[1], **kw)]
    vecs = np.zeros((2, 3))
    vecs[:, 0] = np.sqrt(cos)
    vecs[0, 1] = vecs[1, 2] = np.sqrt(1 - cos)
    the_plan = plan(pool, [0, 0], vecs, AgentsConfig(), now=NOW)
    check_plan(the_plan, pool, [0, 0])
    return the_plan, {mid: a for _c, a in the_plan.actions() for mid in a.subjects}


@pytest.mark.parametrize("a,b,cos", [
    ("The user's timezone is Europe/Paris.", "The user's timezone is Europe/Berlin.", 0.92),
    ("The user works at Acme as a data engineer.", "The user now works at Globex.", 0.41),
    ("The Pro plan costs $29/mo.", "The Pro plan costs $39/mo.", 0.97),
    ("Standup is on Mondays at 9:15.", "Standup moved to Tuesdays at 9:30.", 0.78),
    ("The API runs on Python 3.10.", "The API runs on Python 3.12.", 0.95),
    ("We decided to use Postgres for the queue.", "We decided not to use Postgres for the queue.",
     0.93),
    ("Uses Unity and C# for the game.", "Switched from Unity/C# to Godot for the game.", 0.6),
])
def test_update_newer_supersedes_older_never_merged(a, b, cos):
    the_plan, by = _pair(a, b, cos=cos)
    assert isinstance(by["a"], Resolve) and by["a"].kept_ids == ("b",), by["a"]
    assert by["a"].reason.startswith("update: b supersedes a")
    assert isinstance(by["b"], Keep) and by["b"].reason.startswith("update of a")
    assert not any(isinstance(x, Merge) for _c, x in the_plan.actions())


def test_contradiction_with_equal_times_is_flagged_not_guessed():
    the_plan, by = _pair("The office closes at 17:00.", "The office closes at 18:00.",
                         days=(3, 3))
    assert isinstance(by["a"], Keep) and isinstance(by["b"], Keep)
    assert by["a"].reason.startswith("conflict flagged") and "17:00" in by["a"].reason
    assert the_plan.clusters[0].flags == {"a": (CONFLICT,), "b": (CONFLICT,)}
    assert the_plan.report["flagged"][CONFLICT] == 2
    # an update's wording orders an equal-time pair
    _p, by = _pair("The office closes at 17:00.", "The office now closes at 18:00.",
                   days=(3, 3))
    assert isinstance(by["a"], Resolve) and "ordered by its wording" in by["a"].reason


@pytest.mark.parametrize("a,b", [
    ("Invoice 1043 was paid on 3 March.", "Invoice 1044 was paid on 5 March."),
    ("Deck note 3: keep 2 removal spells against aggro in game 3.",
     "Deck note 4: keep 3 removal spells against aggro in game 4."),
    ("Ticket #88 is assigned to the platform team.", ("Ticket #91 is assigned to the platform "
                                                      "team.")),
    # a capitalised noun and a bare number before the verb or a comma name the subject
    ("Patient 2231, a tabby, needs a dental check.",
     "Patient 2237, a tabby, needs a dental check."),
    ("The lease for Studio 2 ends in June.", "The lease for Studio 5 ends in June."),
])
def test_memories_naming_different_things_stay_apart_and_active(a, b):
    _p, by = _pair(a, b, cos=0.96)
    assert isinstance(by["a"], Keep) and isinstance(by["b"], Keep)
    assert "kept apart because they name different things" in by["b"].reason + by["a"].reason


@pytest.mark.parametrize("a,b", [
    ("User is allergic to peanuts.", "The user has a peanut allergy."),
    ("User has a dog named Biscuit.", "The user's dog is called Biscuit."),
    ("Refunds take 5 business days.", "Refunds take 5 business days!"),
])
def test_duplicate_paraphrases_end_as_one_memory_stated_once(a, b):
    _the_plan, by = _pair(a, b, cos=0.9)
    assert isinstance(by["a"], Merge) and by["a"] is by["b"]
    assert by["a"].new_memory.text in (a, b) and "duplicate of" in by["a"].reason


def test_refinement_keeps_the_most_complete_text():
    _the_plan, by = _pair("Maria volunteers at a homeless shelter on Saturdays.",
                         "Maria volunteers at a homeless shelter.", cos=0.9)
    assert isinstance(by["a"], Merge)
    assert by["a"].new_memory.text == "Maria volunteers at a homeless shelter on Saturdays."


@pytest.mark.parametrize("a,b", [
    ("The user ran a 5k on 10 March 2023.", "The user ran a 5k on 19 August 2023."),
    ("Caroline had a car accident on 2 May.", "Caroline had a car accident on 14 June."),
])
def test_dated_events_stay_apart_with_their_dates(a, b):
    _p, by = _pair(a, b, cos=0.95)
    assert isinstance(by["a"], Keep) and isinstance(by["b"], Keep)
    assert "different events" in by["a"].reason + by["b"].reason


def test_related_facts_of_one_topic_stay_apart():
    _p, by = _pair("The user likes hiking in the Alps.", "The user likes sailing on Lake Garda.",
                   cos=0.8)
    assert isinstance(by["a"], Keep) and isinstance(by["b"], Keep)


# -- a merged text never says a thing twice, never two values for one subject -------------

_SUBJECTS = ["The user's timezone is {}.", "The user works at {}.", "The standup is at {}.",
             "Invoice 104{} was paid.", "The user has a dog named {}."]
_VALUES = {0: ["Europe/Paris", "Europe/Berlin"], 1: ["Acme", "Globex"], 2: ["9:15", "9:30"],
           3: ["3", "4"], 4: ["Biscuit", "Rex"]}
_REWORD = {0: "The user is in the {} timezone.", 1: "The user is employed at {}.",
           2: "Standup starts at {}.", 3: "Invoice 104{} has been paid.",
           4: "The user's dog is called {}."}


@st.composite
def _statements(draw):
    n = draw(st.integers(2, 6))
    out = []
    for _ in range(n):
        s = draw(st.integers(0, 4))
        v = draw(st.integers(0, 1))
        form = draw(st.sampled_from([_SUBJECTS[s], _REWORD[s]]))
        out.append((s, v, form.format(_VALUES[s][v])))
    cos = draw(st.lists(st.floats(0.5, 1.0), min_size=n, max_size=n))
    days = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    return out, np.array(cos), days


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_statements())
def test_property_a_merged_text_states_each_thing_once_and_one_value(drawn):
    items, cos, days = drawn
    pool = [mem(t, f"m{i}", days_ago=1 + d + i * 0.001) for i, ((_s, _v, t), d)
            in enumerate(zip(items, days))]
    # same subject -> near vectors; the drawn cosine spreads them
    vecs = np.zeros((len(pool), 5 + len(pool)))
    for i, (s, _v, _t) in enumerate(items):
        vecs[i, s] = cos[i]
        vecs[i, 5 + i] = np.sqrt(1 - cos[i] ** 2)
    labels = [0] * len(pool)
    the_plan = plan(pool, labels, vecs, AgentsConfig(), now=NOW)
    check_plan(the_plan, pool, labels)
    unit = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
    by_text = {m.text: i for i, m in enumerate(pool)}
    for _c, action in the_plan.actions():
        if not isinstance(action, Merge):
            continue
        parts = sentences(action.new_memory.text)
        # never two values for one subject
        subjects = [items[by_text[p]] for p in parts if p in by_text]
        for (s1, v1, _), (s2, v2, _) in itertools.combinations(subjects, 2):
            assert not (s1 == s2 and v1 != v2), action.new_memory.text
        # never two clauses that say the same thing (as the agents' own test reads them)
        clauses = [Clause(p, unit[by_text[p]] if p in by_text else None) for p in parts]
        for x, y in itertools.combinations(clauses, 2):
            assert x.text.rstrip(".!") != y.text.rstrip(".!"), action.new_memory.text
            assert paraphrase(x, y) is None and paraphrase(y, x) is None, action.new_memory.text
        # and the sources it retires all state one subject's one value
        srcs = {(items[int(s[1:])][0], items[int(s[1:])][1]) for s in action.source_ids}
        assert len(srcs) == 1, (srcs, action.new_memory.text)


def test_relation_reads_identifiers_slots_and_events():
    def rel(a, b, cos=0.9):
        return relation(statement(a), statement(b), cos)
    assert rel("Jon works at Acme.", "Gina works at Globex.") is None  # two people
    assert rel("Refunds take 5 days, as Ann noted.", "Refunds take 5 days, as Bob noted.") is None
    assert rel("Invoice 1043 was paid.", "Invoice 1043 was refunded.") is None
    found = rel("The launch is on 3 May.", "The launch moved to 10 May.")
    assert found is not None and found.kind == "change"
    # a clause of a longer text has no vector of its own: only words can cover it
    assert clauses_of("One. Two.", np.ones(2))[0].vector is None
    assert clauses_of("One.", np.ones(2))[0].vector is not None


@pytest.mark.parametrize("a,b,cos", [
    # a number that bounds or counts is a value, not a name
    ("Refunds above $500 need approval from the finance lead.",
     "Refunds above $1,000 need approval from the finance lead.", 0.95),
    ("First 2 weeks of onboarding are remote.", "First 3 weeks of onboarding are remote.",
     0.95),
])
def test_a_bounding_number_is_still_a_value_that_changes(a, b, cos):
    _p, by = _pair(a, b, cos=cos)
    assert isinstance(by["a"], Resolve) and by["a"].kept_ids == ("b",), by["a"]
    from memmaint.maintenance.agents.slots import statement

    assert not statement("Top 3 priorities this quarter are hiring and churn.").ids


def test_two_hyphenated_codes_are_two_values_never_one_fact():
    """"eu-west-1" / "eu-central-1" share their number, not their value: never merged as the
    same figures; the newer supersedes (same day: flagged)."""
    a = "The search cluster runs in eu-west-1."
    b = "The search cluster's region is eu-central-1."
    for days in ((30, 2), (5, 5)):
        _p, by = _pair(a, b, cos=0.83, days=days)
        assert not isinstance(by["a"], Merge) and not isinstance(by["b"], Merge), by["a"]
    _p, by = _pair(a, b, cos=0.83)
    assert isinstance(by["a"], Resolve) and by["a"].kept_ids == ("b",), by["a"]


def test_reports_dated_by_yesterday_or_this_morning_are_two_events():
    """A day gone by ("yesterday", "this morning") dates a report: two reports with other
    figures are two events, not a value changing."""
    from memmaint.maintenance.agents.slots import statement
    from memmaint.maintenance.agents.updates import change_between

    found = change_between(statement("The payment API returned 500s for twenty minutes this "
                                     "morning."),
                           statement("More 500s from the payment API yesterday, about ten "
                                     "minutes."), 0.9, AgentsConfig())
    assert found is not None and found.kind == "distinct", found


def test_a_serial_after_a_capitalised_noun_names_the_matter():
    """"Matter 2024-118" and "Matter 2024-131" are two matters (one was retired as a changed
    value: a fact lost); an ISO date after a noun is no serial."""
    from memmaint.maintenance.agents.slots import relation, statement

    a = statement("Matter 2024-118 is a boundary dispute for the Quarrie family.")
    b = statement("Matter 2024-131 is a boundary dispute for the Lindgren-Hale family.")
    assert ("matter", "2024-118") in a.ids and ("matter", "2024-131") in b.ids
    found = relation(a, b, 0.9)
    assert found is not None and found.kind == "distinct"
    assert not statement("Report 2024-11-18 is late.").ids


def test_bookings_for_two_named_groups_are_two_facts():
    """"reserved for the Adeyemi group every Monday" / "... for the Marchetti group every
    Tuesday": two scopes, not one booking moved (one was retired: a fact lost)."""
    from memmaint.maintenance.agents.updates import change_between, statement_of
    from memmaint.maintenance.core.config import AgentsConfig

    a = statement_of("The cell sorter is reserved for the Adeyemi group every Monday morning.")
    b = statement_of("The cell sorter is reserved for the Marchetti group every Tuesday "
                     "morning.")
    found = change_between(a, b, 0.9, AgentsConfig())
    assert found is None or found.kind != "change"


def test_a_relation_that_holds_for_many_names_is_no_attribute_changing():
    """"visits Oakhurst on Mondays" / "visits Fenby Green on Mondays" are two stops (one was
    retired: a fact lost); saying it changed ("now visits") is still an update, and an
    attribute ("works at") still takes one value."""
    from memmaint.maintenance.agents.updates import change_between, statement_of
    from memmaint.maintenance.core.config import AgentsConfig

    cfg = AgentsConfig()

    def rel(x, y):
        return change_between(statement_of(x), statement_of(y), 0.9, cfg)

    old = "The mobile library visits Oakhurst village on Mondays."
    assert rel(old, "The mobile library visits Fenby Green on Mondays.") is None
    assert rel(old, "The mobile library now visits Fenby Green on Mondays.").kind == "change"
    assert rel("The user works at Acme.", "The user works at Globex.").kind == "change"
