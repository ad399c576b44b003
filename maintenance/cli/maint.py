"""CLI commands for provenance: ``memmaint undo RUN_ID`` and ``memmaint history MEMORY_ID``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from memmaint.maintenance.core.errors import UnknownIdError, UserError
from memmaint.maintenance.core.urls import redact_url
from memmaint.maintenance.report.lineage import FORMATS, lineage_graph, render
from memmaint.maintenance.store.base import MemoryStore
from memmaint.maintenance.store.registry import open_store


@click.command("undo")
@click.argument("run_id")
@click.option("--db", required=True, help="Store path or URL.")
def undo_cmd(run_id: str, db: str) -> None:
    """Restore every memory RUN_ID changed to its state before the run.

    Memories the run created are archived (never deleted). Refuses, naming them, when any
    of the run's memories changed afterwards. The undo is recorded as run ``undo-RUN_ID``;
    ``memmaint undo undo-RUN_ID`` re-applies RUN_ID (its record is ``succeeded`` again, and
    ``memmaint undo RUN_ID`` then undoes the re-application).
    """
    from memmaint.maintenance.apply.applier import undo_run

    store = open_store(db, create=False)
    try:
        with store.lock("run"):
            result = undo_run(store, run_id)
    finally:
        store.close()
    what = "undid" if result.run_id == run_id else f"for {run_id}, undid"
    click.echo(f"{what} run {result.run_id}: {len(result.restored)} memories restored, "
               f"{len(result.archived)} created memories archived "
               f"(recorded as run {result.undo_run_id})")


@click.command("history")
@click.argument("memory_id")
@click.option("--db", required=True, help="Store path or URL.")
@click.option("--namespace", "-n", default=None,
              help="Namespace of the memory (needed when the id exists in several).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text",
              show_default=True, help="Output format.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write to this file instead of stdout.")
def history_cmd(memory_id: str, db: str, namespace: str | None, fmt: str,
                output: str | None) -> None:
    """Show MEMORY_ID's lineage: what it was merged from, what superseded it, and its events."""
    from memmaint.maintenance.cli.main import check_output

    check_output(output, "-o")
    store = open_store(db, create=False)
    try:
        ns = namespace or _find_namespace(store, memory_id)
        graph = lineage_graph(store, ns, memory_id)
    finally:
        store.close()
    text = render(graph, fmt)
    if output:
        try:
            Path(output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UserError(f"cannot write {output}: {exc.strerror}") from None
    else:
        click.echo(text, nl=False)


def _find_namespace(store: MemoryStore, memory_id: str) -> str:
    found = [ns for ns in store.namespaces() if store.existing_ids(ns, [memory_id])]
    if not found:
        raise UnknownIdError(f"no memory {memory_id!r} in {redact_url(store.url)}")
    if len(found) > 1:
        raise UserError(f"memory id {memory_id!r} exists in namespaces {', '.join(found)}: "
                        "pass --namespace")
    return found[0]


# -- decisions (``run --decisions``, ``runs --show RUN_ID --decisions``) ------------------------

def _cut(text: str, width: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= width else flat[: width - 1] + "\u2026"


def decisions_table(outcome: Any, *, width: int = 48) -> str:
    """A configuration's decisions as a text table, one memory a row: id, action, target,
    agent, reason, where the clusterer joined it (``step k, d=...``, from the merge history)
    and the memory's text (reason and text cut to ``width`` characters; every cell made safe
    for a terminal)."""
    from memmaint.maintenance.core.text import for_terminal
    from memmaint.maintenance.report.text import table

    decisions = list(getattr(outcome, "decisions", None) or [])
    if not decisions:
        return f"{getattr(outcome, 'name', 'plan')}: no decisions (every memory kept)"
    texts = getattr(outcome, "texts", {}) or {}
    joined = getattr(outcome, "joined", {}) or {}

    def where(key: str) -> str:
        return f"step {joined[key][0]}, d={joined[key][1]:.3g}" if key in joined else "-"

    rows = [[for_terminal(_cut(d.memory_id, 36)), d.type,
             for_terminal(_cut(d.target or "-", 36)), for_terminal(d.agent or "-"),
             for_terminal(_cut(d.reason or "-", width)), where(f"{d.namespace}\x1f{d.memory_id}"),
             for_terminal(_cut(texts.get(f"{d.namespace}\x1f{d.memory_id}", ""), width))]
            for d in decisions]
    return table(["id", "action", "target", "agent", "reason", "joined", "text"], rows)
