"""Does one memory text still say everything another one said? (merge fidelity)

A merge retires its sources and keeps one text. It may retire a source only when that text
*covers* it: every content unit of the source is found in the kept text. The units of a text
are

- **content words**: lower-cased, possessives and contractions removed, lightly stemmed
  (irregular past forms and plurals mapped, then ``-ies/-ied/-ing/-ed/-es/-s`` and a final
  ``e`` stripped, a doubled final consonant undone), with a small, conservative table of
  synonyms (kids/children, mom/mother, photo/picture, movie/film, start/begin, buy/purchase,
  big/large, ...); stop words (articles, pronouns, prepositions, auxiliaries) are ignored;
- **numbers**: digits (``1,200`` = ``1200``, ``$180`` = ``180``) and number words up to
  twenty and the tens (``three`` = ``3``);
- **names**: capitalised tokens that do not start a sentence (``Weight Watchers``, ``Zendesk``),
  matched exactly (case-insensitively), never stemmed or replaced by a synonym;
- **dates**: month and weekday names (``Jan`` = ``January``), years (numbers) and day words
  (``yesterday``, ``today``, ``tomorrow``, ``tonight``, ``weekend``);
- **negations**: ``not`` / ``n't`` / ``cannot``, ``never``, ``no``, ``no longer``, ``none``,
  ``nothing``, ``nobody``, ``neither``/``nor``, ``without``;
- **qualifiers**: words that change a statement's status, time or scope: ``now``,
  ``currently``, ``only``, ``always``, ``usually``, ``often``, ``sometimes``, ``rarely``,
  ``still``, ``already``, ``just``, ``recently``, ``soon``, ``again``, ``ever``, ``once``,
  ``anymore``, ``yet``, ``used to``, ``former``, ``first``, ``last``, ``next``, ``ago``,
  ``before``, ``after``, ``will``, ``would``, ``could``, ``should``, ``might``, ``may``,
  ``maybe``, ``probably``, ``possibly``, ``perhaps``, ``almost``, ``nearly``, ``every``,
  ``all``, ``both``, ``many``, ``few``, ``several``, ``more``, ``most``, ``less``, ``least``.

:func:`coverage` says whether ``kept_text`` covers ``source_text`` and lists the units it
misses. One more check runs the other way: a sentence of the kept text that is about the
source (it holds at least half of the source's content words) must not add a negation the
source does not have ("Sam is a coach" is not covered by "Sam is not a coach"); such a
negation is reported as missing with a ``+`` (``+not``). And the roles of people must stay:
when the source's capitalised words (names) appear together in a sentence of the kept text
only in another order ("Gina supports Jon" against "Jon is grateful for Gina's support"), it
is not covered (reported as ``order: Gina ... Jon``).

The definition is deliberately strict: a paraphrase that keeps the same words (up to stems
and the synonyms above) is covered, a reworded one with different words is not; added detail
in the kept text is fine, a lost detail, a changed status ("is now a coach" against "wants to
become one"), a changed number, a negation or another person's name is not.

Time is the one thing a text cannot carry alone: "last week" means the week before the day a
memory was written, and a merged memory is dated like its newest source. :func:`same_anchor`
says whether a merge keeps every such relative time (:func:`relative_times`) true: the
sources that use one must all date from the newest source's day. Pure functions.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from datetime import datetime

from memmaint.maintenance.agents.clock import clock_forms
from memmaint.maintenance.agents.periods import same_period

_STOP = frozenset((
    "a", "an", "the", "and", "or", "but", "if", "then", "so", "of", "to", "in", "on", "at",
    "by", "for", "with", "from", "as", "into", "onto", "over", "under", "above", "below",
    "about", "around", "through", "during", "between", "among", "within", "upon", "off",
    "up", "down", "out", "than", "via", "per", "because", "while", "though", "although",
    "is", "are", "was", "were", "be", "been", "being", "am", "'s", "do", "does", "did",
    "doing", "done", "has", "have", "had", "having", "can", "must", "shall",
    "it", "its", "itself", "this", "that", "these", "those", "there", "here", "i", "me",
    "my", "mine", "myself", "we", "us", "our", "ours", "ourselves", "you", "your", "yours",
    "yourself", "he", "him", "his", "himself", "she", "her", "hers", "herself", "they",
    "them", "their", "theirs", "themselves", "one's", "who", "whom", "whose", "which",
    "what", "when", "where", "why", "how", "whether", "also", "too", "very", "really",
    "quite", "rather", "such", "some", "any", "each", "other", "another", "own", "same",
    "much", "even", "well", "like", "able", "re", "etc", "s", "t", "ll", "d", "ve", "m",
    "dollar", "dollars", "usd", "bucks", "percent",
))

_NEGATIONS = {"not": "not", "n't": "not", "cannot": "not", "never": "never", "no": "no",
              "none": "none", "nothing": "nothing", "nobody": "nobody", "neither": "neither",
              "nor": "neither", "without": "without"}
_QUALIFIERS = frozenset((
    "now", "currently", "only", "always", "usually", "often", "sometimes", "rarely",
    "seldom", "still", "already", "just", "recently", "soon", "again", "ever", "once",
    "anymore", "yet", "former", "formerly", "first", "last", "next", "ago", "before",
    "after", "will", "would", "could", "should", "might", "may", "maybe", "probably",
    "possibly", "perhaps", "almost", "nearly", "every", "all", "both", "many", "few",
    "several", "more", "most", "less", "least",
))
_PHRASES = {("no", "longer"): "no longer", ("used", "to"): "used to",
            ("not", "anymore"): "not"}

_MONTHS = {m: m for m in ("january", "february", "march", "april", "may", "june", "july",
                          "august", "september", "october", "november", "december")}
_MONTHS.update({"jan": "january", "feb": "february", "apr": "april", "aug": "august",
                "sept": "september", "oct": "october", "nov": "november", "dec": "december"})
_WEEKDAYS = frozenset(("monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
                       "sunday"))
_DAY_WORDS = frozenset(("yesterday", "today", "tomorrow", "tonight", "weekend", "weekends"))

#: The numbers zero to twenty in words, in order.
SMALL_NUMBERS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                 "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
                 "seventeen", "eighteen", "nineteen", "twenty")
_NUMBER_WORDS = {w: str(i) for i, w in enumerate(SMALL_NUMBERS)}
#: Ordinal words as the numbers they stand for ("fourth floor": 4).
ORDINAL_WORDS = {w: str(i + 1) for i, w in enumerate((
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
    "tenth", "eleventh", "twelfth"))}
_NUMBER_WORDS.update({"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60",
                      "seventy": "70", "eighty": "80", "ninety": "90", "hundred": "100",
                      "thousand": "1000", "dozen": "12"})

_IRREGULAR = {
    "went": "go", "gone": "go", "goes": "go", "made": "make", "felt": "feel", "got": "get",
    "gotten": "get", "saw": "see", "seen": "see", "took": "take", "taken": "take",
    "bought": "buy", "ran": "run", "began": "begin", "begun": "begin", "thought": "think",
    "found": "find", "told": "tell", "said": "say", "met": "meet", "kept": "keep",
    "left": "leave", "lost": "lose", "won": "win", "brought": "bring", "came": "come",
    "became": "become", "gave": "give", "given": "give", "knew": "know", "known": "know",
    "wrote": "write", "written": "write", "taught": "teach", "caught": "catch",
    "sold": "sell", "held": "hold", "built": "build", "sent": "send", "spent": "spend",
    "paid": "pay", "heard": "hear", "read": "read", "led": "lead", "fell": "fall",
    "fallen": "fall", "grew": "grow", "grown": "grow", "drew": "draw", "drawn": "draw",
    "ate": "eat", "eaten": "eat", "drove": "drive", "driven": "drive", "flew": "fly",
    "flown": "fly", "swam": "swim", "sang": "sing", "sung": "sing", "wore": "wear",
    "worn": "wear", "chose": "choose", "chosen": "choose", "broke": "break",
    "broken": "break", "forgot": "forget", "forgotten": "forget", "understood":
    "understand", "stood": "stand", "sat": "sit", "children": "child", "people": "person",
    "men": "man", "women": "woman", "feet": "foot", "teeth": "tooth", "mice": "mouse",
    "better": "good", "best": "good", "worse": "bad", "worst": "bad", "going": "go",
    "used": "use", "lying": "lie", "dying": "die", "news": "news",
}
#: Adverbs that open a predicate ("User really dislikes ..."): never a subject word.
ADVERBS = frozenset((
    "really", "actually", "typically", "generally", "mostly", "rarely", "sometimes",
    "definitely", "strongly", "absolutely", "totally", "mainly", "normally", "basically",
    "truly", "genuinely", "seldom", "frequently", "regularly", "occasionally"))
# conservative synonyms: each word maps to the first word of its group (after stemming)
_SYNONYM_GROUPS = (
    ("child", "kid"), ("mother", "mom", "mum"), ("father", "dad"),
    ("photo", "picture", "pic", "photograph"), ("movie", "film"), ("start", "begin"),
    ("buy", "purchase"), ("big", "large"), ("tv", "television"), ("car", "automobile"),
    ("happy", "glad"), ("talk", "speak"), ("job", "employment"), ("cuisine", "food"),
    ("yearly", "annual", "annually"), ("monthly", "month"), ("hour", "hr", "hrs"),
    ("minute", "min", "mins"), ("hate", "dislike", "detest"), ("reply", "answer", "respond"),
    ("favourite", "favorite"), ("colour", "color"),
)

_TOKEN = re.compile(r"\d[\d,]*(?:\.\d+)?(?:st|nd|rd|th|s)?\b|\d+[A-Za-z]\w*|[A-Za-z]+\d\w*|"
                    r"[A-Za-z][A-Za-z'’]*|[.!?;:]")
_CONTRACTIONS = (("n't", "n't"), ("'s", ""), ("'re", ""), ("'ve", ""), ("'m", ""),
                 ("'ll", "will"), ("'d", "would"))
_SENTENCE_END = frozenset(".!?;:")


def _stem_word(word: str) -> str:
    w = _IRREGULAR.get(word, word)
    if w != word:
        return _stem_word(w) if w not in _IRREGULAR else w
    for suffix, repl, min_stem in (("ies", "y", 3), ("ied", "y", 3), ("ing", "", 3),
                                   ("ed", "", 3), ("es", "", 3), ("s", "", 3)):
        if w.endswith(suffix) and len(w) - len(suffix) + len(repl) >= min_stem:
            if suffix == "es" and not w.endswith(("ses", "xes", "zes", "ches", "shes")):
                continue
            if suffix == "s" and w.endswith(("ss", "us", "is")):
                continue
            w = w[: len(w) - len(suffix)] + repl
            break
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiouls":
        w = w[:-1]
    if len(w) > 2 and w.endswith("y"):
        w = w[:-1] + "i"
    return w


_SYNONYMS: dict[str, str] = {}
for _group in _SYNONYM_GROUPS:
    for _word in _group:
        _SYNONYMS[_stem_word(_word)] = _stem_word(_group[0])


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """The matching key of a content word: lower-cased, lightly stemmed, synonyms folded."""
    s = _stem_word(word.lower())
    return _SYNONYMS.get(s, s)


@dataclass(frozen=True)
class Unit:
    """One content unit: ``kind`` (word, number, name, date, negation, qualifier), the
    ``key`` it is matched by, and the ``text`` it was read from."""

    kind: str
    key: str
    text: str


@dataclass(frozen=True)
class Coverage:
    """Whether a kept text covers a source text, and what it misses (empty when covered)."""

    covered: bool
    missing: tuple[str, ...]

    def __bool__(self) -> bool:
        return self.covered


def _tokens(text: str) -> list[tuple[str, bool]]:
    """``(token, starts_a_sentence)``; contractions split, ``'s`` dropped."""
    out: list[tuple[str, bool]] = []
    start = True
    for raw in _TOKEN.findall(text.replace("’", "'")):
        if raw in _SENTENCE_END:  # (after a colon a capital is a name: "vet: Brookfield Vets")
            start = raw != ":"
            out.append((raw, False))
            continue
        word, extra = raw, ""
        low = raw.lower()
        if low in ("can't", "cannot"):
            word, extra = "can", "n't"
        elif low in ("won't",):
            word, extra = "will", "n't"
        else:
            for suffix, repl in _CONTRACTIONS:
                if low.endswith(suffix) and len(low) > len(suffix):
                    word, extra = raw[: len(raw) - len(suffix)], repl
                    break
        word = word.strip("'")
        if word:
            out.append((word, start))
        if extra:
            out.append((extra, False))
        start = False
    return out


