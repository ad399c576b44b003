"""The search space as data: TOML round trip, overrides, fixing, define-by-run suggestions."""

from __future__ import annotations

import optuna
import pytest

from memmaint.maintenance.core.config import Config, config_to_toml, load_config
from memmaint.optimize.space import (
    Param,
    SearchSpace,
    SpaceError,
    default_space,
    parse_fix,
    tunable_names,
)


def test_default_space_toml_round_trip(tmp_path):
    space = default_space()
    path = tmp_path / "space.toml"
    path.write_text(space.to_toml())
    assert SearchSpace.from_toml(path) == space  # merged onto the default: unchanged
    path.write_text("replace = true\n" + space.to_toml())
    assert SearchSpace.from_toml(path) == space  # from scratch: the same space
    assert SearchSpace.from_json(space.to_json()) == space


def test_partial_override_and_fixed_table(tmp_path):
    path = tmp_path / "space.toml"
    path.write_text("""
[params."clustering.genkt.p"]
low = -2.5
high = 0.0

[params."reduction.method"]
choices = ["umap", "pca"]

[fixed]
"clustering.algorithm" = "genkt"
"reduction.n_components" = 3
""")
    space = SearchSpace.from_toml(path)
    p = space.get("clustering.genkt.p")
    assert (p.kind, p.low, p.high) == ("float", -2.5, 0.0)
    assert p.when == (("clustering.algorithm", ("genkt",)),)  # condition kept
    assert space.get("reduction.method").choices == ("umap", "pca")
    assert space.get("clustering.algorithm") == Param(
        "clustering.algorithm", "fixed", value="genkt")
    # fixing a config path pins every entry that sets it (UMAP/PCA's and t-SNE's)
    assert space.get("reduction.n_components").value == 3
    assert space.get("reduction.n_components[tsne]").value == 3
    # the unchanged parameters are the default ones
    assert space.get("clustering.genkt.R") == default_space().get("clustering.genkt.R")


def test_parse_fix_reads_toml_values_and_bare_words():
    assert parse_fix("clustering.genkt.p=-1") == ("clustering.genkt.p", -1)
    assert parse_fix("clustering.genkt.R = 1.2") == ("clustering.genkt.R", 1.2)
    assert parse_fix("reduction.method=umap") == ("reduction.method", "umap")
    assert parse_fix('reduction.method="tsne"') == ("reduction.method", "tsne")
    assert parse_fix("clustering.genkt.use_weights=false") == (
        "clustering.genkt.use_weights", False)
    for bad in ("clustering.genkt.p", "=1", "clustering.genkt.p="):
        with pytest.raises(SpaceError, match="name=value"):
            parse_fix(bad)
    with pytest.raises(SpaceError, match="unknown tunable parameter 'clustering.genkt.q'"):
        parse_fix("clustering.genkt.q=1")


def test_fix_checks_values_against_the_config_rules():
    with pytest.raises(SpaceError, match="cannot fix reduction.method"):
        default_space().fix("reduction.method", "lda")
    with pytest.raises(SpaceError, match="cannot fix clustering.genkt.cos_cut"):
        default_space().fix("clustering.genkt.cos_cut", 3.0)
    with pytest.raises(SpaceError, match="unknown tunable parameter 'agents.merge_threshold'"):
        default_space().fix("agents.merge_threshold", 0.9)


@pytest.mark.parametrize("table, message", [
    ({"params": {"clustering.genkt.p": {"low": 3.0}}}, "low 3.0 is above high"),
    ({"params": {"clustering.genkt.R": {"low": 0.0}}}, "log scale needs low > 0"),
    ({"params": {"reduction.method": {"choices": []}}}, "choices must not be empty"),
    ({"params": {"clustering.genkt.p": {"type": "normal"}}}, "type must be one of"),
    ({"params": {"clustering.genkt.p": {"lo": 1}}}, "unknown key"),
    ({"params": {"embedding.model": {"type": "fixed", "value": "x"}}},
     "unknown tunable parameter"),
    ({"fixed": {"clustering.genkt.p": "high"}}, "cannot fix clustering.genkt.p"),
    ({"colour": 1}, "unknown top-level key"),
    ({"params": {"reduction.min_dist": {"high": 2.0}}}, "high 2.0 is not a valid"),
    ({"params": {"reduction.metric": {"choices": ["cosine", "hamming"]}}},
     "choice 'hamming' is not a valid"),
    ({"params": {"reduction.n_neighbors": {"type": "float", "low": 2, "high": 9}}},
     "takes integers"),
    ({"replace": True, "params": {"clustering.genkt.p": {
        "type": "float", "low": 0, "high": 1,
        "when": {"clustering.algorithm": ["genkt"]}}}}, "not defined before it"),
])
def test_invalid_spaces_are_rejected_with_a_named_problem(table, message):
    with pytest.raises(SpaceError, match=message):
        SearchSpace.from_dict(table)


