"""The search space as data.

A :class:`SearchSpace` is an ordered tuple of :class:`Param` values, each naming a dotted
path into :class:`~memmaint.maintenance.core.config.Config` (``"clustering.genkt.p"``). Order
matters: a parameter may carry a ``when`` condition on parameters listed before it, which is
how conditional parameters (UMAP's ``n_neighbors`` only when the reducer is UMAP) reach
Optuna's define-by-run API. Any parameter can be fixed to one value.

The space round-trips through TOML. A user's ``space.toml`` overrides the default space
key by key::

    [params."clustering.genkt.p"]      # narrow a range
    low = -2.5
    high = 0.0

    [params."reduction.method"]        # restrict a choice
    choices = ["umap", "pca"]

    [fixed]                            # pin parameters
    "clustering.algorithm" = "genkt"
    "reduction.n_components" = 3

``replace = true`` at the top level starts from an empty space instead of the default one.
"""

from __future__ import annotations

import dataclasses
import json
import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memmaint.maintenance.core.config import Config, with_overrides
from memmaint.maintenance.core.errors import ConfigError, UserError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

KINDS = ("float", "int", "categorical", "fixed")
TUNABLE_SECTIONS = ("reduction", "clustering")
_PARAM_KEYS = {"name", "type", "low", "high", "log", "step", "choices", "value", "when"}


class SpaceError(UserError):
    """A search-space description (TOML or ``--fix``) is invalid."""


