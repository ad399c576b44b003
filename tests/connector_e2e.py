"""The end-to-end test every connector passes: seed with the library, ``memmaint run``, read
back with the library, ``memmaint undo``, and the records are back exactly.

A connector's test module subclasses :class:`ConnectorEndToEnd` and provides a ``kit``
fixture: an object with

- ``namespace``: the namespace its URL addresses;
- ``url()``: the memmaint store URL (with ``sidecar=`` under the test's tmp_path);
- ``seed(rows)``: writes ``(id, text, metadata, vector)`` rows with the library's own API;
- ``read_back()``: ``{id: (text, metadata)}`` read with the library's own API;
- ``vectors()``: ``{id: vector}`` read with the library's own API (``{}`` if hidden).

The memmaint config embeds with the hashing embedder at 16 dimensions, and the URL declares
it (``model=hashing&dim=16``), so the vectors the kit stores are reused and new records are
embedded with the same model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import numpy as np
import pytest
from click.testing import CliRunner

from memmaint.maintenance.cli.main import main
from memmaint.maintenance.embed.hashing import HashingEmbedder

DIM = 16
CONFIG = """
[embedding]
model = "hashing"
dim = 16
[reduction]
method = "none"
[clustering.hdbscan]
min_cluster_size = 2
[job]
min_new_memories = 1
[agents]
merge_threshold = 0.95
"""
# (16-dimensional hashing vectors are not semantic: two unrelated texts of TEXTS are at
# cosine 0.79-0.82, over the default merge_threshold; the restatements are at 1.0)

#: (text, duplicate of) pairs: three exact restatements and six distinct memories.
TEXTS = [
    ("The user prefers dark mode in every editor.", None),
    ("the user prefers dark mode in every editor", 0),
    ("Deploys to production happen on Tuesdays after the standup.", None),
    ("Deploys to production happen on Tuesdays after the standup", 2),
    ("The staging database password rotates every 30 days.", None),
    ("The staging database password rotates every 30 days!", 4),
    ("Alice owns the billing service and its alerts.", None),
    ("Use pnpm, not npm, in the frontend repository.", None),
    ("The customer in Lyon asked for invoices in French.", None),
    ("Release notes go in CHANGELOG.md under Unreleased.", None),
    ("The nightly backup runs at 02:00 UTC on the replica.", None),
    ("Bob prefers short code reviews with clear titles.", None),
]


def seed_rows() -> list[tuple[str, str, dict[str, Any], list[float]]]:
    """The rows every kit seeds: uuid-like ids, metadata of several JSON types, and the
    hashing embedder's vectors."""
    vectors = HashingEmbedder(dim=DIM).embed([t for t, _ in TEXTS])
    rows = []
    for i, ((text, dup), vec) in enumerate(zip(TEXTS, vectors)):
        meta: dict[str, Any] = {"source": "agent", "turn": i, "score": 0.5 + i / 100,
                                "pinned": i % 2 == 0}
        if dup is not None:
            meta["note"] = "restated"
        rows.append((f"00000000-0000-4000-8000-{i:012d}", text, meta,
                     [float(x) for x in vec]))
    return rows


def with_params(url: str, **params: str) -> str:
    sep = "&" if "?" in url else "?"
    return url + sep + "&".join(f"{k}={v}" for k, v in params.items())


def sidecar_files(url: str) -> dict[str, bytes]:
    """Every file of the sidecar named in ``url`` (the database, its WAL, journal and lock
    files), by name, with its bytes."""
    parts = urlsplit(url)  # no sidecar= : beside a local store (docs/connectors.md)
    side = Path(dict(parse_qsl(parts.query)).get("sidecar") or parts.path + ".memmaint.db")
    return {p.name: p.read_bytes() for p in sorted(side.parent.glob(side.name + "*"))}


