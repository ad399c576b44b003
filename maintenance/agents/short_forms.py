"""Short forms: a memory that says part of what a longer memory says ("Hallam Road Library
runs a baby rhyme time." / "... on Wednesday mornings in the children's corner, free and with
no booking needed."), read for :mod:`~memmaint.maintenance.agents.consolidate`.

The longer one must say every word, name, number and negation of the short one, in its
whole text or in its opening clauses (an added clause may carry a negation of its own), and
more than its holder; and the two must be about one holder: equal holders, or, for a
reordered sentence about a thing ("For the winter we're brewing a seasonal porter" / "We're
brewing a seasonal porter for the winter"), two head words neither of which is someone.
Pure functions.
"""

from __future__ import annotations

import functools
import re

from memmaint.maintenance.agents.coverage import ENTITIES, coverage, kept_index, stem, units
from memmaint.maintenance.agents.slots import Statement


def subsumed(short: Statement, long: Statement) -> bool:
    """Whether ``long`` says all that ``short`` says and more, about one holder: every word,
    name, number and negation of ``short`` in ``long`` or its opening clauses
    (:func:`covered_in_opening`), something said beyond the holder, and holders that may be one
    (:func:`_holders_may_be_one`: never a person and their relative, "the user's sister")."""
    if not _holders_may_be_one(short, long):
        return False
    words = [u for u in units(short.text) if u.kind in ("word", "name")]
    said = {u.key for u in words} - set(short.holder.split("/"))
    if len(words) < 2 or not said or len(units(long.text)) <= len(units(short.text)):
        return False
    if not kept_index(long.text).has_all(short.text):
        return False  # (what coverage would miss first, read cheaply)
    return covered_in_opening(short.text, long.text)


def covered_in_opening(short: str, long: str) -> bool:
    """Whether ``long``, or its opening clauses, says every word, name, number and negation
    of ``short``: a clause ``long`` adds may carry a negation of its own ("... recorded
    remotely on Riverside, and any guest without a microphone is posted one")."""
    found = coverage(short, long)
    if found.covered:
        return True
    if not all(m.startswith("+") for m in found.missing):
        return False  # an opening clause lacks whatever the whole text lacks
    return any(coverage(short, long[:m.start()]).covered for m in _CLAUSE_END.finditer(long))


#: Where a sentence's opening clause may end and an added one begin.
_CLAUSE_END = re.compile(r",\s+(?:and\s+|but\s+)?|;\s+|\.\s+|\s+[-\u2013\u2014]\s+")


def _person(st: Statement) -> bool:
    """Whether the statement's holder is someone: the user, a relative or a named person."""
    return _person_holder(st.holder, st.text)


@functools.lru_cache(maxsize=1 << 16)
def _person_holder(holder: str, text: str) -> bool:
    head = holder.split("/")[-1]
    return holder == "user" or "/" in holder or stem(head) in ENTITIES or any(
        stem(w.lower()) == head and w.lower() not in _NOT_NAMES
        for w in re.findall(r"\b[A-Z][\w-]*", text))


#: Capitalised openers that are no name.
_NOT_NAMES = frozenset(("there", "this", "that", "these", "those", "it", "we", "they", "our",
                        "every", "each", "any", "all", "no", "for", "at", "in", "on", "when",
                        "if", "here", "what", "which", "the", "a", "an"))


def _holders_may_be_one(short: Statement, long: Statement) -> bool:
    """Whether two statements' holders may be one: equal, or read off a reordered sentence
    about a thing ("For the winter we're brewing a seasonal porter" / "We're brewing a
    seasonal porter for the winter"), where the head word is not who the fact is about. Two
    holders of which one is someone are two subjects."""
    if short.holder and short.holder == long.holder:
        return True
    return not (_person(short) or _person(long))


__all__ = ["covered_in_opening", "subsumed"]