@dataclass(frozen=True)
class Param:
    """One tunable parameter.

    Attributes:
        name: dotted path into :class:`Config` under ``reduction`` or ``clustering``.
        key: the Optuna parameter name (default ``name``). Two entries may share a ``name``
            under different keys when their conditions exclude each other, e.g. t-SNE's
            ``n_components`` (at most 3) beside UMAP's (up to 5).
        kind: ``float``, ``int``, ``categorical`` or ``fixed``.
        low, high: inclusive bounds for ``float``/``int``.
        log: sample on a log scale (``low`` must be > 0).
        step: grid step for ``float``/``int`` (coarse grids let the reduction cache hit).
        choices: values for ``categorical``.
        value: the value of a ``fixed`` parameter.
        when: conditions ``((other_name, allowed_values), ...)``; the parameter exists in a
            trial only when every earlier ``other_name`` took one of ``allowed_values``.
    """

    name: str
    kind: str
    low: float | None = None
    high: float | None = None
    log: bool = False
    step: float | None = None
    choices: tuple[Any, ...] = ()
    value: Any = None
    when: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    key: str = ""

    def __post_init__(self) -> None:
        if not self.key:
            object.__setattr__(self, "key", self.name)

    def active(self, values: Mapping[str, Any]) -> bool:
        """Whether this parameter applies given the values chosen so far."""
        return all(name in values and values[name] in allowed for name, allowed in self.when)

    def fixed(self, value: Any) -> Param:
        """This parameter pinned to ``value`` (its condition is kept)."""
        return dataclasses.replace(self, kind="fixed", value=value, low=None, high=None,
                                   log=False, step=None, choices=())

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.kind}
        if self.key != self.name:
            out["name"] = self.name
        if self.kind in ("float", "int"):
            out["low"], out["high"] = self.low, self.high
            if self.log:
                out["log"] = True
            if self.step is not None:
                out["step"] = self.step
        elif self.kind == "categorical":
            out["choices"] = list(self.choices)
        else:
            out["value"] = self.value
        if self.when:
            out["when"] = {name: list(allowed) for name, allowed in self.when}
        return out

    @classmethod
    def from_dict(cls, key: str, data: Mapping[str, Any]) -> Param:
        """Build (and check) a parameter from its TOML table (``key``: its table name)."""
        where = f"space parameter {key!r}"
        if not isinstance(data, Mapping):
            raise SpaceError(f"{where}: expected a table, got {data!r}")
        unknown = sorted(set(data) - _PARAM_KEYS)
        if unknown:
            raise SpaceError(f"{where}: unknown key(s) {', '.join(unknown)} "
                             f"(valid: {', '.join(sorted(_PARAM_KEYS))})")
        kind = data.get("type")
        if kind not in KINDS:
            raise SpaceError(f"{where}: type must be one of {', '.join(KINDS)}, got {kind!r}")
        when_raw = data.get("when", {})
        if not isinstance(when_raw, Mapping):
            raise SpaceError(f"{where}: 'when' must be a table of name = [allowed values]")
        when = []
        for other, allowed in when_raw.items():
            if not isinstance(allowed, (list, tuple)) or not allowed:
                raise SpaceError(f"{where}: when.{other} must be a non-empty list")
            when.append((str(other), tuple(allowed)))
        name = data.get("name", key)
        if not isinstance(name, str):
            raise SpaceError(f"{where}: name must be a string, got {name!r}")
        param = cls(name=name, key=key, kind=kind, low=data.get("low"), high=data.get("high"),
                    log=bool(data.get("log", False)), step=data.get("step"),
                    choices=tuple(data.get("choices", ())), value=data.get("value"),
                    when=tuple(when))
        param.check()
        return param

    def check(self) -> None:
        """Raise :class:`SpaceError` when the definition cannot be sampled."""
        where = f"space parameter {self.key!r}"
        _check_name(self.name)
        if self.kind in ("float", "int"):
            for label, v in (("low", self.low), ("high", self.high)):
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                    raise SpaceError(f"{where}: {label} must be a finite number, got {v!r}")
            lo, hi = self.bounds
            if self.kind == "int" and not (float(lo).is_integer() and float(hi).is_integer()):
                raise SpaceError(f"{where}: int bounds must be whole numbers")
            if lo > hi:
                raise SpaceError(f"{where}: low {lo} is above high {hi}")
            if self.log and lo <= 0:
                raise SpaceError(f"{where}: a log scale needs low > 0, got {lo}")
            if self.step is not None:
                if self.log:
                    raise SpaceError(f"{where}: step and log cannot be combined")
                if not isinstance(self.step, (int, float)) or self.step <= 0:
                    raise SpaceError(f"{where}: step must be > 0, got {self.step!r}")
        elif self.kind == "categorical":
            if not self.choices:
                raise SpaceError(f"{where}: choices must not be empty")
            for c in self.choices:
                if not isinstance(c, (str, bool, int, float)):
                    raise SpaceError(f"{where}: choice {c!r} is not a string, number or bool")
        elif self.value is None:
            raise SpaceError(f"{where}: a fixed parameter needs a value")
        # every value the parameter can take must be one the config accepts
        edges = {"float": ("low", "high"), "int": ("low", "high")}.get(self.kind)
        if edges:
            for label in edges:
                v = getattr(self, label)
                self._check_config_value(where, label, int(v) if self.kind == "int" else v)
        elif self.kind == "categorical":
            for c in self.choices:
                self._check_config_value(where, "choice", c)

    def _check_config_value(self, where: str, label: str, value: Any) -> None:
        if self.kind == "float" and _LEAVES_TYPES.get(self.name) is int:
            raise SpaceError(f"{where}: {self.name} takes integers; use type = \"int\"")
        try:
            with_overrides(Config(), {self.name: value})
        except ConfigError as exc:
            raise SpaceError(f"{where}: {label} {value!r} is not a valid {self.name} "
                             f"({'; '.join(exc.problems)})") from None

    @property
    def bounds(self) -> tuple[float, float]:
        """(low, high) of a numeric parameter."""
        if self.low is None or self.high is None:
            raise SpaceError(f"space parameter {self.key!r} has no low/high bounds")
        return float(self.low), float(self.high)

    def suggest(self, trial: Any) -> Any:
        """Ask an Optuna trial for a value (fixed parameters answer without asking)."""
        if self.kind == "fixed":
            return self.value
        if self.kind == "categorical":
            return trial.suggest_categorical(self.key, list(self.choices))
        if self.kind == "int":
            step = int(self.step) if self.step is not None else 1
            lo, hi = self.bounds
            return trial.suggest_int(self.key, int(lo), int(hi), step=step, log=self.log)
        lo, hi = self.bounds
        value = trial.suggest_float(self.key, lo, hi, step=self.step, log=self.log)
        # a grid value is low + k * step; drop the float noise (1.9500000000000002)
        return round(value, 10) if self.step is not None else value


