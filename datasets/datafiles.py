"""The package data of :mod:`memmaint.datasets`: word lists and tables as JSON files.

The synthetic vocabularies and the scenario item libraries live in ``datasets/data/``:

- ``vocab_mtg.json``, ``vocab_support.json``: the tables the subject spaces are composed from,
  the families (canonical wording, paraphrase frames per facet, key slots, specifics), the
  style (hedges, contexts, framings...) and the one-off noise grammar of each pool kind.
- ``scenario_items.json``: per scenario kind, its topics with their items and the noise notes.

:func:`load` reads a file once and hands back the same deep-frozen value after that: JSON
arrays become tuples (to the grammar a tuple slot value is a list of synonyms, the first
canonical) and objects read-only mappings. The ``vocab_*`` and ``scenario_items`` modules turn
that into :class:`~memmaint.datasets.grammar.Entity`, :class:`~memmaint.datasets.grammar.Family`
and :class:`~memmaint.datasets.grammar.Style` objects with the helpers below; everything that
is logic (how subjects are composed from the tables) stays in those modules.

An entity is written as its surface forms, name first (``["Lightning Bolt", "Bolt"]``), or,
when it has tags, as ``{"forms": [...], "tags": [...]}``. Where a table of named entities
exists (the mtg ``cards``), a string stands for the entity with that key.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping
from importlib import resources
from types import MappingProxyType
from typing import Any

from memmaint.datasets.grammar import Entity, Family, Style

PACKAGE = "memmaint.datasets"
DATA_DIR = "data"
DATA_FILES = ("vocab_mtg", "vocab_support", "scenario_items")


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    return value


@functools.cache
def load(name: str) -> Any:
    """The parsed ``data/<name>.json`` (one of :data:`DATA_FILES`), deep-frozen and cached."""
    if name not in DATA_FILES:
        raise ValueError(f"unknown data file {name!r} (choose from {', '.join(DATA_FILES)})")
    path = resources.files(PACKAGE) / DATA_DIR / f"{name}.json"
    return _freeze(json.loads(path.read_text(encoding="utf-8")))


def entity(raw: Any, refs: Mapping[str, Entity] | None = None) -> Entity:
    """An :class:`Entity` from its forms, its ``{"forms", "tags"}`` object or a key of ``refs``."""
    if isinstance(raw, str):
        if refs is None or raw not in refs:
            raise KeyError(f"unknown entity reference {raw!r}")
        return refs[raw]
    forms, tags = (raw["forms"], raw.get("tags", ())) if isinstance(raw, Mapping) else (raw, ())
    if not forms:
        raise ValueError("an entity needs at least a name")
    return Entity(str(forms[0]), tuple(forms[1:]), tuple(tags))


def entities(raw: Iterable[Any], refs: Mapping[str, Entity] | None = None) -> tuple[Entity, ...]:
    return tuple(entity(r, refs) for r in raw)


def style(raw: Mapping[str, Any]) -> Style:
    """A :class:`Style` from its ``hedges``, ``contexts``, ``framings``, ``specifics``,
    ``anecdotes`` and ``fillers``."""
    return Style(hedges=raw["hedges"], contexts=raw["contexts"], framings=raw["framings"],
                 specifics=raw["specifics"], anecdotes=raw["anecdotes"],
                 fillers=dict(raw["fillers"]))


def families(raw: Iterable[Mapping[str, Any]],
             subjects: Mapping[str, Callable[[], list[dict[str, Any]]]]) -> tuple[Family, ...]:
    """The families, in file order; ``subjects`` maps each family name to the function that
    enumerates its subject space (there must be exactly one per family)."""
    raw = tuple(raw)
    names = [f["name"] for f in raw]
    if len(set(names)) != len(names) or set(names) != set(subjects):
        raise ValueError(f"families {names} do not match the subject builders {list(subjects)}")
    return tuple(Family(f["name"], f["kind"], f["latent"], f["facets"], subjects[f["name"]],
                        f["key"], f.get("specifics", ())) for f in raw)