#: Nouns for people and animals someone has: "Tom's sister" is another holder than Tom.
ENTITIES = frozenset(stem(w) for w in (
    "sister", "brother", "mother", "father", "mom", "dad", "parent", "parents", "wife",
    "husband", "partner", "son", "daughter", "child", "children", "kid", "kids", "friend",
    "boss", "manager", "colleague", "coworker", "team", "dog", "cat", "pet", "pup", "puppy",
    "kitten", "horse", "bird", "turtle", "hamster", "rabbit", "neighbour",
    "neighbor", "landlord", "doctor", "client", "customer", "company", "family", "baby",
    "grandmother", "grandfather", "aunt", "uncle", "cousin", "roommate", "fiance", "fiancee"))


_OWNED = re.compile(r"\b(?:my|his|her|their|our|your|[A-Za-z]+'s)\s+(?:\w+\s+)?(\w+)",
                    re.IGNORECASE)


@functools.lru_cache(maxsize=1 << 16)
def owned_entities(text: str) -> frozenset[str]:
    """The relatives, pets and people someone has that ``text`` names ("their brother",
    "Tom's new puppy")."""
    return frozenset(stem(m.group(1)) for m in _OWNED.finditer(text)) & ENTITIES


#: Names of one place written several ways, read as one ("Britain" / "the UK"), and "working
#: days" as "business days".
_PLACE_ALIASES = tuple((re.compile(pattern), canonical) for pattern, canonical in (
    ((r"\b(?:(?i:the)\s+)?(?:United Kingdom|Great Britain|Britain|UK)\b|"
     r"\b(?:(?i:the)\s+)?U\.K\.(?=\W|$)"), "the UK"),
    ((r"\b(?:(?i:the)\s+)?(?:United States of America|United States|USA|US)\b|"
     r"\b(?:(?i:the)\s+)?U\.S\.(?:A\.)?(?=\W|$)"), "the US"),
    (r"\b(?:New York City|NYC)\b", "New York"),
    (r"\b(?:(?i:the)\s+)?(?:European Union|EU)\b", "the EU"),
    (r"\b(?:(?i:the)\s+)?(?:United Arab Emirates|UAE)\b", "the UAE"),
    (r"\b(?i:working|work)(?=\s+(?i:days?)\b)", "business"),
))


