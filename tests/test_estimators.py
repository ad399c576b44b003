"""Every estimator in memmaint.clustering passes scikit-learn's estimator checks, and takes its
hyper-parameters (defaults and constraints) from its config section, so the TOML loader and
``fit`` accept and refuse the same values."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from memmaint.clustering._estimators import InvalidParameter
from memmaint.clustering.density.hdbscan_adapter import HDBSCANClusterer
from memmaint.clustering.density.weighted import WeightedHDBSCANClusterer
from memmaint.clustering.genkt.estimator import GenKT, GenKTDefinition, InvalidDefinition
from memmaint.clustering.linkage import LinkageClusterer
from memmaint.clustering.pipeline import GenKTClusterer
from memmaint.maintenance.core.config import (
    GenKTConfig,
    HDBSCANConfig,
    LinkageConfig,
    config_from_dict,
)
from memmaint.maintenance.core.errors import ConfigError, UserError

ESTIMATORS = [GenKT(), HDBSCANClusterer(), GenKTClusterer(), LinkageClusterer(),
              WeightedHDBSCANClusterer()]

#: estimator class -> (its config section, its key in [clustering], params it adds)
SECTIONS = {
    GenKT: (GenKTConfig, "genkt", {"strategy"}),
    GenKTClusterer: (GenKTConfig, "genkt", set()),
    HDBSCANClusterer: (HDBSCANConfig, "hdbscan", {"allow_single_cluster", "core_dist_n_jobs"}),
    WeightedHDBSCANClusterer: (HDBSCANConfig, "hdbscan",
                               {"allow_single_cluster", "core_dist_n_jobs"}),
    LinkageClusterer: (LinkageConfig, "linkage", set()),
}


def _expected_failures(estimator):
    """LinkageClusterer clusters by cosine (directions, the embedding space's measure): the
    check's 2-D blobs, centred, are apart in position, not in direction."""
    if isinstance(estimator, LinkageClusterer):
        return {"check_clustering": "cosine clusters directions, the blobs differ in position"}
    return {}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failures)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


def test_every_clustering_estimator_is_checked():
    import importlib
    import pkgutil

    from sklearn.base import BaseEstimator

    import memmaint.clustering

    found = set()
    for info in pkgutil.walk_packages(memmaint.clustering.__path__, "memmaint.clustering."):
        module = importlib.import_module(info.name)
        found |= {obj for obj in vars(module).values()
                  if isinstance(obj, type) and issubclass(obj, BaseEstimator)
                  and obj.__module__.startswith("memmaint.")}
    assert found == {type(e) for e in ESTIMATORS}


@pytest.mark.parametrize("cls", list(SECTIONS), ids=lambda c: c.__name__)
def test_defaults_and_constraints_come_from_the_config(cls):
    section, _key, extra = SECTIONS[cls]
    est = cls()
    defaults = section()
    fields = {f.name for f in dataclasses.fields(section)}
    params = est.get_params()
    assert set(params) - extra <= fields
    for name in set(params) - extra:
        assert params[name] == getattr(defaults, name), name
    assert set(cls._parameter_constraints) == set(params)


def test_one_cos_cut_default_everywhere():
    cos_cut = GenKTConfig().cos_cut
    assert cos_cut == 0.26
    assert GenKT().cos_cut == GenKTClusterer().cos_cut == GenKTDefinition().cos_cut == cos_cut
    assert GenKT().R == GenKTClusterer().R == GenKTDefinition().R == GenKTConfig().R == 1.2


# values of each parameter, some allowed and some not: the config and fit must agree
PROBES = {
    "R": [1.2, 1, 1e-9, 0.0, -1.0, math.inf, math.nan, True, "1"],
    "p": [-1.0, 0, 50.0, -50, 50.5, -51.0, math.inf, math.nan, False],
    "cos_cut": [0.26, -1, 1.0, 1.5, -1.01, math.nan, math.inf],
    "recombination": ["weighted", "wta", "E_scheme", 1],
    "use_weights": [True, False, 1, "yes"],
    "min_cluster_size": [2, 5, 1, 0, -3, 2.0, True],
    "min_samples": [1, 7, 0, -1, 1.5],
    "cluster_selection_epsilon": [0.0, 0.5, 3, -0.1, math.inf, math.nan],
    "cluster_selection_method": ["eom", "leaf", "best"],
    "R_mode": ["absolute", "relative", "scaled", 1],
    "R_rel": [2.0, 1, 0.0, -1.0, math.inf, math.nan, True],
    "epsilon_mode": ["absolute", "relative", "scaled"],
    "epsilon_rel": [0.0, 1.5, 3, -0.1, math.inf, math.nan],
    "scale_quantile": [0.5, 1, 1.0, 0.0, 1.5, math.nan, True],
    "cut_mode": ["pool", "fixed", "auto", 1],
    "cut_z": [1.25, 0, -10, 10.5, math.nan, math.inf, True],
    "cut": [0.3, -1, 1, 1.2, math.nan],
    "recut_above": [60, 2, 1, 0, 2.5, True],
}
X = np.random.default_rng(0).normal(size=(12, 2))


def _config_accepts(key: str, name: str, value) -> bool:
    try:
        config_from_dict({"clustering": {key: {name: value}}})
    except ConfigError as exc:
        assert len(exc.problems) == 1 and f"clustering.{key}.{name}" in exc.problems[0]
        return False
    return True


def _fit_accepts(cls, name: str, value) -> bool:
    try:
        cls(**{name: value}).fit(X)
    except InvalidParameter as exc:
        assert isinstance(exc, UserError) and isinstance(exc, ValueError)
        return False
    except InvalidDefinition:
        return False
    return True


@pytest.mark.parametrize("cls", list(SECTIONS), ids=lambda c: c.__name__)
def test_config_and_fit_refuse_the_same_values(cls):
    section, key, _extra = SECTIONS[cls]
    for name in (f.name for f in dataclasses.fields(section)):
        if name not in cls().get_params():
            continue
        for value in PROBES[name]:
            assert _config_accepts(key, name, value) == _fit_accepts(cls, name, value), \
                (cls.__name__, name, value)


def test_bad_parameters_name_the_parameter_in_sklearn_words():
    with pytest.raises(InvalidParameter, match=r"The 'R' parameter of GenKT must be a float "
                                               r"in the range \(0.0, inf\). Got 0.0 instead."):
        GenKT(R=0.0).fit(X)
    with pytest.raises(InvalidParameter, match="'min_cluster_size' parameter of "
                                               "HDBSCANClusterer must be an int in the range"):
        HDBSCANClusterer(min_cluster_size=1).fit(X)
    with pytest.raises(InvalidParameter, match="'use_weights' parameter of GenKTClusterer"):
        GenKTClusterer(use_weights="yes").fit(X)


@pytest.mark.parametrize("est", [HDBSCANClusterer(), GenKTClusterer()],
                         ids=lambda e: type(e).__name__)
def test_importances_all_zero_mean_equal_weights_in_fit_predict(est):
    """The Clusterer protocol passes memory importances: all zero is not an error there
    (``fit`` refuses all-zero ``sample_weight``, as sklearn expects)."""
    zero = clone(est).fit_predict(X, sample_weight=np.zeros(len(X)))
    none = clone(est).fit_predict(X, sample_weight=None)
    np.testing.assert_array_equal(zero, none)
    with pytest.raises(ValueError, match="zero"):
        clone(est).fit(X, sample_weight=np.zeros(len(X)))
