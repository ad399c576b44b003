"""The datasets' package data: the JSON files load, hold what the generators read, and resolve."""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources

import pytest

from memmaint.datasets import datafiles, scenario_items, vocab_mtg, vocab_support
from memmaint.datasets.grammar import Entity, Family, Style, Vocabulary
from memmaint.datasets.pools import get_vocabulary
from memmaint.datasets.scenarios import SCENARIO_TYPES

VOCAB_KEYS = {"families", "style", "noise", "noise_fillers"}
MTG_KEYS = VOCAB_KEYS | {"cards", "hate", "weakness", "archetypes", "synergies", "card_evals",
                         "sequencing", "stances", "answers", "fallback_answer", "options"}
SUPPORT_KEYS = VOCAB_KEYS | {"plans", "endpoints", "units", "tokens", "methods", "products",
                             "regions", "carriers", "events", "issues", "teams", "meetings",
                             "rooms", "it_things", "catering", "account_ops", "options"}
STYLE_KEYS = {"hedges", "contexts", "framings", "specifics", "anecdotes", "fillers"}
FAMILY_KEYS = {"name", "kind", "key", "latent", "facets"}
KINDS = ("price", "availability", "schedule", "reference", "default")


@pytest.mark.parametrize("name", datafiles.DATA_FILES)
def test_every_data_file_is_package_data_and_valid_json(name):
    path = resources.files("memmaint.datasets") / "data" / f"{name}.json"
    assert path.is_file()
    assert json.loads(path.read_text(encoding="utf-8"))


def test_load_is_cached_and_frozen():
    data = datafiles.load("vocab_support")
    assert datafiles.load("vocab_support") is data
    assert isinstance(data, Mapping) and isinstance(data["rooms"], tuple)
    with pytest.raises(TypeError):
        data["rooms"] = ()  # type: ignore[index]
    with pytest.raises(ValueError, match="unknown data file"):
        datafiles.load("nope")


def test_entity_forms_tags_and_references():
    bolt = datafiles.entity(["Lightning Bolt", "Bolt"])
    assert bolt == Entity("Lightning Bolt", ("Bolt",))
    assert datafiles.entity({"forms": ["Rest in Peace", "RIP"], "tags": ["graveyard"]}) == \
        Entity("Rest in Peace", ("RIP",), ("graveyard",))
    assert datafiles.entity("BOLT", {"BOLT": bolt}) is bolt
    with pytest.raises(KeyError):
        datafiles.entity("BOLT")
    with pytest.raises(ValueError):
        datafiles.entity([])


def _check_vocab_data(data: Mapping, keys: set[str], subjects: Mapping) -> None:
    assert keys <= set(data)
    assert STYLE_KEYS <= set(data["style"])
    assert all(data["style"][k] for k in STYLE_KEYS)
    assert data["noise"] and all(isinstance(t, str) and t for t in data["noise"])
    assert data["noise_fillers"]
    names = [f["name"] for f in data["families"]]
    assert names and sorted(names) == sorted(subjects) and len(set(names)) == len(names)
    for f in data["families"]:
        assert FAMILY_KEYS <= set(f), f["name"]
        assert f["kind"] in KINDS and f["key"] and f["latent"]
        assert f["facets"] and all(frames and all(isinstance(t, str) for t in frames)
                                   for frames in f["facets"])


def test_mtg_data_has_what_the_generators_read():
    data = datafiles.load("vocab_mtg")
    _check_vocab_data(data, MTG_KEYS, vocab_mtg.SUBJECTS)
    cards = vocab_mtg.CARDS
    assert len(cards) == len(data["cards"]) > 50
    assert all(k in cards for k in data["answers"])
    for arch in data["archetypes"]:
        assert {"name", "aliases", "format", "colors", "cards", "plan", "turn", "lands", "fetch",
                "key_land", "mulligan", "weak"} <= set(arch)
        assert set(arch["weak"]) <= set(data["weakness"])
    arch_names = {a["name"] for a in data["archetypes"]}
    assert {s["arch"] for s in data["synergies"]} <= arch_names
    assert {s["arch"] for s in data["sequencing"]} <= arch_names
    assert {c.tags[0] for c, _ in vocab_mtg.HATE} <= set(data["weakness"])
    assert {s["name"] for s in data["stances"]} == {"favored", "unfavored", "even"}
    assert data["options"]["sideboard"]["k"]


def test_support_data_has_what_the_generators_read():
    data = datafiles.load("vocab_support")
    _check_vocab_data(data, SUPPORT_KEYS, vocab_support.SUBJECTS)
    for table in ("endpoints", "methods", "products", "regions", "carriers", "events", "issues",
                  "teams", "meetings", "rooms", "units"):
        assert data[table], table
    assert {unit for unit, _ in data["units"]} == set(data["options"]["rate_limit"]["n"])
    for family, slots in {"rate_limit": ("n",), "payment_retry": ("days", "after"),
                          "settlement": ("settle", "currencies"),
                          "refund": ("days", "where", "partial"), "shipping": ("cutoff",),
                          "webhook": ("hours", "tolerance"), "escalation": ("sla", "cond"),
                          "meeting": ("day", "time")}.items():
        for slot in slots:
            assert data["options"][family][slot], (family, slot)


@pytest.mark.parametrize("kind", ("mtg", "support"))
def test_vocabularies_are_built_from_the_data(kind):
    vocab = get_vocabulary(kind)
    assert isinstance(vocab, Vocabulary) and isinstance(vocab.style, Style)
    assert all(isinstance(f, Family) for f in vocab.families)
    assert vocab.capacity() > 100
    for family in vocab.families:
        subjects = family.subjects()
        assert subjects, family.name
        for subject in subjects:
            assert all(k in subject for k in family.key)
    # every generic slot the voice and noise use has fillers
    assert set(vocab.style.fillers) <= set(vocab.noise_fillers)


def test_scenario_items_data_has_what_the_generators_read():
    data = datafiles.load("scenario_items")
    assert set(data) == set(scenario_items.LIBRARIES) == {"support", "mtg"}
    assert set(scenario_items.ITEM_TYPES) | {"noise"} == set(SCENARIO_TYPES)
    for kind, raw in data.items():
        assert raw["topics"] and raw["noise"]
        topics, noise = scenario_items.LIBRARIES[kind]
        assert list(topics) == list(raw["topics"]) and noise == raw["noise"]
        types = {item["type"] for items in raw["topics"].values() for item in items}
        assert types == set(scenario_items.ITEM_TYPES), kind
        for items in topics.values():
            assert items and all(isinstance(i, tuple(scenario_items.ITEM_TYPES.values()))
                                 for i in items)
        assert any(getattr(i, "required", False) for items in topics.values() for i in items)
