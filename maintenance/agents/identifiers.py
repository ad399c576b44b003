"""Identifiers: numbers, codes, paths and kind words that *name* a memory's subject.

A number that names the subject ("invoice 1043", "game 7", "ticket #88", "INV-1043",
"Migration 0042") is not a value: two memories whose identifiers of one kind differ are about
different things (:func:`memmaint.maintenance.agents.slots.differing_ids`). :func:`identifiers`
reads them from the text alone; :func:`memmaint.maintenance.agents.slots.statement` adds the
one it finds while reading the subject: a capitalised noun's bare number right before the
verb or a comma ("Flat 3 expires", "Patient 10482, a whippet,"), with :data:`COUNTING` and
:func:`verb_shaped` from here. Split from :mod:`~memmaint.maintenance.agents.slots`, which
re-exports what it used to define.
"""

from __future__ import annotations

import functools
import re

__all__ = ["COUNTING", "ID_NOUNS", "identifiers", "mask_ids", "path_values", "verb_shaped"]

#: Nouns a following number identifies ("invoice 1043"): the number names the subject.
ID_NOUNS = frozenset((
    "invoice", "ticket", "order", "game", "note", "issue", "bug", "case", "room", "table",
    "flight", "account", "item", "step", "chapter", "page", "section", "episode", "season",
    "match", "round", "pr", "id", "task", "sprint", "lot", "unit", "seat", "gate", "platform",
    "lesson", "level", "test", "run", "build", "patch", "batch", "card", "deck", "receipt",
    "booking", "reservation", "claim", "incident", "request", "part", "question", "exercise",
    "week", "day", "session", "meeting", "shipment", "package", "parcel", "contract", "policy",
    "job", "ref", "reference", "model", "route", "line", "bus", "train", "trip", "user",
    "customer", "client", "employee", "student", "player", "team", "group", "project",
))
#: Nouns whose number identifies only when the sentence starts with them ("Version 2 adds").
_LEADING_ID_NOUNS = frozenset(("version", "release", "v"))
# the number must end a phrase ("invoice 1043 was paid", "in game 7."): "run 4 Counterspell"
# counts Counterspells
_ID_END = (r"(?=\s*(?:[.,;:!?)](?!\d)|$|(?:is|was|are|were|has|had|have|and|or|in|on|at|for|of|"
           r"to|from|with|by|says|said|will|would|should|must|can|got|gets|needs|needed|"
           r"[a-z]+ed)\b))")  # a verb in -ed ends it too ("Build 8531 failed")
_ID = re.compile(r"\b([A-Za-z]+)\s*(?:#|no\.\s*|number\s+)?\s*(\d[\w\-]*(?:\.\d+)*)"
                 + _ID_END + r"|#(\d+)\b|\b([A-Z]{2,})-(\d+)\b")

#: A noun and a zero-padded number of three digits or more ("Migration 0042", "agent 007"):
#: no count or amount is written with leading zeros, so the number names the thing (a
#: decimal "0.5", a time "09:30" or "at 0800", a day "05" is not one).
_PADDED = re.compile(r"\b(?!(?:at|on|in|by|from|to|until|till|since|before|after|around|"
                     r"about|of|and|or)\b)([A-Za-z]+)\s+(0\d{2,})\b(?![.:/\-]\d)",
                     re.IGNORECASE)
_CODE = re.compile(r"\b([A-Za-z]+)\s+(\d+[A-Za-z]\w*)\b")
_PATH = re.compile(r"(?<![\w/])/[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-{}]+)+")


#: Words after which a path is the value said of the subject ("posts to /hooks/v1", "the
#: endpoint is /hooks/v2"), not the name of the subject ("/v2/search allows ...").
_AT_VALUE = re.compile(r"\b(?:is|are|was|were|now|(?:posts?|posted|points?|pointed|moved|"
                       r"changed|sent|sends|goes|go|lives?|hosted|served|deployed)\s+"
                       r"(?:to|at|from|on))\s*$", re.IGNORECASE)


@functools.lru_cache(maxsize=1 << 15)
def path_values(text: str) -> frozenset[str]:
    """The paths ``text`` gives as a value (:data:`_AT_VALUE`), trailing stop left out."""
    return frozenset(m.group(0).lower().rstrip(".") for m in _PATH.finditer(text)
                     if _AT_VALUE.search(text[:m.start()]))