def test_bad_toml_file_is_a_user_error(tmp_path):
    path = tmp_path / "space.toml"
    path.write_text("[params\n")
    with pytest.raises(SpaceError, match="not valid TOML"):
        SearchSpace.from_toml(path)
    with pytest.raises(SpaceError, match="cannot read"):
        SearchSpace.from_toml(tmp_path / "missing.toml")


def test_define_by_run_only_suggests_active_parameters():
    space = default_space()
    values = space.suggest(optuna.trial.FixedTrial({
        "reduction.method": "umap", "reduction.n_components": 3, "reduction.n_neighbors": 15,
        "reduction.min_dist": 0.1, "reduction.metric": "cosine",
        "clustering.algorithm": "genkt", "clustering.genkt.p": -1.7, "clustering.genkt.R": 1.2,
        "clustering.genkt.cos_cut": 0.26, "clustering.genkt.recombination": "weighted",
        "clustering.genkt.use_weights": True}))
    assert "reduction.perplexity" not in values
    assert not any(k.startswith("clustering.hdbscan") for k in values)
    config = space.to_config(values)
    assert config.reduction.method == "umap" and config.reduction.n_components == 3
    assert config.clustering.algorithm == "genkt" and config.clustering.genkt.p == -1.7
    # a t-SNE trial takes its n_components from the t-SNE entry (at most 3)
    tsne = space.suggest(optuna.trial.FixedTrial({
        "reduction.method": "tsne", "reduction.n_components[tsne]": 2,
        "reduction.perplexity": 25.0, "clustering.algorithm": "hdbscan",
        "clustering.hdbscan.min_cluster_size": 5, "clustering.hdbscan.min_samples": 2,
        "clustering.hdbscan.cluster_selection_epsilon": 0.0,
        "clustering.hdbscan.cluster_selection_method": "eom"}))
    assert tsne["reduction.n_components"] == 2
    assert "reduction.n_neighbors" not in tsne
    assert space.get("reduction.n_components[tsne]").high == 3


def test_fixed_parameters_are_applied_without_asking_optuna():
    space = default_space().fix_many({"reduction.method": "pca", "clustering.algorithm": "genkt",
                                      "clustering.genkt.p": -1})
    study = optuna.create_study(direction="maximize")
    trial = study.ask()
    values = space.suggest(trial)
    assert values["clustering.genkt.p"] == -1
    assert values["reduction.method"] == "pca"
    assert "clustering.genkt.p" not in trial.params
    assert "reduction.method" not in trial.params
    assert "clustering.genkt.R" in trial.params
    assert space.to_config(values).clustering.genkt.p == -1.0


def test_every_sampled_config_is_valid_and_writes_loadable_toml(tmp_path):
    space = default_space()
    sampler = optuna.samplers.RandomSampler(seed=3)
    study = optuna.create_study(sampler=sampler)
    for _ in range(40):
        trial = study.ask()
        config = space.to_config(space.suggest(trial))
        study.tell(trial, 0.0)
        assert isinstance(config, Config)
        path = tmp_path / "c.toml"
        path.write_text(config_to_toml(config))
        assert load_config(path) == config


def test_overlapping_entries_for_one_path_are_reported():
    space = SearchSpace((
        Param("reduction.method", "categorical", choices=("pca",)),
        Param("reduction.n_components", "int", low=1, high=3),
        Param("reduction.n_components", "int", low=1, high=2, key="k2"),
    ))
    with pytest.raises(SpaceError, match="overlap"):
        space.suggest(optuna.trial.FixedTrial({"reduction.method": "pca",
                                               "reduction.n_components": 1, "k2": 1}))


def test_tunable_names_cover_reduction_and_clustering_only():
    names = tunable_names()
    assert "clustering.genkt.p" in names and "reduction.perplexity" in names
    assert not any(n.startswith(("agents.", "embedding.")) for n in names)
