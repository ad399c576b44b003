"""Exclusive life statuses (#32): a new relationship status or diet replaces the old one
without a change word; other people's statuses, negations and equal values do not."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest

from memmaint.maintenance.agents.slots import relation, statement
from memmaint.maintenance.agents.statuses import same_status, status_change, statuses


@pytest.mark.parametrize("old, new, values", [
    ("Marisol is single.", "Marisol has a girlfriend now, Beatriz.", "single vs dating"),
    ("Teodor is engaged to Ines.", "Teodor and Ines got married in June.", "engaged vs married"),
    ("I'm married.", "The user got divorced last year.", "married vs separated"),
    ("Anouk's boyfriend is Rasmus.", "Anouk and Rasmus split up in May.", "dating vs separated"),
    ("The user is vegetarian.", "The user went vegan in January.", "vegetarian vs vegan"),
    ("Note: Pim is a pescatarian.", "Pim is vegan.", "pescatarian vs vegan"),
])
def test_two_values_of_one_persons_exclusive_status_are_a_change(old, new, values):
    assert status_change(old, new) is not None and values in status_change(old, new)
    found = relation(statement(old), statement(new), 0.5)
    assert found is not None and found.kind == "change", (old, new, found)


@pytest.mark.parametrize("a, b", [
    ("Marisol is single.", "Beatriz is married."),  # two people
    ("The user is single.", "The user's brother is married."),  # a relative's status
    ("My sister is engaged.", "I'm single."),
    ("Marisol is married to Joe.", "Marisol is married with two kids."),  # one value
    ("Bram is vegan.", "Bram is no longer vegan."),  # a negation: the other readers' case
    ("The user is single.", "The user is vegan."),  # two attributes
])
def test_other_people_negations_one_value_or_two_attributes_are_no_status_change(a, b):
    assert status_change(a, b) is None


def test_statuses_read_the_subject_before_the_status():
    assert statuses("Ottilie is single.") == {"relationship": ("single", frozenset({"ottili"}))}
    assert statuses("Tom's brother is single.") == {}
    assert statuses("I have a wife and two kids.")["relationship"][0] == "married"


def test_a_new_relationship_status_supersedes_the_old_in_a_run():
    from memmaint.maintenance.agents.rules import plan_cluster
    from memmaint.maintenance.core.config import AgentsConfig
    from memmaint.maintenance.core.records import Memory

    day = lambda d: datetime(2024, 1, d, tzinfo=timezone.utc)
    mems = [Memory(text="Ottilie is single.", id="a", created_at=day(2)),
            Memory(text="Ottilie has a boyfriend called Matthias.", id="b", created_at=day(20))]
    vecs = np.array([[1.0, 0.0], [0.55, np.sqrt(1 - 0.55 ** 2)]])
    plan = plan_cluster(mems, vecs, 0, AgentsConfig(), day(28), id_seed="t")
    retired = {i for a in plan.actions for i in getattr(a, "superseded_ids", ())}
    assert retired == {"a"}, plan.actions


@pytest.mark.parametrize("a, b", [
    ("Sunita is vegetarian.", "Sunita doesn't eat meat."),
    ("The user is teetotal.", "I don't drink."),
    ("Rolf doesn't touch a drop of alcohol.", "Rolf is teetotal these days."),
])
def test_one_status_in_other_words_is_the_same_fact(a, b):
    from memmaint.maintenance.agents.samefact import same_fact

    assert same_status(a, b) and same_status(b, a)
    assert same_fact(a, b, 0.7)


@pytest.mark.parametrize("a, b", [
    ("Sunita is vegetarian for ethical reasons.", "Sunita doesn't eat meat."),  # says more
    ("Sunita is vegetarian.", "Sunita is vegan."),  # another value
    ("Sunita is vegetarian.", "Sunita's son doesn't eat meat."),  # another person
    ("Rolf doesn't drink coffee.", "Rolf is teetotal."),  # coffee is no alcohol
])
def test_a_status_with_more_another_value_or_person_is_not_said_again(a, b):
    assert same_status(a, b) is None


def test_a_new_job_for_one_person_is_a_change_by_the_roles_head_word():
    assert status_change("Wiebke works as a barista at Kaffeehaus Mitte.",
                         "Wiebke is a junior accountant at a firm in Kassel.") == \
        "job: barista vs accountant"
    # the same role in other words, a role held beside a job, another person: no change
    assert status_change("Ana works as a nurse.", "Ana is a nurse at St Anne's hospital.") is None
    assert status_change("Ana works as a nurse.", "Ana is a volunteer at the food bank.") is None
    assert status_change("Ana works as a nurse.", "Ben works as a pilot.") is None
    assert status_change("Ana works as a nurse.", "Ana's son works as a pilot.") is None
