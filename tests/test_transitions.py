"""Updates a memory spells out (#32): "from X to Y", "replaced X with Y", "cancelled X and
joined Y", ", not X", "pushed back to <date>", "moved to <place>", a decision reversed. Each
retires an older memory that still states what the change left behind; changes of another
subject, another event, or advice both repeat, retire nothing."""

from __future__ import annotations

import pytest

from memmaint.maintenance.agents.slots import relation, same_holder, statement
from memmaint.maintenance.agents.transitions import transition


def _spelt(old: str, new: str, cosine: float = 0.6) -> str | None:
    a, b = statement(old), statement(new)
    return transition(old, new, cosine, old_holder=a.holder, new_holder=b.holder,
                      same_holder=same_holder)


@pytest.mark.parametrize(("old", "new"), [
    ("Weekly planning is on the second Monday of the month.",
     "Weekly planning changed from the second Monday to the third Wednesday."),
    ("The wiki lives in Confluence.", "We migrated the wiki from Confluence to Notion."),
    ("Billing alerts go to the #money channel.",
     "Billing alerts were switched from #money to #finance-alerts."),
    ("Ravi is on call for the storage cluster.",
     "On-call for the storage cluster passed from Ravi to Dana."),
    ("The user's streaming service is Netflix.",
     "The user cancelled Netflix and signed up for Disney+ instead."),
    ("Ping the user on Slack.", "Reach the user by phone from now on, not Slack."),
    ("The launch is on 12 May.", "The launch was postponed to 2 June."),
    ("The design team sits on the 2nd floor.", "The design team moved down to the first floor."),
    ("Ingrid lives in Malmo.", "Ingrid moved to Gothenburg."),
    ("The user is going to sell the old bike.", "The user decided not to sell the old bike."),
])
def test_a_spelt_out_change_retires_what_it_left_behind(old, new):
    assert _spelt(old, new)
    found = relation(statement(old), statement(new), 0.6)
    assert found is not None and found.kind == "change" and found.explicit


@pytest.mark.parametrize(("old", "new"), [
    ("Tom's sister lives in Berlin.", "Tom moved from Berlin to Paris."),  # another holder
    ("Ana lives in Berlin.", "Tom moved from Berlin to Paris."),
    ("The dentist appointment is on Monday.", "The team moved the retro from Monday to Tuesday."),
    ("Maria engaged in community work with friends from church.",
     "Maria went camping with friends from church to take her mind off things."),
    ("Tell developers to batch calls instead of retrying in a loop.",
     "Tell developers to batch requests instead of retrying in a loop, per the docs."),
    ("The reporting job targets Python 3.11.", "The data pipeline was upgraded to Python 3.10."),
    ("Lukas lives in Graz.", "The user's flat moved to Lyon."),
    ("The user plans to visit Japan.", "The user plans to visit Korea."),
    ("Melanie is planning to paint a sunset.", "Melanie decided not to enter the art contest."),
])
def test_no_change_is_read_between_other_subjects_events_or_the_same_advice(old, new):
    assert _spelt(old, new, 0.45) is None and _spelt(new, old, 0.45) is None


def test_the_value_is_read_whole():
    why = _spelt("The API client targets Node 18.12.", "The API client was upgraded to Node 20.10.")
    assert why is not None and "20.1" in why and "18.12" in why
    assert _spelt("The office is on the 3rd floor.", "The office moved up to the third floor.") \
        is None  # the same floor in another form


def test_a_move_of_someone_else_the_memory_names_is_no_move_of_the_holder():
    """"User mentioned that their brother is based in Leeds" says where the brother is; "The
    user moved to a flat on Mill Road" does not retire it."""
    assert _spelt("User mentioned that their brother is based in Leeds.",
                  "The user moved to a flat on Mill Road last month.", 0.5) is None
    assert _spelt("The user lives on Elm Street.",
                  "The user moved to a flat on Mill Road last month.", 0.5)


def test_stopping_an_activity_and_a_new_frequency_are_updates():
    assert _spelt("The team ships releases on Mondays.",
                  "We stopped shipping releases on Mondays; they go out on Thursdays now.", 0.7)
    assert _spelt("Lea is studying Portuguese.",
                  "Lea stopped studying Portuguese and took up Greek.", 0.66)
    assert _spelt("Lea stopped by the bakery for bread.", "Lea bakes bread.", 0.6) is None
    found = relation(statement("The digest email goes out weekly."),
                     statement("The digest email is now sent every two weeks."), 0.8)
    assert found is not None and found.kind == "change" and "frequency" in found.detail


