"""Who joins a merge (#32): a memory joins through any member of the group, not only the
seed, read again after each pass; a participle after "once" or a preposition is no event;
a short clause restating a kept clause's figures with their units is covered."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np

from memmaint.maintenance.agents.consolidate import _measures, merge_candidates
from memmaint.maintenance.agents.slots import Relation, is_past, statement
from memmaint.maintenance.core.config import AgentsConfig
from memmaint.maintenance.core.records import Memory

T0 = datetime(2024, 3, 1, tzinfo=timezone.utc)


def _mem(i: int, text: str) -> Memory:
    return Memory(text=text, id=f"m{i}", created_at=T0 + timedelta(hours=i))


def test_a_memory_joins_through_a_member_that_is_not_the_seed():
    texts = ["Backups of the wiki run nightly at 02:00.",
             "The wiki is backed up every night at 02:00.",
             "Every night at 02:00 the wiki gets backed up."]
    mems = [_mem(i, t) for i, t in enumerate(texts)]
    stmts = [statement(t) for t in texts]
    sims = np.array([[1.0, 0.9, 0.3],   # the third is far from the seed ...
                     [0.9, 1.0, 0.95],  # ... and a near-duplicate of the second
                     [0.3, 0.95, 1.0]])
    # listed before the member it joins through: read again after the second joins
    group = merge_candidates(0, [0, 2, 1], set(), mems, sims, stmts, lambda g, j: None,
                             AgentsConfig(), {})
    assert sorted(group) == [0, 1, 2]
    # a relation with any member still keeps it apart
    blocked = merge_candidates(0, [0, 2, 1], set(), mems, sims, stmts,
                               lambda g, j: Relation("change", "x") if {g, j} == {0, 2}
                               else None,
                               AgentsConfig(), {})
    assert sorted(blocked) == [0, 1]


def test_a_participle_after_once_if_or_a_preposition_is_no_event():
    assert not is_past("Links last 24 hours, and once expired, resend them from settings.")
    assert not is_past("A fix for expired ones: resend the verification.")
    assert not is_past("If delayed, the parcel is refunded.")
    assert is_past("The parcel arrived damaged.")
    assert is_past("The user paid the invoice once.")


def test_figures_with_their_units_restate_and_a_bare_or_ranged_number_does_not():
    assert _measures("Annual billing knocks off 10%.") == _measures(
        "Paying annually comes out 10% cheaper.") == {("10", "%")}
    assert _measures("Clients that exceed it get 429 errors.") == {("429", "error")}
    assert _measures("over the limit the API returns a 429") == set()
    assert _measures("arrival in 4 to 6 days") == set()  # "4 to": a range, no unit
    assert _measures("annual billing knocks off 15%") != _measures("billing knocks off 10%")
