"""Registries are the one source of names: whatever is registered is selectable from TOML."""

from __future__ import annotations

import numpy as np
import pytest
from test_job import pool

from memmaint.clustering.pipeline import make_clusterer, register_clusterer
from memmaint.clustering.reduce.reducers import NoneReducer, register_reducer
from memmaint.maintenance.agents.dispatch import plan, register_agent
from memmaint.maintenance.agents.rules import rules_agent
from memmaint.maintenance.core.config import config_from_dict, load_config
from memmaint.maintenance.core.errors import ConfigError
from memmaint.maintenance.core.registry import AGENTS, CLUSTERERS, EMBEDDERS, REDUCERS, Registry
from memmaint.maintenance.embed.base import get_embedder, register_embedder
from memmaint.maintenance.job.run import run_job
from memmaint.maintenance.store.sqlite import SQLiteStore


class AllOneCluster:
    """A registered clusterer: every memory in cluster 0."""

    def fit_predict(self, X, embeddings=None, sample_weight=None):
        return np.zeros(len(X), dtype=np.int64)


@pytest.fixture
def registered():
    register_clusterer("all-one", lambda config: AllOneCluster())
    register_reducer("identity", NoneReducer)
    register_embedder("hash-mine", lambda cfg: get_embedder(
        config_from_dict({"embedding": {"model": "hashing", "dim": 32}}).embedding))
    calls = []

    def counting_agent(config):
        rules = rules_agent(config)

        def planner(*args, **kwargs):
            calls.append(1)
            return rules(*args, **kwargs)
        return planner

    register_agent("counting", counting_agent)
    yield calls
    for reg, name in ((CLUSTERERS, "all-one"), (REDUCERS, "identity"),
                      (EMBEDDERS, "hash-mine"), (AGENTS, "counting")):
        reg.unregister(name)


def test_unregistered_names_are_config_errors():
    for key, section in (("algorithm", "clustering"), ("method", "reduction"),
                         ("model", "embedding"), ("backend", "agents")):
        with pytest.raises(ConfigError, match=f"{section}.{key}: 'mine' is not one of"):
            config_from_dict({section: {key: "mine"}})


def test_registered_names_are_selectable_from_toml(tmp_path, registered):
    path = tmp_path / "mine.toml"
    path.write_text('[embedding]\nmodel = "hash-mine"\n[reduction]\nmethod = "identity"\n'
                    '[clustering]\nalgorithm = "all-one"\n[agents]\nbackend = "counting"\n'
                    '[job]\nmin_new_memories = 0\n')
    config = load_config(path)
    assert isinstance(make_clusterer(config.clustering), AllOneCluster)
    db = tmp_path / "pool.db"
    with SQLiteStore(db) as store:
        store.add_memories(pool())
        report = run_job(store, config)
    assert report.status == "succeeded" and registered == [1]
    assert report.primary is not None and report.primary.n_clusters == 1


def test_entry_point_names_are_listed_without_import():
    assert {"hdbscan", "genkt"} <= set(CLUSTERERS.names())
    assert {"none", "pca", "tsne", "umap"} <= set(REDUCERS.names())
    assert {"minilm", "hashing", "openai", "sentence-transformers"} <= set(EMBEDDERS.names())
    assert {"rules", "llm"} <= set(AGENTS.names())


def test_registry_refuses_a_second_registration_when_asked():
    reg: Registry = Registry("thing", "memmaint.no-such-group", "x.thing")
    reg.register("a", print)
    with pytest.raises(ValueError, match="already registered"):
        reg.register("a", print, replace=False)
    with pytest.raises(ConfigError, match=r"x.thing: unknown thing 'b' \(valid: a\)"):
        reg.get("b")


def test_dispatch_uses_the_registry(registered):
    from maint_fixtures import NOW, embed, local_scenario

    memories, labels, _ = local_scenario()
    config = config_from_dict({"agents": {"backend": "counting"}})
    result = plan(memories, labels, embed([m.text for m in memories]), config, now=NOW)
    assert registered == [1] and result.backend == "rules"
