"""``memmaint feedback``: report whether a served memory helped (one, or a batch from JSONL).

The counters it writes (``successes``, ``failures``, ``retrievals``, ``last_used_at``) feed the
outcome model (:mod:`memmaint.maintenance.core.outcomes`) used by retrieval and the agents.
A batch is all-or-nothing: every line is checked, and every id looked up, before one store
transaction records them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import click

from memmaint.maintenance.core.errors import InputError, UnknownIdError, UserError
from memmaint.maintenance.core.text import json_problem, parse_json
from memmaint.maintenance.store.base import MemoryStore
from memmaint.maintenance.store.registry import open_store

OUTCOMES = {"success": True, "failure": False, "used": None}


@dataclass(frozen=True)
class Feedback:
    """One reported use of a memory (``success`` None: used, no verdict)."""

    namespace: str
    memory_id: str
    success: bool | None


def parse_feedback_jsonl(data: bytes, name: str, default_namespace: str) -> list[Feedback]:
    """Lines like ``{"id": "m1", "outcome": "success"}`` (``namespace`` optional; ``outcome``
    one of success, failure, used). Any bad line is an :class:`InputError` naming it."""
    out: list[Feedback] = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{name}:{lineno}"
        row = parse_json(line, where)  # one line for deep nesting, surrogates, NaN...
        if not isinstance(row, dict):
            raise InputError(f"{where}: expected a JSON object")
        mid, ns, outcome = row.get("id"), row.get("namespace", default_namespace), \
            row.get("outcome")
        if not isinstance(mid, str) or not mid:
            raise InputError(f"{where}: 'id' must be a non-empty string")
        if not isinstance(ns, str) or not ns:
            raise InputError(f"{where}: 'namespace' must be a non-empty string")
        if outcome not in OUTCOMES:
            raise InputError(f"{where}: 'outcome' must be one of "
                             f"{', '.join(OUTCOMES)}, got {outcome!r}")
        out.append(Feedback(ns, mid, OUTCOMES[outcome]))
    if not out:
        raise InputError(f"{name}: no feedback lines")
    return out


def check_id(value: str, what: str) -> None:
    """Refuse an id or namespace a store cannot hold (a lone surrogate: not Unicode text)."""
    problem = json_problem(value, what)
    if problem:
        raise InputError(problem)


def record_batch(store: MemoryStore, items: list[Feedback]) -> dict[str, int]:
    """Check every id, then record every item in one transaction; counts per outcome."""
    for item in items:
        check_id(item.memory_id, "the memory id")
        check_id(item.namespace, "the namespace")
    missing: list[str] = []
    by_ns: dict[str, set[str]] = {}
    for item in items:
        by_ns.setdefault(item.namespace, set()).add(item.memory_id)
    for ns, ids in by_ns.items():
        missing += [f"{ns}/{m}" for m in sorted(ids - store.existing_ids(ns, ids))]
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more"
                                          if len(missing) > 5 else "")
        raise UnknownIdError(f"unknown memory ids: {shown} (nothing recorded)")
    counts = {name: 0 for name in OUTCOMES}
    names = {v: k for k, v in OUTCOMES.items()}
    with store.transaction():
        for item in items:
            store.record_usage(item.namespace, item.memory_id, item.success)
            counts[names[item.success]] += 1
    return counts


@click.command("feedback")
@click.argument("memory_id", required=False)
@click.option("--db", required=True, help="Store path or URL.")
@click.option("--namespace", "-n", default="default", show_default=True,
              help="Namespace of the memory (the default for batch lines without one).")
@click.option("--success", is_flag=True, help="The memory helped.")
@click.option("--failure", is_flag=True, help="The memory did not help.")
@click.option("--used", is_flag=True, help="Used, with no verdict.")
@click.option("--from", "batch", type=click.Path(dir_okay=False),
              help='JSONL batch: {"id": ..., "namespace": ..., "outcome": '
                   '"success"|"failure"|"used"} per line (all or nothing).')
def feedback_cmd(memory_id: str | None, db: str, namespace: str, success: bool,
                 failure: bool, used: bool, batch: str | None) -> None:
    """Record whether MEMORY_ID helped (--success / --failure / --used), or a batch (--from)."""
    given = [name for name, on in (("success", success), ("failure", failure),
                                   ("used", used)) if on]
    if len(given) > 1:
        raise UserError(f"give one outcome, not {' and '.join('--' + g for g in given)}")
    outcome = given[0] if given else None
    if batch is not None:
        if memory_id is not None or outcome is not None:
            raise UserError("--from takes the outcomes from the file: give no MEMORY_ID and "
                            "no --success/--failure/--used")
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
        items = [Feedback(namespace, memory_id, OUTCOMES[outcome])]
    store = open_store(db, create=False)
    try:
        counts = record_batch(store, items)
    finally:
        store.close()
    done = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
    click.echo(f"recorded {len(items)} outcome{'s' if len(items) != 1 else ''} ({done})")
