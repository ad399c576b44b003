"""Review before apply: ``memmaint plan``, ``review``, ``apply`` and ``queue``.

``plan`` runs the nightly job's dry run and writes the plan file; ``review`` writes a static
HTML page (or asks in the terminal) and produces ``decisions.json``; ``apply`` applies exactly
the approved actions in one transaction with a run record (``memmaint undo RUN_ID`` reverses
it); ``queue`` lists the plans ``run --approve`` left for review. See docs/maintenance.md.
"""

from __future__ import annotations

from pathlib import Path

import click

from memmaint.maintenance.cli.main import (
    EXIT_SKIPPED,
    OutputError,
    check_output,
    open_existing,
)
from memmaint.maintenance.core.errors import UserError
from memmaint.maintenance.core.text import for_terminal


@click.command("plan")
@click.option("--db", required=True, help="Store: a SQLite path or a postgresql:// URL.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False),
              help="TOML config (defaults when omitted).")
@click.option("--namespace", "namespaces", multiple=True, help="Namespace (repeatable).")
@click.option("--now", "now_text", metavar="ISO-TIME",
              help="The time freshness is judged against (default: now).")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="The plan file to write (JSON).")
@click.pass_context
def plan_cmd(ctx: click.Context, db: str, config_path: str | None,
             namespaces: tuple[str, ...], now_text: str | None, output: str) -> None:
    """Plan like `memmaint run` (its dry run) and write the plan file; changes nothing."""
    from memmaint.maintenance.cli.main import Progress
    from memmaint.maintenance.cli.run import _load, _now
    from memmaint.maintenance.review.planfile import changing_actions, make_plan_file

    config = _load(config_path)
    now = _now(now_text)
    check_output(output, "-o")
    store = open_existing(db, dry_run=True)
    progress = Progress()
    try:
        pf, report = make_plan_file(store, config, namespaces=list(namespaces) or None,
                                    now=now, progress=progress)
    finally:
        progress.close()
        store.close()
    if pf is None:
        click.echo(f"nothing planned: {report.skip_reason}")
        ctx.exit(EXIT_SKIPPED)
    assert pf is not None
    pf.write(output)
    counts: dict[str, int] = {}
    for _k, _c, action in changing_actions(pf.plan):
        counts[action.type] = counts.get(action.type, 0) + 1
    what = ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "no changes"
    click.echo(f"plan {pf.plan_id}: {len(pf.plan.clusters)} clusters, "
               f"{sum(counts.values())} actions to review ({what}); wrote {output}")
    from memmaint.maintenance.agents.llm_report import cost_line

    cost = cost_line(pf.plan.report.get("usage") or {})
    if cost:
        click.echo(for_terminal(cost))


@click.command("review")
@click.argument("plan_path", metavar="PLAN", type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="The HTML page to write (default: PLAN with .html).")
@click.option("--terminal", is_flag=True, help="Review here: y/n/a(ll)/q per action.")
@click.option("--decisions", "decisions_path", type=click.Path(dir_okay=False),
              default="decisions.json", show_default=True,
              help="With --terminal: where to write the decisions.")