def _config_leaves(cls: type = Config, prefix: str = "") -> dict[str, Any]:
    """Every dotted leaf path of the config and its default value."""
    out: dict[str, Any] = {}
    obj = cls()
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        path = f"{prefix}{f.name}"
        if dataclasses.is_dataclass(value):
            out.update(_config_leaves(type(value), path + "."))
        else:
            out[path] = value
    return out


_LEAVES = _config_leaves()
_LEAVES_TYPES = {name: type(v) for name, v in _LEAVES.items()}


def tunable_names() -> list[str]:
    """Every config path a search space may name."""
    return sorted(n for n in _LEAVES if n.split(".")[0] in TUNABLE_SECTIONS)


def _check_name(name: str) -> None:
    if name not in _LEAVES or name.split(".")[0] not in TUNABLE_SECTIONS:
        raise SpaceError(f"unknown tunable parameter {name!r} (valid: "
                         f"{', '.join(tunable_names())})")


@dataclass(frozen=True)
class SearchSpace:
    """An ordered, serialisable set of parameters; see the module docstring."""

    params: tuple[Param, ...]

    def __post_init__(self) -> None:
        keys: set[str] = set()
        names: set[str] = set()
        for p in self.params:
            if p.key in keys:
                raise SpaceError(f"space parameter {p.key!r} is defined twice")
            for other, _ in p.when:
                if other not in names:
                    raise SpaceError(f"space parameter {p.key!r}: its condition names "
                                     f"{other!r}, which is not defined before it")
            keys.add(p.key)
            names.add(p.name)

    @property
    def names(self) -> list[str]:
        """The distinct config paths the space sets, in order."""
        return list(dict.fromkeys(p.name for p in self.params))

    @property
    def keys(self) -> list[str]:
        """The Optuna parameter names, in order."""
        return [p.key for p in self.params]

    def get(self, key: str) -> Param:
        """The parameter with Optuna name ``key``."""
        for p in self.params:
            if p.key == key:
                return p
        raise SpaceError(f"parameter {key!r} is not in the search space "
                         f"(it has: {', '.join(self.keys)})")

    def fix(self, name: str, value: Any) -> SearchSpace:
        """A copy with ``name`` pinned to ``value`` (added if the space lacks it).

        The value is checked against the config's own rules (types, choices, bounds).
        """
        _check_name(name)
        try:
            with_overrides(Config(), {name: value})
        except ConfigError as exc:
            raise SpaceError(f"cannot fix {name}: {'; '.join(exc.problems)}") from None
        if name in self.names:
            # Every entry for this config path is pinned (t-SNE's and UMAP's n_components).
            return SearchSpace(tuple(p.fixed(value) if p.name == name else p
                                     for p in self.params))
        return SearchSpace(self.params + (Param(name=name, kind="fixed", value=value),))

    def fix_many(self, values: Mapping[str, Any]) -> SearchSpace:
        space = self
        for name, value in values.items():
            space = space.fix(name, value)
        return space

    def upper_bound(self, name: str) -> float | None:
        """The largest value a numeric config path can take in this space (None if absent
        or not numeric)."""
        highs = []
        for p in self.params:
            if p.name != name:
                continue
            if p.kind in ("float", "int"):
                highs.append(p.bounds[1])
            elif p.kind == "fixed" and isinstance(p.value, (int, float)) \
                    and not isinstance(p.value, bool):
                highs.append(float(p.value))
            elif p.kind == "categorical":
                nums = [float(c) for c in p.choices
                        if isinstance(c, (int, float)) and not isinstance(c, bool)]
                if len(nums) != len(p.choices):
                    return None
                highs.extend(nums)
        return max(highs) if highs else None

    @property
    def fixed_values(self) -> dict[str, Any]:
        return {p.name: p.value for p in self.params if p.kind == "fixed"}

    def suggest(self, trial: Any) -> dict[str, Any]:
        """Define-by-run: every active parameter's value for one Optuna trial."""
        values: dict[str, Any] = {}
        for p in self.params:
            if p.active(values):
                if p.name in values:
                    raise SpaceError(f"space entries for {p.name!r} overlap: make their "
                                     "'when' conditions exclude each other")
                values[p.name] = p.suggest(trial)
        return values

    def sample_params(self, fixed: Mapping[str, Any]) -> dict[str, Any]:
        """Active parameter values given explicit values (e.g. a finished trial's params).

        Parameters absent from ``fixed`` take their fixed value, or are skipped.
        """
        values: dict[str, Any] = {}
        for p in self.params:
            if not p.active(values) or p.name in values:
                continue
            if p.name in fixed:
                values[p.name] = fixed[p.name]
            elif p.kind == "fixed":
                values[p.name] = p.value
        return values

    def to_config(self, values: Mapping[str, Any], base: Config | None = None) -> Config:
        """The memmaint :class:`Config` for one set of parameter values."""
        return with_overrides(base or Config(), values)

    # -- serialisation ---------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {"params": {p.key: p.to_dict() for p in self.params}}

    def to_toml(self) -> str:
        import tomli_w

        return tomli_w.dumps(self.to_dict())

    def to_json(self) -> str:
        return json.dumps(self.to_dict())  # order matters: conditions refer backwards

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], base: SearchSpace | None = None) -> SearchSpace:
        """Apply a space description to ``base`` (the default space when None).

        ``params.<key>`` tables are merged field by field onto the base parameter with that
        Optuna name (a new one needs its ``type``; new parameters go last); ``fixed`` pins
        config paths to values; ``replace = true`` starts from an empty space.
        """
        if not isinstance(data, Mapping):
            raise SpaceError(f"a search space must be a table, got {data!r}")
        unknown = sorted(set(data) - {"params", "fixed", "replace"})
        if unknown:
            raise SpaceError(f"unknown top-level key(s) in search space: {', '.join(unknown)} "
                             "(valid: params, fixed, replace)")
        replace = data.get("replace", False)
        if not isinstance(replace, bool):
            raise SpaceError("'replace' must be true or false")
        if replace:
            base = SearchSpace(())
        elif base is None:
            base = default_space()
        tables = data.get("params", {})
        if not isinstance(tables, Mapping):
            raise SpaceError("'params' must be a table of parameter tables")
        order = list(base.keys)
        merged = {p.key: p.to_dict() for p in base.params}
        for name, table in tables.items():
            if not isinstance(table, Mapping):
                raise SpaceError(f"space parameter {name!r}: expected a table, got {table!r}")
            if name in merged:
                entry = dict(merged[name])
                new_type = table.get("type", entry["type"])
                if new_type != entry["type"]:
                    entry = {k: v for k, v in entry.items() if k in ("when", "name")}
                entry.update(table)
                entry.setdefault("type", new_type)
                merged[name] = entry
            else:
                merged[name] = dict(table)
                order.append(name)
        params = [Param.from_dict(name, merged[name]) for name in order]
        space = SearchSpace(tuple(params))
        fixed = data.get("fixed", {})
        if not isinstance(fixed, Mapping):
            raise SpaceError("'fixed' must be a table of name = value")
        return space.fix_many(fixed)

    @classmethod
    def from_toml(cls, path: str | Path, base: SearchSpace | None = None) -> SearchSpace:
        p = Path(path)
        try:
            text = p.read_bytes().decode("utf-8")
        except OSError as exc:
            raise SpaceError(f"cannot read search space {p}: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise SpaceError(f"{p}: not UTF-8 text") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise SpaceError(f"{p}: not valid TOML ({exc})") from None
        try:
            return cls.from_dict(data, base=base)
        except SpaceError as exc:
            raise SpaceError(f"{p}: {exc}") from None

    @classmethod
    def from_json(cls, text: str) -> SearchSpace:
        return cls.from_dict({"replace": True, **json.loads(text)})


def parse_fix(text: str) -> tuple[str, Any]:
    """Parse ``--fix name=value``; the value is read as TOML (``-1``, ``"umap"``, ``umap``)."""
    name, sep, raw = text.partition("=")
    name, raw = name.strip(), raw.strip()
    if not sep or not name or not raw:
        raise SpaceError(f"--fix expects name=value, got {text!r}")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw  # a bare word such as umap or genkt
    _check_name(name)
    return name, value


_UMAP = (("reduction.method", ("umap",)),)
_TSNE = (("reduction.method", ("tsne",)),)
_HDB = (("clustering.algorithm", ("hdbscan",)),)
_KT = (("clustering.algorithm", ("genkt",)),)
_LINK = (("clustering.algorithm", ("linkage",)),)


def default_space() -> SearchSpace:
    """The default search space (reduction x clustering), as described in docs/tuning.md.

    Reducer parameters are on coarse grids so that trials share reductions through the
    study's cache; GenKT's p and cos_cut on fine grids so that trials differing only in R
    share a merge history.

    The ranges are search choices inside what the config allows (the constraints declared
    once in :mod:`memmaint.maintenance.core.config`, e.g. R > 0 and finite, hence R's
    log scale from 0.05; p in [-50, 50]; cos_cut in [-1, 1]): every parameter is checked
    against them (:meth:`Param.check`) like a user's space.
    """
    space = SearchSpace((
        Param("reduction.method", "categorical", choices=("none", "pca", "tsne", "umap")),
        Param("reduction.n_components", "int", low=1, high=5,
              when=(("reduction.method", ("pca", "umap")),)),
        # openTSNE embeds in at most 3 dimensions
        Param("reduction.n_components", "int", low=1, high=3, key="reduction.n_components[tsne]",
              when=_TSNE),
        Param("reduction.n_neighbors", "int", low=5, high=50, step=5, when=_UMAP),
        Param("reduction.min_dist", "float", low=0.0, high=0.5, step=0.1, when=_UMAP),
        Param("reduction.metric", "categorical", choices=("cosine", "euclidean"), when=_UMAP),
        Param("reduction.perplexity", "float", low=5.0, high=45.0, step=10.0, when=_TSNE),
        Param("clustering.algorithm", "categorical", choices=("hdbscan", "genkt", "linkage")),
        Param("clustering.linkage.cut_z", "float", low=0.0, high=2.5, step=0.25, when=_LINK),
        Param("clustering.hdbscan.min_cluster_size", "int", low=2, high=50, log=True,
              when=_HDB),
        Param("clustering.hdbscan.min_samples", "int", low=1, high=30, log=True, when=_HDB),
        Param("clustering.hdbscan.cluster_selection_epsilon", "float", low=0.0, high=1.0,
              when=_HDB),
        Param("clustering.hdbscan.cluster_selection_method", "categorical",
              choices=("eom", "leaf"), when=_HDB),
        Param("clustering.genkt.p", "float", low=-3.0, high=2.0, step=0.05, when=_KT),
        Param("clustering.genkt.R", "float", low=0.05, high=5.0, log=True, when=_KT),
        Param("clustering.genkt.cos_cut", "float", low=0.0, high=0.9, step=0.02, when=_KT),
        Param("clustering.genkt.recombination", "categorical", choices=("weighted", "wta"),
              when=_KT),
        Param("clustering.genkt.use_weights", "categorical", choices=(True, False), when=_KT),
    ))
    for param in space.params:
        param.check()
    return space

