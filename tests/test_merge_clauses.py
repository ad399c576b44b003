"""A merge compares facts, not their wrappers (#32): the framing, hedge and attribution around a
note's fact (:mod:`memmaint.maintenance.agents.provenance`), a sentence that strings facts
together with dashes or ", and", and clause vectors of their own for memories of several
clauses (:mod:`memmaint.maintenance.agents.clause_vectors`)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from memmaint.maintenance.agents.clause_vectors import clause_embedder
from memmaint.maintenance.agents.consolidate import clauses_of, consolidate
from memmaint.maintenance.agents.provenance import fact_core, says_only_provenance
from memmaint.maintenance.core.config import AgentsConfig, Config
from memmaint.maintenance.core.records import Memory

T0 = datetime(2025, 3, 1, 9, tzinfo=timezone.utc)


@pytest.mark.parametrize(("text", "core"), [
    ("Note: according to Ravi, UPS handles Japan orders.", "UPS handles Japan orders."),
    ("The same-day cutoff is 11am (during the September billing incident).",
     "The same-day cutoff is 11am."),
    ("Confirmed with Tom: the breakfast is ordered from Bagel Barn.",
     "the breakfast is ordered from Bagel Barn."),
    ("As far as I know, refunds take 5 days, Grace confirmed it in Slack.",
     "refunds take 5 days"),
    ("According to Tom the user prefers tea.", "the user prefers tea."),  # a name, not words
    ("Caroline went hiking (with Mel).", "Caroline went hiking (with Mel)."),  # not provenance
    ("Tom talked in the call about Ravi.", "Tom talked in the call about Ravi."),
])
def test_fact_core_removes_framings_hedges_and_attributions_only(text, core):
    assert fact_core(text) == core


def test_a_remark_about_the_note_is_no_clause():
    assert says_only_provenance("Keep this in answers.")
    assert says_only_provenance("Came up three times this week.")
    assert not says_only_provenance("Customers often open tickets about it.")
    assert [c.text for c in clauses_of("The cutoff is 11am. Keep this in answers.", None)] \
        == ["The cutoff is 11am."]


def test_a_sentence_of_several_facts_is_cut_at_dashes_and_and_before_a_new_subject():
    parts = [c.text for c in clauses_of(
        "Orders to Japan ship with UPS, and the same-day cutoff is 11am - arrival in 4 to 6 "
        "days.", None)]
    assert parts == ["Orders to Japan ship with UPS", "the same-day cutoff is 11am",
                     "arrival in 4 to 6 days."]
    assert len(clauses_of("Tom and Ana, and Li met in Porto.", None)) == 1


def _mem(i: int, text: str, days: int = 0) -> Memory:
    return Memory(id=f"m{i}", text=text, namespace="ns", created_at=T0 + timedelta(days=days))


def test_another_attribution_of_the_same_fact_adds_nothing_to_a_merge():
    mems = [_mem(0, "UPS handles Japan orders, and the same-day cutoff is 11am.", 2),
            _mem(1, "Note: according to Ravi, UPS handles Japan orders. Came up three times "
                    "this week.", 0)]
    done = consolidate([0, 1], mems, np.eye(2), AgentsConfig())
    assert done.group == [0, 1] and done.joined[1][0] == "duplicate"
    assert done.text == mems[0].text


def test_clause_vectors_recognise_a_reworded_clause_inside_a_longer_memory():
    """Word by word "Orders to Japan ship with UPS" lacks "handles"; with clause vectors of the
    run's embedder it is the same fact, so the merged text states it once."""
    mems = [_mem(0, "UPS handles Japan orders. The same-day cutoff is 11am. Parcels are "
                    "insured up to $100.", 2),
            _mem(1, "Orders to Japan ship with UPS. Parcels are insured up to $100.", 0)]
    vecs = np.eye(2)
    words_only = consolidate([0, 1], mems, vecs, AgentsConfig())
    assert words_only.text.count("Japan") == 2  # what the memories' vectors alone allow
    embed = clause_embedder(Config())
    assert embed is not None and clause_embedder(AgentsConfig()) is None
    done = consolidate([0, 1], mems, vecs, AgentsConfig(), embed)
    assert done.group == [0, 1] and done.text == mems[0].text


