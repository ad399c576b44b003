"""Vocabulary and grammar of the ``mtg`` pool: a Magic: The Gathering deck-building assistant.

Latent instructions are card synergies, archetype game plans, mana bases, sideboard plans,
matchups, card evaluations, meta threats, mulligan rules and sequencing tips. The words live in
``data/vocab_mtg.json`` (cards, archetypes, curated facts, families, style, noise); this module
composes the subject spaces from its archetype and card tables (sideboard plans and matchups
are archetype x opponent pairs), so there are several hundred distinct subjects.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memmaint.datasets import datafiles
from memmaint.datasets.grammar import Entity, Vocabulary

_DATA = datafiles.load("vocab_mtg")


@dataclass(frozen=True)
class Archetype:
    card: Entity  # the archetype as a nameable thing
    fmt: str
    colors: str
    cards: tuple[Entity, ...]  # core first, flex slots last
    plan: tuple[str, ...]  # synonyms of its game plan (verb phrase)
    turn: int
    lands: int
    fetch: int
    key_land: Entity
    mull: tuple[str, ...]  # what a keepable hand needs
    weak: tuple[str, ...]  # hate tags that hurt it


# -- cards, by key (``BOLT``, ``RAGAVAN``...); the tables below refer to them by key ---------
CARDS: dict[str, Entity] = {key: datafiles.entity(raw) for key, raw in _DATA["cards"].items()}


def _card(raw: Any) -> Entity:
    return datafiles.entity(raw, CARDS)


def _archetype(raw: Mapping[str, Any]) -> Archetype:
    return Archetype(Entity(raw["name"], raw["aliases"]), raw["format"], raw["colors"],
                     tuple(_card(c) for c in raw["cards"]), raw["plan"], raw["turn"],
                     raw["lands"], raw["fetch"], _card(raw["key_land"]), raw["mulligan"],
                     raw["weak"])


# Sideboard cards, tagged by what they hate on, with the colours they need.
HATE: tuple[tuple[Entity, str], ...] = tuple((_card(h["card"]), h["colors"])
                                             for h in _DATA["hate"])
# Hate tag -> ways to say why that hate card is good in the matchup.
WEAKNESS: dict[str, tuple[str, ...]] = dict(_DATA["weakness"])
ARCHETYPES: tuple[Archetype, ...] = tuple(_archetype(a) for a in _DATA["archetypes"])

_BY = {a.card.name: a for a in ARCHETYPES}

# -- curated facts: (archetype name, card, card, reasons) and (card, format, verdicts, reasons)
SYNERGIES: tuple[tuple[str, Entity, Entity, tuple[str, ...]], ...] = tuple(
    (s["arch"], _card(s["a"]), _card(s["b"]), s["why"]) for s in _DATA["synergies"])
CARD_EVALS: tuple[tuple[Entity, str, tuple[str, ...], tuple[str, ...]], ...] = tuple(
    (_card(c["card"]), c["format"], c["verdict"], c["reason"]) for c in _DATA["card_evals"])
SEQUENCING: tuple[tuple[str, Entity, Entity, tuple[str, ...]], ...] = tuple(
    (s["arch"], _card(s["first"]), _card(s["second"]), s["why"]) for s in _DATA["sequencing"])

# Matchup stance -> (ways to say it, game-one win percentage it centres on).
STANCE: dict[str, tuple[tuple[str, ...], int]] = {
    s["name"]: (s["words"], s["pct"]) for s in _DATA["stances"]}
SIDEBOARD_COUNTS: tuple[str, ...] = _DATA["options"]["sideboard"]["k"]


def _crc(*parts: str) -> int:
    return zlib.crc32("|".join(parts).encode())


def _nth(options: Sequence[Any], h: int) -> Any:
    return options[h % len(options)]


def _hate_for(arch: Archetype, opp: Archetype) -> Entity | None:
    """A sideboard card the archetype can cast that hits one of the opponent's weaknesses."""
    fits = [card for card, color in HATE
            if card.tags and card.tags[0] in opp.weak
            and (not color or set(color) <= set(arch.colors))]
    return fits[_crc("hate", arch.card.name, opp.card.name) % len(fits)] if fits else None