def test_what_was_let_go_retires_the_memory_that_still_states_it():
    from memmaint.maintenance.agents.slots import relation, statement

    for old, new in (("Builds run on CircleCI.", "We retired CircleCI and build on Drone now."),
                     ("Odile rides a Vespa Primavera.", "Odile sold her Vespa Primavera."),
                     ("Bram chairs the safety committee.",
                      "Bram stepped down as safety committee chair.")):
        found = relation(statement(old), statement(new), 0.6)
        assert found is not None and found.kind == "change" and found.explicit, (old, new)
    # another holder's thing, or a thing the older memory never states, is no change
    assert relation(statement("Tom rides a Vespa Primavera."),
                    statement("Odile sold her Vespa Primavera."), 0.6) is None
    assert relation(statement("Odile rides a Vespa Primavera."),
                    statement("Odile sold her piano."), 0.4) is None


def test_a_value_raised_for_one_holder_changes_only_the_attribute_it_names():
    from memmaint.maintenance.agents.slots import relation, statement

    found = relation(statement("The user's weekly running target is 20 km."),
                     statement("The user raised the weekly running target to 30 km."), 0.8)
    assert found is not None and found.kind == "change"
    found = relation(statement("The user raised the weekly running target to 30 km."),
                     statement("The user's vitamin D dose was increased to 2000 IU."), 0.2)
    assert found is None or found.kind != "change"


@pytest.mark.parametrize("old, new, detail", [
    ("The gym membership costs 30 euros a month.", "The gym membership fee rose to 35 euros.",
     "35"),
    ("The user's mortgage rate is 4.5%.", "The mortgage rate dropped to 3.9%.", "3.9"),
    ("The release is planned for 3 May.", "The release slipped to 24 May.", "05-24"),
    ("The minimum order is 20 euros.", "The minimum order went up to 25 euros.", "25"),
])
def test_a_value_that_rose_fell_or_slipped_to_another_is_an_update(old, new, detail):
    found = relation(statement(old), statement(new), 0.7)
    assert found is not None and found.kind == "change" and detail in found.detail, found


def test_a_value_changed_for_something_the_old_memory_never_names_is_no_update():
    assert relation(statement("Tom's rent is 900 euros."),
                    statement("The gym fee rose to 40 euros."), 0.7) is None


@pytest.mark.parametrize(("old", "new", "left"), [
    ("Cosimo plays piano for the choir.", ("Thaddeus has taken over from Cosimo as the "
     "choir's pianist."), "Cosimo"),
    ("Our editor is Maud Keller.", ("Maud Keller has left the magazine and Ignatius Rudd is "
     "our editor from May."), "Maud Keller"),
    ("The opposing counsel on the Birch estate is Ruaraidh Blen.", ("Ruaraidh Blen has handed "
     "the Birch estate file to his colleague Ngozi Arbo."), "Ruaraidh Blen"),
    ("The podcast is edited by Piers Hall.", ("Piers Hall is leaving, and Dagny Oster will "
     "edit the podcast from episode 20."), "Piers Hall"),
    ("The kitchen units are coming from Harwick Joinery.", ("We cancelled Harwick Joinery and "
     "ordered the kitchen from Brennholt Kitchens instead."), "Harwick Joinery"),
])
def test_a_successor_or_instead_retires_the_one_left_behind(old, new, left):
    """Hand-overs name who left; "cancelled X and <any verb> ... instead" retires X."""
    assert (_spelt(old, new) or "").startswith(f"changed from {left}")
    assert statement(new).switched_from  # the update grouping finds the older one by name
    found = relation(statement(old), statement(new), 0.6)
    assert found is not None and found.kind == "change" and found.explicit


@pytest.mark.parametrize(("old", "new"), [
    ("Tom works at Acme in the office.", "Tom left the office early."),
    ("Tom works at Acme in the office.", "Tom has left the office early. The lift was down."),
])
def test_leaving_without_a_successor_retires_nothing(old, new):
    assert _spelt(old, new) is None
