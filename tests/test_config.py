"""Config: frozen sections, every problem at once, valid choices, TOML round-trips, and
``memmaint config show``."""

from __future__ import annotations

import dataclasses
import math
import sys

import pytest

from memmaint.maintenance.cli.store import render_config
from memmaint.maintenance.core.config import (
    Config,
    EmbeddingConfig,
    config_from_dict,
    config_to_toml,
    load_config,
    with_overrides,
)
from memmaint.maintenance.core.errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

BAD_TOML = """
[embedding]
modle = "minilm"
batch_size = 0

[clustering]
algorithm = "kmeans"

[clustering.genkt]
R = "wide"

[nonsense]
x = 1
"""


def _custom() -> Config:
    return with_overrides(Config(), {
        "embedding.model": "hashing", "embedding.dim": 64, "embedding.path": "/models/x",
        "clustering.algorithm": "genkt", "clustering.genkt.p": -1.7,
        "clustering.hdbscan.min_samples": 3, "agents.ttl_days": {"price": 1.5, "my kind": 9.0},
        "reduction.method": "pca", "retrieve.lexical": False,
    })


def test_defaults_and_frozen():
    assert load_config(None) == Config()
    with pytest.raises(dataclasses.FrozenInstanceError):
        Config().embedding.model = "x"  # type: ignore[misc]