def review_cmd(plan_path: str, output: str | None, terminal: bool,
               decisions_path: str) -> None:
    """Review a plan file: an HTML page (approve/reject, download decisions.json) or, with
    --terminal, prompts per action."""
    from memmaint.maintenance.review.planfile import PlanFile

    pf = PlanFile.load(plan_path)
    if terminal:
        if output:
            raise click.UsageError("-o writes the HTML page; --terminal writes --decisions")
        from memmaint.maintenance.review.terminal import terminal_review

        check_output(decisions_path, "--decisions")
        decisions = terminal_review(pf, lambda q: str(click.prompt(q, default="",
                                                                   show_default=False)),
                                    click.echo)
        decisions.write(decisions_path)
        click.echo(f"wrote {decisions_path}; apply with: memmaint apply {plan_path} "
                   f"--decisions {decisions_path} --db DB")
        return
    from memmaint.maintenance.review.html import render_review

    out = output or str(Path(plan_path).with_suffix(".html"))
    check_output(out, "-o")
    try:
        Path(out).write_text(render_review(pf), encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write {out}: {exc.strerror}") from None
    click.echo(f"wrote {out}: open it in a browser, decide, download decisions.json")


@click.command("apply")
@click.argument("plan_path", metavar="PLAN", type=click.Path(dir_okay=False))
@click.option("--db", required=True, help="Store: a SQLite path or a postgresql:// URL.")
@click.option("--decisions", "decisions_path", type=click.Path(dir_okay=False),
              help="decisions.json from `memmaint review` (default: apply every action).")
@click.option("--labels", "labels_path", type=click.Path(dir_okay=False),
              help="Append review labels here (default: DB.labels.jsonl beside a file store).")
def apply_cmd(plan_path: str, db: str, decisions_path: str | None,
              labels_path: str | None) -> None:
    """Apply exactly the approved actions of a plan file, in one transaction, as a run
    (`memmaint runs` lists it, `memmaint undo RUN_ID` reverses it). Refuses, writing
    nothing, a plan made for another store, a plan file or decisions changed after review;
    an action whose memories changed since the plan was made is skipped and reported
    (exit 6 when every approved action is)."""
    from memmaint.maintenance.review import apply as reviewed
    from memmaint.maintenance.review.planfile import Decisions, PlanFile
    from memmaint.maintenance.review.queue import PENDING, PREFIX

    pf = PlanFile.load(plan_path)
    decisions = Decisions.load(decisions_path, pf) if decisions_path else None
    labels = Path(labels_path) if labels_path else reviewed.labels_path(db)
    if labels is not None:
        check_output(str(labels), "--labels")
    store = open_existing(db)
    try:
        result = reviewed.apply_reviewed(pf, store, decisions)
        pending = [r for r in store.list_runs() if r.run_id == PREFIX + pf.plan_id
                   and r.status == PENDING]
        for rec in pending:  # a queued plan that is now applied leaves the queue
            store.save_run(rec.__class__(rec.run_id, rec.started_at, rec.finished_at,
                                         "applied", rec.namespaces,
                                         {**dict(rec.report), "applied_as": result.run_id}))
    finally:
        store.close()
    for line in result.lines():
        click.echo(for_terminal(line))
    if decisions is not None and labels is not None:
        try:
            reviewed.write_labels(labels, reviewed.review_labels(pf, decisions, result.run_id))
        except UserError as exc:  # the run is committed: exit 5 like `run`, never 2
            raise OutputError(f"run {result.run_id} is applied and recorded, but {exc}") \
                from None


@click.command("queue")
@click.option("--db", required=True, help="Store: a SQLite path or a postgresql:// URL.")
@click.option("--export", "export_id", metavar="PLAN_ID",
              help="Write this queued plan to -o (then review and apply it).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="With --export.")
def queue_cmd(db: str, export_id: str | None, output: str | None) -> None:
    """List the plans waiting for review (left by `memmaint run --approve`)."""
    from memmaint.maintenance.report.text import table
    from memmaint.maintenance.review.queue import list_pending, pending_plan

    if bool(export_id) != bool(output):
        raise click.UsageError("--export and -o go together")
    check_output(output, "-o")
    store = open_existing(db)
    try:
        if export_id:
            pending_plan(store, export_id).write(str(output))
            click.echo(f"wrote {output}")
            return
        records = list_pending(store)
    finally:
        store.close()
    if not records:
        click.echo("no plans waiting for review")
        return
    click.echo(table(["plan id", "queued (UTC)", "namespaces", "actions", "from run"],
                     [[r.run_id.removeprefix("pending-"),
                       r.started_at.strftime("%Y-%m-%d %H:%M:%S"), ",".join(r.namespaces),
                       str(r.report.get("actions", "")), str(r.report.get("from_run", ""))]
                      for r in records]))