def _clauses(embed, *texts):
    from memmaint.maintenance.agents.consolidate import Clause

    return [Clause(t, v) for t, v in zip(texts, embed(list(texts)))]


@pytest.mark.parametrize(("clause", "kept", "same"), [
    ("growth tier: $49/month.", "The Growth plan costs $49 a month.", True),
    ("Email verification links expire after 24 hours", "verification emails only last 24 hours.",
     True),
    # another subject with the same figure, or a clause that says more than the figure
    ("The Pro plan costs $49 a month.", "The Growth plan costs $49 a month.", False),
    ("Seat add-ons can be refunded within 7 days.", "refund window for API overages: 7 days.",
     False),
    (("Issue the refund from the billing dashboard, and for setup fees the rule is prorated, "
      "and customers get 14 days to ask for a refund on setup fees."),
     "One-time setup fees can be refunded within 14 days.", False),
    ("The Pro plan costs $29 a month.", "The Pro plan costs $49 a month.", False),
])
def test_a_restated_figure_is_covered_only_with_its_subject_and_words(clause, kept, same):
    from memmaint.maintenance.agents.consolidate import clause_covered

    embed = clause_embedder(Config())
    a, b = _clauses(embed, clause, kept)
    assert bool(clause_covered(a, [b])) is same


def test_a_failing_clause_embedder_leaves_the_merge_to_the_words(caplog):
    """An embedding endpoint that is down does not fail the plan: clauses are compared by
    their words, as without clause vectors, and the log says so."""
    from memmaint.maintenance.core.config import EmbeddingConfig, with_overrides

    config = with_overrides(Config(), {"embedding.model": "openai",
                                       "embedding.base_url": "http://127.0.0.1:9/v1"})
    assert isinstance(config.embedding, EmbeddingConfig)
    embed = clause_embedder(config)
    assert embed is not None
    mems = [_mem(0, "UPS handles Japan orders. The same-day cutoff is 11am.", 2),
            _mem(1, "Orders to Japan ship with UPS. The same-day cutoff is 11am.", 0)]
    with caplog.at_level("WARNING"):
        done = consolidate([0, 1], mems, np.eye(2), AgentsConfig(), embed)
    words_only = consolidate([0, 1], mems, np.eye(2), AgentsConfig())
    assert done.text == words_only.text and done.group == words_only.group
    assert caplog.text.count("clause vectors unavailable") == 1
    assert embed(["another clause"]) is None  # no second try


@pytest.mark.parametrize("text, core", [
    ("Note to self: the staging DB restarts at 02:00.", "the staging DB restarts at 02:00."),
    ("Pretty sure Odile can't ride a bike.", "Odile can't ride a bike."),
    ("I'm fairly sure that the lease ends in May.", "the lease ends in May."),
    ("If I recall correctly, Bram is left-handed.", "Bram is left-handed."),
    ("Supposedly the cafe closes at 17:00.", "the cafe closes at 17:00."),
])
def test_hedges_and_notes_to_self_open_a_note(text, core):
    assert fact_core(text) == core


def test_a_plus_after_one_word_joins_a_noun_phrase_not_two_facts():
    """"Vegan + gluten-free orders need to be in by Tuesday" is one fact (the demo's merged
    text read "... Vegan. Gluten-free orders ..."); a plus between two clauses still cuts."""
    assert [c.text for c in clauses_of(
        "Vegan + gluten-free orders need to be in by Tuesday.", None)] == [
        "Vegan + gluten-free orders need to be in by Tuesday."]
    assert len(clauses_of("Refunds take 5 days + setup fees are not refunded.", None)) == 2
