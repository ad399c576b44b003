"""What a note says apart from where it came from.

Agents and people write facts with their provenance around them: a framing ("Note:",
"Reminder:", "Macro text:"), a hedge ("I believe", "As far as I know,"), an attribution
("according to Ravi", "confirmed with Tom:", "Grace confirmed it in Slack", "per the
help-center article", "from ticket #56781"), an aside in parentheses ("(during the September
billing incident)") or a remark about the note itself ("Keep this in answers.", "came up four
times this week", "it's in the May changelog"). Two notes of one fact differ in these more
than in the fact. :func:`fact_core` removes them, so that the merge's clause test
(:func:`~memmaint.maintenance.agents.consolidate.clause_covered`) compares facts: a clause
whose only news is who said it adds nothing to a merged text, and a clause that restates a
fact under another attribution is covered. The merged memory keeps every source's id in its
provenance, so nothing about where a fact came from is lost from the store.
"""

from __future__ import annotations

import re
from functools import lru_cache

_NAME = r"(?-i:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)"  # capitalised words, whatever the flags
_MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October|November|"
          r"December)")
_COUNT = r"(?:\w+|a few)"

#: Framings and hedges that open a note, each followed by ":" "-" "," or a space.
_OPENERS = re.compile(
    r"^\s*(?:note to self|notes? for later|for reference|note|nb|fyi|kb|reminder|heads[- ]up|"
    r"btw|by the way|for the record|fwiw|iirc|(?:i'?m )?(?:pretty|fairly|quite) sure(?: that)?|"
    r"if i recall(?: correctly| right)?|as i recall|from memory|supposedly|i reckon|"
    r"i(?:'ve)? heard(?: that)?|"
    r"afaik|quick note|side note|just so you know|also|keep in mind(?: that)?|to fix it|"
    r"important|internal note|internally|"
    r"macro text|"
    r"customer-facing answer|remember that|i believe|i think|as far as i know|"
    r"if i remember correctly|apparently|per the (?:docs|documentation|wiki|help-center "
    r"article|runbook)|confirmed with " + _NAME + r"|according to " + _NAME + r"|"
    r"from ticket #\d+|from the [\w -]+ changelog)(?:\s*[:,\-–—]?\s+|\s*[.:]?\s*$)",
    re.IGNORECASE)
#: Attributions and remarks about the note, anywhere in it.
_REMARKS = re.compile(
    r"\s*\((?:during|after|before|in|from|per|as|when|saved|according|via|see|source)\b"
    r"[^()]*\)"  # an aside in parentheses that says where or when it was noted
    r"|[,;]?\s*\b(?:keep this in answers|during the [\w -]*?incident(?: review)?|"
    r"in (?:the|last week's) [\w-]+(?: [\w-]+)*? (?:call|sync|meeting)|when a customer asked (?:on|in) \w+|"
    r"came up " + _COUNT + r" times? (?:this|last) (?:week|month)|"
    r"it'?s in the (?:" + _MONTH + r" )?changelog|" + _NAME + r" confirmed (?:it|this) in \w+|"
    r"as " + _NAME + r" explained in \w+|ticket #\d+ was about exactly this|"
    r"per the help-center article|according to " + _NAME + r"|"
    r"(?:after|before) the (?:\w+ )?(?:release|launch)|"
    r"(?:saved )?from (?:a )?ticket(?: #\d+)?)\b\.?",
    re.IGNORECASE)


@lru_cache(maxsize=65536)
def fact_core(text: str) -> str:
    """``text`` without the framings, hedges, attributions and remarks around its fact
    (module docstring); ``""`` when it says nothing else."""
    out = text
    for _ in range(4):  # "Note: according to Ravi, ...", "After the May release, Heads up: ..."
        stripped = _REMARKS.sub("", _OPENERS.sub("", out)).strip(" \t,;:-–—")
        if stripped == out:
            break
        out = stripped
    out = reported_fact(out)
    return re.sub(r"\s{2,}", " ", out).strip(" \t,;:-–—")


@lru_cache(maxsize=65536)
def without_openers(text: str) -> str:
    """``text`` without the framings and hedges that open it ("Note:", "FYI", "I believe"),
    its remarks left in place: the subject of "Note: the standup is on Thursday" is the
    standup, not the note."""
    out = text
    for _ in range(3):
        stripped = _OPENERS.sub("", out)
        if stripped == out:
            break
        out = stripped
    return out if out.strip() else text


#: A sentence opened by "now" in other words ("These days", "Nowadays", "Currently,").
_NOW_OPENER = re.compile(r"^\s*(?:now|these days|nowadays|currently|at the moment|at present)"
                         r"\s*,?\s+(?=\S)", re.IGNORECASE)


def without_now(text: str) -> tuple[str, bool]:
    """``text`` without a "now" that opens it, and whether one did ("These days Seraphina's
    favourite band is Idles": the statement starts at its subject, and says its value is the
    current one)."""
    m = _NOW_OPENER.match(text)
    return (text[m.end():], True) if m else (text, False)


#: "User mentioned that ...", "Oskar said ...": who said it, then what was said.
_REPORTED = re.compile(r"^\s*((?:the )?user|(?-i:[A-Z][a-z]+|[A-Z]{2,}))\s+(?:said|says|mentioned|mentions|"
                       r"noted|notes|explained|explains|told (?:me|us|the \w+))\s+(?:that\s+)?"
                       r"(?=\S)", re.IGNORECASE)
#: A possessive before its noun ("her parrot"), not an object ("inspired her", "told her
#: about"): the text may end up in a merged memory, so it must still read.
_PRONOUN_OWNER = re.compile(r"\b(?:their|his|her|my)\s+(?!(?:to|about|for|with|and|that|the|a|"
                            r"an|at|in|on|of|up|off|out|back|so|too|as|if|when)\b)(?=[a-z])",
                            re.IGNORECASE)


#: Words that need the speaker to be read ("Caroline said Melanie inspired her").
_PERSON_PRONOUN = re.compile(r"\b(?:he|she|him|her|his|hers|they|them|their|i|me|my|we|us|"
                             r"our|you|your)\b", re.IGNORECASE)


@lru_cache(maxsize=65536)
def reported_fact(text: str) -> str:
    """What a report of someone's words says, said of them: "User mentioned that their
    brother is based in Leeds" -> "the user's brother is based in Leeds", "Oskar said
    Radiohead is his favourite band" -> "Radiohead is Oskar's favourite band"; other text
    unchanged. Who said it is provenance; what they said is the fact."""
    found = _REPORTED.match(text)
    if found is None:
        return text
    speaker = found.group(1)
    speaker = "the user" if speaker.lower().endswith("user") else speaker
    said = text[found.end():]
    rest = _PRONOUN_OWNER.sub(f"{speaker}'s ", said)
    rest = re.sub(r"^(?:they|he|she|I)\b", speaker, rest)
    if rest == said:
        if _PERSON_PRONOUN.search(said):
            return text  # nothing said of the speaker ("Caroline said Melanie inspired her")
        return said[:1].upper() + said[1:]  # "IT says renew it from the IT portal"
    return rest[:1].upper() + rest[1:] if rest[:1].islower() and speaker[0].isupper() else rest


def says_only_provenance(text: str) -> bool:
    """Whether ``text`` carries no word beyond where it came from ("Keep this in answers.",
    "Grace confirmed it in Slack.")."""
    return not re.search(r"[A-Za-z0-9]", fact_core(text))


__all__ = ["fact_core", "reported_fact", "says_only_provenance", "without_openers"]
