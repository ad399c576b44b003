"""What two memories are to each other: a changed value, different subjects, or neither.

The rule agents decide a pair *before* they think of merging it. Three tests read the texts
(pure functions, no state):

- **identifiers** (:func:`identifiers`): a number that *names* the subject ("invoice 1043",
  "game 7", "ticket #88", "INV-1043"; "version 2" only when the sentence starts with it;
  "Flat 3" between a subject and its verb) is not a value
  (:mod:`~memmaint.maintenance.agents.identifiers`). Two memories whose identifiers of one
  kind differ ("invoice 1043" / "invoice 1044") are about different things: they stay
  apart and active, whatever else differs.
- **name slots** (:func:`statement`): a name (a capitalised word that does not start a
  sentence, ``Europe/Berlin``, ``C#``) fills the slot named by the nearest content word before
  it ("works at *Acme*" -> slot ``work``, "timezone is *Europe/Paris*" -> ``timezone``), for the
  sentence's *holder* (the last content word before its first verb: "The user works" ->
  ``user``). Two memories with the same holder and slot and different names state different
  values ("works at Acme" / "now works at Globex"). "Switched from X to Y" retires X.
- **values** (:mod:`~memmaint.maintenance.agents.conflicts`): prices, percentages, dates,
  times, weekdays, numbers and polarity, counted between memories about the same subject.
  Dates alone differing between two statements of past events (no update word such as
  "moved", "now", "rescheduled") are two events, not an update.

:func:`relation` puts these together for a pair: ``"distinct"`` (kept apart because ...),
``"change"`` (same subject, different values: an update or a conflict), or ``None``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from memmaint.maintenance.agents.conflicts import (
    Facts,
    extract,
    subject_similarity,
    value_differences,
)
from memmaint.maintenance.agents.coverage import (
    ADVERBS,
    ENTITIES,
    canonical_forms,
    fuzzy_in,
    stem,
    units,
)
from memmaint.maintenance.agents.identifiers import (
    COUNTING,
    ID_NOUNS,
    identifiers,
    mask_ids,
    path_values,
    verb_shaped,
)
from memmaint.maintenance.agents.provenance import reported_fact, without_now, without_openers
from memmaint.maintenance.agents.statuses import status_change
from memmaint.maintenance.agents.transitions import left_behind, transition

#: Words that mark a statement as an update of an earlier one.
UPDATE_WORDS = frozenset((
    "now", "moved", "switched", "changed", "migrated", "upgraded", "downgraded",
    "rescheduled", "postponed", "renamed", "replaced", "instead", "anymore", "longer",
    "updated", "newly", "reverted", "reversed", "cancelled", "canceled", "relocated",
    "transferred", "became", "becomes", "henceforth", "raised", "lowered", "increased",
    "decreased", "reduced", "extended", "shortened", "bumped", "retired", "sold",
))
#: "new" says an update only of the attribute it names ("The user's new employer is Globex"),
#: not of anything new ("connected with new teammates", "Maria's new pup, Shadow"); "starting"
#: only before a time ("starting next week", not "starting and running a business").
_NEW_VALUE = re.compile(r"\bnew\s+[a-z]+\s+(?:is|are)\b|\bstarting\s+(?:on\s+|from\s+|in\s+)?"
                        r"(?:next|this|today|tomorrow|\d|monday|tuesday|wednesday|thursday|"
                        r"friday|saturday|sunday|january|february|march|april|may|june|july|"
                        r"august|september|october|november|december)", re.IGNORECASE)
_SWITCH = re.compile(r"\b(?:switch(?:ed)?|mov(?:ed|e)|chang(?:ed|e)|migrat(?:ed|e)|went|"
                     r"relocat(?:ed|e)|transferr?(?:ed)?)\s+from\s+(.+?)\s+to\s+|"
                     r"\bleft\s+(.+?)\s+(?:and\s+)?(?:joined|for)\s+|"
                     r"\b(?:replac(?:ed|e)|swapp?(?:ed)?|trad(?:ed|e)|exchang(?:ed|e))\s+"
                     r"(?:the|their|his|her|its|an?)?\s*(.+?)\s+(?:with|for)\s+",
                     re.IGNORECASE)
#: Slot words that name one attribute ("employer is Initech" / "works at Hooli").
_SLOT_ALIASES = {"employer": "work", "job": "work", "employ": "work"}
#: Sentence-initial words after which a lower-case word in -s is not a verb ("The users").
_ARTICLES = frozenset(("the", "a", "an", "our", "my", "your", "their", "his", "her", "its",
                       "this", "that", "these", "those", "all", "some", "every", "each"))
_VERBISH = frozenset((
    "is", "are", "was", "were", "be", "been", "has", "have", "had", "will", "would", "can",
    "could", "should", "must", "may", "might", "does", "do", "did", "now", "no", "not",
    "never", "always", "usually", "often", "uses", "use", "used", "works", "worked", "work",
    "lives", "lived", "live", "likes", "liked", "loves", "hates", "prefers", "preferred",
    "moved", "switched", "changed", "starts", "started", "runs", "ran", "costs", "cost",
    "takes", "took", "needs", "needed", "wants", "wanted", "keep", "keeps", "kept", "goes",
    "went", "owns", "owned", "gets", "got", "plays", "played", "meets", "met", "happens",
    "became", "becomes", "paid", "pays", "joined", "joins", "left", "leaves", "drives",
    "drove", "speaks", "spoke", "ate", "eats", "enjoys", "enjoyed", "attended", "attends",
    "go", "come", "comes", "sits", "departs", "arrives", "stays", *ADVERBS,
    # a negated auxiliary is a verb too ("The user doesn't eat meat": the user, not meat)
    "doesn't", "don't", "didn't", "isn't", "aren't", "wasn't", "weren't", "can't", "cannot",
    "won't", "hasn't", "haven't", "hadn't", "couldn't", "shouldn't", "wouldn't",
))
_SLOT_SKIP = frozenset((
    "a", "an", "the", "at", "in", "on", "to", "for", "of", "from", "is", "are", "was",
    "were", "be", "been", "now", "currently", "still", "also", "called", "named", "into",
    "set", "based", "located",
))
_FUNCTION = frozenset(("who", "which", "that", "since", "until", "because", "when", "while",
                       "if", "has", "had", "have", "will", "would", "should", "can", "could",
                       "does", "did", "not", "never", "no", "after", "before", "during",
                       "last", "next", "this", "ago", "yesterday", "today", "recently",
                       "earlier", "later", "again", "too", "instead", "anymore"))
#: Words that end a slot: what follows them is not the value of the word before them.
_SLOT_BREAK = frozenset(("as", "by", "and", "or", "but", "than", "like", "with", "per",
                         "says", "said", "noted", "according"))
#: A bare number or a serial in parts ("10482", "2024-118"), not a date ("2024-11-18"): after
#: a capitalised noun it names the thing ("Matter 2024-118 is ...").
_SERIAL = re.compile(r"(?!\d{4}-\d{1,2}-\d{1,2}$)\d+(?:-\d+)*")
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’/#+.\-]*[A-Za-z0-9#+]|[A-Za-z0-9]|[.!?;:,]")
#: "The price *of* the Pro plan", "The engine *behind* the orders database": what comes
#: before them in a subject is an attribute of the holder that follows.
_ATTRIBUTE_OF = frozenset(("of", "behind", "for"))
_MONTHS_DAYS = frozenset((
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
    "sep", "sept", "oct", "nov", "dec", "monday", "tuesday", "wednesday", "thursday",
    "friday", "saturday", "sunday", "mondays", "tuesdays", "wednesdays", "thursdays",
    "fridays", "saturdays", "sundays", "i",
))
_PAST = re.compile(r"\b(?:(was|were|did|had|went|met|took|ran|ate|saw|bought|got|paid|"
                   r"made|came|left|won|lost|gave|wrote|told|found|felt|sent|spent|built|"
                   r"began|brought|taught|caught|drove|flew|held|sold|spoke|swam|sang|wore|"
                   r"chose|broke|fell|forgot|grew|knew|led|rode|threw|woke|drank|fought|"
                   r"heard|sat|stood|slept|won|hit|quit)|([A-Za-z][a-z]{2,}ed))\b(?!-)")
_FUTURE = re.compile(r"\b(?:next|will|upcoming|scheduled|going to|tomorrow|soon)\b",
                     re.IGNORECASE)
_STATE_PARTICIPLES = frozenset((
    "named", "called", "based", "located", "interested", "married", "used", "supposed",
    "related", "tired", "excited", "scared", "allergic", "need", "red", "bed", "shed",
    "seed", "speed", "feed", "bred", "hundred", "sacred", "naked", "wicked",
))
#: Sentence-initial possessives that are not names ("Today's standup").
_NOT_OWNERS = frozenset(("today", "tomorrow", "yesterday", "everyone", "nobody", "someone",
                         "this", "that", "it", "one", "other", "another", "each"))
_DETERMINERS = frozenset(("a", "an", "the", "this", "that", "these", "those", "my", "your",
                          "his", "her", "its", "our", "their", "some", "any", "no", "every",
                          "each", "all"))
_BE = frozenset(("is", "are", "am", "be", "been", "being", "'s", "get", "gets", "stays"))


#: Words before a participle that make it a condition, not an event ("once expired").
_CONDITION = frozenset(("once", "if", "when", "unless", "until"))
_BE_OR_CONDITION = _BE | _CONDITION
#: ... and with the prepositions after which a participle is an adjective ("a fix for
#: expired ones"), the words before a participle that is no event.
_NO_EVENT_AFTER = _CONDITION | {"for", "of", "about", "without"}


#: A time already gone, relative to when the note was written.
_PAST_TIME = re.compile(r"\b(?:yesterday|last (?:night|week|weekend|month|year)|this morning|"
                        r"earlier today|\d+ (?:hours?|days?|weeks?|months?|years?) ago)\b",
                        re.IGNORECASE)


def is_past(text: str) -> bool:
    """Whether ``text`` reports a past event ("went", "was paid", "adopted"), not a state
    ("is called", "named Biscuit")."""
    if _FUTURE.search(text):
        return False
    if _PAST_TIME.search(text):
        return True  # "More 502s from the CDN yesterday": a day gone by dates an event
    words = re.findall(r"[a-z']+", text.lower())
    for m in _PAST.finditer(text):
        if m.group(1):
            if m.group(1).lower() == "grew" and re.match(r"\s+up\b", text[m.end():]):
                continue  # where someone grew up reads the same under any date
            at = [k for k, w in enumerate(words) if w == m.group(1).lower()]
            if at and at[0] > 0 and (words[at[0] - 1] in _BE_OR_CONDITION
                                     or words[at[0] - 1].endswith(("'m", "'re"))):
                continue  # a passive, a state or a condition: "is left", "once paid"
            return True
        word = m.group(2)
        if word[0].isupper() or word in _STATE_PARTICIPLES:  # a name ("Tracked 48")
            continue
        idx = [k for k, w in enumerate(words) if w == word]
        if idx and idx[0] > 0 and (words[idx[0] - 1] in _BE
                                   or words[idx[0] - 1].endswith(("'m", "'re"))):
            continue  # a state: "is married", "I'm signed up", "we're booked"
        if idx and "with" in words[max(0, idx[0] - 3):idx[0]]:
            continue  # a state: "with bills included", "with breakfast served"
        if idx and idx[0] > 0 and words[idx[0] - 1] in _NO_EVENT_AFTER:
            continue  # a condition ("once expired, resend it") or an adjective after a
            # preposition ("a fix for expired ones")
        if idx and idx[0] > 0 and (words[idx[0] - 1] in _DETERMINERS
                                   or re.search(rf"\d\s+{word}\b", text)):
            continue  # an adjective: "after 5 failed login attempts", "a used car"
        return True
    return False


@dataclass(frozen=True)
class Statement:
    """What :func:`relation` reads in one memory text (built once per memory)."""

    text: str
    facts: Facts  # values and subject words, identifier numbers masked
    ids: frozenset[tuple[str, str]]  # (noun, identifier)
    holder: str  # the head word of the first sentence's subject ("" when none)
    slots: frozenset[tuple[str, str, str]]  # (slot stem, slot word, name), for the holder
    names: frozenset[str]  # every name, lower-cased
    subject_names: frozenset[str]  # names inside the first sentence's subject ("Pro" plan)
    switched_from: frozenset[str]  # names a "switched from X to Y" retires
    update_word: bool  # says it updates something ("now", "moved to", ...)
    past: bool  # reports a past event
    verb: str = ""  # the first sentence's first verb, lower-cased ("" when none)
    subject_mods: frozenset[str] = frozenset()  # words before the subject's head ("platform")
    subject_kind: frozenset[str] = frozenset()  # between owner and head ("outbound" flight)




def _names(token: str) -> list[str]:
    """A name token's lower-case forms: its parts and, when slashed, the whole; a possessive
    or a trailing sign is not part of the name ("Caroline's", "LGBTQ+")."""
    token = re.sub(r"(?:'s|’s|')$", "", token).rstrip("+")
    return [p.lower() for p in re.split(r"/", token) if p] + (
        [token.lower()] if "/" in token else [])


@functools.lru_cache(maxsize=1 << 14)
def statement(text: str) -> Statement:
    """The :class:`Statement` of one memory text (read without the framing that opens a note:
    :func:`~memmaint.maintenance.agents.provenance.without_openers`)."""
    core, opened_now = without_now(reported_fact(without_openers(text)))
    toks = _TOKEN.findall(canonical_forms(core).replace("’", "'"))
    holder = ""
    slots: set[tuple[str, str, str]] = set()
    names: set[str] = set()
    start, seen_verb, first_sentence = True, False, True
    prev_content: tuple[str, str] | None = None
    subject_words: list[str] = []
    subject_names: set[str] = set()
    n_first, first_tok, owner, verb_found, comma = 0, "", "", False, False
    pending: tuple[str, str, str] | None = None
    verb, prev_tok, mods, kinds = "", "", frozenset[str](), frozenset[str]()
    of_at = 0  # subject words before "of" name an attribute ("The price of the Pro plan")
    # "Flat 1 expires", "Patient 10482, a whippet,": a bare number right after the subject's
    # capitalised noun and right before its verb or a comma names the thing
    numbered: set[tuple[str, str]] = set()
    candidate: tuple[str, str] | None = None
    last_subject_tok = ""
    for tok in toks:
        prev_tok, tok_before = tok, prev_tok
        held, candidate = candidate, None  # a candidate lives for one token
        if held is not None and first_sentence and not seen_verb and verb_shaped(tok):
            numbered.add(held)  # "Flat 1 expires": a verb the loop below does not know
        if tok in ".!?;:," and pending is not None:
            slots.add(pending)
            pending = None
        if tok in ".!?;:":
            start, prev_content = True, None
            if first_sentence and not seen_verb and subject_words:
                holder = _owned(owner, subject_words[-1])
            first_sentence, seen_verb = False, True
            continue
        if tok == ",":
            if held is not None:
                numbered.add(held)
            prev_content, comma = None, True
            continue
        low = tok.lower().removesuffix("'s")
        is_name = (tok[0].isupper() and (not start or tok.endswith(("'s", "’s")))
                   and low not in _MONTHS_DAYS and low not in _NOT_OWNERS) or (
            "/" in tok and any(c.isupper() for c in tok)) or tok.endswith("#")
        if first_sentence and not seen_verb:
            after_owner = tok_before.lower().endswith("'s")  # "Sofia's work laptop"
            if (low in _VERBISH and not after_owner) or (
                    not start and not tok[0].isupper() and low.endswith("ed")
                    and subject_words) or (
                    _third_person(tok, n_first, first_tok)) or (
                    n_first == 1 and first_tok in ("I", "I'm")) or (
                    _verb_after_noun(tok, tok_before, subject_words)):
                seen_verb = verb_found = True
                if held is not None:
                    numbered.add(held)
                verb = low
                holder = _owned(owner, subject_words[-1]) if subject_words else ""
                mods = _modifiers(owner, subject_words[of_at:])
                kinds = _kind_words(owner, subject_words[of_at:])
            elif low in _ATTRIBUTE_OF and subject_words and not owner:
                of_at = len(subject_words)
            elif is_name and comma:
                pass  # an apposition names the subject already read ("Maria's new pup, Shadow,")
            elif _SERIAL.fullmatch(bare := re.sub(r"['’]s$", "", tok)) and subject_words \
                    and tok_before == last_subject_tok and tok_before[0].isupper() \
                    and tok_before.lower() not in COUNTING:
                candidate = (last_subject_tok.lower().removesuffix("'s"), bare)
                if bare != tok or len(subject_words) == 1:  # "Car 9's taxi plate", "Bench 2
                    numbered.add(candidate)  # at Emberwick is ...": a sentence opening
                    # with a numbered noun names that thing
            elif not tok[0].isdigit() and low not in _SLOT_SKIP:
                last_subject_tok = tok
                subject_words.append(low if is_name else stem(low))
                if is_name and not comma:  # "The Enterprise plan", not "..., as Ann"
                    subject_names.add(low)
                if tok.lower().endswith("'s") and not owner:
                    owner = stem(low)
            n_first += 1
            first_tok = first_tok or tok
        if pending is not None:
            if is_name:  # "United Kingdom": one name
                pending = (pending[0], pending[1], f"{pending[2]} {tok.lower()}")
                names.update(_names(tok))
                start = False
                continue
            if not (tok.isalpha() and tok.islower() and low not in _SLOT_SKIP
                    and low not in _SLOT_BREAK and low not in _FUNCTION):
                slots.add(pending)  # a name followed by a noun modifies it ("UK orders")
            pending = None
        if is_name:
            names.update(_names(tok))
            if prev_content is not None:
                pending = (*prev_content, tok.lower())
        elif low in _SLOT_BREAK:
            prev_content = None
        elif not tok[0].isdigit() and low not in _SLOT_SKIP and len(low) > 1:
            prev_content = (_SLOT_ALIASES.get(stem(low), stem(low)), low)
        start = False
    if pending is not None:
        slots.add(pending)
    if first_sentence and not seen_verb and subject_words:
        holder = _owned(owner, subject_words[-1])
        mods = _modifiers(owner, subject_words[of_at:])
        kinds = _kind_words(owner, subject_words[of_at:])
    if holder in ("i", "i'm"):
        holder = "user"  # a note in the user's voice ("I take my tea black") is about the user
    switched: set[str] = set()
    for m in _SWITCH.finditer(text):
        for tok in _TOKEN.findall(m.group(1) or m.group(2) or m.group(3)):
            if tok not in ".!?;:," and (tok[0].isupper() or "/" in tok or "#" in tok):
                switched.update(_names(tok))
    for span in left_behind(text):  # "has taken over from Cosimo", "cancelled X and ... instead"
        switched.update(n for tok in _TOKEN.findall(span) if tok[0].isupper()
                        for n in _names(tok))
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
    return Statement(text=text, facts=extract(mask_ids(text)), ids=identifiers(text) | numbered,
                     holder=holder, slots=frozenset(slots), names=frozenset(names),
                     subject_names=frozenset(subject_names if verb_found else ()),
                     switched_from=frozenset(switched),
                     update_word=bool(words & UPDATE_WORDS or opened_now
                                      or _NEW_VALUE.search(text)),
                     past=is_past(text), verb=verb, subject_mods=mods, subject_kind=kinds)


def _owned(owner: str, noun: str) -> str:
    """The holder of a possessive subject: ``"aisha/employer"`` ("Aisha's employer")."""
    return f"{owner}/{noun}" if owner and owner != noun else noun


def _verb_after_noun(tok: str, before: str, subject_words: list[str]) -> bool:
    """A lower-case ``-s`` word after a subject noun is its verb ("The team holds", "The
    reporting job targets"; not "The users", nor "Tom's dogs")."""
    return (bool(subject_words) and tok.islower() and tok.endswith("s") and len(tok) > 3
            and not tok.endswith(("ss", "us", "is", "'s")) and before.isalpha()
            and before.islower() and before not in _ARTICLES)


def _kind_words(owner: str, subject_words: list[str]) -> frozenset[str]:
    """The words between the subject's owner and its head that say which of the owner's
    things it is ("The user's *outbound* flight"); not how it is held ("usual", "new")."""
    if not owner or owner not in subject_words:
        return frozenset()
    between = subject_words[subject_words.index(owner) + 1:-1]
    return frozenset(w for w in between if w not in _HOW_HELD)


_HOW_HELD = frozenset(stem(w) for w in (
    "usual", "current", "new", "old", "previous", "former", "favourite", "favorite",
    "preferred", "main", "default", "regular", "only", "first", "latest", "go-to"))


def _modifiers(owner: str, subject_words: list[str]) -> frozenset[str]:
    """The subject's words before its owner, or before its head noun without one ("The
    platform team's standup" -> ``platform``; "Maya's usual coffee" -> none)."""
    if owner and owner in subject_words:
        return frozenset(subject_words[:subject_words.index(owner)])
    return frozenset(subject_words[:-1]) if not owner else frozenset()


#: Possessed nouns that name another holder ("Tom's *sister*", "Maya's *dog*"), not an
#: attribute of the owner ("Dmitri's phone *contract*", "Sofia's work *laptop*"); stems.

def same_holder(a: str, b: str) -> bool:
    """Whether two holders are one: equal, or one is the other's owner ("Lukas's home" /
    "Lukas"); never when either is empty."""
    if not a or not b:
        return False
    if a == b:
        return True
    for x, y in ((a, b), (b, a)):  # "Tom's sister" is not Tom
        if "/" in x and x.split("/")[0] == y and x.split("/")[1] not in ENTITIES:
            return True
    return False


def _third_person(tok: str, index: int, first: str) -> bool:
    """A lower-case ``-s`` word right after a sentence-initial name is its verb ("Tom
    writes", "Aisha drinks"; not "The users")."""
    return (index == 1 and verb_shaped(tok) and first[:1].isupper()
            and first.lower() not in _ARTICLES and "'" not in first
            and not (len(first) > 4 and first.lower().endswith(("ed", "ing"))))  # "Damaged items"


@dataclass(frozen=True)
class Relation:
    """What a pair is: ``kind`` ``"distinct"`` (kept apart) or ``"change"`` (same subject,
    different values), and a ``detail`` a person can read; ``explicit`` when one of the two
    spells the change out (:mod:`~memmaint.maintenance.agents.transitions`)."""

    kind: str
    detail: str
    explicit: bool = False


def differing_ids(a: Statement, b: Statement) -> str | None:
    """``"invoice 1043 vs 1044"`` when the two name different things of one kind."""
    nouns_a = {n for n, _ in a.ids}
    for noun in sorted(nouns_a & {n for n, _ in b.ids}):
        ia = {i for n, i in a.ids if n == noun}
        ib = {i for n, i in b.ids if n == noun}
        if not (ia & ib):
            return f"{noun} {', '.join(sorted(ia))} vs {', '.join(sorted(ib))}"
    return None


def slot_changes(a: Statement, b: Statement) -> list[str]:
    """Name slots the two fill differently for the same holder, and names a "switched from"
    retires (``"work: acme vs globex"``)."""
    out: list[str] = []
    if same_holder(a.holder, b.holder):
        slots_a: dict[str, set[str]] = {}
        word: dict[str, str] = {}
        for key, raw, name in a.slots:
            slots_a.setdefault(key, set()).add(name)
            word[key] = raw
        slots_b: dict[str, set[str]] = {}
        for key, _raw, name in b.slots:
            slots_b.setdefault(key, set()).add(name)
        for key in sorted(set(slots_a) & set(slots_b)):
            va, vb = slots_a[key], slots_b[key]
            if len(va) > 1 or len(vb) > 1:
                continue  # "UPS Standard for Japan" / "DHL for Europe": a scope and a value
            if not (va & vb) and not _nested(va, vb):
                out.append(f"{word[key]}: {', '.join(sorted(va))} vs {', '.join(sorted(vb))}")
    if a.holder and b.holder and not same_holder(a.holder, b.holder):
        return out  # "The user's home is in Graz" is not what "Lukas relocated from Graz" left
    for old, new in ((a, b), (b, a)):
        gone = new.switched_from & old.names
        if gone and old.names <= new.names | new.switched_from:
            out.append(f"switched from {', '.join(sorted(gone))}")
    return out


_UPDATE_KEYS = frozenset(stem(w) for w in (*UPDATE_WORDS, "currently"))


def _one_word_swapped(a: Statement, b: Statement) -> str | None:
    """``"junior vs senior"`` when the two say the same words in the same order but one, in
    what they say of their subject ("Ingrid is a junior designer" / "Ingrid is now a senior
    designer"; update words left out); ``None`` otherwise, when the word differs in the
    subject ("The orders endpoint" / "The export endpoint": two subjects), when the two
    words are one word in two forms, or when a negation differs."""
    ua, ub = units(a.text), units(b.text)
    if any(u.kind == "negation" for u in ua) != any(u.kind == "negation" for u in ub):
        return None
    ca = [u.key for u in ua if u.kind in ("word", "name") and u.key not in _UPDATE_KEYS]
    cb = [u.key for u in ub if u.kind in ("word", "name") and u.key not in _UPDATE_KEYS]
    if len(ca) != len(cb) or len(ca) < 2:
        return None
    diff = [(x, y) for x, y in zip(ca, cb) if x != y]
    if len(diff) != 1:
        return None
    x, y = diff[0]
    subject = {*a.holder.split("/"), *b.holder.split("/"), *a.subject_mods, *b.subject_mods,
               "user", "i"}
    if x in subject or y in subject or fuzzy_in(x, set(cb)) or fuzzy_in(y, set(ca)):
        return None
    if not any(w == v and w not in subject for w, v in zip(ca, cb)):
        return None  # nothing said of the subject in common ("no longer smokes" / "has no TV")
    return f"{x} vs {y}"


def _nested(va: set[str], vb: set[str]) -> bool:
    """Whether one side's names are part of the other's ("unity" in "unity/c#")."""
    pa = {p for n in va for p in n.split("/")}
    pb = {p for n in vb for p in n.split("/")}
    return pa <= pb or pb <= pa


_AT_MOST = re.compile(r"\b(?:no|not) (?:more|longer|later) than\b|\b(?:at most|up to|maximum|"
                      r"under|less than|fewer than|within)\b", re.IGNORECASE)
_AT_LEAST = re.compile(r"\b(?:at least|minimum|(?:no|not) (?:less|fewer) than|or more|more than)\b",
                       re.IGNORECASE)


def _bounds(text: str) -> frozenset[str]:
    """Which bounds ``text`` sets on a figure: "max" ("no more than 11 hours", "up to"),
    "min" ("at least 12 hours", "or more")."""
    rest = _AT_MOST.sub(" ", text)
    return frozenset(k for k, found in (("max", rest != text), ("min", bool(_AT_LEAST.search(rest))))
                     if found)


#: The subject-word overlap below which one holder alone does not make one subject.
HOLDER_MIN_JACCARD = 0.1


def relation(a: Statement, b: Statement, cosine: float, *, subject_threshold: float = 0.5,
             strict_threshold: float = 0.75, same_cosine: float = 0.85) -> Relation | None:
    """What ``a`` and ``b`` are to each other (see the module docstring).

    ``cosine`` is their embeddings' similarity; same subject: subject-word Jaccard >=
    ``subject_threshold``, or cosine >= ``same_cosine``, or one holder with cosine >= 0.6;
    weak values (bare numbers, weekdays, negation) count only between near-identical
    statements (Jaccard >= ``strict_threshold`` or cosine >= ``same_cosine``).
    """
    ids = differing_ids(a, b)
    if ids:
        return Relation("distinct", f"they name different things ({ids})")
    paths_a, paths_b = path_values(a.text), path_values(b.text)
    if paths_a and paths_b and not paths_a & paths_b and cosine >= 0.6:
        # "posts to /hooks/v1/payments" / "the endpoint is /hooks/v2/payments"
        return Relation("change", f"path {', '.join(sorted(paths_a))} vs "
                                  f"{', '.join(sorted(paths_b))}")
    if status := status_change(a.text, b.text):
        # "is single" / "has a boyfriend"; "Ana's boyfriend is Rui" / "Ana and Rui split up"
        return Relation("change", status)
    if a.subject_names and b.subject_names and not (a.subject_names & b.subject_names) \
            and not _nested(set(a.subject_names), set(b.subject_names)) \
            and not (a.subject_names <= b.names or b.subject_names <= a.names):
        # (one's subject named in the other is one thing: "Our DoP is Maud Vantongeren" /
        # "Maud Vantongeren has left the production")
        return Relation("distinct", "their subjects name different things ("
                        f"{', '.join(sorted(a.subject_names))} vs "
                        f"{', '.join(sorted(b.subject_names))})")
    spelt = transition(a.text, b.text, cosine, old_holder=a.holder, new_holder=b.holder,
                       same_holder=same_holder) or \
        transition(b.text, a.text, cosine, old_holder=b.holder, new_holder=a.holder,
                   same_holder=same_holder)
    if spelt:
        return Relation("change", spelt, explicit=True)
    if a.holder == b.holder and a.subject_kind and b.subject_kind and not (
            a.subject_kind & b.subject_kind):
        return Relation("distinct", "two of one owner's things ("
                        f"{', '.join(sorted(a.subject_kind))} vs "
                        f"{', '.join(sorted(b.subject_kind))} {a.holder.split('/')[-1]})")
    slots = slot_changes(a, b)
    if slots:
        return Relation("change", "; ".join(slots))
    if (a.update_word or b.update_word) and same_holder(a.holder, b.holder) and (
            swapped := _one_word_swapped(a, b)):
        return Relation("change", f"one word changed ({swapped})")
    fa, fb = a.facts, b.facts
    jac = subject_similarity(fa, fb)
    # one holder with nothing else in common is not one subject ("Hobnail delivers ...
    # before 7am" / "Hobnail's customers have to order before 14:00")
    holder = same_holder(a.holder, b.holder) and cosine >= 0.6 and jac >= HOLDER_MIN_JACCARD \
        and bool(a.ids) == bool(b.ids)  # "Table 9 at Hexfield ..." is not Hexfield's hours
    same = jac >= subject_threshold or cosine >= same_cosine or holder
    if not same:
        return None
    if (ba := _bounds(a.text)) and (bb := _bounds(b.text)) and ba != bb:
        return Relation("distinct", "a lower bound and an upper bound are two rules")
    near = jac >= strict_threshold or cosine >= same_cosine
    diffs = value_differences(fa, fb, weak=near or (holder and (a.update_word
                                                                or b.update_word)))
    if not diffs:
        return None
    kinds = {d.split(" ", 1)[0] for d in diffs}
    if kinds <= {"date", "weekday", "number"} and "date" in kinds and (
            (a.past or b.past) and not (a.update_word or b.update_word)
            or a.past and b.past):
        # two reports each on its own date are two events ("On 30 June the user moved the
        # backups to a disk" / "On 2 July ... to cloud storage"); a date that changed says
        # so ("postponed to 2 June": a transition, read above)
        return Relation("distinct", f"different events ({'; '.join(diffs)})")
    return Relation("change", "; ".join(diffs))


__all__ = ["ENTITIES", "ID_NOUNS", "UPDATE_WORDS", "Relation", "Statement", "differing_ids", "identifiers",
           "relation", "same_holder", "slot_changes", "statement"]