#: One time, period or phrase written several ways, read as one: "noon" is 12:00, "two
#: weeks" 14 days, "two times daily" twice a day, "these days" now, "at no cost" free, "is
#: afraid of" / "has a fear of" fears, "one day" 1 day (and whole days of hours as days:
#: :func:`canonical_forms`), "was raised in" grew up in, "once the battery drops" when.
_PHRASE_ALIASES = tuple((re.compile(pattern, re.IGNORECASE), canonical) for pattern, canonical in (
    (r"\b(?:noon|midday)\b", "12:00"),
    (r"\bmidnight\b", "00:00"),
    (r"\b(?:these days|nowadays|at the moment)\b", "now"),
    ((r"\b(?:free of charge|at no (?:extra |additional )?(?:cost|charge)|for free|"
     r"without (?:any )?charge|(?:costs?|charged?) nothing)\b"), "free"),
    (r"\btwo times\b", "twice"),
    ((r"\b(?:is|are|am|was|were|'s|'m|'re)\s+(?:(?:very|really|quite|deeply)\s+)?(?:afraid|scared|"
     r"terrified|frightened)\s+of\b|\bha(?:s|ve|d)\s+an?\s+(?:\w+\s+)?(?:fear|phobia)\s+of\b"),
     "fears"),
    (r"\b(?:one|a single)\s+day\b", "1 day"),
    (r"\b(once|twice|three times|four times)\s+(?:daily|per day|each day)\b", r"\1 a day"),
    (r"\b(?:was|were|got)\s+(?:raised|brought up)\s+in\b", "grew up in"),
    ((r"\bonce(?=\s+(?:the|it|they|we|you|he|she|this|that|your|our|their|its|his|her|any|"
      r"every|each)\b|\s+\w+\s+(?:falls|drops|reaches|hits|runs|gets|is|are|has)\b)"),
     "when"),  # a condition ("once stock falls to two"), not a time gone by
    (r"\b(?:every|each)\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b",
     r"on \1"),
))
_WEEKS = re.compile(r"\b(\d{1,2}|" + "|".join(SMALL_NUMBERS[1:11]) + r")\s+weeks?\b",
                    re.IGNORECASE)


