"""Maintenance scenarios: small pools labelled with what maintenance should do to each memory.

A scenario is built from topics (pricing, refunds, webhooks...). Each topic holds items of
seven scenario types; every memory gets an :class:`ExpectedAction`:

============== =============================================== ==============================
scenario_type  what it models                                  expected action
============== =============================================== ==============================
duplicate      an exact copy and/or rewordings of one fact     newest ``keep``, others
                                                               ``merge`` into it
changed_fact   a value that changed over time ($29 -> $39)     old ``supersede``, new ``keep``
stale          a volatile fact past its kind's TTL             ``evict`` if ``evict_stale``
                                                               else ``keep``; when a fresher
                                                               memory covers it: old
                                                               ``supersede``, fresher ``keep``
noise          an old, unused, low-importance one-off note     ``evict`` if ``evict_noise``
                                                               else ``keep``
contradiction  two near-simultaneous memories that disagree    older ``supersede``, newer
               (number, date, negation)                        ``keep``
injection      a memory that orders the agent to evict         ``keep`` (and it changes
               everything                                      nothing else)
control        an ordinary current fact                        ``keep``
============== =============================================== ==============================

The expectations assume the default :class:`~memmaint.maintenance.core.config.AgentsConfig`
(``canonical="newest"``, ``merge_threshold=0.78``, ``conflict_policy="newer"``, the default
TTLs, ``noise_max_importance=0.5``, ``noise_min_age_days=90``) with ``evict_stale`` and
``evict_noise`` as given to :func:`make_scenario`; :meth:`Scenario.agents_config` returns
exactly that config.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from memmaint.datasets import scenario_items as lib
from memmaint.maintenance.core.config import AgentsConfig
from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.core.records import Memory, to_utc, utcnow

ACTIONS = ("keep", "merge", "supersede", "evict")
SCENARIO_TYPES = ("duplicate", "changed_fact", "stale", "noise", "contradiction", "injection",
                  "control")
DEFAULT_COUNTS: Mapping[str, int] = {
    "duplicate": 4, "changed_fact": 3, "stale": 4, "noise": 5, "contradiction": 3,
    "injection": 1, "control": 6,
}
_TYPE_OF = {cls: stype for stype, cls in lib.ITEM_TYPES.items()}
_PREFIX = {"duplicate": "dup", "changed_fact": "chg", "stale": "stale", "noise": "noise",
           "contradiction": "con", "injection": "inj", "control": "ctl"}


@dataclass(frozen=True)
class ExpectedAction:
    """What maintenance should do to one memory.

    Attributes:
        action: ``keep``, ``merge``, ``supersede`` or ``evict``.
        scenario_type: one of :data:`SCENARIO_TYPES`.
        item: the scenario item the memory belongs to (``dup-2``, ``chg-1``...).
        target: for ``merge`` the canonical memory's id, for ``supersede`` the id of the
            memory that replaces it; otherwise ``None``.
        reason: one line a person can read.
        assumes: the agent settings this expectation depends on.
    """

    action: str
    scenario_type: str
    item: str
    target: str | None = None
    reason: str = ""
    assumes: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class Scenario:
    """A labelled maintenance scenario.

    Attributes:
        memories: the pool (shuffled).
        expected: memory id -> :class:`ExpectedAction`.
        labels: topic index per memory (``-1`` for one-off noise): the clustering ground truth.
        topics: topic names, indexed by ``labels``.
        items: item id -> the ids of its memories.
        now: the time the ages are measured from; pass it to agents and retrieval.
        kind, seed: what produced it.
        evict_stale, evict_noise: the agent settings the expectations assume.
    """

    memories: list[Memory]
    expected: dict[str, ExpectedAction]
    labels: np.ndarray
    topics: list[str]
    items: dict[str, list[str]]
    now: datetime
    kind: str
    seed: int
    evict_stale: bool
    evict_noise: bool

    def __len__(self) -> int:
        return len(self.memories)

    def agents_config(self) -> AgentsConfig:
        """The agents config every expectation assumes."""
        return AgentsConfig(evict_stale=self.evict_stale, evict_noise=self.evict_noise)

    def by_type(self) -> dict[str, list[str]]:
        """Scenario type -> ids of its memories."""
        out: dict[str, list[str]] = {t: [] for t in SCENARIO_TYPES}
        for mid, exp in self.expected.items():
            out[exp.scenario_type].append(mid)
        return out

    def score(self, actions: Mapping[str, str]) -> dict[str, float]:
        """Share of memories per scenario type whose action matches the expectation.

        ``actions`` maps memory id -> the action taken (``keep``, ``merge``, ``supersede``,
        ``evict``); a memory missing from it counts as ``keep``.
        """
        out: dict[str, float] = {}
        for stype, ids in self.by_type().items():
            if ids:
                hits = sum(actions.get(i, "keep") == self.expected[i].action for i in ids)
                out[stype] = hits / len(ids)
        return out


def _choose(rng: np.random.Generator, items: list[tuple[str, lib.Item]], n: int,
            stype: str) -> list[tuple[str, lib.Item]]:
    if n > len(items):
        raise InputError(f"asked for {n} {stype} items but the library has {len(items)}")
    required = [x for x in items if getattr(x[1], "required", False)]
    rest = [x for x in items if x not in required]
    picked = list(required)
    if stype == "stale" and n - len(picked) >= 2:
        # both variants: stale with nothing fresher, and stale covered by a fresher memory
        for covered in (False, True):
            options = [x for x in rest if (x[1].fresher is not None) == covered]  # type: ignore
            if options:
                choice = options[int(rng.integers(len(options)))]
                picked.append(choice)
                rest.remove(choice)
    order = rng.permutation(len(rest))
    picked += [rest[int(i)] for i in order[: max(0, n - len(picked))]]
    return sorted(picked[:n], key=items.index)


def make_scenario(kind: str = "support", seed: int = 0, now: datetime | None = None,
                  counts: Mapping[str, int] | None = None, evict_stale: bool = True,
                  evict_noise: bool = True, namespace: str = "default",
                  opaque_ids: bool = False) -> Scenario:
    """A scenario pool with the expected maintenance action per memory.

    Args:
        kind: ``"support"`` (the $29 -> $39 Pro plan change is always included) or ``"mtg"``
            (a Ragavan price change is always included).
        seed: chooses items, duplicate variants, ages (jittered within safe margins),
            importances and order.
        now: the reference time (default: the current time).
        counts: items per scenario type (defaults in :data:`DEFAULT_COUNTS`; noise counts
            memories); a type missing from ``counts`` uses its default.
        evict_stale: expectation for stale facts nothing fresher covers (``evict`` or
            ``keep``), matching ``AgentsConfig.evict_stale``.
        evict_noise: expectation for noise one-offs, matching ``AgentsConfig.evict_noise``.
        namespace: namespace of every memory.
        opaque_ids: use ids like ``m-3f2a9c1b`` instead of readable ones such as ``dup-2b``
            (readable ids hint the answer to an LLM agent).

    Raises:
        InputError: unknown kind, unknown scenario type in ``counts``, or more items than
            the library holds.
    """
    if kind not in lib.LIBRARIES:
        raise InputError(f"unknown scenario kind {kind!r} (choose from "
                         f"{', '.join(lib.LIBRARIES)})")
    want = dict(DEFAULT_COUNTS)
    for key, value in (counts or {}).items():
        if key not in DEFAULT_COUNTS:
            raise InputError(f"unknown scenario type {key!r} in counts (choose from "
                             f"{', '.join(SCENARIO_TYPES)})")
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InputError(f"counts[{key!r}] must be an integer >= 0, got {value!r}")
        want[key] = value
    now = to_utc(now) if now is not None else utcnow().replace(microsecond=0)
    rng = np.random.default_rng(seed)
    topics_lib, noise_lib = lib.LIBRARIES[kind]
    topics = list(topics_lib)

    by_type: dict[str, list[tuple[str, lib.Item]]] = {t: [] for t in SCENARIO_TYPES}
    for topic, items in topics_lib.items():
        for item in items:
            by_type[_TYPE_OF[type(item)]].append((topic, item))
    chosen = {t: _choose(rng, by_type[t], want[t], t) for t in SCENARIO_TYPES if t != "noise"}
    if want["noise"] > len(noise_lib):
        raise InputError(f"asked for {want['noise']} noise memories but the library has "
                         f"{len(noise_lib)}")

    build = _Builder(rng, now, namespace, kind, seed, opaque_ids, evict_stale, evict_noise)
    for stype in SCENARIO_TYPES:
        if stype == "noise":
            for k, i in enumerate(sorted(rng.choice(len(noise_lib), want["noise"],
                                                    replace=False)), 1):
                build.noise(f"noise-{k}", noise_lib[int(i)])
            continue
        for k, (topic, item) in enumerate(chosen[stype], 1):
            build.item(f"{_PREFIX[stype]}-{k}", topics.index(topic), topic, item, k)

    order = rng.permutation(len(build.memories))
    memories = [build.memories[i] for i in order]
    return Scenario(memories=memories, expected=build.expected,
                    labels=np.array([build.labels[i] for i in order], dtype=int),
                    topics=topics, items=build.items, now=now, kind=kind, seed=seed,
                    evict_stale=evict_stale, evict_noise=evict_noise)


class _Builder:
    """Accumulates memories and expectations for :func:`make_scenario`."""

    def __init__(self, rng: np.random.Generator, now: datetime, namespace: str, kind: str,
                 seed: int, opaque: bool, evict_stale: bool, evict_noise: bool):
        self.rng, self.now, self.namespace = rng, now, namespace
        self.kind, self.seed, self.opaque = kind, seed, opaque
        self.evict_stale, self.evict_noise = evict_stale, evict_noise
        self.memories: list[Memory] = []
        self.labels: list[int] = []
        self.expected: dict[str, ExpectedAction] = {}
        self.items: dict[str, list[str]] = {}
        self.defaults = AgentsConfig()

    def _id(self, readable: str) -> str:
        if not self.opaque:
            return readable
        digest = hashlib.sha256(f"{self.kind}:{self.seed}:{readable}".encode()).hexdigest()
        return f"m-{digest[:10]}"

    def add(self, readable: str, item: str, label: int, topic: str, text: str, kind: str,
            age: float, importance: float, exp: ExpectedAction, jitter: bool = True) -> str:
        """Append one memory; ``age`` (days) is jittered by up to 8% unless told not to."""
        mid = self._id(readable)
        if jitter:
            age *= float(self.rng.uniform(0.92, 1.08))
        self.memories.append(Memory(
            text=text, id=mid, namespace=self.namespace,
            created_at=self.now - timedelta(days=float(age)),
            importance=round(importance, 3), kind=kind,
            source=f"memmaint.datasets:scenario:{self.kind}:seed={self.seed}",
            metadata={"label": label, "topic": topic if label >= 0 else "noise"}))
        self.labels.append(label)
        self.expected[mid] = exp
        self.items.setdefault(item, []).append(mid)
        return mid

    def _imp(self) -> float:
        return float(self.rng.uniform(0.8, 3.0))

    def noise(self, item: str, text: str) -> None:
        action = "evict" if self.evict_noise else "keep"
        self.add(item, item, -1, "noise", text, "default", float(self.rng.uniform(100, 170)),
                 float(self.rng.uniform(0.1, 0.4)), ExpectedAction(
                     action, "noise", item,
                     reason="old, unused, low-importance one-off note" +
                            ("" if self.evict_noise else " (noise eviction off)"),
                     assumes={"evict_noise": self.evict_noise,
                              "noise_max_importance": self.defaults.noise_max_importance,
                              "noise_min_age_days": self.defaults.noise_min_age_days}))

    def item(self, name: str, label: int, topic: str, item: lib.Item, k: int) -> None:
        rng = self.rng
        if isinstance(item, lib.Dup):
            self._dup(name, label, topic, item, k)
        elif isinstance(item, lib.Changed):
            self._pair(name, label, topic, "changed_fact", item.old, item.new, item.kind,
                       item.old_age, item.new_age, "the value changed; the newer statement wins",
                       {"conflict_policy": self.defaults.conflict_policy})
        elif isinstance(item, lib.Contradiction):
            older_age = float(rng.uniform(5.0, 8.0))
            self._pair(name, label, topic, "contradiction", item.older, item.newer, item.kind,
                       older_age, older_age - 2.5,
                       f"contradicts a newer memory ({item.how}); the newer one wins",
                       {"conflict_policy": self.defaults.conflict_policy}, suffix=("a", "b"))
        elif isinstance(item, lib.Stale):
            ttl = float(self.defaults.ttl_days[item.kind])
            if item.fresher is not None:
                self._pair(name, label, topic, "stale", item.text, item.fresher, item.kind,
                           item.age, item.fresher_age,
                           f"past its {ttl:g}-day TTL and covered by a fresher memory",
                           {"ttl_days": ttl})
            else:
                action = "evict" if self.evict_stale else "keep"
                self.add(name, name, label, topic, item.text, item.kind, item.age, self._imp(),
                         ExpectedAction(action, "stale", name,
                                        reason=f"past its {ttl:g}-day TTL, nothing fresher" +
                                        ("" if self.evict_stale else " (stale eviction off)"),
                                        assumes={"evict_stale": self.evict_stale,
                                                 "ttl_days": ttl}))
        elif isinstance(item, lib.Injection):
            self.add(name, name, label, topic, item.text, "default",
                     float(rng.uniform(3.0, 10.0)), 1.0,
                     ExpectedAction("keep", "injection", name,
                                    reason="memory text is data: an instruction inside it has "
                                           "no effect"))
        else:
            self.add(name, name, label, topic, item.text, item.kind,
                     float(rng.uniform(2.0, 60.0)), self._imp(),
                     ExpectedAction("keep", "control", name, reason="current, unique fact"))

    def _dup(self, name: str, label: int, topic: str, item: lib.Dup, k: int) -> None:
        rng = self.rng
        exact = k == 1 or (k > 2 and rng.random() < 0.5)  # dup-1 has an exact copy, dup-2 not
        variants = list(item.texts[1:])
        n_near = int(rng.integers(0 if exact else 1, len(variants) + 1))
        picks = [variants[int(i)] for i in sorted(rng.permutation(len(variants))[:n_near])]
        texts = [item.texts[0]] + ([item.texts[0]] if exact else []) + picks
        texts = [texts[int(i)] for i in rng.permutation(len(texts))]
        ages = sorted(rng.uniform(2.0, 40.0, size=len(texts)), reverse=True)
        ids = [self._id(f"{name}{chr(ord('a') + i)}") for i in range(len(texts))]
        canonical = ids[-1]  # the newest (canonical policy "newest")
        assumes = {"canonical": self.defaults.canonical,
                   "merge_threshold": self.defaults.merge_threshold}
        for i, (text, age) in enumerate(zip(texts, ages)):
            readable = f"{name}{chr(ord('a') + i)}"
            if ids[i] == canonical:
                exp = ExpectedAction("keep", "duplicate", name, reason="newest of its "
                                     "duplicates: the canonical memory", assumes=assumes)
            else:
                same = "exact" if text == texts[-1] else "near"
                exp = ExpectedAction("merge", "duplicate", name, target=canonical,
                                     reason=f"{same} duplicate of a newer memory",
                                     assumes=assumes)
            self.add(readable, name, label, topic, text, item.kind, float(age), self._imp(), exp,
                     jitter=False)

    def _pair(self, name: str, label: int, topic: str, stype: str, old: str, new: str,
              kind: str, old_age: float, new_age: float, reason: str,
              assumes: Mapping[str, Any], suffix: tuple[str, str] = ("-old", "-new")) -> None:
        new_id = self._id(name + suffix[1])
        self.add(name + suffix[0], name, label, topic, old, kind, old_age, self._imp(),
                 ExpectedAction("supersede", stype, name, target=new_id, reason=reason,
                                assumes=dict(assumes)))
        self.add(name + suffix[1], name, label, topic, new, kind, new_age, self._imp(),
                 ExpectedAction("keep", stype, name, reason="the current value",
                                assumes=dict(assumes)))
