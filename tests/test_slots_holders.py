"""Holder and switch readings tuned on the decision set's dev part (#32): a possessor is
part of the holder, names inside the subject tell subjects apart, more switch wordings."""

from __future__ import annotations

import pytest

from memmaint.maintenance.agents.slots import relation, same_holder, statement


def _rel(a: str, b: str, cos: float = 0.7):
    return relation(statement(a), statement(b), cos)


@pytest.mark.parametrize("a,b", [
    ("Aisha's employer is Acme.", "Maya's employer is Globex."),  # two people
    ("The Enterprise plan is priced at $29 per month.", "The Pro plan costs $39 per month."),
    ("The price of the Pro plan is $99 per month.", ("The price of the Enterprise plan is $29 "
     "per month.")),
    ("The user's home is in Graz.", "Lukas relocated from Graz to Lyon."),
])
def test_different_subjects_are_not_an_update(a, b):
    found = _rel(a, b)
    assert found is None or found.kind == "distinct", found


@pytest.mark.parametrize("a,b", [
    ("Lukas lives in Graz.", "Lukas relocated from Graz to Lyon."),
    ("Maya works at Initech.", "Maya left Initech and joined Globex."),
    ("Tom writes code in Emacs.", "Tom writes code in VS Code."),
    ("The user's timezone is Europe/Paris.", "The user's timezone is Europe/Berlin."),
])
def test_same_subject_changed_value_is_a_change(a, b):
    found = _rel(a, b)
    assert found is not None and found.kind == "change", found


def test_same_holder_reads_owners():
    assert same_holder("lukas/hom", "lukas") and same_holder("user/timezon", "user/timezon")
    assert not same_holder("aisha/employer", "maya/employer") and not same_holder("", "")
    assert statement("Refunds take 5 days, as Ann noted.").subject_names == frozenset()
