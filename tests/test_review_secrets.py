"""No secret leaves the store URL: the review flow on a PostgreSQL URL with a password.

Every file the flow writes (plan, review page, decisions, queue export, labels), every page,
every run record and every line of output is searched for the password.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.core.urls import redact_url, store_fingerprint, store_location

sys.path.insert(0, str(Path(__file__).resolve().parent))
from maint_fixtures import FAST_TOML
from test_job import pool

SECRET = "Pw9sEcReTzz"


@pytest.mark.parametrize("url, shown", [
    ("postgresql://bob:Pw9sEcReTzz@db.example:5432/mem", "postgresql://bob:***@db.example:5432/mem"),
    ("postgresql://db/mem?user=bob&password=Pw9sEcReTzz&schema=x",
     "postgresql://db/mem?user=bob&password=***&schema=x"),
    ("qdrant+http://h:6333?collection=c&api_key=Pw9sEcReTzz",
     "qdrant+http://h:6333?collection=c&api_key=***"),
    ("cannot connect to postgresql://u:Pw9sEcReTzz@h/db: refused",
     "cannot connect to postgresql://u:***@h/db: refused"),
    ("/var/lib/memmaint/memories.db", "/var/lib/memmaint/memories.db"),
])
def test_redact_url(url, shown):
    assert redact_url(url) == shown
    if " " not in url:  # a URL, not a message
        assert SECRET not in store_location(url) and SECRET not in store_fingerprint(url)


def test_fingerprint_ignores_credentials_but_not_the_database():
    a = "postgresql://bob:one@h:5432/mem"
    assert store_fingerprint(a) == store_fingerprint("postgresql://alice:two@h:5432/mem")
    assert store_fingerprint(a) != store_fingerprint("postgresql://bob:one@h:5432/other")
    assert store_fingerprint(a) != store_fingerprint("postgresql://bob:one@h:5432/mem?schema=s")


def test_the_password_is_in_no_file_page_record_or_output(cli, pg_url, tmp_path, monkeypatch):
    from memmaint.maintenance.store.postgres import PostgresStore

    url = pg_url.replace("postgres@", f"postgres:{SECRET}@", 1)
    assert SECRET in url
    with PostgresStore(url) as store:  # trust auth ignores the password
        store.add_memories(pool() + [
            Memory(text="Always answer in Comic Sans", id="unhelpful-1", namespace="ns",
                   retrievals=30, successes=0, failures=30),
            Memory(text="The Lisbon office is closed today", id="stale-1", namespace="ns",
                   kind="schedule")])
    monkeypatch.chdir(tmp_path)
    cfg = tmp_path / "fast.toml"
    cfg.write_text(FAST_TOML, encoding="utf-8")
    outputs: list[str] = []

    def run(*args: object, code: int | None = 0, input: str | None = None) -> str:
        res = cli(*args, input=input)
        outputs.append(res.stdout + res.stderr)
        if code is not None:
            assert res.exit_code == code, res.output
        return res.stdout

    run("stats", "--db", url)
    run("stats", "--db", url, "--json")
    run("plan", "--db", url, "--config", cfg, "-o", "plan.json")
    run("review", "plan.json", "-o", "review.html")
    run("review", "plan.json", "--terminal", "--decisions", "decisions.json", input="a\n")
    out = run("apply", "plan.json", "--decisions", "decisions.json", "--db", url,
              "--labels", "labels.jsonl")
    applied = out.split()[1].rstrip(":")
    run("runs", "--db", url)
    run("runs", "--db", url, "--show", applied)
    run("runs", "--db", url, "--json")
    run("undo", applied, "--db", url)
    out = run("run", "--db", url, "--config", cfg, "--approve", "evict", "--force")
    assert "queued plan" in out, out
    queued = out.split("queued plan ")[1].split()[0]
    run("queue", "--db", url)
    run("queue", "--db", url, "--export", queued, "-o", "queued.json")
    run("review", "queued.json", "-o", "queued.html")
    run("apply", "queued.json", "--db", url)
    # errors name the store too: a plan for another store, an unknown memory, a bad run id
    run("apply", "plan.json", "--db", str(tmp_path / "other.db"), code=None)
    run("init", "--db", str(tmp_path / "other.db"))
    run("apply", "plan.json", "--db", str(tmp_path / "other.db"), code=2)
    run("apply", str(tmp_path / "queued.json"), "--db", url, code=None)
    run("history", "no-such-id", "--db", url, "-n", "ns", code=None)
    run("undo", "no-such-run", "--db", url, code=None)

    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert {"plan.json", "review.html", "decisions.json", "labels.jsonl", "queued.json",
            "queued.html"} <= {p.name for p in files}
    for path in files:
        assert SECRET not in path.read_text(encoding="utf-8", errors="replace"), path
    plan = json.loads((tmp_path / "plan.json").read_text(encoding="utf-8"))
    assert plan["store"] == redact_url(url) and "***" in plan["store"]
    for text in outputs:
        assert SECRET not in text, text
    with PostgresStore(url) as store:
        records = store.list_runs()
        assert records
        for rec in records:
            assert SECRET not in json.dumps(dict(rec.report), default=str), rec.run_id
        for ev in store.events():
            assert SECRET not in json.dumps([ev.before, ev.after, ev.reason], default=str)
