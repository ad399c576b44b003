"""``memmaint feedback``: report whether a served memory helped (one, or a batch from JSONL).

Thin shell over :mod:`memmaint.maintenance.retrieve.feedback` (the same code the MCP server's
``feedback`` tool runs). A batch is all-or-nothing.
"""

from __future__ import annotations

from pathlib import Path

import click

from memmaint.maintenance.core.errors import UserError
from memmaint.maintenance.retrieve.feedback import (
    OUTCOMES,
    Feedback,
    check_id,
    parse_feedback_jsonl,
    record_batch,
)
from memmaint.maintenance.store.registry import open_store

__all__ = ["OUTCOMES", "Feedback", "check_id", "feedback_cmd", "parse_feedback_jsonl",
           "record_batch"]


@click.command("feedback")
@click.argument("memory_id", required=False)
@click.option("--db", required=True, help="Store path or URL.")
@click.option("--namespace", "-n", default="default", show_default=True,
              help="Namespace of the memory (the default for batch lines without one).")
@click.option("--success", is_flag=True, help="The memory helped.")
@click.option("--failure", is_flag=True, help="The memory did not help.")
@click.option("--used", is_flag=True, help="Used, with no verdict.")
@click.option("--query", "query", default=None,
              help="The question the memory was served for: kept in the serve history, so "
                   "the outcome counts for that question.")
@click.option("--from", "batch", type=click.Path(dir_okay=False),
              help='JSONL batch: {"id": ..., "namespace": ..., "outcome": '
                   '"success"|"failure"|"used", "query": ...} per line (all or nothing; '
                   'namespace and query optional).')
def feedback_cmd(memory_id: str | None, db: str, namespace: str, success: bool,
                 failure: bool, used: bool, query: str | None, batch: str | None) -> None:
    """Record whether MEMORY_ID helped (--success / --failure / --used), or a batch (--from)."""
    given = [name for name, on in (("success", success), ("failure", failure),
                                   ("used", used)) if on]
    if len(given) > 1:
        raise UserError(f"give one outcome, not {' and '.join('--' + g for g in given)}")
    outcome = given[0] if given else None
    if batch is not None:
        if memory_id is not None or outcome is not None or query is not None:
            raise UserError("--from takes the outcomes from the file: give no MEMORY_ID, "
                            "no --success/--failure/--used and no --query")
        path = Path(batch)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise UserError(f"cannot read {batch}: {exc.strerror}") from None
        items = parse_feedback_jsonl(data, batch, namespace)
    else:
        if memory_id is None or outcome is None:
            raise UserError("give MEMORY_ID and one of --success, --failure, --used "
                            "(or --from FILE)")
        items = [Feedback(namespace, memory_id, OUTCOMES[outcome], query)]
    store = open_store(db, create=False)
    try:
        counts = record_batch(store, items)
    finally:
        store.close()
    done = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
    click.echo(f"recorded {len(items)} outcome{'s' if len(items) != 1 else ''} ({done})")
