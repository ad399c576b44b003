"""``memmaint search`` through click's CliRunner on a real SQLite store (and once through the
Chroma connector), with the hashing embedder from a config file so each test is fast."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from memmaint.maintenance.cli.main import main
from memmaint.maintenance.core.records import Memory, utcnow
from memmaint.maintenance.retrieve.service import SearchService
from memmaint.maintenance.store.sqlite import SQLiteStore

PRICE = "How much does the Pro plan cost per month?"


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "memmaint.toml"
    path.write_text('[embedding]\nmodel = "hashing"\ndim = 256\n')
    return path


def pool(now=None) -> list[Memory]:
    now = now or utcnow()
    return [
        Memory(text="The Pro plan costs $39 per month.", id="pro39", kind="price",
               created_at=now - timedelta(hours=5)),
        Memory(text="The Pro plan costs $29 per month.", id="pro29", kind="price",
               created_at=now - timedelta(days=40)),
        Memory(text="To reset a password use the link on the login page.", id="reset",
               created_at=now - timedelta(days=1)),
        Memory(text="Catering \x1b[31mfor the offsite\u202e is the taco place.", id="tacos",
               created_at=now - timedelta(days=1)),
        Memory(text="The Pro plan costs $19 per month.", id="pro19", kind="price",
               created_at=now - timedelta(days=30), namespace="old"),
    ]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "pool.db"
    with SQLiteStore(path) as store:
        store.add_memories(pool())
    return path


def search(db: Path, config: Path, *args: str):
    return CliRunner().invoke(main, ["-q", "search", *args, "--db", str(db),
                                     "--config", str(config)])


def test_serves_the_fresh_price_and_says_what_the_gate_kept_back(db, config):
    res = search(db, config, PRICE, "-n", "default")
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0].startswith("SERVE: ") and "1 blocked as expired" in lines[0]
    assert lines[1].startswith(" 1. pro39 [default]") and "FRESH" in lines[1]
    assert "no outcome yet" in lines[1]
    assert "not served:" in lines
    kept = lines[lines.index("not served:") + 1]
    assert "pro29" in kept and "STALE_BLOCK" in kept


def test_a_refusal_is_an_answer_exit_0(db, config):
    res = search(db, config, PRICE, "-n", "old")  # the only price there expired
    assert res.exit_code == 0, res.output
    first = res.output.splitlines()[0]
    assert first.startswith("REFUSE: no FRESH memory with similarity >= 0.3")
    assert "1 on-topic memories expired" in first
    assert "pro19" in res.output and "STALE_BLOCK" in res.output
    data = json.loads(search(db, config, PRICE, "-n", "old", "--json").output)
    assert data["decision"] == "REFUSE" and data["results"] == []
    assert [r["id"] for r in data["not_served"]] == ["pro19"]


def test_outcome_evidence_after_feedback(db, config):
    runner = CliRunner()
    for _ in range(3):
        assert runner.invoke(main, ["feedback", "pro39", "--success", "--db",
                                    str(db)]).exit_code == 0
    assert runner.invoke(main, ["feedback", "reset", "--failure", "--db",
                                str(db)]).exit_code == 0
    res = search(db, config, PRICE, "--json", "-k", "3")
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["decision"] == "SERVE" and len(data["results"]) == 3
    top = data["results"][0]
    assert top["id"] == "pro39" and top["rank"] == 1
    assert (top["successes"], top["failures"], top["uses"]) == (3, 0, 3)
    assert top["outcome_bonus"] > 0 and top["outcome"] > 0.5
    assert top["verdict"] == "FRESH" and top["text"] == "The Pro plan costs $39 per month."
    res = search(db, config, PRICE, "--explain")
    line = next(x for x in res.output.splitlines() if x.startswith(" 1. pro39"))
    assert "outcome 3 ok / 0 failed / 3 uses, weight +" in line
    assert "why: #1 pro39: sim " in res.output


def test_control_characters_are_escaped(db, config):
    res = search(db, config, "offsite catering taco place")
    assert res.exit_code == 0, res.output
    assert "\x1b" not in res.output and "\u202e" not in res.output
    assert "\\x1b[31mfor the offsite\\u202e" in res.output
    raw = search(db, config, "offsite catering taco place", "--json").output
    assert "\x1b" not in raw and "\u202e" not in raw
    texts = [r["text"] for r in json.loads(raw)["results"]]
    assert "Catering \x1b[31mfor the offsite\u202e is the taco place." in texts


@pytest.mark.parametrize("args,needle", [
    (["   "], "the query is empty"),
    ([PRICE, "-k", "0"], "k must be between 1 and 100, got 0"),
    ([PRICE, "-k", "x"], "'x' is not a valid integer"),
    ([PRICE, "-n", "nope"], "namespace 'nope' is not in the store (namespaces: default, old)"),
    (["bad \ud800 text"], "the query"),
])
def test_bad_input_is_one_line_exit_2(db, config, args, needle):
    res = search(db, config, *args)
    assert res.exit_code == 2, res.output
    assert needle in res.output
    assert len(res.output.strip().splitlines()) == 1 and "Traceback" not in res.output


def test_missing_store_and_bad_config_are_one_line(tmp_path, config):
    res = search(tmp_path / "none.db", config, PRICE)
    assert res.exit_code == 2 and "no memmaint store" in res.output
    bad = tmp_path / "bad.toml"
    bad.write_text('[embedding]\nmodel = "bert"\n')
    with SQLiteStore(tmp_path / "s.db") as store:
        store.add_memories(pool()[:1])
    res = search(tmp_path / "s.db", bad, PRICE)
    assert res.exit_code == 2 and len(res.output.strip().splitlines()) == 1
    assert "embedding.model" in res.output


def test_search_writes_nothing_to_the_store(db, config):
    from memmaint.maintenance.embed.hashing import HashingEmbedder

    before = db.read_bytes()
    assert search(db, config, PRICE).exit_code == 0
    assert db.read_bytes() == before
    with SQLiteStore(db) as store:
        service = SearchService(store, embedder=HashingEmbedder(dim=64))
        first = service.search(PRICE, "default", 2)
        assert first.ids[0] == "pro39" and len(first) == 2
        mem = service.feedback("pro39", "success", "default")
        assert (mem.successes, mem.retrievals) == (1, 1)
        assert service.search(PRICE, "default", 1)[0].history == (1, 0)


def test_search_through_the_chroma_connector(tmp_path, config):
    chromadb = pytest.importorskip("chromadb", reason="pip install 'memmaint[chroma]'")
    from chromadb.config import Settings

    folder = tmp_path / "chroma"
    client = chromadb.PersistentClient(path=str(folder),
                                       settings=Settings(anonymized_telemetry=False))
    try:
        col = client.get_or_create_collection("memories", embedding_function=None,
                                              configuration={"hnsw": {"space": "cosine"}})
        docs = ["The Pro plan costs $39 per month.",
                "To reset a password use the link on the login page."]
        rng = np.random.default_rng(0)
        col.add(ids=["pro39", "reset"], documents=docs,
                embeddings=[rng.normal(size=8).astype(np.float32) for _ in docs])
    finally:
        client.close()
    url = f"chroma://{folder}?collection=memories&sidecar={tmp_path / 'sidecar.db'}"
    res = CliRunner().invoke(main, ["-q", "search", PRICE, "--db", url, "--config",
                                    str(config), "--json", "-n", "memories"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)  # stderr may warn that chroma keeps no times
    assert data["decision"] == "SERVE" and data["results"][0]["id"] == "pro39"


ROLLBACK = "How do I roll back a broken checkout deploy?"


def test_outcomes_recorded_with_their_query_count_for_that_question(tmp_path, config):
    """Feedback given with the question (CLI --query, or the MCP server's last search) goes
    into the store's serve history; search then lets proven advice for that question lead
    although failed advice restates the query, and a record earned only on another question
    weighs as its counters do, no more (issue #37 item 2)."""
    now = utcnow()
    path = tmp_path / "advice.db"
    with SQLiteStore(path) as store:
        store.add_memories([
            Memory(text="To roll back a broken checkout deploy, edit the files on the host "
                        "by hand.", id="bad", created_at=now - timedelta(days=2)),
            Memory(text="Redeploy the previous release tag from the pipeline.", id="good",
                   created_at=now - timedelta(days=30)),
            Memory(text="Refund a broken checkout charge from the payments console.",
                   id="refund", created_at=now - timedelta(days=30))])
    runner = CliRunner()

    def feedback(*args: str) -> None:
        res = runner.invoke(main, ["feedback", *args, "--db", str(path)])
        assert res.exit_code == 0, res.output

    asked = "How do I roll back the broken checkout deploy?"
    for _ in range(3):
        feedback("good", "--success", "--query", asked)
    feedback("bad", "--failure", "--query", asked)
    for _ in range(5):  # proven, but for another question
        feedback("refund", "--success", "--query", "A checkout charge went through twice")
    res = search(path, config, ROLLBACK, "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    top = data["results"][0]
    assert top["id"] == "good", res.output
    assert top["served_for"]["successes"] == 3 and top["served_for"]["closest_query"] > 0.7
    refund = next(r for r in data["results"] if r["id"] == "refund")
    assert "served_for" not in refund  # no past query like this one: the counters decide
    assert refund["final"] < top["final"]
    text = search(path, config, ROLLBACK, "-k", "1").output
    assert "3 ok / 0 failed for this question" in text
    # the same counters without the queries: the restated failure is served first
    plain = tmp_path / "plain.db"
    with SQLiteStore(path) as src, SQLiteStore(plain) as dst:
        dst.add_memories(list(src.iter_memories()))
    assert json.loads(search(plain, config, ROLLBACK, "--json").output)["results"][0][
        "id"] != "good"
    # the service records feedback for the query that served the memory
    with SQLiteStore(path) as store:
        service = SearchService(store, _config_of(config))
        served = service.search("How can I roll back a broken checkout deploy?")
        service.feedback(served[0].id, "success")
        last = store.serve_history("default")[-1]
        assert (last.memory_id, last.query) == (served[0].id, served.query)
    bad = runner.invoke(main, ["feedback", "good", "--success", "--query", "  ", "--db",
                               str(path)])
    assert bad.exit_code == 2 and "the query is empty" in bad.output


def _config_of(path: Path):
    from memmaint.maintenance.core.config import load_config

    return load_config(path)
