"""A short form joins the longer statement of its fact (#32), read as a user would: a
reordered sentence about a thing, a longer text whose added clause carries a negation of its
own, "this spring" written twice before the same spring, and "I'm signed up" (a state, not an
event). And what must stay apart: a person and their relative, a negation in the clause that
states the fact."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import numpy as np
import pytest

from memmaint.maintenance.agents.periods import same_period
from memmaint.maintenance.agents.rules import plan
from memmaint.maintenance.agents.short_forms import covered_in_opening, subsumed
from memmaint.maintenance.agents.slots import is_past, statement
from memmaint.maintenance.core.config import AgentsConfig, EmbeddingConfig
from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.plan.model import Merge

T0 = datetime(2024, 1, 27, 9, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def embed():
    from memmaint.maintenance.embed.base import get_embedder

    return get_embedder(EmbeddingConfig()).embed


def _plan(texts: list[tuple[str, int]], embed) -> list[Merge]:
    mems = [Memory(id=f"m{i}", text=t, created_at=T0 + timedelta(days=d))
            for i, (t, d) in enumerate(texts)]
    vecs = np.asarray(embed([m.text for m in mems]))
    done = plan(mems, [0] * len(mems), vecs, AgentsConfig(), now=T0 + timedelta(days=60),
                plan_id="p")
    return [a for c in done.clusters for a in c.actions if isinstance(a, Merge)]


@pytest.mark.parametrize(("short", "long"), [
    ("Slow Burn Stories episodes are recorded remotely.",
     ("Slow Burn Stories episodes are recorded remotely on Riverside, and any guest without a "
     "decent microphone is posted a USB one.")),
    ("Hallam Road Library runs a baby rhyme time.",
     ("Hallam Road Library runs a baby rhyme time on Wednesday mornings in the children's "
     "corner, free and with no booking needed.")),
    ("We're brewing a seasonal porter for the winter.",
     ("For the winter we're brewing a seasonal porter, a 6.2% smoked porter on beechwood-smoked "
     "malt, going out in kegs and cans.")),
    ("I'm signed up for the Tollbridge Marathon.",
     "I'm signed up for the Tollbridge Marathon in October, aiming for sub-3:30."),
    ("Cantilena Singers perform the Fauré Requiem this spring.",
     ("This spring Cantilena Singers perform Fauré's Requiem, the 1893 version with chamber "
     "orchestra, at St Brannock's.")),
])
def test_a_short_form_joins_its_longer_statement_which_is_kept_whole(short, long, embed):
    merges = _plan([(short, 0), (long, 38)], embed)
    assert len(merges) == 1 and set(merges[0].source_ids) == {"m0", "m1"}
    assert merges[0].new_memory.text == long  # the most complete text, nothing appended
    assert "duplicate of" in merges[0].reason


@pytest.mark.parametrize(("short", "long"), [
    # a person and their relative are two subjects, whatever the words
    ("The user has a dog.", "The user's sister has a dog named Rex, a three-year-old collie."),
    # the negation is in the clause that states the fact
    ("Dogs are allowed in the Hollowmere taproom.",
     "Dogs are not allowed in the Hollowmere taproom, and the beer garden is open until 9."),
])
def test_what_is_not_a_short_form_stays_apart(short, long, embed):
    merges = _plan([(short, 0), (long, 38)], embed)
    assert merges == []


def test_an_opening_clause_covers_but_the_whole_negation_counts_when_it_is_the_fact():
    assert covered_in_opening("The ceremony is outdoors.",
                              "The ceremony is outdoors, with no phones allowed.")
    assert not covered_in_opening("Dogs are allowed in the taproom.",
                                  "Dogs are not allowed in the taproom, sadly.")
    assert not subsumed(statement("The user has a dog."),
                        statement("The user's sister has a dog named Rex."))
    assert subsumed(statement("Thursday evening racing starts at 18:45."),
                    statement("Thursday evening races at Pelham Water Sailing Club start at "
                              "18:45, pursuit format, with a two-hour time limit."))


def test_this_spring_names_one_spring_from_january_to_may():
    assert same_period(["this spring"], date(2024, 1, 27), date(2024, 3, 6))
    assert same_period(["this winter"], date(2024, 12, 20), date(2025, 1, 10))
    assert same_period(["this year"], date(2024, 1, 2), date(2024, 11, 30))
    assert not same_period(["this spring"], date(2023, 5, 1), date(2024, 3, 6))
    assert not same_period(["this week"], date(2024, 1, 1), date(2024, 1, 9))
    assert not same_period(["this week", "yesterday"], date(2024, 1, 1), date(2024, 1, 2))
    assert same_period([], date(2024, 1, 1), date(2025, 1, 1))


def test_this_spring_written_in_two_springs_stays_apart(embed):
    merges = _plan([("Cantilena Singers perform the Fauré Requiem this spring.", 0),
                       (("This spring Cantilena Singers perform Fauré's Requiem, the 1893 "
                        "version with chamber orchestra, at St Brannock's."), 400)], embed)
    assert merges == []


def test_signed_up_after_i_am_is_a_state_signed_after_a_name_an_event():
    assert not is_past("I'm signed up for the Tollbridge Marathon.")
    assert not is_past("We're booked on the 9:40 ferry.")
    assert is_past("Ana signed up for the Tollbridge Marathon.")
