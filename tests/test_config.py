"""Config: frozen sections, every problem at once, valid choices, TOML round-trips, and
``memmaint config show``."""

from __future__ import annotations

import dataclasses
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
                     "clustering.algorithm: 'kmeans' is not one of hdbscan, genkt",
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
    assert "'bert' is not one of minilm, hashing" in text
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
    assert "# embedding backend; one of minilm" in res.stdout
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
