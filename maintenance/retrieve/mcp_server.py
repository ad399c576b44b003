"""The MCP server: a maintained store served to agents over the Model Context Protocol.

``memmaint mcp --db URL`` runs :func:`build_server` over stdio. Two tools:

- ``search(query, namespace=None, k=None)``: what :meth:`SearchService.search` answers, as
  :func:`~memmaint.maintenance.retrieve.service.retrieval_record` data: ``decision``
  (``SERVE``, or ``REFUSE`` with ``reason``: nothing relevant is fresh, better no answer than
  a fossil), the served ``results`` with their texts, scores, freshness verdict and outcome
  evidence, and what was ``not_served``;
- ``feedback(memory_id, outcome, namespace=None, query=None)``: records ``success``,
  ``failure`` or ``used`` for a served memory, through the same code as ``memmaint
  feedback``, with the question it was used for (``query``; default the last search of this
  server that served it) in the store's serve history; the next search ranks with it.

Bad input (an empty query, an unknown id or namespace) is a tool error with one line, not a
crash of the server. The SDK (extra ``mcp``: ``pip install 'memmaint[mcp]'``) is imported
only here, when the server is built; mcp 1.x (``FastMCP``) and 2.x (``MCPServer``) both work.
"""

from __future__ import annotations

import logging
from typing import Any

from memmaint.maintenance.core.errors import UserError, require
from memmaint.maintenance.retrieve.service import (
    SearchService,
    feedback_record,
    retrieval_record,
)

log = logging.getLogger(__name__)

_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")

INSTRUCTIONS = (
    "Long-term memory maintained by memmaint. Call `search` before answering from memory; "
    "when the decision is REFUSE, do not answer from memory (what it holds on the topic is "
    "stale or missing). After using a served memory, call `feedback` with its id and "
    "namespace and whether it helped, so proven memories lead and failed ones sink.")


def _sdk() -> tuple[Any, type[Exception]]:
    """The server class and the tool-error class of the installed MCP SDK."""
    require("mcp", "mcp")
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
        return MCPServer, ToolError
    except ImportError:  # mcp 1.x
        import importlib

        fast = importlib.import_module("mcp.server.fastmcp")
        errors = importlib.import_module("mcp.server.fastmcp.exceptions")
        return fast.FastMCP, errors.ToolError


def build_server(service: SearchService, default_namespace: str | None = None) -> Any:
    """An MCP server (not started) whose tools search ``service`` and record feedback.

    ``default_namespace`` is searched when a call names none (None: every namespace), and is
    the namespace of feedback that names none (``default`` when None).
    """
    server_cls, tool_error = _sdk()
    # the SDK's own log lines follow memmaint's level (-q: warnings only)
    level = logging.getLevelName(logging.getLogger("memmaint").getEffectiveLevel())
    server = server_cls("memmaint", instructions=INSTRUCTIONS,
                        log_level=level if level in _LEVELS else "INFO")

    # async tools run on the server's own thread, the one that opened the store
    @server.tool()
    async def search(query: str, namespace: str | None = None,
                     k: int | None = None) -> dict[str, Any]:
        """Search the agent's long-term memory. Returns `decision` (SERVE, or REFUSE when
        nothing relevant is fresh: then do not answer from memory), `reason`, and `results`
        (best first) with id, namespace, text, freshness verdict and outcome evidence
        (successes, failures, uses)."""
        try:
            ret = service.search(query, namespace or default_namespace, k)
        except UserError as exc:
            raise tool_error(str(exc)) from None
        return retrieval_record(ret)

    @server.tool()
    async def feedback(memory_id: str, outcome: str, namespace: str | None = None,
                       query: str | None = None) -> dict[str, Any]:
        """Record whether a served memory helped: `outcome` is "success", "failure" or
        "used" (used, no verdict). Give the memory's `id` and `namespace` from `search`, and
        the `query` it answered when it was not the last search that served it."""
        try:
            mem = service.feedback(memory_id, outcome,
                                   namespace or default_namespace or "default", query)
        except UserError as exc:
            raise tool_error(str(exc)) from None
        return dict(feedback_record(mem, outcome))

    log.info("MCP server ready: tools search, feedback")
    return server
