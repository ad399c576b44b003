"""The LLM agent's merge texts pass the rule agents' own tests (#32 item 3): no fact dropped,
each fact once, one value per subject (maintenance/agents/merge_checks.py, and through
``validate_reply``)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from memmaint.maintenance.agents.clause_vectors import clause_embedder
from memmaint.maintenance.agents.llm import validate_reply
from memmaint.maintenance.agents.merge_checks import merge_text_problems
from memmaint.maintenance.core.config import Config, LLMConfig
from memmaint.maintenance.core.records import Memory

NOW = datetime(2025, 6, 1, tzinfo=timezone.utc)


def _mem(i: str, text: str, days: int) -> Memory:
    return Memory(id=i, text=text, namespace="ns", created_at=NOW - timedelta(days=days))


PEANUTS = [_mem("a", "User is allergic to peanuts.", 40), _mem("b", "The user has a peanut "
                                                                   "allergy.", 3)]
ZONES = [_mem("p", "The user's timezone is Europe/Paris.", 120),
         _mem("q", "The user's timezone is Europe/Berlin.", 10)]


def test_a_paraphrase_pair_merged_into_one_statement_passes():
    embed = clause_embedder(Config())
    assert merge_text_problems("action 1", "The user has a peanut allergy.", PEANUTS,
                               embed) == []


def test_a_merge_text_that_states_a_fact_twice_is_refused():
    problems = merge_text_problems(
        "action 1", "User is allergic to peanuts. The user has a peanut allergy.", PEANUTS,
        clause_embedder(Config()))
    assert len(problems) == 1 and "states one fact twice" in problems[0]


def test_a_merge_text_that_states_two_values_for_one_subject_is_refused():
    problems = merge_text_problems(
        "action 1", "The user's timezone is Europe/Berlin. The user's timezone is "
        "Europe/Paris.", ZONES, clause_embedder(Config()))
    assert any("two values for one subject" in p for p in problems)


def test_validate_reply_refuses_a_glued_contradiction_and_names_the_fix():
    reply = {"actions": [{"type": "merge", "memory_ids": ["p", "q"], "target_ids": [],
                          "text": "The user's timezone is Europe/Berlin. The user's timezone "
                                  "is Europe/Paris.", "reason": "same subject"}]}
    cluster, problems = validate_reply(reply, ZONES, 0, LLMConfig(), id_seed="s", now=NOW,
                                       embed=clause_embedder(Config()))
    assert cluster is None and any("supersede the older value" in p for p in problems)
    ok = {"actions": [{"type": "supersede", "memory_ids": ["p"], "target_ids": ["q"],
                       "reason": "Berlin is newer"},
                      {"type": "keep", "memory_ids": ["q"], "target_ids": [],
                       "reason": "the current timezone"}]}
    cluster, problems = validate_reply(ok, ZONES, 0, LLMConfig(), id_seed="s", now=NOW,
                                       embed=clause_embedder(Config()))
    assert cluster is not None and not problems