def merges(report: dict[str, Any]) -> set[tuple[str, str]]:
    """(source memory id, merged memory id) of every merge decision of a run report."""
    return {(row[1], row[4]) for row in report["primary"]["decisions"] if row[2] == "merge"}


class ConnectorEndToEnd:
    """Subclass with a ``kit`` fixture (see the module docstring)."""

    #: the config's embedder made the seeded vectors (False for systems embedding themselves)
    declare_model = True
    #: the system keeps a time of its own for each record (False: Chroma, Qdrant)
    keeps_time = True
    #: records are dated by the user's time the kit seeds (their ``created_at`` metadata,
    #: which the kit may also write where the system keeps times: pgvector's column)
    time_from_metadata = False
    #: the metadata key the kit's records carry the user's creation time under
    user_time_key = "created_at"

    @pytest.fixture
    def kit(self) -> Any:  # pragma: no cover - provided by subclasses
        raise NotImplementedError

    def _url(self, kit: Any) -> str:
        return with_params(kit.url(), model="hashing", dim=str(DIM)) if self.declare_model \
            else kit.url()

    def _cli(self, *args: str) -> Any:
        return CliRunner().invoke(main, list(args), catch_exceptions=False)

    def test_run_merges_in_the_system_and_undo_restores_it_exactly(self, kit, tmp_path):
        kit.seed(seed_rows())
        before = kit.read_back()
        vectors_before = kit.vectors()
        assert len(before) == len(TEXTS)
        config = tmp_path / "fast.toml"
        config.write_text(CONFIG)
        url = self._url(kit)
        report = tmp_path / "report.json"
        result = self._cli("run", "--db", url, "--config", str(config), "--report",
                           str(report))
        assert result.exit_code == 0, result.output
        run = json.loads(report.read_text())
        run_id = run["run_id"]

        after = kit.read_back()
        texts_after = [text for text, _ in after.values()]
        # every restated memory now exists once; the distinct ones are untouched
        for text, dup in TEXTS:
            if dup is None:
                key = text.lower().rstrip(".!")
                assert sum(t.lower().rstrip(".!") == key for t in texts_after) == 1, \
                    (text, texts_after)
        assert len(after) < len(before)
        for mid, (text, meta) in after.items():
            if mid in before:
                assert before[mid] == (text, meta)

        runs = self._cli("runs", "--db", url)
        assert runs.exit_code == 0 and run_id in runs.output, runs.output
        gone = sorted(set(before) - set(after))
        history = self._cli("history", "--db", url, "-n", kit.namespace, gone[0])
        assert history.exit_code == 0 and run_id in history.output, history.output

        undo = self._cli("undo", "--db", url, run_id)
        assert undo.exit_code == 0, undo.output
        assert kit.read_back() == before
        vectors_after = kit.vectors()
        assert set(vectors_after) == set(vectors_before)
        for mid, vec in vectors_before.items():
            np.testing.assert_allclose(vectors_after[mid], vec, rtol=1e-5, atol=1e-6)

    def test_a_merge_keeps_a_source_record_its_id_and_its_metadata(self, kit, tmp_path):
        """Stable ids: no new record id appears; each merge rewrote one of its sources in
        place (the one whose text it keeps), with that record's own metadata, keys and value
        types; the dry run's plan retires the same records the real run retires."""
        kit.seed(seed_rows())
        before = kit.read_back()
        config = tmp_path / "fast.toml"
        config.write_text(CONFIG)
        url = self._url(kit)
        dry = self._cli("run", "--db", url, "--config", str(config), "--dry-run")
        assert dry.exit_code == 0, dry.output
        assert kit.read_back() == before
        assert self._cli("run", "--db", url, "--config", str(config)).exit_code == 0
        after = kit.read_back()
        assert set(after) < set(before), sorted(set(after) - set(before))
        typed = {mid: {k: (type(v).__name__, v) for k, v in meta.items()}
                 for mid, (_, meta) in before.items()}
        for mid, (text, meta) in after.items():
            assert {k: (type(v).__name__, v) for k, v in meta.items()} == typed[mid]
            assert text == before[mid][0]  # the survivor's text is the merge's text
        # a restated pair (merged, or left apart by a system embedding by itself) keeps at
        # least one of its two records
        by_text = {text: mid for mid, (text, _) in before.items()}  # mem0 sets its own ids
        for text, dup in TEXTS:
            if dup is not None:
                assert by_text[text] in after or by_text[TEXTS[dup][0]] in after

    def test_the_newer_fact_by_the_users_time_survives_reverse_insertion(self, kit, tmp_path):
        """Records dated by the user's ``created_at`` metadata, inserted newest first: May's
        standup change supersedes February's (read order would say the opposite); the
        survivor keeps its id and typed metadata; undo puts February's record back."""
        if not self.time_from_metadata:
            pytest.skip("the kit seeds no time of the user's")
        from memmaint.maintenance.core.config import EmbeddingConfig
        from memmaint.maintenance.core.registry import EMBEDDERS

        may, feb = "00000000-0000-4000-8000-000000000518", "00000000-0000-4000-8000-000000000217"
        texts = ["The team standup moved to Tuesdays at 9:30.",
                 "The team standup is on Mondays at 9:15."]
        minilm = self.declare_model  # a system embedding by itself gets the kit's vectors
        vecs = EMBEDDERS.get("minilm")(EmbeddingConfig(model="minilm")).embed(texts) if minilm \
            else HashingEmbedder(dim=DIM).embed(texts)
        key = self.user_time_key
        given = kit.seed([(may, texts[0], {key: "2025-05-06T09:00:00Z", "turn": 18,
                                           "score": 0.5, "pinned": True},
                           [float(x) for x in vecs[0]]),
                          (feb, texts[1], {key: "2025-02-18T10:00:00Z", "turn": 17,
                                           "score": 0.25, "pinned": False},
                           [float(x) for x in vecs[1]])])
        may = given[may] if isinstance(given, dict) else may  # mem0 sets its own ids
        before = kit.read_back()
        config = tmp_path / "minilm.toml"
        config.write_text((CONFIG.replace('model = "hashing"\ndim = 16', 'model = "minilm"')
                           if minilm else CONFIG).replace("merge_threshold = 0.95", ""))
        url = with_params(kit.url(), model="minilm") if minilm else kit.url()
        report = tmp_path / "report.json"
        result = self._cli("run", "--db", url, "--config", str(config), "--report",
                           str(report))
        assert result.exit_code == 0, result.output
        after = kit.read_back()
        assert list(after) == [may], after
        assert {k: (type(v), v) for k, v in after[may][1].items()} == \
            {k: (type(v), v) for k, v in before[may][1].items()}
        undo = self._cli("undo", "--db", url, json.loads(report.read_text())["run_id"])
        assert undo.exit_code == 0, undo.output
        assert kit.read_back() == before

    @pytest.mark.parametrize("dry", [True, False])
    def test_a_model_of_another_dimension_fails_at_open_in_one_line(self, kit, tmp_path, dry):
        """``model=minilm`` (384) over 16-dimensional vectors: exit 2 and one line from the
        dry run as from the real run, before anything is written."""
        kit.seed(seed_rows())
        if not kit.vectors():
            pytest.skip("the system returns no stored vectors")
        before = kit.read_back()
        config = tmp_path / "fast.toml"
        config.write_text(CONFIG)
        url = with_params(kit.url(), model="minilm")
        result = CliRunner().invoke(main, ["run", "--db", url, "--config", str(config),
                                           *(["--dry-run"] if dry else [])])
        assert result.exit_code == 2, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and "384-dimensional" in lines[0] and "16-dimensional" in \
            lines[0], result.output
        assert kit.read_back() == before
        listed = self._cli("runs", "--db", with_params(kit.url(), model="hashing",
                                                       dim=str(DIM)))
        assert listed.exit_code == 0 and "dry" not in listed.output.lower(), listed.output

    def test_dry_run_changes_nothing_in_the_system(self, kit, tmp_path):
        kit.seed(seed_rows())
        before = kit.read_back()
        config = tmp_path / "fast.toml"
        config.write_text(CONFIG)
        result = self._cli("run", "--db", self._url(kit), "--config", str(config),
                           "--dry-run")
        assert result.exit_code == 0, result.output
        assert kit.read_back() == before

    def test_a_dry_run_writes_nothing_to_the_sidecar(self, kit, tmp_path):
        """Records added since the sidecar last synced: the dry run plans with them (its
        mirror syncs into a scratch copy) and leaves every sidecar file byte for byte."""
        rows = seed_rows()
        kit.seed(rows[:8])
        url = self._url(kit)
        assert self._cli("stats", "--db", url).exit_code == 0  # the sidecar, synced
        kit.seed(rows[8:])  # news a sync would record as events of a sync run
        before, files = kit.read_back(), sidecar_files(url)
        assert files, "the sidecar was not created"
        config = tmp_path / "fast.toml"
        config.write_text(CONFIG)
        report = tmp_path / "dry.json"
        dry = self._cli("run", "--db", url, "--config", str(config), "--dry-run", "--report",
                        str(report))
        assert dry.exit_code == 0, dry.output
        assert json.loads(report.read_text())["pool_before"] == len(rows)
        assert sidecar_files(url) == files
        assert kit.read_back() == before
        assert self._cli("plan", "--db", url, "--config", str(config), "-o",
                         str(tmp_path / "plan.json")).exit_code == 0
        assert sidecar_files(url) == files

    def test_a_first_dry_run_creates_no_sidecar(self, kit, tmp_path):
        kit.seed(seed_rows())
        url = self._url(kit)
        config = tmp_path / "fast.toml"
        config.write_text(CONFIG)
        dry = self._cli("run", "--db", url, "--config", str(config), "--dry-run")
        assert dry.exit_code == 0, dry.output
        assert sidecar_files(url) == {}

    def test_the_ids_a_dry_run_and_a_plan_file_show_are_the_ids_applied(self, kit, tmp_path):
        """Merged memory ids follow from the plan's inputs: the dry run, the plan file and
        the real run agree; undo is exact; after the undo a new run mints new ids (never
        the id of the merged memory the undo archived)."""
        from memmaint.maintenance.plan.model import Merge
        from memmaint.maintenance.review.planfile import PlanFile

        kit.seed(seed_rows())
        before = kit.read_back()
        url = self._url(kit)
        config = tmp_path / "fast.toml"
        config.write_text(CONFIG)
        out = {name: tmp_path / f"{name}.json" for name in ("dry", "real", "again")}
        dry = self._cli("run", "--db", url, "--config", str(config), "--dry-run", "--report",
                        str(out["dry"]))
        assert dry.exit_code == 0, dry.output
        plan = self._cli("plan", "--db", url, "--config", str(config), "-o",
                         str(tmp_path / "plan.json"))
        assert plan.exit_code == 0, plan.output
        real = self._cli("run", "--db", url, "--config", str(config), "--report",
                         str(out["real"]))
        assert real.exit_code == 0, real.output
        planned, applied = (merges(json.loads(out[n].read_text())) for n in ("dry", "real"))
        assert applied and planned == applied
        pf = PlanFile.from_dict(json.loads((tmp_path / "plan.json").read_text()))
        assert {(s, a.new_memory.id) for _c, a in pf.plan.actions() if isinstance(a, Merge)
                for s in a.source_ids} == applied
        run_id = json.loads(out["real"].read_text())["run_id"]
        undo = self._cli("undo", "--db", url, run_id)
        assert undo.exit_code == 0, undo.output
        assert kit.read_back() == before
        again = self._cli("run", "--db", url, "--config", str(config), "--force", "--report",
                          str(out["again"]))
        assert again.exit_code == 0, again.output
        second = json.loads(out["again"].read_text())
        assert second["status"] == "succeeded"
        assert merges(second) and not {m for _, m in merges(second)} & {m for _, m in applied}
        assert self._cli("undo", "--db", url, second["run_id"]).exit_code == 0
        assert kit.read_back() == before

    @pytest.mark.parametrize("first", [0, 1])
    def test_with_no_time_at_all_an_order_dependent_decision_is_flagged(self, kit, tmp_path,
                                                                        first):
        """Two records that contradict each other, no time anywhere (the system keeps none,
        the metadata has none): memmaint says so once and flags the pair for review
        (CONFLICT) instead of guessing which is newer; both records stay, whichever was
        written first."""
        if self.keeps_time:
            pytest.skip("the system keeps its own time")
        from memmaint.maintenance.core.config import EmbeddingConfig
        from memmaint.maintenance.core.registry import EMBEDDERS

        texts = ["The team standup is on Tuesdays at 9:30.",
                 "The team standup is on Mondays at 9:15."]
        vecs = EMBEDDERS.get("minilm")(EmbeddingConfig(model="minilm")).embed(texts)
        rows = [(f"00000000-0000-4000-8000-00000000060{i}", text, {"turn": i},
                 [float(x) for x in vec]) for i, (text, vec) in enumerate(zip(texts, vecs))]
        kit.seed([rows[first]])
        kit.seed([rows[1 - first]])
        before = kit.read_back()
        config = tmp_path / "minilm.toml"
        config.write_text(CONFIG.replace('model = "hashing"\ndim = 16', 'model = "minilm"')
                          .replace("merge_threshold = 0.95", ""))
        report = tmp_path / "report.json"
        result = CliRunner().invoke(main, ["run", "--db", with_params(kit.url(), model="minilm"),
                                           "--config", str(config), "--report", str(report)])
        assert result.exit_code == 0, result.output
        assert result.output.count("carry no time") == 1, result.output
        assert kit.read_back() == before
        done = json.loads(report.read_text())["primary"]
        assert done["flagged"].get("CONFLICT") == 2 and not done["decisions"], done

    def test_a_plan_made_by_a_dry_open_applies_to_the_store(self, kit, tmp_path):
        """``memmaint plan`` opens the store for a dry run (its mirror syncs the outside
        changes into a scratch copy); ``memmaint apply`` then syncs the same changes for
        real, finds the versions and sequence the plan saw, and applies the planned merged
        ids; undo is exact."""
        from memmaint.maintenance.plan.model import Merge
        from memmaint.maintenance.review.planfile import PlanFile
        from memmaint.maintenance.store.registry import open_store

        rows = seed_rows()
        kit.seed(rows[:8])
        url = self._url(kit)
        assert self._cli("stats", "--db", url).exit_code == 0
        kit.seed(rows[8:])  # outside changes the plan's scratch sync sees first
        before = kit.read_back()
        config = tmp_path / "fast.toml"
        config.write_text(CONFIG)
        plan = tmp_path / "plan.json"
        made = self._cli("plan", "--db", url, "--config", str(config), "-o", str(plan))
        assert made.exit_code == 0, made.output
        merged = {a.new_memory.id for _c, a in PlanFile.load(plan).plan.actions()
                  if isinstance(a, Merge)}
        assert merged
        applied = CliRunner().invoke(main, ["apply", str(plan), "--db", url, "--labels",
                                            str(tmp_path / "labels.jsonl")])
        assert applied.exit_code == 0, applied.output
        assert kit.read_back() != before
        store = open_store(url, create=False)
        try:
            ns = kit.namespace
            assert store.existing_ids(ns, sorted(merged)) == merged
            run_id = next(r.run_id for r in store.list_runs() if r.status == "succeeded")
        finally:
            store.close()
        assert self._cli("undo", "--db", url, run_id).exit_code == 0
        assert kit.read_back() == before