_HOURS = re.compile(r"\b(\d{2,3})\s*(?:hours|hrs|h)\b", re.IGNORECASE)


def _hours_as_days(m: re.Match[str]) -> str:
    """Whole days of hours as days ("48 hours" -> "2 days"), others as they are."""
    hours = int(m.group(1))
    if hours % 24:
        return m.group(0)
    return "1 day" if hours == 24 else f"{hours // 24} days"


def _weeks_as_days(m: re.Match[str]) -> str:
    n = m.group(1).lower()
    return f"{7 * int(_NUMBER_WORDS.get(n, n))} days"


@functools.lru_cache(maxsize=1 << 16)
def canonical_forms(text: str) -> str:
    """``text`` with the usual names of one place written one way ("Standard delivery to
    Britain" -> "... to the UK"), "working days" as "business days", and the times, periods
    and phrases of :data:`_PHRASE_ALIASES` and clock times (:func:`~.clock.clock_forms`) one
    way, so that the readers compare places and periods, not spellings."""
    for pattern, canonical in _PLACE_ALIASES:
        text = pattern.sub(canonical, text)
    for pattern, canonical in _PHRASE_ALIASES:
        text = pattern.sub(canonical, text)
    return _HOURS.sub(_hours_as_days, _WEEKS.sub(_weeks_as_days, clock_forms(text)))


