"""A labelled decision set: small pools with a gold outcome per group (issue #32).

Each part is a few namespaces ("pools") of about 25 memories, each pool a mix of groups of
the seven types (:data:`GROUP_TYPES`), plus one pool of hand-written groups:

- ``duplicate``: two or three paraphrases of one fact (sometimes an exact copy): one active
  memory should state it, once;
- ``refinement``: a fact and a more detailed statement of it: one memory should keep every
  detail, each once;
- ``update``: a value and a newer one (an update wording, or the same wording with a new
  value weeks later): the older value should no longer be active;
- ``contradiction``: two values written at the same instant with no update wording: no text
  may state both, and a policy cannot order them, so both stay (flagged for review);
- ``distinct_related``: same topic, different facts or events (identifiers that name the
  subject, "invoice 1043" / "invoice 1044", related facts of one holder): all stay apart;
- ``temporal``: events on different days (relative time "yesterday", or an absolute date):
  each keeps its own date;
- ``unrelated``: a single memory on another subject.

Every sentence is labelled with the facts it states (:class:`GoldSentence`), so a scorer can
read any text the maintenance leaves (original or merged) sentence by sentence. The tuning
part (``dev``) and the validation part (``validation``) use different families, templates
and holders (:mod:`memmaint.datasets.decision_items`). Generation is deterministic: the
same part gives the same memories, ids and dates.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone

from memmaint.datasets.decision_items import (
    DEV_FAMILIES,
    DEV_HAND,
    DEV_IDS,
    DEV_NAMES,
    VAL_FAMILIES,
    VAL_HAND,
    VAL_IDS,
    VAL_NAMES,
    Family,
    Hand,
)
from memmaint.maintenance.core.records import Memory

GROUP_TYPES = ("duplicate", "refinement", "update", "contradiction", "distinct_related",
               "temporal", "unrelated")
PARTS = ("dev", "validation", "fresh", "blind", "sealed", "unseen", "hidden", "withheld",
         "spare", "vault", "keep", "ledger", "harbour", "lantern", "quarry", "orchard")
#: The group types of one generated pool, in order.
POOL_MIX = ("duplicate", "duplicate", "refinement", "refinement", "update", "update",
            "update", "contradiction", "distinct_related", "temporal", "unrelated",
            "unrelated")
POOLS_PER_PART = 8
YEAR = 2024
NOW = datetime(2025, 1, 15, 12, 0, tzinfo=timezone.utc)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
_RELATIVE = re.compile(r"\b(?:yesterday|today|this morning|last week|last weekend|"
                       r"tonight)\b", re.IGNORECASE)
_ABSOLUTE = re.compile(r"\b\d{1,2} (?:" + "|".join(_MONTHS) + r")\b")


def norm(sentence: str) -> str:
    """A sentence as the scorer compares it: lower case, single spaces, no end mark."""
    return re.sub(r"\s+", " ", sentence.strip().lower()).rstrip(".!?; ")


def split_sentences(text: str) -> list[str]:
    """``text`` cut after ``.``, ``!``, ``?`` and ``;`` followed by white space."""
    return [p for p in re.split(r"(?<=[.!?;])\s+", text.strip()) if p.strip()]


@dataclass(frozen=True)
class GoldSentence:
    """One sentence of the set and the facts it states (``group-id:tag``).

    ``event``: it reports something that happened (its time is the memory's day unless the
    sentence carries an absolute date, ``self_dated``).
    """

    text: str
    facts: tuple[str, ...]
    day: date
    event: bool
    self_dated: bool


@dataclass(frozen=True)
class DecisionGroup:
    """A group of memories with one gold outcome.

    ``retired``: facts that must no longer be active (an update's older value);
    ``exclusive``: sets of facts no single text may state together (two values of one
    subject); ``apart``: each memory is a unit of its own that no text may join to another.
    """

    id: str
    type: str
    namespace: str
    memory_ids: tuple[str, ...]
    facts: tuple[str, ...]
    retired: frozenset[str] = frozenset()
    exclusive: tuple[frozenset[str], ...] = ()
    apart: bool = False


@dataclass
class DecisionSet:
    """One part of the set: its memories, groups and the sentence index."""

    part: str
    memories: list[Memory]
    groups: list[DecisionGroup]
    sentences: dict[tuple[str, str], GoldSentence] = field(default_factory=dict)
    now: datetime = NOW

    def unit_of(self) -> dict[str, str]:
        """fact -> the unit it belongs to (its group, or its memory in an ``apart`` group)."""
        by_id = {m.id: m for m in self.memories}
        out: dict[str, str] = {}
        for g in self.groups:
            for mid in g.memory_ids:
                for s in split_sentences(by_id[mid].text):
                    for f in self.sentences[(g.namespace, norm(s))].facts:
                        out[f] = f"{g.id}/{mid}" if g.apart else g.id
        return out


# -- text --------------------------------------------------------------------------------

def _forms(holder: str) -> dict[str, str]:
    low = holder[0].lower() + holder[1:] if holder.startswith("The ") else holder
    return {"H": holder, "h": low, "P": f"{holder}'s", "p": f"{low}'s"}


def _fill(template: str, holder: str, **kw: str) -> str:
    text = template.format(**_forms(holder), **kw)
    return text[0].upper() + text[1:]


def _when(day: date, hour: int = 9) -> datetime:
    return datetime(day.year, day.month, day.day, hour, 0, tzinfo=timezone.utc)


def _datestr(day: date) -> str:
    return f"{day.day} {_MONTHS[day.month - 1]}"


@dataclass
class _Draft:
    """A group being built: memories as (text, day, facts per sentence)."""

    type: str
    rows: Sequence[tuple[str, date, tuple[tuple[str, ...], ...]]]
    retired: set[str] = field(default_factory=set)
    exclusive: list[set[str]] = field(default_factory=list)
    same_instant: bool = False


def _pick(rng: random.Random, seq: tuple[str, ...] | list[str], k: int) -> list[str]:
    return rng.sample(list(seq), k)


def _days(rng: random.Random, k: int, gap: tuple[int, int]) -> list[date]:
    day = date(YEAR, 1, 1) + timedelta(days=rng.randint(0, 200))
    out = [day]
    for _ in range(k - 1):
        day = day + timedelta(days=rng.randint(*gap))
        out.append(day)
    return out


def _draft(gtype: str, fam: Family, holder: str, rng: random.Random, ids: tuple[str, ...],
           names: tuple[str, ...]) -> _Draft | None:
    """One group of ``gtype`` from a family and holder (``None``: the family cannot)."""
    if gtype == "duplicate":
        if len(fam.state) < 2:
            return None
        v = rng.choice(fam.values)
        k = rng.choice((2, 2, 3)) if len(fam.state) >= 3 else 2
        temps = _pick(rng, fam.state, k)
        if rng.random() < 0.2:
            temps[-1] = temps[0]  # the same text saved twice
        days = _days(rng, k, (3, 60))
        return _Draft(gtype, [(_fill(t, holder, v=v), d, (("f",),))
                              for t, d in zip(temps, days)])
    if gtype == "refinement":
        if not fam.details or len(fam.state) < 2:
            return None
        v = rng.choice(fam.values)
        extra, rich = rng.choice(fam.details)
        short, longer = _pick(rng, fam.state, 2)
        days = _days(rng, 2, (2, 45))
        detailed: tuple[str, tuple[tuple[str, ...], ...]]
        if rng.random() < 0.5:
            detailed = (_fill(rich, holder, v=v), (("f", "d"),))
        else:
            detailed = (f"{_fill(longer, holder, v=v)} {_fill(extra, holder, v=v)}",
                        (("f",), ("d",)))
        rows = [(_fill(short, holder, v=v), days[0], (("f",),)),
                (detailed[0], days[1], detailed[1])]
        if rng.random() < 0.5:
            rows.reverse()
            rows = [(t, d, f) for (t, _d, f), d in zip(rows, days)]
        return _Draft(gtype, rows)
    if gtype == "update":
        if not fam.updates or len(fam.values) < 2:
            return None
        old, new = _pick(rng, fam.values, 2)
        three = rng.random() < 0.3 and len(fam.state) >= 2
        temps = _pick(rng, fam.state, 2 if three else 1)
        days = _days(rng, len(temps) + 1, (20, 90))
        rows = [(_fill(t, holder, v=old), d, (("old",),)) for t, d in zip(temps, days)]
        wording = rng.choice(fam.updates) if rng.random() < 0.6 else rng.choice(fam.state)
        rows.append((_fill(wording, holder, v=new, old=old), days[-1], (("new",),)))
        return _Draft(gtype, rows, retired={"old"}, exclusive=[{"old", "new"}])
    if gtype == "contradiction":
        if len(fam.values) < 2 or not fam.updates:
            return None
        a, b = _pick(rng, fam.values, 2)
        ta = rng.choice(fam.state)
        tb = ta if rng.random() < 0.6 else rng.choice(fam.state)
        day = _days(rng, 1, (1, 1))[0]
        return _Draft(gtype, [(_fill(ta, holder, v=a), day, (("a",),)),
                              (_fill(tb, holder, v=b), day, (("b",),))],
                      exclusive=[{"a", "b"}], same_instant=True)
    if gtype == "distinct_related":
        k = rng.choice((2, 3))
        if rng.random() < 0.4:
            temp = rng.choice(ids)
            base = rng.randint(10, 9000)
            nums = [base + j * rng.randint(1, 3) for j in range(k)]
            days = _days(rng, k, (1, 12))
            who = _pick(rng, names, k)
            spells = _pick(rng, ("2", "3", "4", "5"), k)
            return _Draft(gtype, [(temp.format(n=n, d=d.day, name=w, k=s), d, ((f"m{j}",),))
                                  for j, (n, d, w, s) in enumerate(zip(nums, days, who,
                                                                       spells))])
        if len(fam.related) < 2:
            return None
        temps = _pick(rng, fam.related, min(k, len(fam.related)))
        days = _days(rng, len(temps), (1, 40))
        return _Draft(gtype, [(_fill(t, holder), d, ((f"m{j}",),))
                              for j, (t, d) in enumerate(zip(temps, days))])
    if gtype == "temporal":
        if len(fam.events) < 2:
            return None
        k = min(rng.choice((2, 3)), len(fam.events))
        evs = rng.sample(list(fam.events), k)
        days = _days(rng, k, (7, 70))
        rows = []
        for j, ((rel, absolute), d) in enumerate(zip(evs, days)):
            temp = absolute if rng.random() < 0.3 else rel
            rows.append((_fill(temp, holder, date=_datestr(d)), d, ((f"e{j}",),)))
        return _Draft(gtype, rows)
    if gtype == "unrelated":
        v = rng.choice(fam.values)
        pool = fam.related if fam.related and rng.random() < 0.4 else fam.state
        return _Draft(gtype, [(_fill(rng.choice(pool), holder, v=v),
                               _days(rng, 1, (1, 1))[0], (("f",),))])
    raise ValueError(f"unknown group type {gtype!r}")


# -- assembling a part ---------------------------------------------------------------------

class _Builder:
    def __init__(self, part: str) -> None:
        self.part = part
        self.memories: list[Memory] = []
        self.groups: list[DecisionGroup] = []
        self.sentences: dict[tuple[str, str], GoldSentence] = {}

    def fits(self, ns: str, draft: _Draft, gid: str) -> bool:
        """Whether every sentence of ``draft`` is new to ``ns`` (or states the same facts)."""
        seen: dict[str, tuple[str, ...]] = {}
        for text, _day, facts in draft.rows:
            parts = split_sentences(text)
            if len(parts) != len(facts):
                raise ValueError(f"{text!r}: {len(parts)} sentences, {len(facts)} labels")
            for s, f in zip(parts, facts):
                key = norm(s)
                full = tuple(f"{gid}:{t}" for t in f)
                old = self.sentences.get((ns, key))
                if (old is not None and old.facts != full) or seen.get(key, full) != full:
                    return False
                seen[key] = full
        return True

    def add(self, ns: str, draft: _Draft, gid: str) -> None:
        ids: list[str] = []
        facts: list[str] = []
        hour = 9
        for j, (text, day, tags) in enumerate(draft.rows):
            mid = f"{gid}-{j}"
            when = _when(day, 9 if draft.same_instant else hour + j)
            self.memories.append(Memory(text=text, id=mid, namespace=ns, created_at=when,
                                        source=f"decision-set:{self.part}"))
            ids.append(mid)
            for s, tag in zip(split_sentences(text), tags):
                full = tuple(f"{gid}:{t}" for t in tag)
                self.sentences[(ns, norm(s))] = GoldSentence(
                    s, full, day, bool(_RELATIVE.search(s) or _ABSOLUTE.search(s)),
                    bool(_ABSOLUTE.search(s)))
                facts.extend(f for f in full if f not in facts)
        self.groups.append(DecisionGroup(
            gid, draft.type, ns, tuple(ids), tuple(facts),
            frozenset(f"{gid}:{t}" for t in draft.retired),
            tuple(frozenset(f"{gid}:{t}" for t in ex) for ex in draft.exclusive),
            apart=draft.type in ("distinct_related", "unrelated")))


def _hand_draft(item: Hand) -> _Draft:
    gtype, rows = item
    out = [(text, date(YEAR, int(day[:2]), int(day[3:])), facts) for text, day, facts in rows]
    same = gtype == "contradiction"
    if gtype == "update":
        return _Draft(gtype, out, retired={"old"}, exclusive=[{"old", "new"}])
    if gtype == "contradiction":
        return _Draft(gtype, out, exclusive=[{"a", "b"}], same_instant=same)
    return _Draft(gtype, out)


def make_decision_set(part: str = "dev", *, pools: int = POOLS_PER_PART) -> DecisionSet:
    """The ``dev`` (tuning) or ``validation`` part: ``pools`` generated pools of
    :data:`POOL_MIX` groups each, plus a pool of the part's hand-written groups; or the
    ``fresh``, ``blind``, ``sealed``, ``unseen``, ``hidden``, ``withheld``, ``spare``, ``vault``,
    ``keep``, ``ledger``, ``harbour``, ``lantern``, ``quarry`` or ``orchard`` part, hand-written
    groups only in one namespace (:data:`~memmaint.datasets.decision_fresh.FRESH_HAND`,
    :data:`~memmaint.datasets.decision_blind.BLIND_HAND`,
    :data:`~memmaint.datasets.decision_sealed.SEALED_HAND`,
    :data:`~memmaint.datasets.decision_unseen.UNSEEN_HAND`,
    :data:`~memmaint.datasets.decision_hidden.HIDDEN_HAND`,
    :data:`~memmaint.datasets.decision_withheld.WITHHELD_HAND`,
    :data:`~memmaint.datasets.decision_spare.SPARE_HAND`,
    :data:`~memmaint.datasets.decision_vault.VAULT_HAND`,
    :data:`~memmaint.datasets.decision_keep.KEEP_HAND`,
    :data:`~memmaint.datasets.decision_ledger.LEDGER_HAND`,
    :data:`~memmaint.datasets.decision_harbour.HARBOUR_HAND`,
    :data:`~memmaint.datasets.decision_lantern.LANTERN_HAND`,
    :data:`~memmaint.datasets.decision_quarry.QUARRY_HAND`,
    :data:`~memmaint.datasets.decision_orchard.ORCHARD_HAND`; ``pools`` ignored)."""
    if part not in PARTS:
        raise ValueError(f"part must be one of {', '.join(PARTS)}, not {part!r}")
    if part == "fresh":
        from memmaint.datasets.decision_fresh import FRESH_HAND

        return hand_set(FRESH_HAND, part="fresh", namespace="fresh")
    if part == "blind":
        from memmaint.datasets.decision_blind import BLIND_HAND

        return hand_set(BLIND_HAND, part="blind", namespace="blind")
    if part == "sealed":
        from memmaint.datasets.decision_sealed import SEALED_HAND

        return hand_set(SEALED_HAND, part="sealed", namespace="sealed")
    if part == "unseen":
        from memmaint.datasets.decision_unseen import UNSEEN_HAND

        return hand_set(UNSEEN_HAND, part="unseen", namespace="unseen")
    if part == "hidden":
        from memmaint.datasets.decision_hidden import HIDDEN_HAND

        return hand_set(HIDDEN_HAND, part="hidden", namespace="hidden")
    if part == "withheld":
        from memmaint.datasets.decision_withheld import WITHHELD_HAND

        return hand_set(WITHHELD_HAND, part="withheld", namespace="withheld")
    if part == "spare":
        from memmaint.datasets.decision_spare import SPARE_HAND

        return hand_set(SPARE_HAND, part="spare", namespace="spare")
    if part == "vault":
        from memmaint.datasets.decision_vault import VAULT_HAND

        return hand_set(VAULT_HAND, part="vault", namespace="vault")
    if part == "keep":
        from memmaint.datasets.decision_keep import KEEP_HAND

        return hand_set(KEEP_HAND, part="keep", namespace="keep")
    if part == "ledger":
        from memmaint.datasets.decision_ledger import LEDGER_HAND

        return hand_set(LEDGER_HAND, part="ledger", namespace="ledger")
    if part == "harbour":
        from memmaint.datasets.decision_harbour import HARBOUR_HAND

        return hand_set(HARBOUR_HAND, part="harbour", namespace="harbour")
    if part == "lantern":
        from memmaint.datasets.decision_lantern import LANTERN_HAND

        return hand_set(LANTERN_HAND, part="lantern", namespace="lantern")
    if part == "quarry":
        from memmaint.datasets.decision_quarry import QUARRY_HAND

        return hand_set(QUARRY_HAND, part="quarry", namespace="quarry")
    if part == "orchard":
        from memmaint.datasets.decision_orchard import ORCHARD_HAND

        return hand_set(ORCHARD_HAND, part="orchard", namespace="orchard")
    fams, ids, names, hand = ((DEV_FAMILIES, DEV_IDS, DEV_NAMES, DEV_HAND) if part == "dev"
                              else (VAL_FAMILIES, VAL_IDS, VAL_NAMES, VAL_HAND))
    b = _Builder(part)
    for p in range(pools):
        ns = f"{part}-{p:02d}"
        rng = random.Random(f"decisions:{part}:{p}")
        used: set[tuple[str, str]] = set()
        for g, gtype in enumerate(POOL_MIX):
            gid = f"{ns}-g{g:02d}"
            for _attempt in range(200):
                fam = rng.choice(fams)
                holder = rng.choice(fam.holders)
                if (fam.key, holder) in used:
                    continue
                draft = _draft(gtype, fam, holder, rng, ids, names)
                if draft is not None and b.fits(ns, draft, gid):
                    used.add((fam.key, holder))
                    b.add(ns, draft, gid)
                    break
            else:  # pragma: no cover - the families always offer one
                raise RuntimeError(f"no {gtype} group fits pool {ns}")
    _add_hand(b, f"{part}-hand", hand)
    return DecisionSet(part, b.memories, b.groups, b.sentences)


def _add_hand(b: _Builder, ns: str, items: Sequence[Hand]) -> None:
    for g, item in enumerate(items):
        gid = f"{ns}-g{g:02d}"
        draft = _hand_draft(item)
        if not b.fits(ns, draft, gid):
            raise ValueError(f"hand-written group {gid} repeats a sentence")
        b.add(ns, draft, gid)


def hand_set(items: Sequence[Hand], *, part: str = "hand", namespace: str = "hand"
             ) -> DecisionSet:
    """A decision set of hand-written groups only, in one namespace: each item is
    ``(type, ((text, "MM-DD", facts of each sentence), ...))`` (see
    :data:`~memmaint.datasets.decision_items.DEV_HAND`); an update's facts are tagged
    ``old`` and ``new``, a contradiction's ``a`` and ``b``."""
    b = _Builder(part)
    _add_hand(b, namespace, items)
    return DecisionSet(part, b.memories, b.groups, b.sentences)


__all__ = ["GROUP_TYPES", "NOW", "PARTS", "DecisionGroup", "DecisionSet", "GoldSentence",
           "hand_set", "make_decision_set", "norm", "split_sentences"]
