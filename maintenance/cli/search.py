"""``memmaint search`` and ``memmaint mcp``: what an agent would be served, from the shell or
over MCP.

Thin shell over :class:`~memmaint.maintenance.retrieve.service.SearchService`. A refusal is
an answer (exit 0, said on the first line: ``REFUSE: why``); bad input is one line on stderr
with exit 2. Memory texts and ids are printed with their control characters escaped, and
``--json`` escapes them as ``\\uXXXX`` (the same value once decoded).
"""

from __future__ import annotations

import json

import click

from memmaint.maintenance.core.config import load_config
from memmaint.maintenance.core.text import for_terminal, json_for_terminal
from memmaint.maintenance.retrieve.search import Result, Retrieval

_DB_HELP = "Store: a SQLite path, a postgresql:// URL or a connector URL (chroma://, ...)."
_CONFIG_HELP = "TOML config file: [embedding] model, [retrieve], [agents] TTLs " \
               "(env MEMMAINT_CONFIG)."
_TEXT_CHARS = 160


def _evidence(r: Result) -> str:
    """``outcome 5 ok / 1 failed / 7 uses, +0.120`` (or ``no outcome yet``)."""
    s, f = r.history
    uses = r.memory.retrievals
    if not (s or f or uses):
        return "no outcome yet"
    line = f"outcome {s} ok / {f} failed / {uses} uses, weight {r.outcome_bonus:+.3f}"
    if r.served_for is not None:
        near, qs, qf = r.served_for
        line += f" ({qs} ok / {qf} failed for this question, past query at {near:.2f})"
    return line


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _TEXT_CHARS else text[:_TEXT_CHARS - 3] + "..."


def format_retrieval(ret: Retrieval, explain: bool = False) -> str:
    """The answer as lines for a terminal: the decision and why, then each served memory
    (rank, id, namespace, score, the gate's verdict, the outcome evidence, its text) and the
    relevant memories the gate kept back. ``explain`` adds every score's parts."""
    lines = [f"{ret.decision}: {ret.reason}"]
    if explain and ret.route is not None:
        lines.append("  " + ret.route.describe())
    for r in ret.results:
        off = "" if r.relevant else "  (below the similarity floor)"
        lines.append(f"{r.rank:>2}. {r.memory.id} [{r.memory.namespace}] score {r.final:.3f}"
                     f"  {r.verdict} (freshness {r.freshness:.2f})  {_evidence(r)}{off}")
        lines.append(f"    {_short(r.memory.text)}")
        if explain:
            lines.append(f"    why: {r.explain()}")
    if ret.blocked:
        lines.append("not served:")
        for r in ret.blocked:
            lines.append(f"  - {r.memory.id} [{r.memory.namespace}] similarity "
                         f"{r.similarity:.3f}  {r.verdict} (freshness {r.freshness:.2f})  "
                         f"{_evidence(r)}")
            lines.append(f"    {_short(r.memory.text)}")
            if explain:
                lines.append(f"    why: {r.explain()}")
    return "\n".join(for_terminal(line) for line in lines)


def _service(db: str, config_path: str | None):  # type: ignore[no-untyped-def]
    from memmaint.maintenance.retrieve.service import SearchService
    from memmaint.maintenance.store.registry import open_store

    config = load_config(config_path)  # a bad config fails before the store is opened
    store = open_store(db, create=False)
    try:
        return SearchService(store, config)
    except BaseException:
        store.close()
        raise


@click.command("search")
@click.argument("query")
@click.option("--db", required=True, help=_DB_HELP)
@click.option("--namespace", "-n", default=None, help="Only this namespace (default: all).")
@click.option("-k", "k", type=int, default=None,
              help="How many memories to serve (default: [retrieve] k, 5).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
@click.option("--explain", is_flag=True, help="Show every score's parts and the routing.")
@click.option("--config", "config_path", type=click.Path(), envvar="MEMMAINT_CONFIG",
              help=_CONFIG_HELP)
def search_cmd(query: str, db: str, namespace: str | None, k: int | None, as_json: bool,
               explain: bool, config_path: str | None) -> None:
    """Show what an agent asking QUERY would be served: the freshness gate's decision
    (SERVE, or REFUSE and why; exit 0 either way) and per memory its scores, verdict and
    outcome evidence."""
    from memmaint.maintenance.retrieve.service import check_k, check_query, retrieval_record

    check_query(query)  # bad input is refused before the store is opened
    check_k(k)
    service = _service(db, config_path)
    try:
        ret = service.search(query, namespace, k)
    finally:
        service.store.close()
    if as_json:
        click.echo(json_for_terminal(json.dumps(retrieval_record(ret), ensure_ascii=False)))
    else:
        click.echo(format_retrieval(ret, explain))


@click.command("mcp")
@click.option("--db", required=True, help=_DB_HELP)
@click.option("--namespace", "-n", default=None,
              help="Namespace searched when a call names none (default: all).")
@click.option("--config", "config_path", type=click.Path(), envvar="MEMMAINT_CONFIG",
              help=_CONFIG_HELP)
def mcp_cmd(db: str, namespace: str | None, config_path: str | None) -> None:
    """Serve the store to agents over MCP (stdio): tools `search` and `feedback`
    (extra `mcp`)."""
    from memmaint.maintenance.retrieve.mcp_server import build_server

    service = _service(db, config_path)
    try:
        service.check_namespace(namespace)
        server = build_server(service, default_namespace=namespace)
        server.run("stdio")
    finally:
        service.store.close()
