"""The same-fact test (#32): reworded paraphrases below the merge threshold, gated by fact
agreement; changed values, different subjects, events and identifiers never pass."""

from __future__ import annotations

import pytest

from memmaint.maintenance.agents.samefact import same_fact, substitution
from memmaint.maintenance.agents.slots import statement


@pytest.mark.parametrize("a, b, cos", [
    ("Priya reacts badly to penicillin.", "Avoid penicillin around Priya: allergy.", 0.81),
    ("Maya's usual coffee is a decaf latte.", "Maya drinks a decaf latte every morning.", 0.87),
    ("Lukas always orders a double espresso.", "Lukas's usual coffee is a double espresso.",
     0.88),
    ("The team holds its standup on Thursdays at 8:45.",
     "The team meets for the daily standup on Thursdays at 8:45.", 0.78),
    ("Tom owns a dog called Pepper.", "Tom's dog Pepper is scared of thunderstorms.", 0.68),
    ("The user has a job at Acme.", "The user works at Acme as a data engineer.", 0.85),
    ("Priya is on Europe/Paris time.", "Priya works in the Europe/Paris timezone.", 0.92),
    ("The billing service is built for Python 3.10.", "The billing service runs on Python 3.10.",
     0.97),
])
def test_reworded_statements_of_one_fact_are_the_same_fact(a, b, cos):
    assert same_fact(a, b, cos), (a, b)


@pytest.mark.parametrize("a, b, cos", [
    # changed values (a lower-case value, a name, a number)
    ("Aisha drinks a cortado every morning.", "Aisha drinks an oat flat white every morning.",
     0.9),
    ("Tom likes jazz.", "Tom likes hiking.", 0.9),
    ("The user works at Acme.", "The user works at Globex.", 0.9),
    ("The Pro plan costs $39 per month.", "The Pro plan costs $49 per month.", 0.95),
    # another subject: a name, an owner, a modifier of the subject
    ("Sam is a coach.", "Ana is a coach.", 0.9),
    ("Priya's dog eats grain-free food.", "The user's dog eats grain-free food.", 0.9),
    ("The team holds its standup on Thursdays at 8:45.",
     "The platform team's standup is now on Thursdays at 8:45.", 0.8),
    # a status or negation changed, an event added a date
    ("Sam is now a Weight Watchers coach.",
     "Sam sees becoming a Weight Watchers coach as a great step.", 0.9),
    ("Tom eats pork.", "Tom does not eat pork.", 0.95),
    ("Tom owns a dog called Pepper.", "Tom walked Pepper yesterday.", 0.8),
    # identifiers name different things
    ("Invoice 1043 was paid on 3 March.", "Invoice 1044 was paid on 3 March.", 0.97),
    ("Build 8531 failed on 3 integration tests.", "Build 8534 failed on 3 integration tests.",
     0.97),
    # a different fact of the same topic
    ("Tom's dog Pepper is scared of thunderstorms.", "Tom's dog Pepper hates baths.", 0.8),
])
def test_different_facts_are_never_the_same_fact(a, b, cos):
    assert not same_fact(a, b, cos) and not same_fact(b, a, cos), (a, b)


def test_below_the_cosine_floor_nothing_is_the_same_fact():
    assert not same_fact("Priya reacts badly to penicillin.",
                         "Avoid penicillin around Priya: allergy.", 0.5)


def test_substitution_reads_one_frame_with_two_values():
    assert substitution(["tom", "like", "jazz"], ["tom", "like", "hik"])
    assert substitution(["tom", "like", "jazz"], ["tom", "enjoy", "jazz"]) is None


def test_statement_reads_the_verb_after_a_noun_subject():
    st = statement("The team holds its standup on Thursdays at 8:45.")
    assert (st.holder, st.verb) == ("team", "holds")
    st = statement("The platform team's standup is now on Thursdays at 8:45.")
    assert st.holder == "team/standup" and st.subject_mods == {"platform"}
    assert statement("The user writes code in PyCharm.").holder == "user"