def units(text: str) -> list[Unit]:
    """The content units of ``text`` in reading order (see the module docstring)."""
    return list(_units(text))


#: A hyphenated code ending in a number ("us-east-2", "gpt-4o"): a value as a whole, whose
#: trailing number alone would make two different codes look the same.
CODE_VALUE = re.compile(r"(?<![\w.-])[a-z]+(?:-[a-z]+)*-\d+[a-z0-9]*(?![\w-])", re.IGNORECASE)

@functools.lru_cache(maxsize=1 << 15)
def _units(text: str) -> tuple[Unit, ...]:
    # a hyphenated code ("us-east-2") is one code unit, not words and a bare number
    toks = _tokens(CODE_VALUE.sub(lambda m: m.group(0).replace("-", ""),
                                   canonical_forms(text)))
    out: list[Unit] = []
    i = 0
    while i < len(toks):
        tok, start = toks[i]
        low = tok.lower()
        nxt = toks[i + 1][0].lower() if i + 1 < len(toks) else ""
        phrase = _PHRASES.get((low, nxt))
        if phrase is not None:
            kind = "negation" if phrase in ("no longer", "not") else "qualifier"
            out.append(Unit(kind, phrase, f"{tok} {toks[i + 1][0]}"))
            i += 2
            continue
        i += 1
        if low in _SENTENCE_END:
            continue
        if re.search(r"\d", low) and re.search(r"[a-z]", re.sub(r"(st|nd|rd|th|s)$", "", low)):
            out.append(Unit("number", low, tok))  # a code: "Flat 3B", "room 4C", "v2"
        elif low[0].isdigit():
            out.append(Unit("number", re.sub(r"(st|nd|rd|th|s)$", "", low).replace(",", ""),
                            tok))
        elif low in ORDINAL_WORDS:
            out.append(Unit("number", ORDINAL_WORDS[low], tok))
        elif low in _NEGATIONS:
            out.append(Unit("negation", _NEGATIONS[low], tok))
        elif tok[0].isupper() and (low in _MONTHS or low in _WEEKDAYS):
            out.append(Unit("date", _MONTHS.get(low, low), tok))
        elif low in _DAY_WORDS:
            out.append(Unit("date", low.rstrip("s"), tok))
        elif low in _QUALIFIERS:
            out.append(Unit("qualifier", low, tok))
        elif low in _NUMBER_WORDS:
            out.append(Unit("number", _NUMBER_WORDS[low], tok))
        elif low in _STOP or len(low) < 2:
            continue
        elif tok[0].isupper() and not start:
            # an acronym's plural names what it names ("JWTs", "APIs")
            key = low[:-1] if re.fullmatch(r"[A-Z]{2,}s", tok) else low
            out.append(Unit("name", key, tok))
        else:
            out.append(Unit("word", stem(low), tok))
    return tuple(out)


