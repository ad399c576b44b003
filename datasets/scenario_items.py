"""The item libraries behind :func:`memmaint.datasets.scenarios.make_scenario`.

The items are in ``data/scenario_items.json``. Each kind (``support``, ``mtg``) has topics;
each topic holds items of the scenario types (an object with a ``type``, one of the keys of
:data:`ITEM_TYPES`, and the fields of that item class), plus one-off noise notes.
Ages are in days before ``now`` and are chosen with a wide margin around every threshold the
expectation depends on (a kind's TTL, ``noise_min_age_days``), so the small per-seed jitter
never flips an expected action. Near-duplicate variants differ only in wording, never in a
number, date or negation; changed facts and contradictions differ in exactly one value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memmaint.datasets import datafiles


@dataclass(frozen=True)
class Dup:
    """Duplicates: the first text and its rewordings (an exact copy is added by the seed)."""

    texts: tuple[str, ...]
    kind: str = "default"


@dataclass(frozen=True)
class Changed:
    """A fact whose value changed: the old statement, the new one, and their ages."""

    old: str
    new: str
    kind: str
    old_age: float
    new_age: float
    required: bool = False


@dataclass(frozen=True)
class Stale:
    """A volatile fact past its kind's TTL; ``fresher`` (if any) covers it with a newer value."""

    text: str
    kind: str
    age: float
    fresher: str | None = None
    fresher_age: float = 1.0


@dataclass(frozen=True)
class Contradiction:
    """Two memories about one subject that disagree (``how``: number, date or negation),
    stored close together in time; the second is the newer."""

    older: str
    newer: str
    how: str
    kind: str = "default"


@dataclass(frozen=True)
class Control:
    text: str
    kind: str = "default"


@dataclass(frozen=True)
class Injection:
    text: str


Item = Dup | Changed | Stale | Contradiction | Control | Injection


ITEM_TYPES: dict[str, type[Item]] = {
    "duplicate": Dup, "changed_fact": Changed, "stale": Stale, "contradiction": Contradiction,
    "control": Control, "injection": Injection,
}


def _item(raw: Mapping[str, Any]) -> Item:
    fields = dict(raw)
    return ITEM_TYPES[fields.pop("type")](**fields)


def _library(kind: str) -> tuple[dict[str, tuple[Item, ...]], tuple[str, ...]]:
    """A kind's topics (topic -> its items) and its noise notes."""
    raw = datafiles.load("scenario_items")[kind]
    return ({topic: tuple(_item(i) for i in items) for topic, items in raw["topics"].items()},
            raw["noise"])


SUPPORT, SUPPORT_NOISE = _library("support")
MTG, MTG_NOISE = _library("mtg")

LIBRARIES = {"support": (SUPPORT, SUPPORT_NOISE), "mtg": (MTG, MTG_NOISE)}
