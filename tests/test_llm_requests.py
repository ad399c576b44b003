"""Requests that real OpenAI-compatible servers accept, and runs that say when the LLM was
not used (#36), against our stub server on 127.0.0.1 (a real HTTP server, scripted replies):

- ``max_tokens`` in every request, from the cluster's size, capped;
- ``response_format`` negotiated (``json_schema``, ``json_object`` with the schema, the
  schema in the prompt), the working mode kept for the run, a refusal never retried;
- ``job.llm_fallback``: an endpoint that answers nothing fails the run (exit 1, one line,
  nothing applied); ``fail`` fails it on any fallback; clusters over ``max_cluster_size`` are
  counted in the report and the one line on stderr.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from maint_fixtures import FAST_TOML, NOW, embed, local_scenario
from openai_stub_server import Reply, StubServer, keep_all

from memmaint.maintenance.agents.llm import LLMAgent
from memmaint.maintenance.agents.llm_client import max_tokens_for
from memmaint.maintenance.agents.llm_report import LLMFallbackError
from memmaint.maintenance.core.config import AgentsConfig, LLMConfig
from memmaint.maintenance.core.records import Status
from memmaint.maintenance.plan.model import check_plan
from memmaint.maintenance.report.model import RunReport
from memmaint.maintenance.store.sqlite import SQLiteStore

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_job import pool as job_pool

#: What llama-cpp-python 0.3.36's server answers to ``json_schema`` (HTTP 500), as seen.
LLAMA_CPP_500 = ("1 validation error:\n  {'type': 'literal_error', 'loc': ('body', "
                 "'response_format', 'type'), 'msg': \"Input should be 'text' or "
                 "'json_object'\", 'input': 'json_schema', 'ctx': {'expected': \"'text' or "
                 "'json_object'\"}}")


def run(server: StubServer, fallback: str | None = None, **kw):
    settings = {"base_url": server.url, "model": "stub", "api_key_env": "",
                "backoff_s": 0.01, "timeout_s": 5.0, "max_concurrency": 1, "max_retries": 0,
                "http_retries": 2, **kw}
    pool, labels, _ = local_scenario()
    agent = LLMAgent(LLMConfig(**settings), AgentsConfig(), sleep=lambda s: None,
                     fallback=fallback)
    the_plan = agent.plan(pool, labels, embed([m.text for m in pool]), now=NOW, plan_id="p")
    check_plan(the_plan, pool, labels)
    return the_plan


def refusing(*modes: str, status: int = 500, message: str = LLAMA_CPP_500):
    """A server refusing requests whose response_format is one of ``modes``."""
    def respond(body):
        fmt = body.get("response_format")
        mode = "none" if fmt is None else (
            "json_schema" if fmt["type"] == "json_schema" else "json_object")
        if mode in modes:
            return Reply(status=status, message=message)
        return keep_all(body)
    return respond


def mode_of(body) -> str:
    fmt = body.get("response_format")
    return "none" if fmt is None else fmt["type"]


def test_max_tokens_in_every_request_from_the_cluster_size_capped():
    with StubServer() as server:
        the_plan = run(server, tokens_per_memory=100, max_tokens=500)
    assert server.requests and all(isinstance(b.get("max_tokens"), int) for b in server.requests)
    for body in server.requests:
        n = body["messages"][1]["content"].count('"id": ')
        assert body["max_tokens"] == min(500, 256 + 100 * n)
    assert max(b["max_tokens"] for b in server.requests) == 500  # the cap bites on big ones
    assert the_plan.report["replies"]["valid"] == len(server.requests)
    assert max_tokens_for(1000, LLMConfig()) == LLMConfig().max_tokens


def test_max_completion_tokens_when_configured():
    with StubServer() as server:
        run(server, max_tokens_param="max_completion_tokens")
    assert all("max_completion_tokens" in b and "max_tokens" not in b for b in server.requests)


def test_json_schema_refused_with_500_steps_down_once_and_is_not_retried():
    with StubServer(refusing("json_schema")) as server:
        the_plan = run(server)
    modes = [mode_of(b) for b in server.requests]
    assert modes[0] == "json_schema" and modes.count("json_schema") == 1  # no retry, kept
    assert set(modes[1:]) == {"json_object"}
    assert server.requests[1]["response_format"]["schema"]["required"] == ["actions"]
    rep = the_plan.report
    assert rep["usage"]["http_retries"] == 0
    assert rep["response_format"] == "json_object"
    assert [(f["from"], f["to"]) for f in rep["format_fallbacks"]] == [("json_schema",
                                                                        "json_object")]
    assert rep["fallbacks"] == [] and the_plan.backend == "llm"


def test_every_format_refused_ends_with_the_schema_in_the_prompt():
    with StubServer(refusing("json_schema", "json_object", status=400,
                             message="response_format is not supported")) as server:
        the_plan = run(server, max_concurrency=2)
    plain = [b for b in server.requests if mode_of(b) == "none"]
    assert plain and "JSON Schema" in plain[0]["messages"][0]["content"]
    assert sum(mode_of(b) == "json_schema" for b in server.requests) <= 2  # concurrent calls
    assert the_plan.report["response_format"] == "none"
    assert the_plan.report["fallbacks"] == []


def test_a_500_that_does_not_name_the_format_is_still_retried():
    calls = []

    def flaky(body):
        calls.append(body)
        return Reply(status=500, message="out of memory") if len(calls) == 1 else keep_all(body)

    with StubServer(flaky) as server:
        the_plan = run(server)
    assert the_plan.report["usage"]["http_retries"] == 1
    assert the_plan.report["response_format"] == "json_schema"
    assert mode_of(server.requests[1]) == "json_schema"


def test_a_fixed_format_the_server_refuses_makes_the_endpoint_unusable():
    with StubServer(refusing("json_schema")) as server:
        the_plan = run(server, response_format="json_schema")
        assert len(server.requests) == 1  # the first refusal stops the run's calls
        with pytest.raises(LLMFallbackError, match="answered no usable call"):
            run(server, response_format="json_schema", fallback="rules")
    causes = {f["cause"] for f in the_plan.report["fallbacks"]}
    assert causes == {"endpoint_unusable"}
    assert "response_format 'json_schema'" in the_plan.report["fallbacks"][0]["reason"]


def test_a_cut_off_reply_is_retried_with_the_cap():
    calls = []

    def cut_then_ok(body):
        calls.append(body)
        if len(calls) == 1:
            out = {"choices": [{"finish_reason": "length", "message": {
                "role": "assistant", "content": '{"actions": [{"type": "ke'}}]}
            return Reply(raw=json.dumps(out).encode())
        return keep_all(body)

    with StubServer(cut_then_ok) as server:
        the_plan = run(server, max_retries=1, tokens_per_memory=10, max_tokens=999)
    assert server.requests[1]["max_tokens"] == 999
    assert "token limit" in server.requests[1]["messages"][-1]["content"]
    assert the_plan.report["replies"]["cut_off"] == 1


# -- the CLI: exit codes and the one line -------------------------------------------------

def llm_toml(url: str, **llm: object) -> str:
    extra = "".join(f"{k} = {json.dumps(v)}\n" for k, v in llm.items())
    return FAST_TOML + textwrap.dedent(f"""
        [agents]
        backend = "llm"
        [llm]
        base_url = "{url}"
        api_key_env = ""
        http_retries = 0
        backoff_s = 0.01
        timeout_s = 5.0
        max_retries = 0
        """) + extra


@pytest.fixture
def store_db(tmp_path):
    db = tmp_path / "pool.db"
    with SQLiteStore(db) as store:
        store.add_memories(job_pool())
    return db


def active(db: Path) -> int:
    with SQLiteStore(db) as store:
        return store.count_memories("ns", statuses=[Status.ACTIVE])


def test_unreachable_endpoint_fails_the_run_with_one_line(cli, store_db, tmp_path):
    conf = tmp_path / "llm.toml"
    conf.write_text(llm_toml("http://127.0.0.1:9/v1"), encoding="utf-8")
    res = cli("run", "--db", store_db, "--config", conf, "--force")
    assert res.exit_code == 1, res.output
    errors = [ln for ln in res.stderr.splitlines() if ln.startswith("memmaint: error:")]
    assert len(errors) == 1 and "answered no usable call" in errors[0]
    assert "127.0.0.1:9" in errors[0] and "nothing applied" in errors[0]
    assert active(store_db) == 18
    listed = cli("runs", "--db", store_db, "--json")
    assert json.loads(listed.output)[0]["status"] == "failed"


def test_llm_fallback_fail_exits_non_zero_when_replies_are_rejected(cli, store_db, tmp_path):
    def invents(body):
        return Reply.plan([{"type": "keep", "memory_ids": ["no-such-id"]}])

    conf = tmp_path / "llm.toml"
    with StubServer(invents) as server:
        conf.write_text(llm_toml(server.url), encoding="utf-8")
        ok = cli("run", "--db", store_db, "--config", conf, "--force", "--dry-run")
        failed = cli("run", "--db", store_db, "--config", conf, "--force",
                     "--llm-fallback", "fail")
    # the default (rules): the rules' plan stands, and one line says how many and why
    assert ok.exit_code == 0, ok.output
    warn = [ln for ln in ok.stderr.splitlines() if ln.startswith("memmaint: warning: LLM:")]
    assert len(warn) == 1 and "fell back to the rules" in warn[0] and "rejected" in warn[0]
    # fail: exit 1, one line, nothing applied
    assert failed.exit_code == 1, failed.output
    errors = [ln for ln in failed.stderr.splitlines() if ln.startswith("memmaint: error:")]
    assert len(errors) == 1 and "job.llm_fallback = fail" in errors[0]
    assert active(store_db) == 18


def test_clusters_over_max_cluster_size_are_counted_and_said(cli, store_db, tmp_path):
    conf = tmp_path / "llm.toml"
    out = tmp_path / "r.json"
    with StubServer() as server:
        conf.write_text(llm_toml(server.url, max_cluster_size=2, split_clusters=False),
                        encoding="utf-8")
        res = cli("run", "--db", store_db, "--config", conf, "--force", "--dry-run",
                  "--report", out)
    assert res.exit_code == 0, res.output
    llm = RunReport.load(out).primary.llm
    assert llm["too_large"] >= 1 and llm["max_cluster_size"] == 2
    assert llm["clusters_sent"] == len(server.requests)
    assert llm["planned_by_llm"] == llm["clusters_sent"]
    line = [ln for ln in res.stderr.splitlines() if "max_cluster_size" in ln
            and ln.startswith("memmaint: warning: LLM:")]
    assert len(line) == 1 and f"{llm['too_large']} cluster" in line[0]


def test_a_cluster_of_200_reaches_the_llm_in_pieces(cli, tmp_path):
    """Issue #36 item 4: clusters over max_cluster_size are cut along the clustering's merge
    history into pieces the model reads, none of them left to the rules."""
    from openai_stub_server import prompt_ids

    from memmaint.maintenance.core.records import Memory

    db = tmp_path / "big.db"
    with SQLiteStore(db) as store:  # one topic said 200 times (one cluster), another 40 times
        store.add_memories(
            [Memory(text=f"Deploy checklist: run the smoke tests before the release train "
                         f"leaves (note {i}).", id=f"a{i:03d}", namespace="ns")
             for i in range(200)]
            + [Memory(text=f"Customer Ana Lopez prefers invoices in euros, sent on the first "
                           f"Monday (account {i}).", id=f"b{i:03d}", namespace="ns")
               for i in range(40)])
    conf = tmp_path / "llm.toml"
    out = tmp_path / "r.json"
    with StubServer() as server:
        conf.write_text(llm_toml(server.url, max_cluster_size=60).replace(
            "[clustering.hdbscan]\nmin_cluster_size = 2",
            "[clustering.hdbscan]\nmin_cluster_size = 20"), encoding="utf-8")
        res = cli("run", "--db", db, "--config", conf, "--force", "--dry-run",
                  "--report", out)
    assert res.exit_code == 0, res.output
    report = RunReport.load(out)
    assert report.stage("cluster").detail.get("split_for_planner") == 1
    llm = report.primary.llm
    assert llm["too_large"] == 0 and llm["planned_by_llm"] == llm["clusters_sent"]
    sent = [prompt_ids(body) for body in server.requests]
    assert sent and max(len(ids) for ids in sent) <= 60
    big = {i for ids in sent for i in ids if i.startswith("a")}
    assert len(big) >= 180  # the big cluster's members went to the model, in pieces
    assert not [ln for ln in res.stderr.splitlines() if "max_cluster_size" in ln]



def test_the_dry_run_plan_and_review_page_state_the_llm_cost_per_namespace(cli, tmp_path):
    """Issue #36 item 5: what the LLM backend spends, per namespace, before anything is
    applied: on `run --dry-run`, on `memmaint plan` and on the review page."""
    db = tmp_path / "two.db"
    with SQLiteStore(db) as store:
        store.add_memories(job_pool("alpha") + job_pool("beta", copies=2))
    conf = tmp_path / "llm.toml"
    out = tmp_path / "r.json"
    with StubServer() as server:
        conf.write_text(llm_toml(server.url), encoding="utf-8")
        dry = cli("run", "--db", db, "--config", conf, "--force", "--dry-run", "--report", out)
        planned = cli("plan", "--db", db, "--config", conf, "-o", tmp_path / "plan.json")
        page = cli("review", tmp_path / "plan.json", "-o", tmp_path / "review.html")
    assert dry.exit_code == 0 and planned.exit_code == 0 and page.exit_code == 0
    llm = RunReport.load(out).primary.llm
    per = llm["by_namespace"]
    assert set(per) == {"alpha", "beta"}
    assert sum(v["llm_calls"] for v in per.values()) == llm["llm_calls"] > 0
    assert sum(v["tokens_in"] for v in per.values()) == llm["tokens_in"]
    line = [ln for ln in dry.stdout.splitlines() if ln.startswith("LLM cost:")]
    assert len(line) == 1 and f"{llm['llm_calls']} calls" in line[0]
    assert f"alpha: {per['alpha']['llm_calls']} calls" in line[0] and "beta:" in line[0]
    assert [ln for ln in planned.stdout.splitlines() if ln.startswith("LLM cost:")]
    html = (tmp_path / "review.html").read_text(encoding="utf-8")
    assert "LLM cost:" in html and "alpha:" in html and "beta:" in html
