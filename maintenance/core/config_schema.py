"""The configuration schema's machinery: field metadata, the number intervals, and the walk
that builds a frozen dataclass from a dict while collecting every problem.

:mod:`memmaint.maintenance.core.config` declares the sections with :func:`option`; this module
knows nothing of them, so a new section or field needs no code here.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any, TypeVar, Union

from memmaint.maintenance.core.errors import ConfigError
from memmaint.maintenance.core.registry import BY_CONFIG_KEY

T = TypeVar("T")


_CLOSED = ("left", "right", "both", "neither")


@dataclass(frozen=True)
class Interval:
    """The numbers a field allows, in scikit-learn's words
    (``sklearn.utils._param_validation.Interval``): ``type`` is :class:`numbers.Integral` or
    :class:`numbers.Real`, ``left``/``right`` the ends (``None``: unbounded), ``closed`` one of
    ``"left"``, ``"right"``, ``"both"``, ``"neither"``. So ``Interval(Real, 0, None,
    closed="neither")`` is "> 0 and finite": an open end excludes infinity, as in sklearn.

    :mod:`memmaint.clustering` turns it into sklearn's own class for the estimators'
    ``_parameter_constraints``; it is spelt out here because importing scikit-learn would add
    most of a second to every ``memmaint`` command, and the core imports no stage. Membership
    is sklearn's, except that booleans are not numbers (the estimators refuse them too).
    """

    type: type
    left: float | None
    right: float | None
    closed: str = "both"

    def __post_init__(self) -> None:
        if self.type not in (Integral, Real) or self.closed not in _CLOSED:
            raise ValueError(f"bad interval {self!r}")

    def __contains__(self, value: object) -> bool:
        if isinstance(value, bool) or not isinstance(value, self.type):
            return False
        v = float(value)  # type: ignore[arg-type]
        if math.isnan(v):
            return False
        lo = -math.inf if self.left is None else self.left
        hi = math.inf if self.right is None else self.right
        if v < lo or (v == lo and self.closed in ("right", "neither")):
            return False
        return not (v > hi or (v == hi and self.closed in ("left", "neither")))

    def describe(self) -> str:
        """``"> 0 and finite"``, ``"an integer >= 2"``, ``">= -1 and <= 1"``."""
        parts = []
        if self.left is not None:
            parts.append(f"{'>=' if self.closed in ('left', 'both') else '>'} {self.left:g}")
        if self.right is not None:
            parts.append(f"{'<=' if self.closed in ('right', 'both') else '<'} {self.right:g}")
        if self.type is Integral:
            return " ".join(["an integer", *parts[:1], *(f"and {x}" for x in parts[1:])])
        if (self.left is None and self.closed in ("right", "neither")) or \
                (self.right is None and self.closed in ("left", "neither")):
            parts.append("finite")
        return " and ".join(parts) or "a number"


def _meta(*, choices: tuple[str, ...] | None = None, min: float | None = None,
          max: float | None = None, doc: str = "", registry: str | None = None,
          constraint: Interval | None = None) -> dict[str, Any]:
    """Field metadata for the loader (see the module docstring)."""
    if constraint is not None and (min is not None or max is not None):
        raise ValueError("give min/max or a constraint, not both")
    return {"choices": choices, "min": min, "max": max, "doc": doc, "registry": registry,
            "constraint": constraint}


def option(default: Any, *, choices: tuple[str, ...] | None = None, min: float | None = None,
         max: float | None = None, doc: str = "", registry: str | None = None,
         constraint: Interval | None = None) -> Any:
    """A dataclass field with loader metadata (mutable defaults copied per instance)."""
    meta = _meta(choices=choices, min=min, max=max, doc=doc, registry=registry,
                 constraint=constraint)
    if isinstance(default, (dict, list)):
        return field(default_factory=lambda: type(default)(default), metadata=meta)
    return field(default=default, metadata=meta)


def _strip_optional(tp: Any) -> tuple[Any, bool]:
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1 and len(typing.get_args(tp)) == 2:
            return args[0], True
    return tp, False


def field_choices(meta: Mapping[str, Any]) -> tuple[str, ...] | None:
    """The values a field's metadata allows: its registry's names, or its fixed choices."""
    if meta.get("registry"):
        return tuple(BY_CONFIG_KEY[meta["registry"]].names())
    choices = meta.get("choices")
    return tuple(choices) if choices else None


def _check_number(path: str, value: Any, constraint: Interval,
                  problems: list[str]) -> None:
    """One problem line when ``value`` is not a number inside ``constraint``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        kind = "an integer" if constraint.type is Integral else "a number"
        problems.append(f"{path}: expected {kind}, got {value!r}")
    elif isinstance(value, float) and math.isnan(value):
        problems.append(f"{path}: NaN is not allowed")
    elif value not in constraint:
        problems.append(f"{path}: {value!r} is out of range: must be {constraint.describe()}")


