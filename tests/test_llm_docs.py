"""The README's "Maintenance with an LLM" section runs as written against our stub server, and
every ``examples/llm-*.toml`` is a valid config for the LLM backend (#36)."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest
from openai_stub_server import StubServer

from memmaint.maintenance.core.config import load_config

REPO = Path(__file__).resolve().parents[1]


def llm_section() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Maintenance with an LLM", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert block, "the README's LLM section has no ```bash block"
    return [ln.strip() for ln in block.group(1).splitlines() if ln.strip()]


@pytest.mark.parametrize("path", sorted((REPO / "examples").glob("llm-*.toml")),
                         ids=lambda p: p.name)
def test_every_llm_example_loads(path):
    config = load_config(path)
    assert config.agents.backend == "llm"
    assert config.llm.base_url.startswith(("http://", "https://"))
    assert config.llm.max_tokens <= 4096


def test_the_examples_name_each_server():
    names = {p.name for p in (REPO / "examples").glob("llm-*.toml")}
    assert {"llm-openai.toml", "llm-llamacpp.toml", "llm-ollama.toml",
            "llm-vllm.toml", "llm-stub.toml"} <= names


def test_the_readme_llm_section_runs_against_the_stub(tmp_path, monkeypatch, cli):
    lines = llm_section()
    assert lines[0].startswith("python tests/openai_stub_server.py --port 8000")
    assert lines[-1] == "kill %1"
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    with StubServer() as server:  # the first line's server, on a free port
        stub = tmp_path / "examples" / "llm-stub.toml"
        stub.write_text(stub.read_text(encoding="utf-8").replace(
            "127.0.0.1:8000", f"127.0.0.1:{server.port}"), encoding="utf-8")
        for line in lines[1:-1]:
            args = shlex.split(line)
            assert args[0] == "memmaint"
            res = cli(*args[1:])
            assert res.exit_code == 0, (line, res.output)
    assert server.requests and all("max_tokens" in b for b in server.requests)
    llm = json.loads((tmp_path / "llm-report.json").read_text())["primary"]["llm"]
    assert llm["clusters_sent"] == llm["planned_by_llm"] == len(server.requests)
    assert llm["response_format"] == "json_schema"
    # the sample pool has a cluster over max_cluster_size: the last run says so in one line
    said = [ln for ln in res.stderr.splitlines() if ln.startswith("memmaint: warning: LLM")]
    assert len(said) == (1 if llm["too_large"] else 0)
    assert not said or f"{llm['too_large']} cluster" in said[0]
