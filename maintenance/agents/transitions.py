"""Updates a memory spells out: what it says was left behind, and what another memory still says.

People rarely restate a new value in the old memory's words. They write the change: "The
all-hands changed from the first Thursday to the last Friday", "Default branch renamed from
master to main", "cancelled PureGym and joined Anytime Fitness instead", "contact me by text
from now on, not email", "Deadline pushed back to April 2", "decided not to renovate the
kitchen after all". Such a sentence names the value it retires (or the kind of value it
moves), so it updates an older memory that still states that value, whatever their cosine
(updates sit at 0.5-0.8 to what they replace).

:func:`transition` reads one memory's change and asks whether the other memory states what
the change left behind:

- **from X to Y** (changed, moved, switched, renamed, passed, migrated, shifted ... "from X
  to Y"; "replaced X with Y"; "left X and joined Y"; "cancelled X and joined Y"; "Y instead of
  X"; "..., not X"): the other memory states X (each of its content words) and not Y;
- **moved to Y** (pushed back, postponed, rescheduled, moved up, raised, cut ... "to Y"): Y
  carries a value (a date, a time, a weekday, a number or an ordinal, a price) and the other
  memory states a different value of that kind; or the verb is a move and the other memory
  says where its holder lives or is based;
- **a decision reversed**: one memory plans or decided to do something ("plans to renovate
  the kitchen"), the other decided not to, or no longer plans to (or the reverse), with the
  same verb and object.

Both must be about one subject: the same holder when both name one (so "Tom moved from
Berlin" does not retire "Tom's sister lives in Berlin"), and a content word in common beside
the values, or a cosine of at least :data:`TOPIC_COSINE`. The rule agents order the pair by
the memories' own time, as every update.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from functools import lru_cache

from memmaint.maintenance.agents.conflicts import extract
from memmaint.maintenance.agents.coverage import (
    ENTITIES,
    NOT_NAMES,
    ORDINAL_WORDS,
    SMALL_NUMBERS,
    fuzzy_in,
    owned_entities,
    stem,
    units,
)

SameHolder = Callable[[str, str], bool]

#: The most words a left-behind value may have ("the first Thursday of the month").
MAX_SPAN_WORDS = 6

#: Cosine from which two memories with no content word in common beside the values are
#: taken to be about one subject (a change names its subject as its holder would not:
#: "cancelled PureGym" / "gym membership is with PureGym" at 0.69).
TOPIC_COSINE = 0.55

#: Verbs that say a value changed (the forms a note uses: "moved", "has been renamed").
_CHANGE_VERB = (r"(?:switch(?:ed|es|ing)?|mov(?:ed|es|ing)|chang(?:ed|es|ing)|"
                r"migrat(?:ed|es|ing)|relocat(?:ed|es|ing)|transferr?(?:ed|ing)|"
                r"renam(?:ed|es|ing)|pass(?:ed|es)|shift(?:ed|s)?|convert(?:ed|s)?|"
                r"reassign(?:ed|s)?|handed|upgrad(?:ed|es|ing)|downgrad(?:ed|es|ing)|"
                r"turned|flipped|updated|push(?:ed|es)|bump(?:ed|s)|"
                r"reschedul(?:ed|es|ing)|postpon(?:ed|es|ing)|delay(?:ed|s)|"
                r"dropp(?:ed|s)|slipp(?:ed|s)|slid|fell|rose|climbed|jumped|dipped|"
                r"went(?=\s+(?:up|down)\b))")
_PARTICLE = r"(?:\s+(?:up|down|back|over|forward|ahead|out))?"
_SPAN = r"((?:[^.,;!?]|(?<=\d)[.,](?=\d))+?)"  # a number's point or comma stays inside
_END = r"(?=\s*(?:[;:!?(]|[.,](?!\d)|$|\s[-–—]\s|\s(?:and|but|because|after|since|as|from|instead)\b))"

#: "changed X from A to B", "went from A to B": at most three words between the verb and
#: "from", none opening another phrase ("went camping with friends from church to ...").
_FROM_TO = re.compile(rf"(?:\b{_CHANGE_VERB}{_PARTICLE}(?:\s+(?!(?:with|for|at|in|on|by|and)\b)"
                      rf"[\w'-]+){{0,3}}?|\bwent)\s+from\s+{_SPAN}\s+(?:to|into|over to)\s+"
                      rf"(?!(?:be|do|get|go|have|help|keep|make|see|take|try)\b){_SPAN}{_END}",
                      re.IGNORECASE)
_REPLACED = re.compile(rf"\b(?:replac|swapp?|trad|exchang|substitut)\w*\s+{_SPAN}\s+"
                       rf"(?:with|for|by)\s+{_SPAN}{_END}", re.IGNORECASE)
_LEFT_FOR = re.compile(rf"\b(?:left|quit|cancell?ed|dropped|ditched|stopped\s+\w+ing|"
                       rf"gave up)\s+"
                       rf"{_SPAN}\s+(?:and\s+(?:\w+\s+){{0,2}}?(?:joined|switched to|moved to|"
                       rf"signed up (?:for|with)|started(?: using)?|took up|picked up|got|"
                       rf"went with|chose)|for)\s+{_SPAN}{_END}", re.IGNORECASE)
_INSTEAD_OF = re.compile(rf"\b(?:instead of|in place of|(?:took|taken|takes|taking)\s+over\s+"
                         rf"from)\s+{_SPAN}{_END}", re.IGNORECASE)
#: "cancelled Harwick Joinery and ordered the kitchen from Brennholt instead": whatever the
#: second verb, "instead" says the first object was left behind.
_LEFT_INSTEAD = re.compile(rf"\b(?:left|quit|cancell?ed|dropped|ditched)\s+{_SPAN}\s+and\s+"
                           rf"[^.;!?]*?\binstead\b", re.IGNORECASE)
_NAME = r"[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+){0,2}"
#: "Maud Vantongeren has left the production and Ignatius Achebe-Rudd is DoP", "Ruaraidh
#: Blenkinsop has handed the file to his colleague Ngozi Arbuthnot": a person gone from a
#: role, read only with the successor the sentence names (group 2), so "Tom left the office
#: early" retires nothing.
_GONE = r"(?:left|quit|stepped (?:down|back)|resigned|retired|moved on)"
_HANDED_OVER = re.compile(rf"(?<![\w'’-])({_NAME})\s+(?:(?:has|had)\s+{_GONE}|"
                          rf"(?:(?:has|had)\s+)?handed\b[^.;!?]*?\bto|is\s+(?:leaving|"
                          rf"stepping (?:down|back)|retiring|moving on))\b"
                          rf"(?:[^.;!?]*?(?:\band\b|,)\s+(?:[a-z]+\s+){{0,3}}?|\s+(?:[a-z]+\s+){{0,3}}?)"
                          rf"(?<![.!?]\s)(?<!^)\b({_NAME})")
#: "Since Henrietta Norgrove retired, the work has been contracted out to Ellsmere
#: Conservation Studio" (gone, successor); "Orla took over as head chef after Florian left"
#: (successor, gone).
_SINCE_GONE = re.compile(rf"\b(?:[Ss]ince|[Aa]fter|[Nn]ow that)\s+({_NAME})\s+(?:has\s+)?{_GONE}\b"
                         rf",\s+(?:[^.;!?]*?\b(?:to|by|with)\s+(?:[a-z]+\s+){{0,3}}?)?({_NAME})")
_OVER_AFTER = re.compile(rf"(?<![\w'’-])({_NAME})\s+(?:has\s+)?(?:took|taken)\s+over\b[^.;!?]*?"
                         rf"\b(?:after|since|when)\s+({_NAME})\s+(?:had\s+|has\s+)?{_GONE}\b")
#: "Thaddeus has taken over from Cosimo": the successor opens the sentence (group 1).
_TOOK_OVER = re.compile(rf"(?<![\w'’-])({_NAME})\s+(?:has\s+|had\s+)?(?:took|taken|takes|"
                        rf"is\s+taking)\s+over\s+from\s+{_SPAN}{_END}")
#: "retired Jenkins", "sold her Skoda Fabia", "stepped down as team lead": what was left
#: behind, with or without what came instead.
_LET_GO = re.compile(rf"\b(?:retired|sold|got rid of|phased out|moved off|moved away from|"
                     rf"stepped down as|resigned as|resigned from|ditched|uninstalled)\s+"
                     rf"(?:(?:his|her|their|its|our|my|the)\s+)?{_SPAN}{_END}", re.IGNORECASE)
#: "stopped deploying on Fridays", "no longer uses Jira": the activity left behind.
_STOPPED = re.compile(rf"\b(?:stopped|no longer)\s+((?:\w+(?:ing|s)\b)\s*[^.,;!?]*?){_END}",
                      re.IGNORECASE)
_NOT_X = re.compile(r"[,;]\s*(?:not|rather than|no more)\s+([^.,;!?]+?)\s*(?:[.!?]|$)",
                    re.IGNORECASE)
#: "moved X to Y", "raised the amoxicillin 500mg reorder level to 16 packs", "moved the fleet's
#: insurance over to Aerocover", "the herd is down to 52 cows": up to six words of object, none
#: opening another clause ("subscription.updated webhooks are retried for up to 48 hours").
_OBJECT = r"(?:(?!(?:is|are|was|were|be|been|has|have|had|and|but)\b)[\w'’-]+\s+){0,6}?"
_TO_VALUE = re.compile(rf"(?<![.\w-]){_CHANGE_VERB}{_PARTICLE}\s+{_OBJECT}(?:over\s+)?to\s+"
                       rf"{_SPAN}{_END}", re.IGNORECASE)
_RAISED = re.compile(rf"(?<![.\w-])(?:(?:rais|lower|increas|reduc|extend|shorten|revis)(?:ed|es|ing)"
                     rf"\s+{_OBJECT}|(?:is|are|was|were)\s+(?:now\s+)?(?:down|up|back)\s+)"
                     rf"to\s+{_SPAN}{_END}", re.IGNORECASE)
_MOVE = re.compile(r"\b(?:mov|relocat)\w*", re.IGNORECASE)
_WHERE = re.compile(r"\b(?:lives?|living|based|located|resides?|home is|stays?|is on the|"
                    r"are on the|is in|are in|is at|are at)\b", re.IGNORECASE)

_INTENT = re.compile(r"\b(?:plans?|planning|planned|going|intends?|intending|decided|wants?|"
                     r"will|'ll|agreed|chose|hopes?)\s+(?:to\s+)?(\w+)\s+([^.,;!?]+)",
                     re.IGNORECASE)
_NO_INTENT = re.compile(r"\b(?:(?:decided|chose|agreed)\s+not\s+to|no longer\s+(?:plans?|"
                        r"intends?|wants?|going)\s+to|(?:is|are|am)\s+not\s+going\s+to|"
                        r"won't|will not|will no longer|gave up on|scrapped|dropped the plan"
                        r"\s+to|called off)\s+(\w+)\s*([^.,;!?]*)", re.IGNORECASE)
#: "The plan to launch a newsletter was scrapped": the decision named before its reversal.
_PLAN_DROPPED = re.compile(r"\b(?:plans?|idea|decision)\s+to\s+(\w+)\s*([^.,;!?]*?)\s+"
                           r"(?:was|were|has been|have been|had been|got|is)\s+(?:scrapped|"
                           r"dropped|cancell?ed|canceled|abandoned|shelved|called off)\b",
                           re.IGNORECASE)

_ORDINALS = {"zeroth": "0", **ORDINAL_WORDS}
_ORDINAL_RE = re.compile(r"\b(" + "|".join(_ORDINALS) + r")\b", re.IGNORECASE)
_PLAIN_ORDINAL = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b")
_VALUE_KINDS = ("date", "time", "weekday", "number", "price", "percent")
#: Holders that name who acts ("We moved the insurance to Aerocover"), not what changed.
_AGENTS = frozenset(("i", "i'm", "i'v", "i'd", "i'll", "we", "my", "me", "our"))
_PRONOUN_HOLDERS = frozenset(("i", "i'm", "i'v", "i'd", "i'll", "we", "it", "they", "he",
                              "she", "not", "user", "", "my", "me", "you", "this", "that"))


@lru_cache(maxsize=1 << 16)
def _keys(text: str) -> frozenset[str]:
    """Content keys of a span: words and names (stemmed: a name opening a span reads as a
    word), numbers, dates; stop words dropped."""
    return frozenset(stem(u.key) if u.kind in ("word", "name") else u.key
                     for u in units(_ordinals(text))
                     if u.kind in ("word", "name", "number", "date"))


def _ordinals(text: str) -> str:
    """Ordinal words and ``3rd`` as numbers ("the fifth floor" -> "the 5 floor")."""
    text = _ORDINAL_RE.sub(lambda m: _ORDINALS[m.group(1).lower()], text)
    return _PLAIN_ORDINAL.sub(r"\1", text)


@lru_cache(maxsize=1 << 16)
def _values(text: str) -> dict[str, frozenset[str]]:
    found = extract(_ordinals(text)).values
    return {k: frozenset(v) for k, v in found.items() if k in _VALUE_KINDS and v}


@lru_cache(maxsize=1 << 16)
def _left_behind(text: str) -> tuple[tuple[str, str], ...]:
    """``(X, Y)`` for each change ``text`` spells out (``Y`` empty when it names none)."""
    out: list[tuple[str, str]] = []
    for pattern in (_FROM_TO, _REPLACED, _LEFT_FOR):
        out.extend((m.group(1), m.group(2)) for m in pattern.finditer(text))
    out.extend((m.group(1), "") for m in _INSTEAD_OF.finditer(text))
    out.extend((m.group(1), "") for m in _LEFT_INSTEAD.finditer(text))
    out.extend((m.group(1), m.group(2)) for m in _HANDED_OVER.finditer(text))
    out.extend((m.group(2), m.group(1)) for m in _TOOK_OVER.finditer(text))
    out.extend((m.group(1), m.group(2)) for m in _SINCE_GONE.finditer(text))
    out.extend((m.group(2), m.group(1)) for m in _OVER_AFTER.finditer(text))
    out.extend((m.group(1), "") for m in _STOPPED.finditer(text))
    out.extend((m.group(1), "") for m in _LET_GO.finditer(text))
    out.extend((m.group(1), "") for m in _NOT_X.finditer(text))
    return tuple(out)


def left_behind(text: str) -> tuple[str, ...]:
    """What ``text`` says was left behind, one span per change it spells out ("Cosimo" in
    "Thaddeus Greaves has taken over from Cosimo")."""
    return tuple(x for x, _ in _left_behind(text) if len(x.split()) <= MAX_SPAN_WORDS)


@lru_cache(maxsize=1 << 16)
def _spells_change(text: str) -> bool:
    """Whether ``text`` spells out any change :func:`transition` reads (most texts do not,
    and the pair test then costs a cached lookup)."""
    return bool(_left_behind(text) or _TO_VALUE.search(text) or _RAISED.search(text)
                or _NO_INTENT.search(text) or _PLAN_DROPPED.search(text))


def _states(old: str, span: str) -> bool:
    """Whether ``old`` says every content word of ``span`` (a word in another of its forms:
    "no longer smokes" left "is a smoker" behind)."""
    keys = _keys(span)
    have = set(_keys(old))
    named = {stem(w.lower()) for w in re.findall(r"\b[A-Z][\w'’-]*", span)}  # a name exactly:
    # "Wordfast" is not said by "the word count"
    return bool(keys) and all(k in have or (k.isalpha() and k not in named and fuzzy_in(k, have))
                              for k in keys)


def _topic(old: str, new: str, spans: frozenset[str], cosine: float, *,
           words: bool = False) -> bool:
    """Whether the two share a content word beside the changed values (or a high cosine);
    with ``words``, a word and not only a name ("Fenwharf's Sunday folk show has moved to
    8pm" does not move "Presenters on Fenwharf can't swear until after 21:00")."""
    if cosine >= TOPIC_COSINE:
        return True
    have = (_word_keys(old) if words else _keys(old)) - spans
    mine = (_word_keys(new) if words else _keys(new)) - spans
    # in another form too: "insured with" / "the fleet's insurance"
    return any(not w.isdigit() and len(w) > 2 and w not in _GENERIC and fuzzy_in(w, have)
               for w in mine)


@lru_cache(maxsize=1 << 16)
def _word_keys(text: str) -> frozenset[str]:
    """The stems of ``text``'s content words, its names left out (a capitalised word opening
    a sentence is a word)."""
    return frozenset(stem(u.key) for u in units(_ordinals(text)) if u.kind == "word")


_GENERIC = frozenset(stem(w) for w in ("user", "users", "team", "thing", "now", "the"))


#: A sentence opening with a name and its verb ("Lukas relocated", "Ana lives", "Tom's
#: sister"), not an imperative ("Ping the user") or a noun phrase ("Ownership of").
_NAMED_SUBJECT = re.compile(r"\W*([A-Z][a-z]+)(?:'s\b|\s+(?:[a-z]+(?:ed|es|s)|is|was|has|had|"
                            r"will|can|does|did)\b)")


def _lead_absent(a: str, b: str) -> set[str]:
    """The word ``a`` opens with when ``b`` never mentions it (``"lukas"`` for "Lukas
    relocated ..." / "The user's home is in Graz"); a framing word ("The", "I") is none."""
    found = _NAMED_SUBJECT.match(a)
    if not found or found.group(1) in NOT_NAMES:
        return set()
    word = found.group(1).lower()
    others = {stem(w) for w in re.findall(r"[a-z]+", b.lower())}
    return set() if fuzzy_in(stem(word), others) else {word}


def _subject(holder: str) -> str:
    """A holder with the user's pronouns read as the user ("i'm", "my/notes" -> "user")."""
    parts = holder.split("/")
    parts = ["user" if p in _PRONOUN_HOLDERS else p for p in parts]
    return "/".join(parts)


def _holders_differ(old: str, new: str, old_holder: str, new_holder: str,
                    left: frozenset[str] = frozenset(), *, strict: bool = False,
                    same_holder: SameHolder = operator.eq) -> bool:
    """Whether the two are said of different subjects: a sentence opening with a name the
    other never mentions (unless the change is of that name: "passed from Greta to Olu"),
    two owners ("Tom's sister" / "Ana's sister"), or an owned thing and its owner ("Tom's
    sister" / "Tom"). Two plain nouns are compared only when ``strict`` (a change that
    names no old value): otherwise a change names its subject as its holder would not
    ("The all-hands meeting" / "The all-hands changed")."""
    opener = _lead_absent(old, new) | _lead_absent(new, old)
    if left:  # "Calderbrook's warehouse coordinator is Bronwen" / "Bronwen handed the role
        # to Roderick": an owner of a role or a thing, not of a relative, names no other subject
        opener -= {h.split("/")[0] for h in (old_holder, new_holder)
                   if "/" in h and stem(h.split("/")[1]) not in ENTITIES}
    if opener and not opener <= left:
        return True
    if owned_entities(old) ^ owned_entities(new):
        return True  # "their brother is based in New York" / "The user moved to a flat"
    a, b = _subject(old_holder), _subject(new_holder)
    if not a or not b or same_holder(a, b) or a.split("/")[-1] == b.split("/")[-1] == "user":
        return False
    owner_a, owner_b = (h.split("/")[0] if "/" in h else "" for h in (a, b))
    if owner_a and owner_b and owner_a != owner_b:
        return True
    if owner_a == b or owner_b == a:
        return True
    if strict and (old_holder in _AGENTS or new_holder in _AGENTS):
        return False  # "We raised the reorder level to 16 packs": who acts, not the subject
    last_a, last_b = a.split("/")[-1], b.split("/")[-1]
    # one's subject word in the other's words is one subject ("The user's savings account
    # pays 4.1%" / "The savings account rate dropped to 3.6%")
    # ("Rehearsals moved to Wednesday" / "Cantilena Singers rehearse on Tuesday")
    return strict and last_a != last_b and not (fuzzy_in(last_a, set(_keys(new)))
                                                or fuzzy_in(last_b, set(_keys(old))))


def transition(old: str, new: str, cosine: float, *, old_holder: str = "",
               new_holder: str = "", same_holder: SameHolder = operator.eq) -> str | None:
    """Why ``new`` updates ``old`` by a change it spells out (module docstring), or ``None``.

    ``old_holder`` / ``new_holder`` are the statements' holders (``slots.statement``) and
    ``same_holder`` tells whether two are one (``slots.same_holder``); a pair with two
    different holders is never a transition."""
    if not _spells_change(new) and not _spells_change(old):
        return None
    left_by_old = {_keys(x) for x, _ in _left_behind(old)}
    for x, y in _left_behind(new):
        if len(x.split()) > MAX_SPAN_WORDS:
            continue  # a clause, not a value
        if not _states(old, x) or (y and _states(old, y)) or _keys(x) in left_by_old:
            continue  # (both "batch calls instead of retrying": one piece of advice)
        spans = _keys(x) | _keys(y)
        if _topic(old, new, spans, cosine) and not _holders_differ(
                old, new, old_holder, new_holder, _keys(x) | _keys(y),
                same_holder=same_holder):  # (a sentence may open with who took over)
            return f"changed from {x.strip()}" + (f" to {y.strip()}" if y else "")
    for m in (*_TO_VALUE.finditer(new), *_RAISED.finditer(new)):
        y = m.group(1)
        new_vals, old_vals = _values(y), _values(old)
        kinds = [k for k in new_vals if k in old_vals and not new_vals[k] & old_vals[k]
                 and (k != "number" or _same_measure(old, m))]
        if not kinds and _other_name(old, new, y):
            kinds = ["name"]
            new_vals, old_vals = {"name": _names(" " + y)}, {"name": _names(old) - _names(new)}
        moved_home = bool(_MOVE.match(m.group(0)) and _WHERE.search(old)
                          and not _states(old, y))
        if not kinds and not moved_home:
            continue
        if _holders_differ(old, new, old_holder, new_holder, strict=True,
                           same_holder=same_holder):
            continue
        a, b = _subject(old_holder), _subject(new_holder)
        if (kinds or not (a and b and (same_holder(a, b) or a == b))) and \
                not _topic(old, new, _keys(y), cosine, words=bool(kinds)):
            continue  # one holder is one home, not one attribute ("dose" / "step goal")
        if kinds:
            k = kinds[0]
            return (f"{k} changed to {', '.join(sorted(new_vals[k]))} "
                    f"(was {', '.join(sorted(old_vals[k]))})")
        return f"moved to {y.strip()}"
    return _reversed(old, new)


def _names(text: str) -> frozenset[str]:
    """The capitalised words of ``text`` after its first word, lower-cased (a day or a month
    is a date, not a name)."""
    return frozenset(w.lower() for w in re.findall(r"(?<!^)(?<![.!?]\s)\b[A-Z][\w'’-]*", text)
                     if w not in NOT_NAMES and not _DATE_WORD.fullmatch(w))


_DATE_WORD = re.compile(r"(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days?|January|February|March|"
                        r"April|May|June|July|August|September|October|November|December")


_UNIT = re.compile(r"\d[\d,.]*\s*(°?[a-z]+|%)", re.IGNORECASE)
_LABEL = re.compile(r"([a-z]{3,})\s+\d", re.IGNORECASE)


#: Words of an object that are not its head noun ("the aquarium CO2 down to").
_OBJECT_SKIP = frozenset(("the", "a", "an", "my", "our", "his", "her", "their", "its", "your",
                          "up", "down", "back", "over", "forward", "out", "to", "from", "and",
                          "user", "users"))
_NUMBER_WORD = re.compile(r"\b(" + "|".join(SMALL_NUMBERS[1:]) + r")\b", re.IGNORECASE)


def _digits(text: str) -> str:
    """Small number words as digits ("one bubble every two seconds" -> "1 bubble every 2")."""
    return _NUMBER_WORD.sub(lambda w: str(SMALL_NUMBERS.index(w.group(1).lower())), text)


def _same_measure(old: str, m: re.Match[str]) -> bool:
    """Whether a number changed to (``m``, a match in the newer text) counts what ``old``
    counts: the word after the new number is one after a number of ``old`` ("10 packs" /
    "to 16 packs"), or the word before it one ``old`` says ("Node 18.12" / "to Node 20.10"),
    or, with neither, the head noun of what changed (the object's last noun: "raised the
    reorder level to 16", "turned the aquarium CO2 down to ..."; or the word before "is back
    to 0": "the app streak") is in ``old`` ("streak", not "daily goal"; "CO2", not the
    aquarium's volume)."""
    span, was = _digits(_ordinals(m.group(1))), _digits(_ordinals(old))
    after = {stem(w.lower()) for w in _UNIT.findall(span)}
    if after and any(fuzzy_in(w, {stem(x.lower()) for x in _UNIT.findall(was)})
                     for w in after):
        return True
    label = {stem(w.lower()) for w in _LABEL.findall(span)}  # "Node 20.10", "floor 5"
    if label and any(fuzzy_in(w, _keys(old)) for w in label):
        return True
    if after:
        return False
    head = m.group(0)[:m.start(1) - m.start(0)].split(None, 1)[1:]  # the object after the verb
    words = [stem(w.lower()) for w in re.findall(r"[A-Za-z][\w'’-]*", " ".join(head))
             if w.lower() not in _OBJECT_SKIP and len(w) > 2][-1:]  # its head noun, last
    if not words:  # "the app streak is back to 0", "setpoint lowered to 19.5°C"
        before = re.findall(r"[A-Za-z]+", m.string[:m.start()])
        words = [stem(before[-1].lower())] if before else []
    have = _keys(old)
    return any(fuzzy_in(w, have) for w in words)


def _other_name(old: str, new: str, span: str) -> bool:
    """Whether the changed-to ``span`` names someone or something ``old`` does not, in place of
    a name ``old`` gives as the value of a word both say ("insured with Skyguard Mutual" /
    "moved the fleet's insurance over to Aerocover"; "Feed for the cattle comes from Marlpit
    Mills" / "switched the cattle feed supplier to Cobbold & Ware"). A name beside a number
    is an identifier or a unit ("Room 3", "4,000 IU"), not a value."""
    to = _names(" " + span)
    gone = _names(old) - _names(" " + new)
    if not to or to & _names(old) or not gone:
        return False
    said = {u.key for u in units(new.replace(span, " "))
            if u.kind == "word" and u.text[:1].islower()} - _GENERIC  # words, not a name
    for name in gone:
        at = re.search(rf"(?<![\d,.]\s)\b{re.escape(name)}\b(?!\s*\d)", old, re.IGNORECASE)
        if at is None:
            continue
        before = units(" ".join(re.findall(r"[\w'’-]+", old[:at.start()])[-4:]))
        if any(u.kind == "word" and u.text[:1].islower() and u.key not in _GENERIC
               and len(u.key) > 2 and fuzzy_in(u.key, said) for u in before):
            return True
    return False


def _reversed(old: str, new: str) -> str | None:
    """A decision one memory takes and the other reverses (same verb, same object)."""
    for a, b in ((old, new), (new, old)):
        for no in (*_NO_INTENT.finditer(b), *_PLAN_DROPPED.finditer(b)):
            verb, obj = stem(no.group(1)), _keys(no.group(2))
            if _NO_INTENT.search(a) or _PLAN_DROPPED.search(a):
                continue
            for yes in _INTENT.finditer(a):
                if stem(yes.group(1)) == verb and (not obj or obj & _keys(yes.group(2))):
                    return f"decision reversed ({no.group(0).strip()})"
    return None


__all__ = ["TOPIC_COSINE", "left_behind", "transition"]