def _check_value(path: str, value: Any, tp: Any, meta: Mapping[str, Any],
                 problems: list[str]) -> Any:
    base, _optional = _strip_optional(tp)
    constraint = meta.get("constraint")
    if base is bool:
        if not isinstance(value, bool):
            problems.append(f"{path}: expected true or false, got {value!r}")
        return value
    if base is int:
        if isinstance(value, bool) or not isinstance(value, int):
            problems.append(f"{path}: expected an integer, got {value!r}")
            return value
    elif base is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            problems.append(f"{path}: expected a number, got {value!r}")
            return value
        value = float(value)
        if math.isnan(value):
            problems.append(f"{path}: NaN is not allowed")
            return value
    elif base is str:
        if not isinstance(value, str):
            problems.append(f"{path}: expected a string, got {value!r}")
            return value
    elif base is dict or typing.get_origin(base) is dict:
        if not isinstance(value, Mapping):
            problems.append(f"{path}: expected a table, got {value!r}")
            return value
        if constraint is not None:  # a constraint on a table holds for each of its values
            for key, item in value.items():
                _check_number(f"{path}.{key}", item, constraint, problems)
        return dict(value)
    choices = field_choices(meta)
    if choices and value not in choices:
        problems.append(f"{path}: {value!r} is not one of {', '.join(map(str, choices))}")
    if constraint is not None:
        _check_number(path, value, constraint, problems)
    lo, hi = meta.get("min"), meta.get("max")
    if lo is not None and isinstance(value, (int, float)) and value < lo:
        problems.append(f"{path}: {value!r} is below the minimum {lo}")
    if hi is not None and isinstance(value, (int, float)) and value > hi:
        problems.append(f"{path}: {value!r} is above the maximum {hi}")
    return value


def _build(cls: type[T], data: Any, path: str, problems: list[str]) -> T:
    if not isinstance(data, Mapping):
        problems.append(f"{path or 'config'}: expected a table, got {data!r}")
        return cls()
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(data) - set(fields))
    for key in unknown:
        where = f"{path}.{key}" if path else key
        problems.append(f"unknown key {where!r} (valid: {', '.join(sorted(fields))})")
    kwargs: dict[str, Any] = {}
    for name, f in fields.items():
        if name not in data:
            continue
        where = f"{path}.{name}" if path else name
        tp = hints[name]
        if isinstance(tp, type) and dataclasses.is_dataclass(tp):
            kwargs[name] = _build(tp, data[name], where, problems)
        else:
            kwargs[name] = _check_value(where, data[name], tp, f.metadata, problems)
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:  # pragma: no cover - guarded by checks above
        problems.append(f"{path or 'config'}: {exc}")
        return cls()


def build_config(data: Mapping[str, Any], cls: type[T]) -> T:
    """Build the config dataclass ``cls`` from a dict, reporting every problem at once."""
    problems: list[str] = []
    result = _build(cls, data, "", problems)
    if problems:
        raise ConfigError(problems)
    return result


def config_to_dict(obj: Any) -> dict[str, Any]:
    """A config dataclass as a plain dict (``None`` fields omitted, as TOML has no null)."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if value is None:
            continue
        if dataclasses.is_dataclass(value):
            value = config_to_dict(value)
        elif isinstance(value, Mapping):
            value = dict(value)
        out[f.name] = value
    return out


def config_to_toml(obj: Any) -> str:
    """Serialise a config dataclass to TOML (round-trips through :func:`load_config`)."""
    import tomli_w

    return tomli_w.dumps(config_to_dict(obj))
