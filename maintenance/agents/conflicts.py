"""Value extraction and conflict detection between two memory texts.

Two memories conflict when they talk about the same *subject* but state different *values*:

- values: prices (``$29/mo``, ``39 EUR``), percentages, dates (ISO, ``March 3``, ``3 March
  2024``), weekdays, clock times, other numbers, and polarity: the words a negation applies to
  (``not``, ``never``, ``no longer``, ``n't``, ``without``: the next content word within three
  tokens) and antonym pairs such as like/hate, enabled/disabled ("not open" = closed);
- subject: the remaining content words (values, stop words and polarity words removed, light
  stemming), compared with Jaccard similarity.

Only value types present in *both* texts are compared: "the Pro plan costs $29" and "the Pro
plan is popular" do not conflict (one is just less specific). Pure functions, no state.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memmaint.maintenance.agents.coverage import CODE_VALUE, SMALL_NUMBERS

_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")
_MONTH_ABBR = {m[:3]: i + 1 for i, m in enumerate(_MONTHS)} | {"sept": 9}
_MONTH_RE = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|" \
            r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

_CURRENCY_SYM = {"$": "usd", "€": "eur", "£": "gbp", "¥": "jpy"}
_CURRENCY_WORD = {"usd": "usd", "dollar": "usd", "dollars": "usd", "eur": "eur", "euro": "eur",
                  "euros": "eur", "gbp": "gbp", "pounds": "gbp", "cents": "cent"}

_PRICE_SYM = re.compile(r"([$€£¥])\s?(\d[\d,]*(?:\.\d+)?)(\s?[kKmM]\b)?")
_PRICE_WORD = re.compile(r"\b(\d[\d,]*(?:\.\d+)?)\s?(usd|dollars?|eur|euros?|gbp|pounds|cents)\b",
                         re.IGNORECASE)
_PERCENT = re.compile(r"\b(\d+(?:\.\d+)?)\s?(?:%|percent\b)", re.IGNORECASE)
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_MONTH_DAY = re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}}))?",
                        re.IGNORECASE)
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\b\.?"
                        r"(?:,?\s+(\d{4}))?", re.IGNORECASE)
_CLOCK = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s?(am|pm)\b|\b(\d{1,2}):(\d{2})\b", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)(?![\w.]*\d)")
_WORD = re.compile(r"[a-z][a-z']*")
_UNIT_DAYS = {"hour": 1 / 24, "day": 1, "week": 7, "fortnight": 14, "month": 30,
              "quarter": 91, "year": 365}
_ADVERB_DAYS = {"hourly": 1 / 24, "daily": 1, "weekly": 7, "fortnightly": 14, "biweekly": 14,
                "monthly": 30, "bimonthly": 60, "quarterly": 91, "yearly": 365,
                "annually": 365}
_COUNTS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "other": 2,
           "once": 1, "twice": 2, "thrice": 3}
#: How often: "weekly", "every two weeks", "every other day", "twice a month".
_FREQUENCY = re.compile(
    r"\b(hourly|daily|weekly|fortnightly|biweekly|monthly|bimonthly|quarterly|yearly|annually)"
    r"\b|\bevery\s+(?:(\d+|one|two|three|four|five|six|other)\s+)?(hour|day|week|fortnight|"
    r"month|quarter|year)s?\b|\b(once|twice|thrice|\d+\s+times|(?:two|three|four)\s+times)\s+"
    r"(?:a|per|each|every)\s+(hour|day|week|fortnight|month|quarter|year)\b")


def _period(m: re.Match[str]) -> str:
    """The period of a frequency match in days ("every two weeks" -> "14d")."""
    if m.group(1):
        days = _ADVERB_DAYS[m.group(1)]
    elif m.group(3):
        n = m.group(2) or "1"
        days = (int(n) if n.isdigit() else _COUNTS[n]) * _UNIT_DAYS[m.group(3)]
    else:
        times = m.group(4).split()[0]
        count = int(times) if times.isdigit() else _COUNTS.get(times, _NUMBER_WORDS.get(times, 1))
        days = _UNIT_DAYS[m.group(5)] / float(count)
    return f"{days:g}d"
_NUMBER_WORDS = {w: str(i) for i, w in enumerate(SMALL_NUMBERS) if w != "one"}
#: A number word standing for a count or an age ("is ten", "two flatmates"), not inside a
#: compound ("twenty-something") or a name.
_NUMBER_WORD = re.compile(r"(?<![\w-])(" + "|".join(_NUMBER_WORDS) + r")(?![\w-])")

_NEGATORS = frozenset({"not", "no", "never", "none", "nobody", "nothing", "neither", "nor",
                       "cannot", "without"})
_ANTONYMS: dict[str, tuple[str, bool]] = {}
for _pos, _neg in (("like", "hate"), ("likes", "hates"), ("love", "dislike"),
                   ("loves", "dislikes"), ("enabled", "disabled"), ("enable", "disable"),
                   ("available", "unavailable"), ("open", "closed"), ("allowed", "forbidden"),
                   ("allow", "forbid"), ("supported", "unsupported"),
                   ("required", "optional"), ("valid", "invalid"), ("active", "inactive"),
                   ("included", "excluded"), ("accept", "reject"), ("accepts", "rejects"),
                   ("increase", "decrease"), ("prefer", "avoid"), ("prefers", "avoids")):
    _ANTONYMS[_pos] = (_pos, True)
    _ANTONYMS[_neg] = (_pos, False)
_ANTONYMS["prohibited"] = ("allowed", False)
_ANTONYMS["permitted"] = ("allowed", True)
_ANTONYMS["enjoys"] = ("likes", True)

_STOP = frozenset((
    "a", "an", "the", "and", "or", "but", "if", "then", "so", "of", "to", "in", "on", "at",
    "by", "for", "with", "from", "as", "is", "are", "was", "were", "be", "been", "being",
    "it", "its", "this", "that", "these", "those", "there", "here", "i", "we", "you", "he",
    "she", "they", "me", "us", "him", "her", "them", "my", "our", "your", "his", "their",
    "do", "does", "did", "has", "have", "had", "will", "would", "should", "could", "can",
    "may", "might", "must", "just", "also", "very", "really", "now", "currently", "still",
    "per", "each", "every", "any", "some", "all", "about", "into", "over", "under", "than",
    "too", "only", "same", "what", "which", "who", "whom", "when", "where", "why", "how",
    "up", "down", "out", "more", "most", "less", "much", "many", "longer",
))


@dataclass(frozen=True)
class Facts:
    """What :func:`extract` finds in a text."""

    values: dict[str, frozenset[str]]  # value type -> normalised values
    polarity: dict[str, bool]  # concept -> stated positively?
    negated: frozenset[str]  # words a negation applies to ("not open" -> open)
    plain: frozenset[str]  # words stated without negation
    subject: frozenset[str]


def _num(text: str) -> str:
    value = float(text.replace(",", ""))
    return f"{value:g}"


#: Colour words, one spelling each: a colour is a value ("blue" / "grey" Volvo).
_COLOURS = {w: w for w in ("red", "blue", "green", "yellow", "orange", "purple", "pink",
                           "brown", "black", "white", "silver", "beige", "navy", "teal",
                           "maroon", "turquoise")} | {"grey": "grey", "gray": "grey"}

#: Verbs whose negation denies their object ("doesn't own a car": no car).
_POSSESSION = frozenset(("own", "owns", "owned", "possess", "possesses", "possessed"))


def extract(text: str) -> Facts:
    """Values, polarity and subject words of ``text`` (see the module docstring)."""
    low = text.lower()
    values: dict[str, set[str]] = {}
    spans: list[tuple[int, int]] = []

    def add(kind: str, value: str, match: re.Match[str]) -> None:
        if any(s <= match.start() < e or s < match.end() <= e for s, e in spans):
            return
        values.setdefault(kind, set()).add(value)
        spans.append((match.start(), match.end()))

    for m in _PRICE_SYM.finditer(low):
        scale = {"k": 1e3, "m": 1e6}.get((m.group(3) or "").strip(), 1.0)
        add("price", f"{_CURRENCY_SYM[m.group(1)]}:{float(m.group(2).replace(',', '')) * scale:g}",
            m)
    for m in _PRICE_WORD.finditer(low):
        add("price", f"{_CURRENCY_WORD[m.group(2)]}:{_num(m.group(1))}", m)
    for m in _PERCENT.finditer(low):
        add("percent", _num(m.group(1)), m)
    for m in _ISO_DATE.finditer(low):
        add("date", f"{int(m.group(1)):04d}-{int(m.group(2)):02d}-{int(m.group(3)):02d}", m)
    for m in _MONTH_DAY.finditer(low):
        month = _MONTH_ABBR.get(m.group(1)[:4] if m.group(1).startswith("sept") else
                                m.group(1)[:3], 0)
        add("date", f"{m.group(3) or '*'}-{month:02d}-{int(m.group(2)):02d}", m)
    for m in _DAY_MONTH.finditer(low):
        month = _MONTH_ABBR.get(m.group(2)[:3], 0)
        add("date", f"{m.group(3) or '*'}-{month:02d}-{int(m.group(1)):02d}", m)
    for m in _CLOCK.finditer(low):
        if m.group(3):
            hour = int(m.group(1)) % 12 + (12 if m.group(3).lower() == "pm" else 0)
            minute = int(m.group(2) or 0)
        else:
            hour, minute = int(m.group(4)), int(m.group(5))
        add("time", f"{hour:02d}:{minute:02d}", m)
    for m in _FREQUENCY.finditer(low):
        add("frequency", _period(m), m)
    for m in CODE_VALUE.finditer(low):  # "us-east-2" / "ap-southeast-2": one value each
        add("code", m.group(0), m)
    for m in _NUMBER.finditer(low):
        raw = m.group(1)
        # "3.10" is not "3.1": two decimals ending in 0 are a version's parts as written
        add("number", raw if re.fullmatch(r"\d+\.\d+0", raw) else _num(raw), m)
    for m in _NUMBER_WORD.finditer(low):  # "ten" / "10"; not "one" ("one of", "the one")
        add("number", _NUMBER_WORDS[m.group(1)], m)

    masked = list(low)
    # an identifier ("invalid_token", "max_retries") is a name, not words with a polarity
    code = [m.span() for m in re.finditer(r"\b\w+_\w+\b", low)]
    for start, end in [*spans, *code]:
        masked[start:end] = " " * (end - start)
    words = _WORD.findall("".join(masked))
    for w in words:
        day = w.removesuffix("s")  # "on Mondays"
        if day in _WEEKDAYS:
            values.setdefault("weekday", set()).add(day)
        elif w in _COLOURS:  # "a blue Volvo" / "a grey Volvo"
            values.setdefault("colour", set()).add(_COLOURS[w])
    polarity: dict[str, bool] = {}
    subject: set[str] = set()
    negated: set[str] = set()
    plain: set[str] = set()
    scope = 0  # tokens left in the current negation's scope
    for w in words:
        if w in _NEGATORS or w.endswith("n't"):
            scope = 3
            continue
        in_scope = scope > 0
        scope = max(0, scope - 1)
        if w in _ANTONYMS:
            concept, positive = _ANTONYMS[w]
            polarity[concept] = positive != in_scope  # "not open" means closed
            subject.add(concept)
            scope = 0
            continue
        if w in _STOP or w.removesuffix("s") in _WEEKDAYS or w in _MONTHS or w in _CURRENCY_WORD \
                or len(w) < 2:
            continue
        stem = _stem(w)
        subject.add(stem)
        if in_scope:
            negated.add(stem)
            # "doesn't own a TV" denies the TV, as "has no TV" does
            scope = scope if w in _POSSESSION else 0
        else:
            plain.add(stem)
    return Facts(
        values={k: frozenset(v) for k, v in values.items()},
        polarity=polarity,
        negated=frozenset(negated),
        plain=frozenset(plain),
        subject=frozenset(subject),
    )


def _stem(word: str) -> str:
    word = word.strip("'")
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def subject_similarity(a: Facts, b: Facts) -> float:
    """Jaccard similarity of the subject words (0 when both are empty)."""
    if not a.subject and not b.subject:
        return 0.0
    return len(a.subject & b.subject) / len(a.subject | b.subject)


#: Value types too common in ordinary text to mean a conflict on their own: they count only
#: between near-identical statements (see :func:`conflict`).
WEAK_KINDS = frozenset({"number", "weekday", "frequency"})


def may_differ(a: Facts, b: Facts, *, weak: bool = True) -> bool:
    """Whether :func:`value_differences` can find anything: both texts state values, or
    polarities, or (with ``weak``) either negates something. Most pairs of a cluster state
    nothing in common, and this is the cheap test that rules them out."""
    return bool((a.values and b.values) or (a.polarity and b.polarity)
                or (weak and (a.negated or b.negated)))


def value_differences(a: Facts, b: Facts, *, weak: bool = True) -> list[str]:
    """Readable differences between two texts' values (empty when nothing disagrees).

    For each value type found in both texts they disagree when neither value set contains the
    other ({$39} vs {$39, $468} agree; {$29} vs {$39} do not). Prices, percentages, dates,
    clock times and antonyms always count; bare numbers, weekdays and negation only with
    ``weak``.
    """
    if not may_differ(a, b, weak=weak):
        return []
    out: list[str] = []
    for kind in sorted(set(a.values) & set(b.values)):
        if kind in WEAK_KINDS and not weak:
            continue
        va, vb = a.values[kind], b.values[kind]
        if not (va <= vb or vb <= va):  # a subset is just less specific, not a conflict
            out.append(f"{kind} {', '.join(sorted(va))} vs {', '.join(sorted(vb))}")
    for concept in sorted(set(a.polarity) & set(b.polarity)):
        if a.polarity[concept] != b.polarity[concept]:
            out.append(f"{concept} vs its opposite")
    if weak:
        flipped = sorted((a.negated - b.negated) & b.plain | (b.negated - a.negated) & a.plain)
        if flipped:
            out.append(f"negated in one, not the other: {', '.join(flipped)}")
    return out


def conflict(a: str | Facts, b: str | Facts, subject_threshold: float = 0.5,
             strict_threshold: float = 0.75, same_subject: bool | None = None,
             near_identical: bool | None = None) -> str | None:
    """A one-line description when ``a`` and ``b`` state different values for one subject.

    Same subject: subject-word Jaccard >= ``subject_threshold`` (or ``same_subject``, e.g.
    from embeddings). Bare numbers, weekdays and negation count only between near-identical
    statements, Jaccard >= ``strict_threshold`` (or ``near_identical``), because long
    paraphrases routinely mention other numbers and days and negate other clauses. ``None``
    when there is no conflict.
    """
    fa = a if isinstance(a, Facts) else extract(a)
    fb = b if isinstance(b, Facts) else extract(b)
    if same_subject is None or near_identical is None:
        sim = subject_similarity(fa, fb)
        if same_subject is None:
            same_subject = sim >= subject_threshold
        if near_identical is None:
            near_identical = sim >= strict_threshold
    if not same_subject:
        return None
    diffs = value_differences(fa, fb, weak=near_identical)
    return "; ".join(diffs) if diffs else None