# -- subject spaces -----------------------------------------------------------------------
def _synergy_subjects() -> list[dict[str, Any]]:
    return [{"arch": _BY[a].card, "a": x, "b": y, "why": why} for a, x, y, why in SYNERGIES]


def _eval_subjects() -> list[dict[str, Any]]:
    return [{"card": c, "fmt": f, "verdict": v, "reason": r} for c, f, v, r in CARD_EVALS]


def _arch_subjects() -> list[dict[str, Any]]:
    return [{"arch": a.card, "plan": a.plan, "key": a.cards[0], "turn": a.turn}
            for a in ARCHETYPES]


def _mana_subjects() -> list[dict[str, Any]]:
    return [{"arch": a.card, "lands": a.lands, "fetch": a.fetch, "key_land": a.key_land,
             "min": a.lands - 1} for a in ARCHETYPES]


def _sideboard_subjects() -> list[dict[str, Any]]:
    out = []
    for arch in ARCHETYPES:
        for opp in ARCHETYPES:
            if opp is arch or opp.fmt != arch.fmt:
                continue
            hate = _hate_for(arch, opp)
            if hate is None:
                continue
            h = _crc(arch.card.name, opp.card.name)
            flex = arch.cards[len(arch.cards) // 2:]
            out.append({"arch": arch.card, "opp": opp.card, "hate": hate,
                        "k": _nth(SIDEBOARD_COUNTS, h), "out": _nth(flex, h),
                        "weak": WEAKNESS[hate.tags[0]]})
    return out


# Interaction a deck can hold back for the opponent's key threat.
ANSWERS = frozenset(CARDS[key].name for key in _DATA["answers"])
FALLBACK_ANSWER = datafiles.entity(_DATA["fallback_answer"])


def _answer(arch: Archetype, opp: Archetype, h: int) -> Entity:
    answers = [c for c in arch.cards if c.name in ANSWERS]
    if answers:
        return answers[h % len(answers)]
    return _hate_for(arch, opp) or FALLBACK_ANSWER


def _matchup_subjects() -> list[dict[str, Any]]:
    out = []
    for arch in ARCHETYPES:
        for opp in ARCHETYPES:
            if opp is arch or opp.fmt != arch.fmt:
                continue
            h = _crc("matchup", arch.card.name, opp.card.name)
            words, pct = STANCE[_nth(tuple(STANCE), h)]
            out.append({"arch": arch.card, "opp": opp.card, "stance": words,
                        "pct": pct + (h >> 4) % 6 - (0 if pct == 50 else 2),
                        "threat": opp.cards[0], "answer": _answer(arch, opp, h >> 8)})
    return out


def _meta_subjects() -> list[dict[str, Any]]:
    out = []
    for opp in ARCHETYPES:
        h = _crc("meta", opp.card.name)
        hate = next((c for c, _ in HATE if c.tags and c.tags[0] in opp.weak), HATE[0][0])
        out.append({"opp": opp.card, "fmt": opp.fmt, "share": 6 + h % 12, "hate": hate,
                    "threat": opp.cards[0]})
    return out


def _mulligan_subjects() -> list[dict[str, Any]]:
    return [{"arch": a.card, "req": a.mull, "key": a.cards[0]} for a in ARCHETYPES]


def _sequencing_subjects() -> list[dict[str, Any]]:
    return [{"arch": _BY[a].card, "first": x, "second": y, "why": why}
            for a, x, y, why in SEQUENCING]


# -- families, voice, noise ---------------------------------------------------------------
SUBJECTS = {
    "synergy": _synergy_subjects, "card_eval": _eval_subjects, "archetype": _arch_subjects,
    "mana": _mana_subjects, "sideboard": _sideboard_subjects, "matchup": _matchup_subjects,
    "meta": _meta_subjects, "mulligan": _mulligan_subjects, "sequencing": _sequencing_subjects,
}
FAMILIES = datafiles.families(_DATA["families"], SUBJECTS)
STYLE = datafiles.style(_DATA["style"])
# One-off notes that belong to no latent instruction.
NOISE: tuple[str, ...] = _DATA["noise"]
NOISE_FILLERS: dict[str, tuple[str, ...]] = {**STYLE.fillers, **_DATA["noise_fillers"]}

VOCABULARY = Vocabulary("mtg", FAMILIES, STYLE, NOISE, NOISE_FILLERS)