def sentences(text: str) -> list[str]:
    """``text`` cut after ``.``, ``!``, ``?`` and ``;`` (the pieces keep their punctuation)."""
    parts: list[str] = []
    for piece in re.split(r"(?<=[.!?;])\s+", text.strip()):
        if parts and _ABBREVIATION.search(parts[-1]):
            parts[-1] += " " + piece  # not after "J.K.", "e.g.", "Dr."
        else:
            parts.append(piece)
    return [p for p in parts if p.strip()]


_ABBREVIATION = re.compile(r"(?:(?:^|[\s.])[A-Z]|\b(?:e\.g|i\.e|Dr|Mr|Mrs|Ms|St|vs|etc))\.$")


class _Index:
    """What a kept text offers for matching."""

    def __init__(self, text: str) -> None:
        self.units = units(text)
        self.keys = {(u.kind, u.key) for u in self.units}
        self.lower = {u.text.lower() for u in self.units}
        self.stems = {stem(u.text) for u in self.units if u.kind in ("word", "name")}
        self.sentences = [units(s) for s in sentences(text)]

    def has(self, unit: Unit) -> bool:
        if unit.kind == "word":
            return unit.key in self.stems
        if unit.kind == "name":
            return unit.key in self.lower
        return (unit.kind, unit.key) in self.keys

    def has_all(self, text: str) -> bool:
        """Every unit of ``text`` (coverage's first test, without its negations and order)."""
        return all(self.has(u) for u in units(text))


@functools.lru_cache(maxsize=1 << 16)  # a merge reads one kept text against many sources
def kept_index(text: str) -> _Index:
    """What ``text`` offers for matching: :func:`coverage`'s index of it."""
    return _Index(text)


@functools.lru_cache(maxsize=1 << 16)  # the merge loop reads one pair several times
def coverage(source_text: str, kept_text: str) -> Coverage:
    """Whether ``kept_text`` covers ``source_text`` (see the module docstring).

    ``missing`` lists the source's units the kept text lacks (as written in the source, in
    order, each once), then any negation a sentence about the source adds (``+not``).
    """
    return _coverage(units(source_text), kept_index(kept_text))


def _capitals(sent: Sequence[Unit]) -> list[str]:
    """The capitalised words and names of a sentence, lower-cased, in first-seen order."""
    return list(dict.fromkeys(u.text.lower() for u in sent
                              if u.kind in ("word", "name") and u.text[0].isupper()))