def test_every_problem_is_listed_at_once(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(BAD_TOML)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    problems = err.value.problems
    assert len(problems) == 5, problems
    text = str(err.value)
    assert "\n" not in text and text.startswith("invalid config: ")
    for fragment in ("'embedding.modle'", "embedding.batch_size: 0 is below the minimum 1",
                     "clustering.algorithm: 'kmeans' is not one of genkt, hdbscan",
                     "clustering.genkt.R: expected a number", "'nonsense'"):
        assert fragment in text
    assert all(p.startswith(f"{path}: ") for p in problems)


def test_unknown_key_lists_the_valid_choices():
    with pytest.raises(ConfigError) as err:
        config_from_dict({"embedding": {"modle": "x"}, "clusterin": {}})
    valid_fields = ", ".join(sorted(f.name for f in dataclasses.fields(EmbeddingConfig)))
    assert f"unknown key 'embedding.modle' (valid: {valid_fields})" in err.value.problems
    valid_sections = ", ".join(sorted(f.name for f in dataclasses.fields(Config)))
    assert f"unknown key 'clusterin' (valid: {valid_sections})" in err.value.problems


def test_bad_values():
    with pytest.raises(ConfigError) as err:
        config_from_dict({"embedding": {"model": "bert", "batch_size": 2.5},
                          "agents": {"evict_stale": "yes", "merge_threshold": float("nan")}})
    text = str(err.value)
    assert "'bert' is not one of hashing, minilm" in text
    assert "embedding.batch_size: expected an integer" in text
    assert "agents.evict_stale: expected true or false" in text
    assert "agents.merge_threshold: NaN is not allowed" in text


def test_unreadable_and_malformed_files(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.toml")
    bad = tmp_path / "broken.toml"
    bad.write_text("[embedding\nmodel = 1")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(bad)


@pytest.mark.parametrize("config", [Config(), _custom()], ids=["defaults", "custom"])
def test_toml_round_trips(tmp_path, config):
    path = tmp_path / "c.toml"
    path.write_text(config_to_toml(config))
    assert load_config(path) == config
    path.write_text(render_config(config))
    assert load_config(path) == config
    assert config_from_dict(tomllib.loads(render_config(config))).hash() == config.hash()


def test_hash_tracks_values():
    assert Config().hash() == Config().hash()
    assert _custom().hash() != Config().hash()
    assert with_overrides(Config(), {"job.seed": 1}).hash() != Config().hash()


def test_with_overrides_validates():
    assert with_overrides(Config(), {"clustering.genkt.R": 0.8}).clustering.genkt.R == 0.8
    with pytest.raises(ConfigError, match="embedding.model"):
        with_overrides(Config(), {"embedding.model": "bert"})


def test_config_show(cli, tmp_path):
    res = cli("config", "show")
    assert res.exit_code == 0
    assert config_from_dict(tomllib.loads(res.stdout)) == Config()
    assert "# embedding backend; one of hashing, minilm" in res.stdout
    path = tmp_path / "c.toml"
    path.write_text(config_to_toml(_custom()))
    res = cli("config", "show", "--config", path)
    assert res.exit_code == 0
    assert config_from_dict(tomllib.loads(res.stdout)) == _custom()


def test_config_show_errors_are_one_line_exit_2(cli, tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(BAD_TOML)
    res = cli("config", "show", "--config", path)
    assert res.exit_code == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr
    assert lines[0].startswith("memmaint: error: invalid config: ")
    assert lines[0].count(f"{path}: ") == 5
    valid = ", ".join(sorted(f.name for f in dataclasses.fields(EmbeddingConfig)))
    assert f"unknown key 'embedding.modle' (valid: {valid})" in lines[0]


# -- constraints: declared once, checked at load time, shared with the estimators ----------

@pytest.mark.parametrize("toml, key, fragment", [
    ("[clustering.genkt]\nR = 0.0", "clustering.genkt.R", "must be > 0 and finite"),
    ("[clustering.genkt]\nR = -1", "clustering.genkt.R", "must be > 0 and finite"),
    ("[clustering.genkt]\nR = inf", "clustering.genkt.R", "must be > 0 and finite"),
    ("[clustering.genkt]\nR = nan", "clustering.genkt.R", "NaN is not allowed"),
    ("[clustering.genkt]\np = 60.0", "clustering.genkt.p", "must be >= -50 and <= 50"),
    ("[clustering.genkt]\ncos_cut = 1.5", "clustering.genkt.cos_cut", "must be >= -1 and <= 1"),
    ("[clustering.hdbscan]\nmin_cluster_size = 1", "clustering.hdbscan.min_cluster_size",
     "must be an integer >= 2"),
    ("[clustering.hdbscan]\nmin_samples = 0", "clustering.hdbscan.min_samples",
     "must be an integer >= 1"),
    ("[clustering.hdbscan]\ncluster_selection_epsilon = inf",
     "clustering.hdbscan.cluster_selection_epsilon", "must be >= 0 and finite"),
    ("[reduction]\nperplexity = 0.5", "reduction.perplexity", "must be >= 1 and finite"),
    ("[reduction]\nn_neighbors = 1", "reduction.n_neighbors", "must be an integer >= 2"),
    ("[agents.ttl_days]\nprice = 'soon'", "agents.ttl_days.price", "expected a number"),
    ("[agents.ttl_days]\nprice = -1.0", "agents.ttl_days.price", "must be >= 0 and finite"),
    ("[agents.ttl_days]\nprice = nan", "agents.ttl_days.price", "NaN is not allowed"),
    ("[agents.ttl_days]\nprice = inf", "agents.ttl_days.price", "must be >= 0 and finite"),
    ("[agents.ttl_days]\nprice = true", "agents.ttl_days.price", "expected a number"),
])
def test_values_outside_the_constraints_are_refused_at_load_time(tmp_path, toml, key, fragment):
    path = tmp_path / "c.toml"
    path.write_text(toml)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert len(err.value.problems) == 1, err.value.problems
    line = err.value.problems[0]
    assert line.startswith(f"{path}: {key}: ") and fragment in line and "\n" not in line


def test_every_bad_ttl_is_its_own_line():
    with pytest.raises(ConfigError) as err:
        config_from_dict({"agents": {"ttl_days": {"price": "soon", "schedule": -2,
                                                  "reference": float("inf"), "ok": 0}},
                          "clustering": {"genkt": {"R": float("inf")}}})
    assert sorted(p.split(":")[0] for p in err.value.problems) == [
        "agents.ttl_days.price", "agents.ttl_days.reference", "agents.ttl_days.schedule",
        "clustering.genkt.R"]


def test_edge_values_inside_the_constraints_load():
    cfg = config_from_dict({
        "clustering": {"genkt": {"R": 1e-9, "p": -50, "cos_cut": -1},
                       "hdbscan": {"min_cluster_size": 2, "min_samples": 1,
                                   "cluster_selection_epsilon": 0}},
        "agents": {"ttl_days": {"price": 0, "fact": 10**6}}})
    assert cfg.clustering.genkt.R == 1e-9 and cfg.clustering.genkt.p == -50.0
    assert cfg.agents.ttl_days == {"price": 0, "fact": 10**6}


def test_config_intervals_agree_with_sklearn():
    """The loader's membership test is sklearn's (as the estimators use it), bools aside."""
    from memmaint.clustering._estimators import to_sklearn
    from memmaint.maintenance.core.config import Config, Interval

    def intervals(obj):
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            if dataclasses.is_dataclass(value):
                yield from intervals(value)
            elif isinstance(f.metadata.get("constraint"), Interval):
                yield f.metadata["constraint"]

    found = list(intervals(Config()))
    assert len(found) >= 11
    probes = [-math.inf, -51, -50, -1.5, -1, -0.0, 0, 1e-300, 0.5, 1, 1.0, 2, 3.5, 50, 1e300,
              math.inf, math.nan, True, False, "1", None]
    for interval in found:
        sk = to_sklearn(interval)
        for v in probes:
            assert (v in interval) == sk.is_satisfied_by(v), (interval, v)


def test_interval_descriptions():
    from numbers import Integral, Real

    from memmaint.maintenance.core.config import Interval

    assert Interval(Real, 0, None, closed="neither").describe() == "> 0 and finite"
    assert Interval(Real, 0, 1, closed="right").describe() == "> 0 and <= 1"
    assert Interval(Integral, 2, None, closed="left").describe() == "an integer >= 2"
    assert Interval(Real, None, None, closed="both").describe() == "a number"
    with pytest.raises(ValueError):
        Interval(Real, 0, 1, closed="open")


def test_default_search_space_lies_inside_the_constraints():
    from memmaint.optimize.space import default_space

    for param in default_space().params:
        param.check()  # every edge and choice is a value the config accepts
    R = default_space().get("clustering.genkt.R")
    assert R.low is not None and R.low > 0


def test_the_example_config_states_every_option_at_its_default():
    """examples/memmaint.toml is what `memmaint config show` prints: a new option, or a new
    default, must be written there too."""
    from pathlib import Path

    import tomllib

    from memmaint.maintenance.core.config import Config, config_to_dict

    example = Path(__file__).resolve().parents[1] / "examples" / "memmaint.toml"
    with example.open("rb") as fh:
        assert tomllib.load(fh) == config_to_dict(Config())
