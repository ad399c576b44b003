"""Merge fidelity: does a kept text cover a source text? (hand-written pairs)"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memmaint.maintenance.agents.coverage import (
    compose,
    cover_text,
    coverage,
    covers,
    relative_times,
    same_anchor,
    sentences,
    stem,
    units,
)

# (source, kept): the kept text says everything the source says
COVERED = [
    ("Caroline went hiking with her kids.", "Caroline goes hiking with her children."),
    ("Refunds take 5 business days.", "Refunds take five business days"),
    ("Requests over the rate limit get HTTP 429 with a Retry-After header.",
     "Requests above the rate limit get HTTP 429 with a Retry-After header."),
    ("Gina lost her job at Door Dash.",
     "Gina lost her job at Door Dash during the month of the conversation."),
    ("The all-hands is on Friday in the big room on 3.",
     "Note: the company all-hands is on Friday, and it's in the big room on 3."),
    ("Melanie painted a lake sunrise last year.",
     "Last year Melanie painted a sunrise over a lake, which means a lot to her."),
    ("Jon isn't coming to the party.", "Jon is not coming to the party on Saturday."),
    ("Ana adopted a dog named Biscuit.", "Ana adopted a dog. Its name is Biscuit."),
    ("Ben bought 1,200 shares.", "Ben bought 1200 shares in May."),
    ("Maria started volunteering at the shelter.",
     "Maria began volunteering at the shelter; she loves it."),
]

# (source, kept, a unit the check must report missing)
NOT_COVERED = [
    # added detail in the source
    ("Gina lost her job at Door Dash during the month of the conversation.",
     "Gina lost her job at Door Dash.", "month"),
    ("Ana adopted a dog named Biscuit last week.", "Ana adopted a dog named Biscuit.", "last"),
    # changed status
    ("Sam is now a Weight Watchers coach.", "Sam sees becoming one as a great step.", "now"),
    ("Sam is now a Weight Watchers coach.", "Sam wants to become a Weight Watchers coach.",
     "now"),
    ("Sam wants to become a Weight Watchers coach.", "Sam is now a Weight Watchers coach.",
     "wants"),
    ("Jon used to work at the bank.", "Jon works at the bank.", "used to"),
    # changed value
    ("Refunds take 5 business days.", "Refunds take 7 business days.", "5"),
    ("Ana moved to Paris in May 2023.", "Ana moved to Paris in June 2023.", "May"),
    ("The meeting is on Tuesday.", "The meeting is on Thursday.", "Tuesday"),
    # negation, both ways
    ("Caroline did not adopt a dog.", "Caroline adopted a dog.", "not"),
    ("Caroline adopted a dog.", "Caroline did not adopt a dog.", "+not"),
    ("Jon works at the bank.", "Jon no longer works at the bank.", "+no longer"),
    ("Jon no longer works at the bank.", "Jon works at the bank.", "no longer"),
    ("Dev never drinks coffee.", "Dev drinks coffee every morning.", "never"),
    # qualifiers
    ("Ben only bakes on Sundays.", "Ben bakes on Sundays.", "only"),
    ("Ben always bakes on Sundays.", "Ben usually bakes on Sundays.", "always"),
    ("Cleo will open a bakery.", "Cleo opened a bakery.", "will"),
    # a different person, another name
    ("Caroline adopted a dog.", "Melanie adopted a dog.", "Caroline"),
    ("Sam is a Weight Watchers coach.", "Sam is a coach.", "Weight"),
    # roles swapped between two people
    ("Gina supports Jon and believes in him.",
     "Jon believes in himself and is grateful for Gina's support.", "order: Gina ... Jon"),
]


@pytest.mark.parametrize(("source", "kept"), COVERED)
def test_paraphrases_and_added_detail_in_the_kept_text_are_covered(source, kept):
    result = coverage(source, kept)
    assert result.covered and result.missing == (), result.missing
    assert bool(result)


@pytest.mark.parametrize(("source", "kept", "missing"), NOT_COVERED)
def test_lost_detail_status_value_negation_and_person_are_not_covered(source, kept, missing):
    result = coverage(source, kept)
    assert not result.covered and not result
    assert missing in result.missing, result.missing


def test_units_read_words_numbers_names_dates_negations_and_qualifiers():
    got = [(u.kind, u.key) for u in units(
        "Melanie's son didn't go to the LGBTQ+ parade on Friday in May; "
        "she'll now go twice, on the 7th.")]
    assert got == [("word", "melani"), ("word", "son"), ("negation", "not"), ("word", "go"),
                   ("name", "lgbtq"), ("word", "parad"), ("date", "friday"),
                   ("date", "may"), ("qualifier", "will"), ("qualifier", "now"),
                   ("word", "go"), ("word", "twic"), ("number", "7")]
    assert [u.key for u in units("three dogs, 3 cats and no longer 12,000 fish")] == [
        "3", "dog", "3", "cat", "no longer", "12000", "fish"]
    # stop words only: nothing to lose
    assert units("It is what it is.") == []
    assert coverage("It is what it is.", "").covered


def test_stems_and_synonyms_are_light():
    assert stem("attended") == stem("attending") == stem("attends") == stem("attend")
    assert stem("families") == stem("family")
    assert stem("went") == stem("goes") == stem("go")
    assert stem("kids") == stem("children") == stem("child")
    assert stem("photo") == stem("pictures")
    assert stem("coach") != stem("teacher")
    assert stem("week") != stem("weekend")


def test_sentences_and_compose():
    assert sentences("One. Two! Three; four? ") == ["One.", "Two!", "Three;", "four?"]
    kept = "Sam sees becoming a Weight Watchers coach as a great step."
    source = "Sam is now a Weight Watchers coach. Sam sees it as a great step."
    text = compose(kept, source)
    assert text == kept + " Sam is now a Weight Watchers coach."
    assert coverage(source, text).covered
    assert compose(text, source) == text  # nothing left to add
    assert compose("No full stop", "Ana likes tea.") == "No full stop. Ana likes tea."


def test_cover_text_prefers_the_covering_source_and_respects_the_length_limit():
    a, b = "Ana adopted a dog.", "Ana adopted a dog named Biscuit."
    assert cover_text(a, [a], b) == b  # b says all a says: no composition needed
    assert cover_text(b, [b], a) == b
    c = "Ana's dog is afraid of thunderstorms."
    assert cover_text(b, [b], c, max_chars=200) == f"{b} {c}"
    assert cover_text(b, [b], c, max_chars=40) is None
    assert cover_text(b, [b], c, compose_missing=False) is None
    # a kept sentence that negates the new source can never be composed around
    assert cover_text("Ana did not adopt a dog.", ["Ana did not adopt a dog."],
                      "Ana adopted a dog.") is None
    assert covers(f"{b} {c}", [a, b, c])


def test_relative_times_stay_anchored_to_the_day_they_were_written():
    assert relative_times("Caroline went to a pride parade a few weeks ago.") == [
        "few weeks ago"]
    assert relative_times("Nate made ice cream last Friday; the show is next month.") == [
        "last Friday", "next month"]
    assert relative_times("Gina lost her job during the month of the conversation.") == [
        "the month of the conversation"]
    assert relative_times("She went there recently, and again yesterday.") == [
        "recently", "yesterday"]
    assert relative_times("The last retry is on day 14.") == []  # "last" as in final
    assert relative_times("Ana moved to Paris in May 2023.") == []
    day = datetime(2023, 5, 8, 13, 0, tzinfo=timezone.utc)
    later = day + timedelta(days=40)
    assert same_anchor([("Ana went hiking last week.", day),
                        ("Ana went hiking last week!", day + timedelta(hours=2))])
    assert not same_anchor([("Ana went hiking last week.", day),
                            ("Ana went hiking.", later)])
    # the newest source may say "last week": the merged memory is dated like it
    assert same_anchor([("Ana went hiking.", day), ("Ana went hiking last week.", later)])
    assert same_anchor([])