def identifiers(text: str) -> frozenset[tuple[str, str]]:
    """``(noun, identifier)`` pairs of ``text`` (see the module docstring)."""
    out: set[tuple[str, str]] = set()
    starts = {0} | {m.end() for m in re.finditer(r"[.!?;:]\s*", text)}
    for m in _ID.finditer(text):
        if m.group(3):
            out.add(("#", m.group(3)))
        elif m.group(4):
            out.add((m.group(4).lower(), m.group(5)))
        else:
            noun = m.group(1).lower()
            if noun in ID_NOUNS or (noun in _LEADING_ID_NOUNS and m.start() in starts):
                out.add((noun, m.group(2).rstrip(".")))
    for m in _PADDED.finditer(text):  # "Migration 0042 adds": a zero-padded number labels
        out.add((m.group(1).lower(), m.group(2)))
    for m in _CODE.finditer(text):  # "Room 7E seats twelve": a code names, it never counts
        if m.group(1).lower() in ID_NOUNS:
            out.add((m.group(1).lower(), m.group(2).upper()))
    for m in _ADDRESS.finditer(text):  # "the back door at 12 Tanners Row": a house number
        if not _ADDRESS_VALUE.search(text[:m.start()]):  # names the house; "lives at 12
            out.add(("address", f"{m.group(1).upper()} {m.group(2).lower()}"))  # ..." is a value
    for m in _ORDINAL_OWNER.finditer(text):  # "the 5th's rope": the fifth (bell, floor ...)
        out.add(("ordinal", m.group(1).lower()))
    for m in _PATH.finditer(text):  # an endpoint or a file names its subject ("/v2/search")
        if not _AT_VALUE.search(text[:m.start()]):  # ... unless it is what is said of it
            out.add(("path", m.group(0).lower()))
    for m in _KIND_NAMED.finditer(text):  # "the charges endpoint", "the staging server"
        words = [w for w in m.group(1).split() if w not in _NOT_NAMING]
        if words:
            out.add((m.group(2).lower().removesuffix("s"), " ".join(words)))
    return frozenset(out)


#: A street address: a house number before a capitalised street name and its kind.
_ADDRESS = re.compile(r"\b(\d{1,4}[A-Za-z]?)\s+((?:[A-Z][\w'’-]*\s+){1,3}(?:Row|Road|Rd|Street|"
                      r"St|Lane|Avenue|Ave|Close|Way|Drive|Place|Terrace|Crescent|Court|"
                      r"Gardens|Square|Mews|Walk|Parade|Grove|Hill)\b)")
#: Words after which an address is what is said of the subject ("lives at", "moved to").
_ADDRESS_VALUE = re.compile(r"\b(?:is|are|was|were|now|lives?|living|lived|moved|moving|moves|"
                            r"relocated|based|located|stays?|staying|address|to|from|into)\s+"
                            r"(?:(?:at|in|on|to|into)\s+)?$", re.IGNORECASE)
#: An ordinal that owns something ("The 5th's rope", "the 2nd's bearings").
_ORDINAL_OWNER = re.compile(r"\b(\d+(?:st|nd|rd|th))['’]s\b", re.IGNORECASE)

#: A thing of a kind named by the lower-case words before it ("the file upload endpoint",
#: "the monthly plan"): two of one kind named differently are two things.
_KIND_NAMED = re.compile(
    r"\b(?:[Tt]he|[Aa]n?|[Oo]ur|[Tt]heir|[Yy]our|[Ii]ts|[Tt]his|[Tt]hat)\s+((?:[a-z][a-z0-9-]*\s+){1,2})"
    r"(endpoints?|plans?|tiers?|servers?|queues?|buckets?|databases?|services?|channels?|"
    r"repos?|repositories|branch|branches|workspaces?|environments?|clusters?|warehouses?|"
    r"regions?)\b")
_NOT_NAMING = frozenset((
    "new", "old", "current", "previous", "same", "other", "next", "last", "whole", "entire",
    "only", "existing", "latest", "updated", "original", "main", "default", "usual", "one",
    "first", "second", "third", "each", "every", "any", "all", "this", "that", "api"))


def mask_ids(text: str) -> str:
    def repl(m: re.Match[str]) -> str:
        noun = (m.group(1) or "").lower()
        if m.group(3) or m.group(4) or noun in ID_NOUNS or noun in _LEADING_ID_NOUNS:
            return " " if not m.group(1) else m.group(1)
        return m.group(0)
    return _ID.sub(repl, text)


#: Words before a number that count or bound, not name ("Top 3 priorities", "First 2 weeks").
COUNTING = frozenset(("top", "first", "last", "next", "best", "worst", "over", "under",
                       "about", "around", "only", "just", "all", "another", "every", "more",
                       "less", "fewer", "most", "least", "within", "than", "past", "final",
                       "above", "below", "up", "after", "before", "since", "until"))


def verb_shaped(tok: str) -> bool:
    """A lower-case ``-s`` word that can be a verb ("expires", "needs"; not "class")."""
    return (tok.islower() and tok.endswith("s") and len(tok) > 3
            and not tok.endswith(("ss", "us", "is", "'s")))
