"""Do two clauses state the same fact? A reworded paraphrase test gated by fact agreement.

Embedding similarity alone cannot tell a paraphrase ("Priya reacts badly to penicillin." /
"Avoid penicillin around Priya: allergy.", cosine 0.81) from a changed value ("Aisha drinks a
cortado every morning." / "Aisha drinks an oat flat white every morning.", cosine 0.73), and
word overlap alone misses every rewording. :func:`same_fact` asks both, from a cosine of
:data:`SAME_FACT_COSINE` (well below the merge threshold), and then requires that nothing in
the two texts disagrees:

- **anchors**: every name, number and date of the covered clause is in the other one (a
  refinement may add some; none may change);
- **negations** are the same, and so are the **qualifiers** that change a statement's status
  or time ("now", "used to", "will", "next", "once" ...); the words that only say a habit holds
  (:data:`HABIT`: "always", "usually", "usual", "every", "daily" ...) are interchangeable,
  since "Maya's usual coffee is X", "Maya always orders X" and "Maya drinks X every morning"
  state one routine;
- **no relation**: :func:`~memmaint.maintenance.agents.slots.relation` finds no changed value,
  no different identifier and no different named subject;
- **no substitution**: the two do not share a word after which each continues with words the
  other lacks ("Tom likes *jazz*" / "Tom likes *hiking*", "Lukas orders *an oat flat white*"
  / "Lukas orders *a cortado*"): that is one frame with two values, not one fact;
- **content**: the covered clause shares at least one content word besides its first one
  (its subject) and one after its verb (what it says of the subject), and loses no more of its content words than the other says in their place
  (a reworded verb is fine), and at most half of them.

The covering clause may state more (a refinement); :mod:`~memmaint.maintenance.agents.
consolidate` keeps the most complete text, so the detail survives. Pure functions.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from memmaint.maintenance.agents.coverage import ADVERBS, Unit, sentences, stem, units
from memmaint.maintenance.agents.coverage import fuzzy_in as _fuzzy_in
from memmaint.maintenance.agents.coverage import lead_name_differs as _lead_name_differs
from memmaint.maintenance.agents.statuses import same_status

if TYPE_CHECKING:
    from memmaint.maintenance.agents.slots import Statement

#: Cosine from which two clauses may state the same fact (the anchors decide the rest).
SAME_FACT_COSINE = 0.65
#: The same floor when a memory of several sentences stands in for one of its clauses: its
#: vector mixes the other sentences in ("Amara works on a ThinkPad X1." is at 0.85 to "Amara's
#: work laptop is a ThinkPad X1." but at 0.65 to that sentence followed by "The laptop has
#: 32 GB of memory.").
MULTI_CLAUSE_COSINE = 0.55
#: Words that say a habit holds; interchangeable between paraphrases of one routine.
HABIT = frozenset(("always", "usually", "usual", "every", "daily", "regularly", "normally",
                   "typically", "generally", "habitually", "routinely", "each"))
_ANCHORS = ("name", "number", "date")
#: Generic words that carry no fact of their own.
_GENERIC = frozenset(stem(w) for w in (
    "user", "users", "please", "thing", "things", "anything", "something", "everything",
    "stuff", "use", "uses", "get", "make"))


def _content(us: Sequence[Unit]) -> list[str]:
    """Content words and names in reading order, habit and generic words left out."""
    return [u.key for u in us if u.kind in ("word", "name") and u.key not in HABIT
            and u.key not in _GENERIC]


def _negated(us: Sequence[Unit]) -> bool:
    """Whether the clause is negated (its negation's word does not matter)."""
    return any(u.kind == "negation" for u in us)


def _names_as_words(us: Sequence[Unit]) -> set[str]:
    return {u.key for u in us if u.kind in ("name", "word")}


def anchors_agree(ua: Sequence[Unit], ub: Sequence[Unit]) -> str | None:
    """Why ``a``'s anchors are not all in ``b`` (``None``: they are)."""
    words_b = _names_as_words(ub)
    anchors_b = {(u.kind, u.key) for u in ub if u.kind in _ANCHORS}
    for u in ua:
        if u.kind not in _ANCHORS or (u.kind, u.key) in anchors_b:
            continue
        if u.kind == "name" and (u.key in words_b or stem(u.key) in words_b):
            # a sentence-initial name is a "word", stemmed ("USPS" -> "usp")
            continue
        return f"{u.kind} {u.text!r} only in one"
    return None


def _status(us: Sequence[Unit]) -> set[str]:
    return {u.key for u in us if u.kind == "qualifier" and u.key not in HABIT}


#: Qualifiers that add a detail to a statement rather than change its status or time ("has
#: mild asthma and uses an inhaler *before* exercise", "two kids, *both* in primary school",
#: "JWTs that expire *after* 15 minutes"): the fuller of two clauses may add them.
_DETAIL = frozenset(("only", "before", "after", "all", "both", "many", "few", "several",
                     "most"))  # not "more" / "less": a comparative may say it changed


def status_agrees(ua: Sequence[Unit], ub: Sequence[Unit]) -> bool:
    """Whether clause ``b`` says what clause ``a`` says with the same status: the same
    qualifiers of status and time ("now", "used to", "will", "once" ...), and every detail
    qualifier of ``a`` (:data:`_DETAIL`) in ``b``, which may add its own."""
    sa, sb = _status(ua), _status(ub)
    return sa - _DETAIL == sb - _DETAIL and sa & _DETAIL <= sb


def substitution(a: Sequence[str], b: Sequence[str], a_from: int = 1,
                 b_from: int = 1) -> str | None:
    """A shared word (at or after index ``a_from`` / ``b_from``: the verb, so that a
    reworded verb is not a value) after which each side continues with a word the other
    lacks: one frame with two values ("likes jazz" / "likes hiking")."""
    sa, sb = set(a), set(b)
    for i, word in enumerate(a[:-1]):
        if i < max(a_from, 1) or word not in sb:
            continue
        j = b.index(word)
        if j < max(b_from, 1) or j + 1 >= len(b):
            continue
        na, nb = a[i + 1], b[j + 1]
        if na not in sb and nb not in sa and not _fuzzy_in(na, sb) and not _fuzzy_in(nb, sa):
            return f"{word} {na} vs {word} {nb}"
    return None


def _agent_noun_for_verb(word: str, other: set[str]) -> bool:
    """Whether ``word`` is a doer ("writer", "smoker") the other text matches only with a
    verb of its stem ("wrote", "smokes"): being a writer is not having written one thing."""
    return len(word) >= 5 and word.endswith(("er", "or")) and word not in other and not any(
        p.endswith(("er", "or")) and p[:4] == word[:4] for p in other)


def same_fact(a_text: str, b_text: str, cosine: float, *,
              threshold: float = SAME_FACT_COSINE) -> str | None:
    """Why clause ``b_text`` states the fact of clause ``a_text`` (``None``: it does not, or
    it cannot tell); ``cosine`` is their similarity (see the module docstring)."""
    if cosine < threshold:
        return None
    if why := same_status(a_text, b_text):
        return why  # "is vegetarian" / "doesn't eat meat": one status, whatever the words
    ua, ub = units(a_text), units(b_text)
    if anchors_agree(ua, ub) is not None:
        return None
    if _negated(ua) != _negated(ub):  # "cannot eat gluten" / "so no gluten": one polarity
        return None
    if not status_agrees(ua, ub):
        return None
    from memmaint.maintenance.agents.slots import relation, statement

    if cosine >= SAME_NAMES_COSINE and (why := _same_names(a_text, b_text, ua, ub, cosine)):
        return why
    ca, cb = _content(ua), _content(ub)
    if not ca or not cb:
        return None
    sa, sb = set(ca), set(cb)
    shared = {w for w in sa if _fuzzy_in(w, sb) and not _agent_noun_for_verb(w, sb)}
    st_a, st_b = statement(a_text), statement(b_text)
    va, vb = _verb_index(a_text, ua, st_a.verb), _verb_index(b_text, ub, st_b.verb)
    # the first content word is the subject unless the verb comes first ("The user has a
    # daughter": "user" is no content word, "daughter" is what is said)
    lead_a, lead_b = set(ca[:1]) if va else set(), set(cb[:1]) if vb else set()
    if not (shared - lead_a) or not (shared - lead_b):
        return None  # only the subject in common
    missing = sa - shared
    extra = {w for w in sb if not _fuzzy_in(w, sa)}
    if len(missing) > len(extra) or len(missing) > _may_lose(len(sa)):
        return None
    if missing and len(extra) > len(missing) + 1 and (
            len(missing) > 1 or len(extra) > 4 or _observation(a_text) or _observation(b_text)):
        # a reworded fact trades its words about one for one ("avoid ... allergy" / "reacts
        # badly"), or one frame word for a few details ("has a job at Acme" / "works at Acme
        # as a data engineer"); a clause that lacks words beside many the other adds, or a
        # reworded activity, attitude or report, is another fact ("Nate practices for
        # tournaments" / "Nate is participating in a tournament that he finds intense")
        return None
    if _lead_name_differs(a_text, b_text):
        return None  # "Jon lost his job at Door Dash" / "Gina lost her job at Door Dash"
    if _subjects_differ(st_a, st_b, sa, sb) or (ca[0] not in sb and cb[0] not in sa
                                                 and not (st_a.holder and st_b.holder)):
        return None  # two subjects ("Sam is a coach" / "Ana is a coach")
    if ca[va:] and not (set(ca[va:]) & shared):
        return None  # its predicate says something else ("hates baths" / "is scared of")
    if _predicate_reworded(ca[va:], missing) and len(extra) > len(missing):
        return None  # "Jon is working on promoting his business" / "Jon got mentored by a
        # business person": most of the predicate gone and more put in its place is another
        # statement on one topic; a one-for-one trade is a rewording ("reacts badly to" /
        # "avoid ... allergy")
    if substitution(ca, cb, va, vb) or substitution(cb, ca, vb, va):
        return None
    if relation(st_a, st_b, cosine) is not None:
        return None
    return (f"same fact (cosine {cosine:.2f}; same names, numbers, dates, negations and "
            "qualifiers; nothing substituted)")


#: A report of what someone said or did ("mentions", "shares", "comments on").
_REPORT = (r"mentions?|mentioned|shares?|shared|comments?|commented|expresses|expressed|shows?|"
           r"showed|recommends?|recommended|says|said|tells|told|talks?|talked")
#: An activity ("is reading", "has been playing") or a report.
_ACTIVITY = re.compile(r"\b(?:(?:is|are|was|were|been)\s+(?:\w+ly\s+)?(?!going\b)[a-z]+ing|"
                       + _REPORT + r")\b", re.IGNORECASE)
_REPORTS = re.compile(_REPORT, re.IGNORECASE)


#: Verbs of attitude: several may hold at once ("Tim appreciates encouragement" / "Tim
#: appreciates John's support"), so another object is not another value.
_OPINION = frozenset(("find", "finds", "love", "loves", "like", "likes", "enjoy", "enjoys",
                      "believe", "believes", "appreciate", "appreciates", "value", "values",
                      "admire", "admires", "feel", "feels", "think", "thinks", "hope",
                      "hopes", "want", "wants", "wish", "wishes", "hate", "hates", "miss",
                      "misses", "appears", "seems"))


def is_opinion(st: Statement) -> bool:
    """An attitude ("finds", "values", "loves"; :data:`_OPINION`), several of which may hold."""
    words = re.findall(r"[a-z]+", st.text.lower())
    return bool(st.verb in _OPINION or (st.verb in ("now", "always", "also", *ADVERBS)
                                         and any(w in _OPINION for w in words[:6])))


def is_activity(st: Statement) -> bool:
    """An activity in progress or a report of what someone said or did (:data:`_ACTIVITY`)."""
    return bool(_ACTIVITY.search(st.text))


def is_report(st: Statement) -> bool:
    """Whether the main verb reports what someone said or did ("Jon expressed gratitude",
    "Maria mentions ..."); a source cited later in the text ("IT says ...") is not."""
    return bool(st.verb and _REPORTS.fullmatch(st.verb))


def is_long(st: Statement) -> bool:
    """More than ``MAX_ATTRIBUTE_WORDS`` content words: an observation, not one attribute."""
    return len(content_words(st.text)) > MAX_ATTRIBUTE_WORDS


def _observation(text: str) -> bool:
    """An activity, an attitude, a report or a past event: what someone did, felt or said,
    whose rewording is not a paraphrase of an attribute."""
    from memmaint.maintenance.agents.slots import statement

    st = statement(text)
    return st.past or is_activity(st) or is_opinion(st) or is_long(st)


def _may_lose(n: int) -> int:
    """How many of a clause's ``n`` content words a statement of its fact may word otherwise:
    half of a clause of up to five ("Avoid penicillin around Priya: allergy." / "Priya reacts
    badly to penicillin."), a quarter of a longer one (at least one), where shared names and a few shared words no
    longer make one fact ("Caroline transitioned and joined the transgender community seeking
    acceptance and support" is not said by "Caroline is considering a career in counseling
    ... to help trans people accept themselves and support their mental health")."""
    return n // 2 if n <= 5 else max(1, n // 4)


def _verb_index(text: str, us: Sequence[Unit], verb: str) -> int:
    """Index in :func:`_content` of the first content word after the subject: the number of
    content words that come before ``verb`` in ``text`` (1 when the verb is unknown)."""
    found = re.search(rf"\b{re.escape(verb)}\b", text, re.IGNORECASE) if verb else None
    if found is None:
        return 1
    k, pos = 0, 0
    for u in us:
        if u.kind not in ("word", "name") or u.key in HABIT or u.key in _GENERIC:
            continue
        at = text.find(u.text, pos)
        if at < 0 or at >= found.start():
            break
        k, pos = k + 1, at + len(u.text)
    return k


#: Cosine from which two clauses naming the same things (two names or more, the same numbers)
#: state one fact however their other words run ("shipments to Britain go out via USPS
#: Priority" / "USPS Priority handles United Kingdom orders", 0.81).
SAME_NAMES_COSINE = 0.8


def _names_of(us: Sequence[Unit], other: Sequence[Unit]) -> set[str]:
    """The names of a clause, stemmed; its opening word counts when the other names it."""
    names = {stem(u.key) for u in us if u.kind == "name"}
    other_names = {stem(u.key) for u in other if u.kind == "name"}
    if us and us[0].kind == "word" and us[0].text[:1].isupper() and us[0].key in other_names:
        names.add(us[0].key)
    return names


def _same_names(a: str, b: str, ua: Sequence[Unit], ub: Sequence[Unit],
                cosine: float) -> str | None:
    """Why two clauses that name the same things state one fact (:data:`SAME_NAMES_COSINE`):
    the same two or more names, the same numbers and dates both ways, one subject, nothing
    substituted and no value changed."""
    from memmaint.maintenance.agents.slots import relation, statement

    na, nb = _names_of(ua, ub), _names_of(ub, ua)
    if len(na) < 2 or na != nb or anchors_agree(ub, ua) is not None:
        return None
    if _observation(a) or _observation(b):
        return None  # what named people did or felt ("Tim talked to a Harry Potter fan" /
        # "Tim is working on a Harry Potter fan project"): standing facts only
    if {u.key for u in ua if u.kind == "number"} != {u.key for u in ub if u.kind == "number"}:
        return None
    ca, cb = _content(ua), _content(ub)
    order_a = [w for w in dict.fromkeys(stem(w) for w in ca) if w in na]
    order_b = [w for w in dict.fromkeys(stem(w) for w in cb) if w in nb]
    # a word after a name read against the other's word after it is a substitution only when
    # the two run in one order ("handles UK orders" / "handles UK returns"); a reordered
    # sentence puts other words there ("to Britain go out via" / "handles UK orders")
    if _lead_name_differs(a, b) or order_a == order_b and (
            substitution(ca, cb) or substitution(cb, ca)):
        return None
    if relation(statement(a), statement(b), cosine) is not None:
        return None
    return f"same names (cosine {cosine:.2f}; {', '.join(sorted(na))}; nothing substituted)"


def _predicate_reworded(predicate: Sequence[str], missing: set[str]) -> bool:
    """Whether the other clause lacks two or more of this predicate's words and at least half
    of them ("Maria met some kids at a shelter" / "Maria considers the people at the shelter
    like family"): with more words put in their place, what is said of the subject is
    another statement, however close the vectors."""
    words = [w for w in dict.fromkeys(predicate) if w not in _FRAME_WORDS]
    lost = [w for w in words if w in missing]
    return len(lost) >= 2 and 2 * len(lost) >= len(words)


#: Words that frame a possession or a name rather than state it ("Tom owns a dog called
#: Pepper" / "Tom's dog Pepper"): not counted as the predicate's words.
_FRAME_WORDS = frozenset(stem(w) for w in ("own", "owns", "called", "named", "has", "have",
                                           "having"))


def _subjects_differ(a: Statement, b: Statement, words_a: set[str],
                     words_b: set[str]) -> bool:
    """Whether the two are said of different subjects: the subject's head, its owner or a
    subject modifier of one that the other never mentions ("Priya's dog" / "The user's dog", "The platform
    team" / "The team")."""
    for x, other in ((a, words_b), (b, words_a)):
        base = x.holder.split("/")[0]
        if base and base not in _GENERIC and not _fuzzy_in(base, other):
            return True
        owner = base if "/" in x.holder else ""
        if owner and not _fuzzy_in(owner, other) and owner not in _GENERIC:
            return True
        if any(not _fuzzy_in(m, other) for m in x.subject_mods if m not in _GENERIC):
            return True
    return False



#: Cosine from which two statements of one holder with different values are taken to be
#: about one attribute (a shared attribute word is required as well).
CHANGE_COSINE = 0.55
#: The floor for one verb with another value when one of the two says it updates ("now
#: orders a cortado instead"): updates sit at low cosines to what they replace.
UPDATE_VERB_COSINE = 0.4
#: An attribution aside (", as Ann noted", ", according to Bob"): its names are sources.
_ASIDE = re.compile(r",\s*(?:as|according to|says|said|per)\b[^.;!?]*", re.IGNORECASE)
_BE_VERBS = frozenset(("is", "are", "was", "were", "be", "has", "have", "had"))


def value_change(a_text: str, b_text: str, cosine: float, *,
                 statements: tuple[Statement, Statement] | None = None) -> str | None:
    """A changed value that the name slots of :mod:`~memmaint.maintenance.agents.slots` do
    not read (``None``: none found). Both must be said of one holder (a possessed noun,
    "Tom's *sister*", must be the other's attribute word) and agree on negations:

    - **names under different attribute words** (cosine >= :data:`CHANGE_COSINE`): each names a value the other does not
      (no name in common besides the holder's), and they share an attribute word besides
      the holder and besides a verb both use ("likes hiking in the Alps" / "likes sailing on
      Lake Garda" are two facts) ("employer is Globex" / "is employed by Acme", "timezone is
      America/Chicago" / "works in the America/Toronto timezone");
    - **a lower-case value**: the same verb (not a form of be or have), followed by words
      the other lacks (:func:`substitution`), when one says it updates ("now", "instead")
      (cosine >= :data:`UPDATE_VERB_COSINE`) or both state a habit ("every morning",
      "always"; cosine >= :data:`CHANGE_COSINE`): "Aisha drinks a cortado every
      morning" / "Aisha drinks an oat flat white every morning".
    """
    from memmaint.maintenance.agents.slots import ENTITIES, same_holder, statement

    if cosine < UPDATE_VERB_COSINE:
        return None
    st_a, st_b = statements or (statement(a_text), statement(b_text))  # the caller's, if any
    if not same_holder(st_a.holder, st_b.holder) or st_a.ids != st_b.ids:
        return None
    ua, ub = units(a_text), units(b_text)
    if {u.key for u in ua if u.kind == "negation"} != {u.key for u in ub if u.kind
                                                       == "negation"}:
        return None
    holder = {st_a.holder.split("/")[0], st_b.holder.split("/")[0]}
    wa = {u.key for u in ua if u.kind == "word"} - holder - _GENERIC
    wb = {u.key for u in ub if u.kind == "word"} - holder - _GENERIC
    for x, other in ((st_a, wb | {u.key for u in ub if u.kind == "name"}),
                     (st_b, wa | {u.key for u in ua if u.kind == "name"})):
        owned = x.holder.split("/")[1] if "/" in x.holder else ""
        if owned in ENTITIES and not _fuzzy_in(owned, other):
            return None  # "Tom's sister lives in Porto" is not said of Tom
    na = _value_names(statement(_ASIDE.sub("", a_text)) if _ASIDE.search(a_text) else st_a) \
        - holder
    nb = _value_names(statement(_ASIDE.sub("", b_text)) if _ASIDE.search(b_text) else st_b) \
        - holder
    # a name both state is what they share; a slashed name's parts ("America" of
    # "America/Chicago" and "America/Toronto") are not
    common = (_value_names(st_a) & _value_names(st_b)) - holder
    # one value for another: as many names on each side ("for Tom in America/Chicago" /
    # "for the user in Asia/Tokyo" names a holder besides the value: another subject)
    if cosine >= CHANGE_COSINE and na and nb and not common and not _parts_nested(na, nb) \
            and not (_named_subject(a_text, na) or _named_subject(b_text, nb)) \
            and _name_runs(a_text, na) == _name_runs(b_text, nb) == 1 \
            and not (_labelled_nouns(a_text, na) & _labelled_nouns(b_text, nb) and wa ^ wb) \
            and _one_attribute_long(ua) and _one_attribute_long(ub):
        both_verbs = {stem(v) for v in (_main_verb(a_text, st_a.verb),) if v and stem(v) == stem(
            _main_verb(b_text, st_b.verb))}
        attr = sorted(w for w in wa - both_verbs if _fuzzy_in(w, wb))
        if attr:
            return (f"{attr[0]}: {' '.join(sorted(na))} vs {' '.join(sorted(nb))} (one "
                    "attribute, different names)")
    va_word, vb_word = _main_verb(a_text, st_a.verb), _main_verb(b_text, st_b.verb)
    if not va_word or stem(va_word) != stem(vb_word) or va_word in _BE_VERBS or na ^ nb:
        return None
    habit = _habit(ua) and _habit(ub)
    if not ((habit and cosine >= CHANGE_COSINE) or st_a.update_word or st_b.update_word):
        return None
    ca, cb = _content(ua), _content(ub)
    ia, ib = _verb_index(a_text, ua, va_word), _verb_index(b_text, ub, vb_word)
    tail_a, tail_b = set(ca[ia + 1:]), set(cb[ib + 1:])
    if ca[ia:ia + 1] != cb[ib:ib + 1] or not tail_a or not tail_b:
        return None
    first_a, first_b = ca[ia + 1], cb[ib + 1]
    if _fuzzy_in(first_a, set(cb)) or _fuzzy_in(first_b, set(ca)):
        return None
    return f"{va_word}: {first_a} vs {first_b} (same verb, another value)"


#: Content words from which a statement says too much to be read as one attribute with one
#: value ("Caroline attended an LGBTQ support group recently and found the transgender
#: stories inspiring" is not the value "LGBTQ" of an attribute "stories").
MAX_ATTRIBUTE_WORDS = 10


def _one_attribute_long(us: Sequence[Unit]) -> bool:
    return len(_content(us)) <= MAX_ATTRIBUTE_WORDS


def content_words(text: str) -> list[str]:
    """The content words and names of ``text`` that :func:`same_fact` compares."""
    return _content(units(text))


def _value_names(st: Statement) -> set[str]:
    """The statement's names, a slashed name whole ("america/chicago", not its parts)."""
    parts = {p for n in st.names if "/" in n for p in n.split("/")}
    return {n for n in st.names if n not in parts} - set(st.subject_names)


def _habit(us: Sequence[Unit]) -> bool:
    return any(u.key in HABIT for u in us)


def _parts_nested(na: set[str], nb: set[str]) -> bool:
    """One side's name parts are all the other's ("Unity" in "Unity/C#")."""
    pa = {p for n in na for p in n.split("/")}
    pb = {p for n in nb for p in n.split("/")}
    return pa <= pb or pb <= pa


def _labelled_nouns(text: str, names: set[str]) -> set[str]:
    """Lower-case words right after one of ``names``: a name that labels a noun ("the
    Borealis room", "the Atlas room") names a thing; where the two texts differ in other words
    too ("a notebook from the Borealis room" / "a charger from the Delta room") they speak of
    two things, not of one attribute with another value ("deliveries go to the Harbour Street
    office" / "now go to the Mill Lane office")."""
    out: set[str] = set()
    toks = [t.rstrip(".,;:!?") for t in re.findall(r"[\w/#+.'-]+", text)]
    for tok, nxt in itertools.pairwise(toks):
        low = tok.lower().removesuffix("'s")
        if tok != tok.lower() and low in names and nxt.islower() and nxt.isalpha():
            out.add(stem(nxt))
    return out


def _name_runs(text: str, names: set[str]) -> int:
    """How many values ``names`` are in ``text``: adjacent names are one ("VS Code")."""
    runs, inside = 0, False
    for tok in re.findall(r"[\w/#+.'-]+", text):
        low = tok.lower().removesuffix("'s").rstrip(".")
        if tok != tok.lower() and (low in names or any(p in names for p in low.split("/"))):
            runs += not inside
            inside = True
        else:
            inside = False
    return runs


_ADVERBS = frozenset(("now", "always", "usually", "often", "never", "not", "no", "still",
                      "also", "currently", "sometimes", "rarely", "just", "recently"))


def _named_subject(text: str, names: set[str]) -> bool:
    """Whether the sentence opens with one of ``names`` as the subject of a verb other than
    be or have ("MV Skerrow Lass carries up to 32 cars": the vessel is who, not a value;
    "Globex is the user's employer" reads both ways)."""
    toks = re.findall(r"[\w'’/-]+", text)
    lead = list(itertools.takewhile(lambda t: t[:1].isupper() or t[:1].isdigit(), toks))
    rest = toks[len(lead):len(lead) + 1]
    return bool(rest) and rest[0].lower() not in _BE_VERBS and any(
        t.lower().removesuffix("'s").removesuffix("’s") in names for t in lead)


def _main_verb(text: str, verb: str) -> str:
    """The verb itself when the statement reader stopped at an adverb ("now orders")."""
    if verb not in _ADVERBS:
        return verb
    found = re.search(rf"\b{re.escape(verb)}\s+(?:(?:{'|'.join(_ADVERBS)})\s+)*([a-z]+)",
                      text, re.IGNORECASE)
    return found.group(1).lower() if found else ""


__all__ = ["CHANGE_COSINE", "HABIT", "MAX_ATTRIBUTE_WORDS", "MULTI_CLAUSE_COSINE",
           "SAME_FACT_COSINE", "anchors_agree", "content_words", "same_fact", "states_same_fact",
           "substitution", "value_change"]


def states_same_fact(a: str, b: str, cosine: float) -> bool:
    """Whether a clause of ``a`` is said by a clause of ``b`` or the other way round (the
    memories' ``cosine`` standing in for their clauses'): one fact, maybe refined."""
    ca, cb = sentences(a) or [a], sentences(b) or [b]
    floor = MULTI_CLAUSE_COSINE if len(ca) > 1 or len(cb) > 1 else SAME_FACT_COSINE
    return any(same_fact(x, y, cosine, threshold=floor) or same_fact(y, x, cosine,
                                                                      threshold=floor)
               for x in ca for y in cb)
