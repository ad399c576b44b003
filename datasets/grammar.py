"""A small composable grammar for synthetic memories.

The vocabularies (``data/vocab_mtg.json`` and ``data/vocab_support.json``, turned into objects
by the ``vocab_mtg`` and ``vocab_support`` modules) describe *families* of latent
instructions (a synergy, a sideboard plan, a rate limit...) as data: the slots a subject fills,
the canonical wording of the ideal instruction, and for each *facet* of it several paraphrase
frames. This module turns one latent instruction into realistic, noisy observations of it:
rewordings, partial statements, added specifics, a statement split over two memories,
anecdotes, hedges and terse notes.

Frames are plain strings with two kinds of markup:

- ``{slot}``: a value from the subject. An :class:`Entity` renders as its name or one of its
  aliases, a tuple of strings as one of its synonyms (the first is canonical), anything else
  with ``str``.
- ``[a|b|c]``: inline alternatives (``[|very ]`` makes a word optional).

Rendering with ``rng=None`` is canonical: the first alternative, an entity's name, the first
synonym. That is how the latent instruction itself is written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

_ALT = re.compile(r"\[([^\[\]]*)\]")
_SLOT = re.compile(r"\{(\w+)\}")

# First words that are ordinary English (lower-cased after a hedge); anything else
# (card names, plan names, endpoints) keeps its capital.
_COMMON_WORDS = (
    """a an the it its this that these those there they them their we our you your i my me
    always never don't do does keep play run cut side bring hold save use expect most every
    for any no not with against in on at when if after before once only make take board
    mulligan cast crack fetch sequence trim go count treat rate note plan lead be is are was
    were has have had can could should would will one two three four five six seven eight
    nine ten half some all each both either nothing everything sideboarding over under up
    escalate retry refund refunds orders order payments payment failed tokens token access
    requests request customers customer users user webhooks webhook invoices ship shipping
    tracking lunch dinner breakfast catering vpn meetings meeting standup annual monthly
    rotate send check verify tell ask reply answer point route hit calls call limit limits
    data exports export account accounts deletion password passwords reset links link
    sign session sessions email emails new old current plan plans price prices pricing
    give offer charge charges cards card expect assume budget process wait as according per
    from during while going confirmed watching round game internally apparently honestly
    pretty customer-facing coverage testing in-house"""
)
_COMMON_FIRST = frozenset(_COMMON_WORDS.split())


@dataclass(frozen=True)
class Entity:
    """A named thing with surface forms: ``Entity("Lightning Bolt", ("Bolt",))``."""

    name: str
    aliases: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()

    @property
    def forms(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    def __str__(self) -> str:
        return self.name


def pick(rng: np.random.Generator | None, options: Sequence[Any]) -> Any:
    """One of ``options`` (the first when ``rng`` is None)."""
    if not options:
        raise ValueError("nothing to pick from")
    if rng is None:
        return options[0]
    return options[int(rng.integers(len(options)))]


def surface(value: Any, rng: np.random.Generator | None) -> str:
    """How a slot value reads in text."""
    if isinstance(value, Entity):
        return str(pick(rng, value.forms))
    if isinstance(value, tuple):
        return str(pick(rng, value))
    return str(value)


def render(template: str, slots: Mapping[str, Any], rng: np.random.Generator | None = None) -> str:
    """Fill ``template``'s alternatives and slots (canonically when ``rng`` is None)."""
    text = _ALT.sub(lambda m: str(pick(rng, m.group(1).split("|"))), template)

    def slot(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in slots:
            raise KeyError(f"template {template!r} needs slot {name!r}")
        return surface(slots[name], rng)

    text = _SLOT.sub(slot, text)
    return re.sub(r"\s{2,}", " ", text).strip()


def capitalise(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def decapitalise(text: str) -> str:
    """Lower-case the first letter when the first word is ordinary English."""
    first = text.split(" ", 1)[0].strip(",.:;")
    if first.lower() in _COMMON_FIRST and first[1:] == first[1:].lower():  # not "FYI", "API"
        return text[:1].lower() + text[1:]
    return text


def sentence(text: str) -> str:
    text = capitalise(text.strip())
    return text if text[-1:] in ".!?" else text + "."


@dataclass(frozen=True)
class Family:
    """One family of latent instructions.

    Attributes:
        name: short id (``synergy``, ``rate_limit``...).
        kind: the volatility kind (``Memory.kind``) of its memories.
        latent: canonical template of the ideal instruction.
        facets: for each facet of the instruction, its paraphrase frames.
        subjects: enumerates the whole subject space (deterministic, no rng).
        key: slot names whose values identify a subject (two classes never share a key).
        specifics: frames that add a concrete detail an observer might mention.
    """

    name: str
    kind: str
    latent: str
    facets: tuple[tuple[str, ...], ...]
    subjects: Callable[[], list[dict[str, Any]]]
    key: tuple[str, ...]
    specifics: tuple[str, ...] = ()

    def subject_key(self, subject: Mapping[str, Any]) -> tuple[str, ...]:
        return (self.name, *(str(subject[k]) for k in self.key))


@dataclass(frozen=True)
class Style:
    """The voice of one kind of pool: hedges, context clauses, framings, generic specifics.

    ``fillers`` supplies slots used by the generic templates (``{event}``, ``{n}``...): a
    tuple of strings to choose from.
    """

    hedges: tuple[str, ...]
    contexts: tuple[str, ...]
    framings: tuple[str, ...]
    specifics: tuple[str, ...]
    anecdotes: tuple[str, ...]
    fillers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


# How an observation is made; probabilities tuned so that classes are neither
# template-identical nor unrecognisable.
_MODES = ("full", "partial", "specific", "split", "anecdote", "terse")
_MODE_P = np.array([0.22, 0.26, 0.2, 0.14, 0.1, 0.08])
_JOINERS = (". ", "; ", " - ", ". Also, ", ", and ", ". ")
ANCHOR_P = 0.8
HEDGE_P, CONTEXT_P, FRAMING_P = 0.3, 0.35, 0.3


def _anchored(family: Family, facet: int) -> tuple[str, ...]:
    """The frames of a facet that name the subject (mention one of its key slots)."""
    return tuple(f for f in family.facets[facet] if any(f"{{{k}}}" in f for k in family.key))


def _facet_text(family: Family, facet: int, slots: Mapping[str, Any],
                rng: np.random.Generator, anchor: bool = False) -> str:
    frames = (_anchored(family, facet) if anchor else ()) or family.facets[facet]
    return render(str(pick(rng, frames)), slots, rng)


def _compose(family: Family, facets: Sequence[int], slots: Mapping[str, Any],
             rng: np.random.Generator) -> str:
    """Render facets in order, joined like a person would. Most observations name their
    subject somewhere (ANCHOR_P); the rest are the context-free fragments real pools hold."""
    facets = list(facets)
    anchor_at = -1
    if rng.random() < ANCHOR_P:
        anchor_at = next((i for i, f in enumerate(facets) if _anchored(family, f)), -1)
        if anchor_at < 0:
            lead = next(f for f in range(len(family.facets)) if _anchored(family, f))
            facets.insert(0, lead)
            anchor_at = 0
    parts = [_facet_text(family, f, slots, rng, anchor=(i == anchor_at))
             for i, f in enumerate(facets)]
    text = parts[0]
    for part in parts[1:]:
        joiner = str(pick(rng, _JOINERS))
        text = text.rstrip(".") + joiner + (capitalise(part) if joiner.endswith(". ")
                                           else decapitalise(part))
    return text


def _generic(template: str, slots: Mapping[str, Any], style: Style,
             rng: np.random.Generator) -> str:
    merged = dict(style.fillers)
    merged.update(slots)
    return render(template, merged, rng)


def _wrap(body: str, slots: Mapping[str, Any], style: Style, rng: np.random.Generator) -> str:
    """Hedges, context clauses and framings around an observation body."""
    body = body.strip().rstrip(".")
    if rng.random() < HEDGE_P:
        hedge = _generic(str(pick(rng, style.hedges)), slots, style, rng)
        body = f"{hedge} {decapitalise(body)}"
    if rng.random() < CONTEXT_P:
        context = _generic(str(pick(rng, style.contexts)), slots, style, rng)
        if rng.random() < 0.5:
            body = f"{capitalise(context)}, {decapitalise(body)}"
        else:
            body = f"{body} ({context})" if rng.random() < 0.5 else f"{body}, {context}"
    if rng.random() < FRAMING_P:
        framing = str(pick(rng, style.framings))
        body = framing.replace("{b}", decapitalise(body) if framing.index("{b}") else body)
    return sentence(body)


def _terse(text: str) -> str:
    """A hurried note: lower case, no articles, no final period."""
    text = text.lower()
    text = re.sub(r"\b(the|a|an|that|really|just)\s+", "", text)
    text = text.replace(" and ", " + ").replace(" because ", " bc ").replace(" with ", " w/ ")
    return text.rstrip(".")


def observe(family: Family, subject: Mapping[str, Any], n: int, style: Style,
            rng: np.random.Generator) -> list[str]:
    """``n`` noisy observations of one latent instruction, as memory texts."""
    n_facets = len(family.facets)
    out: list[str] = []
    while len(out) < n:
        mode = _MODES[int(rng.choice(len(_MODES), p=_MODE_P))]
        if mode == "split" and (n - len(out) < 2 or n_facets < 2):
            mode = "partial"
        order = [int(i) for i in rng.permutation(n_facets)]
        if mode == "full":
            # the lead facet usually comes first, as people state the point before details
            facets = sorted(order) if rng.random() < 0.6 else order
            out.append(_wrap(_compose(family, facets, subject, rng), subject, style, rng))
        elif mode == "partial":
            k = int(rng.integers(1, max(2, n_facets)))
            out.append(_wrap(_compose(family, order[:k], subject, rng), subject, style, rng))
        elif mode == "specific":
            k = int(rng.integers(1, n_facets + 1))
            body = _compose(family, order[:k], subject, rng).rstrip(".")
            pool = family.specifics + style.specifics if family.specifics else style.specifics
            extra = _generic(str(pick(rng, pool)), subject, style, rng)
            body = f"{body}; {decapitalise(extra)}" if rng.random() < 0.5 else \
                f"{sentence(body)} {sentence(extra)}"
            out.append(_wrap(body, subject, style, rng))
        elif mode == "split":
            cut = int(rng.integers(1, n_facets))
            out.append(_wrap(_compose(family, order[:cut], subject, rng), subject, style, rng))
            out.append(_wrap(_compose(family, order[cut:], subject, rng), subject, style, rng))
        elif mode == "anecdote":
            story = _generic(str(pick(rng, style.anecdotes)), subject, style, rng)
            point = _facet_text(family, order[0], subject, rng, anchor=rng.random() < ANCHOR_P)
            out.append(sentence(f"{story.rstrip('.')}: {decapitalise(point)}"))
        else:  # terse
            k = int(rng.integers(1, n_facets + 1))
            out.append(_terse(_compose(family, order[:k], subject, rng)))
    return out[:n]


def latent_text(family: Family, subject: Mapping[str, Any]) -> str:
    """The ideal instruction a class approximates, in canonical wording."""
    return sentence(render(family.latent, subject, None))


@dataclass(frozen=True)
class Vocabulary:
    """Everything one pool kind needs: its families, voice and one-off noise grammar."""

    name: str
    families: tuple[Family, ...]
    style: Style
    noise: tuple[str, ...]
    noise_fillers: Mapping[str, tuple[str, ...]]
    noise_kind: str = "default"

    def capacity(self) -> int:
        """How many distinct latent instructions (classes) this vocabulary can produce."""
        return sum(len({f.subject_key(s) for s in f.subjects()}) for f in self.families)
