"""Life statuses that exclude each other: a new one replaces the old without a change word.

"Ottilie is single." and, months later, "Ottilie has a boyfriend called Matthias." share
almost no words and sit at a middling cosine, yet a user reads the second as the end of the
first. Some attributes of a person hold one value at a time and are named by a closed set of
words, so the words alone say that two memories state two values of one attribute:

- **relationship**: single; dating (a boyfriend, a girlfriend, seeing someone); engaged;
  married (a husband, a wife, got married); separated (divorced, broke up); widowed;
- **diet**: vegan; vegetarian (also "doesn't eat meat"); pescatarian;
- **alcohol**: teetotal ("doesn't drink", "sober", "doesn't touch a drop of booze");
- **job**: what someone works as ("works as a barista", "is a junior accountant at a firm"),
  by the role's head word; roles held beside a job (volunteer, tutor, coach ...) are none.

:func:`same_status` is the other side: a memory that says only a status of someone is said
again by any memory giving them the same value ("The user is vegetarian." / "the user
doesn't eat meat."), whatever their words.

:func:`status_change` reads the status each memory gives its subject and returns the pair of
values when the subjects are one person (the same name, or both the user with no relative of
theirs in between: "The user's sister is married" is the sister's) and the values differ.
Negated statuses ("isn't married", "no longer vegan") are left to the other readers. Which of
the two is current is the caller's (time orders an update; equal times make a conflict).
Pure functions.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memmaint.maintenance.agents.coverage import owned_entities, stem
from memmaint.maintenance.agents.provenance import without_openers

_RELATIONSHIP = (
    ("single", r"\b(?:is|am|are|'s|'m|stays?|remains?)\s+(?:still\s+)?single\b"),
    ("dating", (r"\b(?:has|have|got)\s+(?:a\s+(?:new\s+)?)(?:boyfriend|girlfriend)\b|"
                r"'s\s+(?:boyfriend|girlfriend)\s+is\b|"
               r"\b(?:is|am|are|'s|'m)\s+(?:now\s+)?(?:dating|seeing someone|in a relationship)\b")),
    ("engaged", r"\b(?:is|am|are|'s|'m|got|just got)\s+(?:now\s+)?engaged\b|\bfianc[ée]e?\b"),
    ("married", (r"\b(?:is|am|are|'s|'m|got|were|was)\s+(?:now\s+)?(?:happily\s+)?married\b|"
                r"\b(?:has|have)\s+a\s+(?:husband|wife)\b|\bnewlyweds?\b")),
    ("separated", (r"\b(?:is|am|are|'s|'m|got|were|was)\s+(?:now\s+)?(?:divorced|separated)\b|"
                   r"\b(?:broke|split)\s+up\b")),
    ("widowed", r"\b(?:is|am|are|'s|'m|was)\s+(?:now\s+)?(?:widowed|a widow|a widower)\b"),
)
_DIET = (
    ("vegan", r"\b(?:is|am|are|'s|'m|went|became|turned|has been)\s+(?:now\s+|fully\s+)?vegan\b"),
    ("vegetarian", (r"\b(?:is|am|are|'s|'m|went|became|turned|has been)\s+(?:now\s+|a\s+)?"
                   r"vegetarian\b|\b(?:doesn't|does not|don't|do not|never)\s+eats?\s+"
                   r"(?:any\s+)?meat\b")),
    ("pescatarian", (r"\b(?:is|am|are|'s|'m|went|became|turned|has been)\s+(?:now\s+|a\s+)?"
                    r"pescatarian\b")),
)
_ALCOHOL = (
    ("teetotal", (r"\bteetotal(?:ler)?\b|\b(?:is|am|'m|'s)\s+(?:now\s+)?sober\b|"
                  r"\b(?:doesn't|does not|don't|do not|never)\s+(?:drinks?\s+(?:any\s+)?"
                  r"(?:alcohol|booze)|drinks?(?=\s*(?:[.;!]|$))|touch(?:es)?\s+(?:a drop of\s+)?"
                  r"(?:alcohol|booze))\b")),
)
#: Each attribute and its values, first match wins (a compiled pattern per value).
ATTRIBUTES: tuple[tuple[str, tuple[tuple[str, re.Pattern[str]], ...]], ...] = tuple(
    (name, tuple((value, re.compile(pattern, re.IGNORECASE)) for value, pattern in values))
    for name, values in (("relationship", _RELATIONSHIP), ("diet", _DIET),
                         ("alcohol", _ALCOHOL)))
_NEGATED = re.compile(r"\b(?:not|n't|never|no longer|nor)\b", re.IGNORECASE)
_USER = re.compile(r"\b(?:the user|user|i|i'm|we)\b", re.IGNORECASE)
_NAME = re.compile(r"\b[A-Z][a-z]+\b")
_NOT_NAMES = frozenset(("The", "A", "An", "User", "I", "We", "My", "Our", "Since", "After",
                        "Before", "Last", "This", "Now", "As", "In", "On", "At", "Still"))


def _subject(span: str) -> frozenset[str] | None:
    """Who a status is said of, from the words before it: the names in them, or ``user``;
    ``None`` when a relative or pet of someone stands there ("my sister", "Tom's brother")."""
    if owned_entities(span):
        return None
    names = frozenset(stem(n.lower()) for n in _NAME.findall(span) if n not in _NOT_NAMES)
    if names:
        return names
    return frozenset(("user",)) if _USER.search(span) else frozenset()


#: One status reading: ``(attribute, (value, subject, rest))``; ``rest`` is what the text
#: says besides its subject and the status (before the subject's sentence, after the status).
Reading = tuple[str, tuple[str, frozenset[str], str]]


def _said_of(text: str, m: re.Match[str]) -> tuple[frozenset[str], str] | None:
    """Who the status matched by ``m`` is said of and the rest of ``text`` (:data:`Reading`),
    or ``None``: a negation before it ("Ana never was married"; the patterns read their own)
    or no subject (a relative's status)."""
    clause_start = max(text.rfind(sep, 0, m.start()) for sep in (".", ";", "!", "?"))
    span = text[clause_start + 1:m.start()]
    if _NEGATED.search(span):
        return None
    subject = _subject(span)
    return (subject, text[:clause_start + 1] + text[m.end():]) if subject else None


@lru_cache(maxsize=65536)
def _read(text: str) -> tuple[Reading, ...]:
    """The statuses ``text`` gives someone, one :data:`Reading` per attribute."""
    text = without_openers(text)
    out: list[Reading] = []
    for attribute, values in ATTRIBUTES:
        for value, pattern in values:
            m = pattern.search(text)
            if m is None:
                continue
            if (said := _said_of(text, m)) is not None:
                out.append((attribute, (value, *said)))
            break
    if (job := _job(text)) is not None:
        out.append(("job", job))
    return tuple(out)


#: What someone works as: "works as a barista (at ...)", "is a junior accountant at a firm".
_JOB = re.compile(r"\b(?:works|worked|is working|has worked)\s+as\s+(?:an?\s+)?"
                  r"((?:[a-z-]+\s+){0,2}?[a-z-]+)(?=\s+(?:at|for|in|with|on)\b|\s*[.,;!?]|\s*$)|"
                  r"\b(?:is|'s|am|'m)\s+(?:now\s+)?an?\s+((?:[a-z-]+\s+){0,2}?[a-z-]+)\s+"
                  r"(?:at|for|with)\s+(?:an?\s+|the\s+)?[A-Za-z]")
#: Roles that are no job, or that one holds beside a job.
_NOT_JOBS = frozenset(stem(w) for w in (
    "volunteer", "member", "fan", "customer", "client", "user", "guest", "regular", "friend",
    "part", "student", "mentor", "coach", "tutor", "intern", "guide", "host", "speaker"))


def _job(text: str) -> tuple[str, frozenset[str], str] | None:
    """``(role, subject, rest)`` for the job ``text`` gives someone, by its head word."""
    m = _JOB.search(text)
    if m is None:
        return None
    role = stem((m.group(1) or m.group(2)).split()[-1].lower())
    said = _said_of(text, m)
    if said is None or role in _NOT_JOBS or _NEGATED.search(m.group(0)):
        return None
    return (role, *said)


def statuses(text: str) -> dict[str, tuple[str, frozenset[str]]]:
    """``{attribute: (value, subject)}`` for each status ``text`` gives someone."""
    return {k: (value, who) for k, (value, who, _rest) in _read(text)}


#: What may stand beside a status and say nothing more ("these days", "for years now").
_SAYS_NOTHING = re.compile(r"^[\s.,;:!?-]*(?:(?:these days|nowadays|now|anymore|any more|at all|"
                           r"for years(?: now)?|still)[\s.,;:!?-]*)*$", re.IGNORECASE)


def same_status(a: str, b: str) -> str | None:
    """Why ``b`` states all that ``a`` states: ``a`` says only a status of someone (module
    docstring) and ``b`` gives them the same value ("The user is vegetarian." / "the user
    doesn't eat meat."; "Ximena is teetotal." / "Ximena doesn't touch a drop of booze.")."""
    sb = statuses(b)
    for attribute, (value, who, rest) in _read(a):
        if attribute in sb and sb[attribute][0] == value and who & sb[attribute][1] and \
                _SAYS_NOTHING.match(rest):
            return f"same status ({attribute}: {value})"
    return None


def status_change(a: str, b: str) -> str | None:
    """``"relationship: single vs dating"`` when the two give one person two values of one
    exclusive attribute (module docstring), else ``None``."""
    sa, sb = statuses(a), statuses(b)
    for attribute in sa.keys() & sb.keys():
        (va, who_a), (vb, who_b) = sa[attribute], sb[attribute]
        if va != vb and who_a & who_b:
            return f"{attribute}: {va} vs {vb}"
    return None


__all__ = ["ATTRIBUTES", "same_status", "status_change", "statuses"]
