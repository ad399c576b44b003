"""What the clustering estimators share (private): hyper-parameters declared once, and the
meaning of all-zero importance weights.

Each estimator's parameters are the fields of one config section of
:mod:`memmaint.maintenance.core.config` (``GenKTConfig``, ``HDBSCANConfig``): their defaults
are the section's defaults and their scikit-learn ``_parameter_constraints`` are built here
from the section's field metadata (its :class:`~memmaint.maintenance.core.config.Interval`
constraints, ``choices`` and types). So the TOML loader and ``fit`` refuse the same values
and nothing is repeated in the estimators.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Iterable, Mapping
from numbers import Integral, Real
from typing import Any, Union

import numpy as np
from sklearn.utils._param_validation import (
    Interval,
    InvalidParameterError,
    StrOptions,
    make_constraint,
    validate_parameter_constraints,
)

from memmaint.maintenance.core import config as core_config
from memmaint.maintenance.core.config import field_choices
from memmaint.maintenance.core.errors import UserError

__all__ = [
    "InvalidParameter",
    "NumberInterval",
    "constraint_problems",
    "importance_weights",
    "parameter_constraints",
    "to_sklearn",
    "validate_params",
]


class InvalidParameter(UserError, InvalidParameterError):
    """A hyper-parameter outside its declared constraint.

    A :class:`~memmaint.maintenance.core.errors.UserError` (the CLI prints one line, exit
    code 2) and scikit-learn's ``InvalidParameterError`` (a ``ValueError`` and ``TypeError``,
    with sklearn's message), so it is what both memmaint and sklearn's checks expect.
    """


class NumberInterval(Interval):
    """sklearn's ``Interval`` refusing booleans (``True`` is not a radius), as the config
    loader does."""

    def is_satisfied_by(self, val: Any) -> bool:
        if isinstance(val, (bool, np.bool_)):
            return False
        return bool(super().is_satisfied_by(val))


def to_sklearn(constraint: core_config.Interval) -> NumberInterval:
    """The sklearn constraint for a config :class:`~memmaint.maintenance.core.config.Interval`."""
    return NumberInterval(constraint.type, constraint.left, constraint.right,
                          closed=constraint.closed)


def _strip_optional(tp: Any) -> tuple[Any, bool]:
    if typing.get_origin(tp) in (Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
    return tp, False


def _field_constraints(f: dataclasses.Field[Any], tp: Any) -> list[Any]:
    base, optional = _strip_optional(tp)
    meta = f.metadata
    choices = field_choices(meta)
    out: list[Any]
    if meta.get("constraint") is not None:
        out = [to_sklearn(meta["constraint"])]
    elif choices:
        out = [StrOptions(set(choices))]
    elif base is bool:
        out = ["boolean"]
    elif base in (int, float):
        number = Integral if base is int else Real
        lo, hi = meta.get("min"), meta.get("max")
        out = [NumberInterval(number, lo, hi, closed="both")] if lo is not None or \
            hi is not None else [NumberInterval(number, None, None, closed="neither")]
    else:
        out = [base]
    return out + [None] if optional else out


def parameter_constraints(section: type, *, exclude: Iterable[str] = ()) -> dict[str, list[Any]]:
    """``_parameter_constraints`` for the fields of the config dataclass ``section`` (less
    ``exclude``)."""
    hints = typing.get_type_hints(section)
    skip = set(exclude)
    return {f.name: _field_constraints(f, hints[f.name])
            for f in dataclasses.fields(section) if f.name not in skip}


def constraint_problems(constraints: Mapping[str, list[Any]],
                        params: Mapping[str, Any]) -> list[str]:
    """One line per parameter that satisfies none of its constraints
    (``"R must be a float in the range (0.0, inf), got -1.0"``)."""
    problems = []
    for name, value in params.items():
        allowed = [make_constraint(c) for c in constraints[name]]
        if not any(c.is_satisfied_by(value) for c in allowed):
            shown = [str(c) for c in allowed if not c.hidden]
            words = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]
            problems.append(f"{name} must be {words}, got {value!r}")
    return problems


def validate_params(estimator: Any) -> None:
    """Check ``estimator``'s parameters against its ``_parameter_constraints``
    (:class:`InvalidParameter`, with scikit-learn's message, for the first bad one)."""
    try:
        validate_parameter_constraints(estimator._parameter_constraints,
                                       estimator.get_params(deep=False),
                                       caller_name=type(estimator).__name__)
    except InvalidParameter:
        raise
    except InvalidParameterError as exc:
        raise InvalidParameter(str(exc)) from None


def importance_weights(weights: Any) -> Any:
    """``weights`` as :class:`~memmaint.clustering.pipeline.Clusterer` ``fit_predict`` passes
    them on to ``fit``: memory importances that are all zero say that no memory matters
    more than another, which is what equal weights (``None``) mean; anything else is passed
    unchanged (``fit`` validates it, and refuses all-zero ``sample_weight`` as sklearn does).
    """
    if weights is None:
        return None
    try:
        w = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError):
        return weights
    return None if w.size and not np.any(w != 0) else weights