def _coverage(src: Sequence[Unit], kept: _Index) -> Coverage:
    missing: list[str] = []
    for u in src:
        if not kept.has(u) and u.text not in missing:
            missing.append(u.text)
    content = {stem(u.text) for u in src if u.kind in ("word", "name")}
    negs = {u.key for u in src if u.kind == "negation"}
    caps = _capitals(src)
    same_order = swapped = False
    for sent in kept.sentences:
        shared = content & {stem(u.text) for u in sent if u.kind in ("word", "name")}
        if content and 2 * len(shared) >= len(content):
            for u in sent:
                if u.kind == "negation" and u.key not in negs and f"+{u.key}" not in missing:
                    missing.append(f"+{u.key}")
        order = [c for c in _capitals(sent) if c in caps]
        both = [c for c in caps if c in order]
        if len(both) >= 2:
            same_order = same_order or order == both
            swapped = swapped or order != both
    if swapped and not same_order:
        missing.append("order: " + " ... ".join(c.title() for c in caps if c in kept.lower))
    return Coverage(not missing, tuple(missing))


def covers(kept_text: str, source_texts: Iterable[str]) -> bool:
    """Whether ``kept_text`` covers every one of ``source_texts``."""
    index = kept_index(kept_text)
    return all(_coverage(units(s), index).covered for s in source_texts)


def compose(kept_text: str, source_text: str, sep: str = " ") -> str:
    """``kept_text`` followed by the sentences of ``source_text`` it does not cover.

    A sentence of the source is appended (in the source's order) when it holds a unit the
    text so far misses; the result covers the source unless a sentence of ``kept_text`` adds a
    negation to it (check with :func:`coverage`). Returns ``kept_text`` unchanged when it
    already covers the source.
    """
    text = kept_text.strip()
    if coverage(source_text, text).covered:
        return text
    for sent in sentences(source_text):
        if not coverage(sent, text).covered:
            text = _join(text, sent.strip(), sep)
    return text


def cover_text(text: str, sources: Sequence[str], new: str, *, compose_missing: bool = True,
               max_chars: int = 400) -> str | None:
    """A text covering ``sources`` (which ``text`` covers) and ``new``, or ``None``.

    ``text`` itself when it covers ``new``; else ``new`` when it covers every source; else,
    with ``compose_missing``, ``text`` followed by the sentences of ``new`` it misses
    (:func:`compose`), when that stays within ``max_chars`` (or the length of ``text``, if
    longer) and covers every source and ``new``.
    """
    if coverage(new, text).covered:
        return text
    if covers(new, sources):
        return new
    if not compose_missing:
        return None
    composed = compose(text, new)
    if len(composed) > max(max_chars, len(text)) or not covers(composed, [*sources, new]):
        return None
    return composed


_PERIOD = (r"(?:day|week|weekend|month|year|night|morning|afternoon|evening|time|summer|winter|"
           r"spring|fall|autumn|semester|season|monday|tuesday|wednesday|thursday|friday|"
           r"saturday|sunday)")
_RELATIVE = re.compile(
    rf"\b(?:(?:last|next|this|past|coming)\s+(?:few\s+|couple\s+of\s+)?{_PERIOD}s?|"
    rf"(?:\w+\s+)?{_PERIOD}s?\s+ago|ago|yesterday|today|tomorrow|tonight|recently|"
    rf"soon|upcoming|the\s+other\s+day|(?:the\s+)?{_PERIOD}\s+of\s+the\s+conversation|"
    rf"for\s+(?:the\s+)?(?:past\s+|last\s+)?(?:a|an|\d+|one|two|three|four|five|six|"
    rf"seven|eight|nine|ten|a\s+few|few|several|a\s+couple\s+of|many)\s+{_PERIOD}s?|"
    rf"currently|now|right\s+now|at\s+the\s+moment|these\s+days)\b",
    re.IGNORECASE)


