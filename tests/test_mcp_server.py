"""``memmaint mcp`` end to end: the MCP Python SDK's own client starts the server as a
subprocess over stdio, lists its tools, searches, records feedback and sees it in the next
search. A real SQLite store; the hashing embedder from a config file."""

from __future__ import annotations

import json
import os
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest

from memmaint.maintenance.core.records import Memory, utcnow
from memmaint.maintenance.store.sqlite import SQLiteStore

mcp = pytest.importorskip("mcp", reason="pip install 'memmaint[mcp]'")
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

QUERY = "To reset your password"


def _data(result: Any) -> dict[str, Any]:
    """A tool result's JSON object (structured content where the SDK gives it)."""
    structured = getattr(result, "structured_content", None) or getattr(
        result, "structuredContent", None)
    if isinstance(structured, dict) and "result" not in structured:
        return structured
    return json.loads(result.content[0].text)


def _is_error(result: Any) -> bool:
    return bool(getattr(result, "is_error", None) or getattr(result, "isError", None))


@pytest.fixture
def store_and_config(tmp_path: Path) -> tuple[Path, Path]:
    now = utcnow()
    db = tmp_path / "pool.db"
    with SQLiteStore(db) as store:
        store.add_memories([
            Memory(text="To reset your password use the link on the login page.", id="good",
                   created_at=now - timedelta(days=2)),
            Memory(text="To reset your password email support and wait for a reply.",
                   id="bad", created_at=now - timedelta(days=1)),
            Memory(text="The offsite catering is the taco place.", id="tacos",
                   created_at=now - timedelta(days=1)),
        ])
    config = tmp_path / "memmaint.toml"
    config.write_text('[embedding]\nmodel = "hashing"\ndim = 256\n')
    return db, config


async def _session_run(db: Path, config: Path) -> dict[str, Any]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memmaint.maintenance.cli.main", "-q", "mcp", "--db", str(db),
              "--config", str(config)],
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    seen: dict[str, Any] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        seen["tools"] = sorted(t.name for t in (await session.list_tools()).tools)
        first = await session.call_tool("search", {"query": QUERY, "k": 2})
        seen["first"] = _data(first)
        for outcome in ("success", "success", "success"):
            done = await session.call_tool("feedback", {"memory_id": "good",
                                                        "outcome": outcome})
            assert not _is_error(done), done
        bad = await session.call_tool("feedback", {"memory_id": "bad", "outcome": "failure",
                                                   "namespace": "default"})
        seen["feedback"] = _data(bad)
        seen["second"] = _data(await session.call_tool("search", {"query": QUERY, "k": 2}))
        unknown = await session.call_tool("feedback", {"memory_id": "nope",
                                                       "outcome": "success"})
        seen["unknown"] = (_is_error(unknown), unknown.content[0].text)
        empty = await session.call_tool("search", {"query": "  "})
        seen["empty"] = (_is_error(empty), empty.content[0].text)
        seen["refuse"] = _data(await session.call_tool(
            "search", {"query": "quarterly revenue forecast spreadsheet"}))
    return seen


@pytest.mark.timeout(120)
def test_sdk_client_searches_gives_feedback_and_sees_it(store_and_config):
    db, config = store_and_config
    seen = anyio.run(_session_run, db, config)
    assert seen["tools"] == ["feedback", "search"]
    first = seen["first"]
    assert first["decision"] == "SERVE"
    assert {r["id"] for r in first["results"]} == {"good", "bad"}
    assert all(r["successes"] == r["failures"] == r["uses"] == 0 for r in first["results"])
    assert seen["feedback"]["failures"] == 1 and seen["feedback"]["uses"] == 1
    second = seen["second"]
    top = second["results"][0]
    assert top["id"] == "good" and (top["successes"], top["uses"]) == (3, 3)
    assert top["outcome_bonus"] > 0
    assert second["results"][1]["outcome_bonus"] < 0  # the failed one sinks
    assert seen["unknown"][0] and "unknown memory ids: default/nope" in seen["unknown"][1]
    assert seen["empty"][0] and "the query is empty" in seen["empty"][1]
    assert seen["refuse"]["decision"] == "REFUSE" and seen["refuse"]["results"] == []
    with SQLiteStore(db) as store:
        good = store.get_memories("default", ["good"])[0]
        history = store.serve_history("default")
    assert (good.successes, good.failures, good.retrievals) == (3, 0, 3)
    # feedback naming no query is recorded for the search that served the memory
    assert [(s.memory_id, s.query, s.success) for s in history] == (
        [("good", QUERY, True)] * 3 + [("bad", QUERY, False)])
    assert top["served_for"] == {"closest_query": pytest.approx(1.0), "successes": 3,
                                 "failures": 0}


def test_missing_sdk_names_the_extra(monkeypatch, store_and_config):
    from click.testing import CliRunner

    from memmaint.maintenance.cli.main import main

    monkeypatch.setitem(sys.modules, "mcp", None)  # as if not installed
    db, config = store_and_config
    res = CliRunner().invoke(main, ["mcp", "--db", str(db), "--config", str(config)])
    assert res.exit_code == 2
    assert "pip install 'memmaint[mcp]'" in res.output and "Traceback" not in res.output