def test_value_change_reads_lower_case_values_and_attribute_words():
    from memmaint.maintenance.agents.samefact import value_change

    assert value_change("Aisha drinks a cortado every morning.",
                        "Aisha drinks an oat flat white every morning.", 0.73)
    assert value_change("Lukas always orders an oat flat white.",
                        "Lukas now orders a cortado instead.", 0.59)
    assert value_change("Maya is employed by Acme.", "Maya's employer is Globex.", 0.67)
    # must NOT: two likes, another holder (a sister), a paraphrase, identifiers
    assert not value_change("Tom likes jazz.", "Tom likes hiking.", 0.7)
    assert not value_change("Tom's sister lives in Porto.", "Tom lives in Lyon.", 0.7)
    assert not value_change("Maya drinks a decaf latte every morning.",
                            "Maya's usual coffee is a decaf latte.", 0.87)
    assert not value_change("Ticket #88 is assigned to Jonas.", "Ticket #91 is assigned to Elif.",
                            0.9)


def test_a_number_before_a_verb_in_ed_names_the_subject():
    from memmaint.maintenance.agents.slots import identifiers

    assert identifiers("Build 8531 failed on 3 integration tests.") == {("build", "8531")}


def test_value_change_never_reads_an_added_detail_as_another_value():
    from memmaint.maintenance.agents.samefact import value_change

    assert not value_change("Settlement time for SEPA Direct Debit is 3 days.",
                            "Settlement time for SEPA Direct Debit is 3 days - SEPA debits are "
                            "supported in EUR, GBP and USD.", 0.8)
    assert not value_change("Refunds take 5 days, as Ann noted.",
                            "Refunds take 5 days, as Bob noted.", 0.95)
    assert not value_change("The user likes hiking in the Alps.",
                            "The user likes sailing on Lake Garda.", 0.8)


@pytest.mark.parametrize("a, b, cos, same", [
    # the fuller clause adds a detail qualifier: still the same fact
    ("Ilse has two cats.", "Ilse has two cats, both rescued from the same shelter.", 0.88, True),
    ("Noor cycles to the office.", "Noor cycles to the office most days.", 0.9, True),
    ("Noor cycles to the office.", "Noor now cycles to the office.", 0.9, False),
    # a status or time qualifier on one side only is another statement
    ("Ilse has two cats.", "Ilse will have two cats next month.", 0.88, False),
    # the covered clause's detail must be in the fuller one
    ("Ilse has two cats, both rescued.", "Ilse has two cats.", 0.88, False),
])
def test_the_fuller_clause_may_add_a_detail_qualifier_not_a_status(a, b, cos, same):
    assert bool(same_fact(a, b, cos)) is same, (a, b)


def test_free_of_charge_and_at_no_cost_are_one_value_and_no_negation():
    from memmaint.maintenance.agents.coverage import units

    def keys(text: str) -> list[tuple[str, str]]:
        return [(u.kind, u.key) for u in units(text)]

    assert keys("Cracked screens are fixed free of charge.") == keys(
        "Cracked screens are fixed at no cost.") == keys("Cracked screens are fixed for free.")
    assert not any(k == "negation" for k, _ in keys("Repairs at no extra charge."))
    assert any(k == "negation" for k, _ in keys("Repairs are not free."))


def test_an_acronyms_plural_names_what_the_acronym_names():
    from memmaint.maintenance.agents.coverage import units

    def names(text: str) -> set[str]:
        return {u.key for u in units(text) if u.kind == "name"}

    assert names("The gateway signs JWTs.") == names("The gateway signs a JWT.") == {"jwt"}
    assert names("We ship two SDKs and several APIs.") == {"sdk", "api"}
    assert names("Tom met Chris.") == {"chris"}  # a name ending in s keeps it


def test_a_fear_and_a_day_are_read_one_way():
    from memmaint.maintenance.agents.coverage import units

    def keys(text: str) -> list[tuple[str, str]]:
        return [(u.kind, u.key) for u in units(text)]

    assert keys("Oona is afraid of heights.") == keys("Oona has a fear of heights.") == keys(
        "Oona is really scared of heights.")
    assert ("number", "1") in keys("The code expires after 24 hours.")
    assert keys("The code is valid for 24 hours.") == keys("The code is valid for one day.")
    assert keys("Retries run for 72 hours.") == keys("Retries run for 3 days.")
    assert ("number", "36") in keys("Retries run for 36 hours.")