def relative_times(text: str) -> list[str]:
    """The time expressions of ``text`` that only mean something from the day it was written
    (``last week``, ``two days ago``, ``yesterday``, ``recently``, ``next month``, ``for 3
    years``, ``currently``, ``now``, ...)."""
    return [m.group(0) for m in _RELATIVE.finditer(text)]


def same_anchor(sources: Sequence[tuple[str, datetime]]) -> bool:
    """Whether a merge of ``(text, created_at)`` sources keeps every relative time true.

    A merged memory is dated like its newest source, so a source saying "last week" may only
    be merged with sources of its own day, or its "last week" would move ("this spring" may,
    while it names the same spring: :func:`~.periods.same_period`)."""
    if not sources:
        return True
    newest = max(when for _t, when in sources).date()
    return all(when.date() == newest or same_period(relative_times(text), when.date(), newest)
               for text, when in sources)


def _join(a: str, b: str, sep: str) -> str:
    if not a:
        return b
    if a[-1] not in ".!?;":
        a += "."
    return f"{a}{sep}{b}"


def fuzzy_in(word: str, pool: AbstractSet[str]) -> bool:
    """``word`` is in ``pool``, shares a five-letter prefix with a word of it ("allergic" /
    "allergy", "employed" / "employer"), or one is the start of the other ("time" /
    "timezone")."""
    return word in pool or (len(word) >= 3 and any(
        len(p) >= 3 and (p[:5] == word[:5] and not compound(p, word)
                         if min(len(p), len(word)) >= 5
                         else p.startswith(word) or word.startswith(p)) for p in pool))


#: Endings that make another form of one word ("deploy" / "deployment"), not another word.
FORM_SUFFIXES = ("ment", "ation", "ition", "ing", "ings", "ness", "ity", "able", "ible", "er",
             "ers", "or", "ors", "al", "ally", "ly", "ive", "ise", "ize", "ed", "es", "s")


def compound(a: str, b: str) -> bool:
    """Whether the longer word is the shorter one, whole, with another word after it
    ("screen" / "screenplay"): another thing, not another form of one word."""
    short, long_ = sorted((a, b), key=len)
    rest = long_[len(short):]
    return (len(short) >= 5 and long_.startswith(short) and len(rest) >= 4
            and not any(rest.startswith(x) for x in FORM_SUFFIXES))


_LEAD_WORD = re.compile(r"^\W*([A-Z][a-z]+)(?:'s)?\b")
NOT_NAMES = frozenset(("The", "A", "An", "This", "That", "These", "Those", "Our", "My", "Your",
                        "His", "Her", "Their", "Its", "We", "They", "He", "She", "It", "I",
                        "Every", "Each", "All", "Some", "Avoid", "Schedule", "Please", "On",
                        "In", "At", "After", "Before", "When", "If", "Since", "Per"))


def lead_name_differs(a: str, b: str) -> bool:
    """Whether the two open with different names, neither mentioned by the other (their
    subjects); a capital that only starts the sentence ("Sessions of the choir") is not a
    name, so both must open with one."""
    fa, fb = _LEAD_WORD.match(a), _LEAD_WORD.match(b)
    if not fa or not fb or fa.group(1) in NOT_NAMES or fb.group(1) in NOT_NAMES:
        return False
    if fa.group(1) == fb.group(1):
        return False
    # the other's subject may be named as the agent of a passive ("... is supported by Gina")
    return not re.search(rf"\bby {fa.group(1)}\b", b) and not re.search(
        rf"\bby {fb.group(1)}\b", a)


__all__ = [
    "ADVERBS",
    "CODE_VALUE",
    "NOT_NAMES",
    "Coverage",
    "Unit",
    "compose",
    "compound",
    "cover_text",
    "coverage",
    "covers",
    "fuzzy_in",
    "lead_name_differs",
    "owned_entities",
    "relative_times",
    "same_anchor",
    "sentences",
    "stem",
    "units",
]
