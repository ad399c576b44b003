"""Choosing the agent backend: the one place that knows ``agents.backend``.

Backends are factories in the agent registry
(:data:`memmaint.maintenance.core.registry.AGENTS`): ``factory(config)`` returns a planner
``planner(pool, labels, embeddings, now=..., namespace=..., plan_id=...) -> Plan``. The
built-ins are ``rules`` (:func:`memmaint.maintenance.agents.rules.rules_agent`) and ``llm``
(:func:`memmaint.maintenance.agents.llm.llm_agent`); this module sits above both.

A factory with ``plans_in_chunks = True`` plans every cluster on its own and deterministically,
so the job's executors may plan chunks of clusters on workers and join them
(:func:`plans_in_chunks`; :func:`memmaint.maintenance.job.executors.plan_on`); any other
backend is planned in one call. A factory with ``cluster_size_limit(config)`` says how large
a cluster it can read; the job splits larger ones first (:func:`cluster_size_limit`). A
factory with ``reads_siblings = True`` (the rules) is given the serve history's siblings
(``siblings=``, :func:`memmaint.maintenance.agents.outcome_rules.served_siblings`) when the
store keeps one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from memmaint.maintenance.core.config import AgentsConfig, Config
from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.core.registry import AGENTS
from memmaint.maintenance.plan.model import Plan

PlannerFactory = Callable[[Any], Callable[..., Plan]]


def register_agent(name: str, factory: PlannerFactory) -> None:
    """Make ``agents.backend = name`` plan with ``factory(config)``."""
    AGENTS.register(name, factory)


def agents_section(config: Config | AgentsConfig | None) -> AgentsConfig:
    """The ``[agents]`` section of a whole config (or the section itself)."""
    if config is None:
        return AgentsConfig()
    return config.agents if isinstance(config, Config) else config


def plans_in_chunks(config: Config | AgentsConfig | None) -> bool:
    """True when the configured backend may be planned in chunks of clusters on workers."""
    factory = AGENTS.get(agents_section(config).backend)
    return bool(getattr(factory, "plans_in_chunks", False))


def cluster_size_limit(config: Config | AgentsConfig | None) -> int | None:
    """The largest cluster the configured backend plans itself (a factory's
    ``cluster_size_limit(config)``), or ``None`` for no limit: the job cuts larger clusters
    into pieces of that size before planning (:func:`memmaint.clustering.history.split_large`)."""
    factory = AGENTS.get(agents_section(config).backend)
    limit = getattr(factory, "cluster_size_limit", None)
    return limit(config) if callable(limit) else None


def plan(pool: Sequence[Memory], labels: Sequence[int] | np.ndarray, embeddings: Any,
         config: Config | AgentsConfig | None = None, now: datetime | None = None,
         namespace: str | None = None, plan_id: str | None = None,
         siblings: Mapping[tuple[str, str], Sequence[str]] | None = None) -> Plan:
    """Plan with the backend ``agents.backend`` names (``rules`` by default).

    ``config`` is a whole :class:`Config` or only its ``AgentsConfig`` (enough for the
    rules; the LLM backend needs the whole config for its ``[llm]`` section).
    """
    factory = AGENTS.get(agents_section(config).backend)
    planner = factory(config if config is not None else AgentsConfig())
    extra = {"siblings": siblings} if siblings and getattr(factory, "reads_siblings",
                                                           False) else {}
    return planner(pool, labels, embeddings, now=now, namespace=namespace, plan_id=plan_id,
                   **extra)
