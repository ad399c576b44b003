"""Registries: the one source of the names a configuration may use.

Each pluggable kind (embedders, reducers, clusterers, agent backends) has one
:class:`Registry`. Config validation asks the registry which names exist, so whatever is
registered is selectable from TOML (``register_clusterer("mine", factory)`` makes
``[clustering] algorithm = "mine"`` valid).

Built-in components are declared as entry points in ``pyproject.toml``
(``[project.entry-points."memmaint.clusterers"]`` and so on), the way Python plugins are
found: the registry lists their names from package metadata without importing them and
imports a component only when it is asked for. So this module, like all of
``memmaint.maintenance.core``, imports no stage; third-party packages can add components
through the same entry-point groups.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Generic, TypeVar

from memmaint.maintenance.core.errors import ConfigError

log = logging.getLogger(__name__)

T = TypeVar("T", bound=Callable[..., Any])


@cache
def _entry_points(group: str) -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=group)}


class Registry(Generic[T]):
    """Names -> factories for one kind of component.

    Args:
        kind: what the factories build, for messages (``"clusterer"``).
        group: the entry-point group holding the built-in and plug-in factories.
        config_key: the configuration key that selects one (``"clustering.algorithm"``).
    """

    def __init__(self, kind: str, group: str, config_key: str) -> None:
        self.kind = kind
        self.group = group
        self.config_key = config_key
        self._factories: dict[str, T] = {}
        self._lock = threading.Lock()

    def register(self, name: str, factory: T, *, replace: bool = True) -> None:
        """Make ``factory`` available under ``name`` (replacing an earlier one unless
        ``replace`` is false, when a second registration raises ``ValueError``)."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"a {self.kind} name must be a non-empty string, got {name!r}")
        with self._lock:
            if not replace and name in self.names():
                raise ValueError(f"a {self.kind} named {name!r} is already registered")
            self._factories[name] = factory

    def names(self) -> list[str]:
        """Every selectable name (registered at run time or declared as an entry point)."""
        return sorted(set(self._factories) | set(_entry_points(self.group)))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.names()

    def get(self, name: str) -> T:
        """The factory for ``name``; an unknown name is a :class:`ConfigError` naming the key
        and the valid choices."""
        factory = self._factories.get(name)
        if factory is not None:
            return factory
        ep = _entry_points(self.group).get(name)
        if ep is None:
            raise ConfigError(f"{self.config_key}: unknown {self.kind} {name!r} "
                              f"(valid: {', '.join(self.names())})")
        loaded = ep.load()
        with self._lock:
            self._factories.setdefault(name, loaded)
        return self._factories[name]

    def unregister(self, name: str) -> None:
        """Forget a run-time registration (entry points stay)."""
        with self._lock:
            self._factories.pop(name, None)


EMBEDDERS: Registry[Callable[..., Any]] = Registry(
    "embedder", "memmaint.embedders", "embedding.model")
REDUCERS: Registry[Callable[..., Any]] = Registry(
    "reduction method", "memmaint.reducers", "reduction.method")
CLUSTERERS: Registry[Callable[..., Any]] = Registry(
    "clustering algorithm", "memmaint.clusterers", "clustering.algorithm")
AGENTS: Registry[Callable[..., Any]] = Registry(
    "agent backend", "memmaint.agents", "agents.backend")

#: config key -> registry, for the config loader.
BY_CONFIG_KEY: dict[str, Registry[Any]] = {
    r.config_key: r for r in (EMBEDDERS, REDUCERS, CLUSTERERS, AGENTS)}
