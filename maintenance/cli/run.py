"""CLI commands for the nightly job: ``run``, ``runs``, ``compare`` and ``demo``.

``memmaint run`` is made for cron: it never prompts, logs to stderr (plain lines when stderr
is not a terminal, one per stage with its time; a bar per stage when it is), and its exit
code says what happened: 0 ran (or dry-ran), 1 runtime failure, 2 usage/config/input error (checked before the first
write: config, namespaces, output paths; nothing written, no run record), 3 another run holds
the store's lock, 4 skipped (too few new memories since the last successful run), 5 the run
finished and is recorded (changes applied) but a ``--report``/``--html`` file could not be
written.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import click

from memmaint.maintenance.cli.main import (
    EXIT_SKIPPED,
    OutputError,
    check_output,
    open_existing,
)
from memmaint.maintenance.cli.main import Progress as _Progress
from memmaint.maintenance.core.config import Config, load_config
from memmaint.maintenance.core.errors import InputError, LockHeldError, UserError
from memmaint.maintenance.core.records import parse_time
from memmaint.maintenance.core.text import for_terminal, json_for_terminal
from memmaint.maintenance.core.urls import redact_url

log = logging.getLogger("memmaint.cli")


def _load(path: str | None) -> Config:
    return load_config(path)


def _now(value: str | None) -> Any:
    if value is None:
        return None
    try:
        return parse_time(value)
    except ValueError as exc:
        raise UserError(f"--now: {exc}") from None


def _write(path: str, text: str, what: str) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write {what} to {path}: {exc.strerror}") from None
    log.info("wrote %s to %s", what, path)


# -- run ------------------------------------------------------------------------------------

@click.command("run")
@click.option("--db", required=True, help="Store: a SQLite path or a postgresql:// URL.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False),
              help="TOML config (defaults when omitted).")
@click.option("--namespace", "namespaces", multiple=True,
              help="Namespace to maintain (repeatable). Default: all namespaces.")
@click.option("--all-namespaces", is_flag=True, help="Maintain every namespace (the default).")
@click.option("--dry-run", is_flag=True, help="Plan everything, apply and store nothing.")
@click.option("--force", is_flag=True, help="Run even with too few new memories.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False),
              help="Also write the run report as JSON to this file.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False),
              help="Also write a self-contained HTML report with plots.")
@click.option("--shadow", "shadow_path", type=click.Path(dir_okay=False),
              help="A second config to cluster and plan in shadow (recorded, never applied).")
@click.option("--now", "now_text", metavar="ISO-TIME",
              help="The time freshness is judged against (default: now).")
@click.option("--executor", "executor_name", type=click.Choice(["local", "threads", "dask"]),
              default="local", show_default=True,
              help="Where embedding, clustering and planning tasks run (docs/scale-out.md).")
@click.option("--scheduler", metavar="tcp://HOST:PORT",
              help="Dask scheduler to use (default: a LocalCluster on this machine).")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Threads (--executor threads) or LocalCluster workers (dask); default 2.")
@click.option("--decisions", is_flag=True,
              help="Also print every decision as a table (id, action, target, agent, "
                   "reason, text).")
@click.option("--approve", "approve", metavar="KINDS",
              help="Apply only these action kinds at once (e.g. merge,evict) and queue the "
                   "rest for review (`memmaint queue`).")
@click.option("--llm-fallback", "llm_fallback", type=click.Choice(["rules", "fail"]),
              help="Override job.llm_fallback: fail makes any cluster the LLM could not plan "
                   "fail the run (exit 1, nothing applied).")
@click.option("--full", is_flag=True,
              help="With job.incremental on: ignore the kept clusters and reduce, cluster "
                   "and plan every namespace in full (a full rebuild).")
@click.pass_context
def run_cmd(ctx: click.Context, db: str, config_path: str | None, namespaces: tuple[str, ...],
            all_namespaces: bool, dry_run: bool, force: bool, report_path: str | None,
            html_path: str | None, shadow_path: str | None, now_text: str | None,
            executor_name: str = "local", scheduler: str | None = None,
            workers: int | None = None, decisions: bool = False,
            approve: str | None = None, llm_fallback: str | None = None,
            full: bool = False) -> None:
    """Run the nightly maintenance job once (cron-ready, never prompts).

    Exit codes: 0 done, 1 failure, 2 usage/config/input error (nothing written), 3 another
    run holds the lock, 4 skipped (fewer than job.min_new_memories new memories; --force
    overrides), 5 applied and recorded, but --report or --html could not be written.
    """
    from memmaint.maintenance.job.run import run_job

    if namespaces and all_namespaces:
        raise click.UsageError("--namespace and --all-namespaces exclude each other")
    config = _load(config_path)
    if llm_fallback:
        from memmaint.maintenance.core.config import with_overrides

        config = with_overrides(config, {"job.llm_fallback": llm_fallback})
    shadow = _load(shadow_path) if shadow_path else None
    now = _now(now_text)
    if scheduler and executor_name != "dask":
        raise click.UsageError("--scheduler needs --executor dask")
    check_output(report_path, "--report")
    check_output(html_path, "--html")
    if approve is not None:
        _run_approve(ctx, db, config, approve, list(namespaces) or None, force, now,
                     bool(dry_run or shadow or report_path or html_path or decisions
                          or full or executor_name != "local"))
        return
    store = open_existing(db, dry_run=dry_run)
    progress = _Progress()
    executor = None
    try:
        try:
            if executor_name != "local":
                from memmaint.maintenance.job.executors import make_executor

                executor = make_executor(executor_name, scheduler=scheduler, workers=workers)
            report = run_job(store, config, namespaces=list(namespaces) or None,
                             dry_run=dry_run, force=force, shadow=shadow, now=now,
                             progress=progress, executor=executor, full=full)
        except LockHeldError as exc:
            raise LockHeldError(f"another memmaint run holds the lock on {redact_url(db)}; this run did "
                                f"nothing ({exc})") from None
        finally:
            progress.close()
            if executor is not None:
                executor.close()
    finally:
        store.close()
    failed: list[str] = []
    for path, write in ((report_path, lambda p: _write(p, report.to_json(), "the JSON report")),
                        (html_path, lambda p: _write_html(p, report))):
        if path:
            try:
                write(path)
            except UserError as exc:
                failed.append(str(exc))
    _echo_report(report, decisions)
    _llm_line(report)
    if failed:
        raise OutputError(f"run {report.run_id} is {report.status} and recorded, but "
                          + "; ".join(failed))
    if report.status == "skipped":
        ctx.exit(EXIT_SKIPPED)


def _run_approve(ctx: click.Context, db: str, config: Config, approve: str,
                 namespaces: list[str] | None, force: bool, now: Any, other: bool) -> None:
    """``run --approve KINDS``: apply those kinds now, queue the rest for review."""
    from memmaint.maintenance.plan.model import ACTION_TYPES
    from memmaint.maintenance.review.queue import run_with_approval

    if other:
        raise click.UsageError("--approve goes with --db, --config, --namespace, --force "
                               "and --now only")
    kinds = {k.strip() for k in approve.split(",") if k.strip()}
    bad = sorted(kinds - (set(ACTION_TYPES) - {"keep"}))
    if bad or not kinds:
        raise click.UsageError(f"--approve: unknown action kind(s) {', '.join(bad) or '-'} "
                               f"(choose from {', '.join(sorted(set(ACTION_TYPES) - {'keep'}))})")
    store = open_existing(db)
    progress = _Progress()
    try:
        result, report, queued = run_with_approval(store, config, kinds, namespaces=namespaces,
                                                   force=force, now=now, progress=progress)
    finally:
        progress.close()
        store.close()
    if result is None:
        click.echo(f"run skipped: {report.skip_reason}")
        ctx.exit(EXIT_SKIPPED)
    for line in result.lines():
        click.echo(line)
    click.echo(f"queued plan {queued.removeprefix('pending-')} for review (memmaint queue "
               f"--db {redact_url(db)})" if queued else "nothing left to review")


def _echo_report(report: Any, decisions: bool = False) -> None:
    """The run's summary on stdout; with a shadow, the primary-vs-shadow comparison; with
    ``decisions``, the primary's decisions as a table."""
    from memmaint.maintenance.job.run import shadow_comparison
    from memmaint.maintenance.report.text import format_comparison, format_report

    cmp = shadow_comparison(report)
    click.echo(for_terminal(format_report(report, outcomes=cmp is None), keep_newlines=True))
    if cmp is not None:
        click.echo("")
        click.echo(for_terminal(format_comparison(cmp), keep_newlines=True))
    if decisions and report.primary is not None:
        from memmaint.maintenance.cli.maint import decisions_table

        click.echo("")
        click.echo(decisions_table(report.primary))


def _llm_line(report: Any) -> None:
    """One line on stderr when the LLM backend left clusters to the rules, with the counts."""
    from memmaint.maintenance.agents.llm_report import summary_line

    line = summary_line(report.primary.llm) if report.primary is not None else None
    if line:
        click.echo(f"memmaint: warning: {for_terminal(line)}", err=True)
    from memmaint.maintenance.agents.llm_report import cost_line

    cost = cost_line(report.primary.llm) if report.primary is not None else None
    if cost:  # what the LLM backend spent (a dry run: what applying the plan costs)
        click.echo(for_terminal(cost))


def _write_html(path: str, report: Any) -> None:
    from memmaint.maintenance.job.run import shadow_comparison
    from memmaint.maintenance.report.html import render_html, report_outcomes

    page = render_html(report_outcomes(report), title=f"memmaint run {report.run_id}",
                       comparison=shadow_comparison(report), report=report)
    _write(path, page, "the HTML report")


# -- runs -----------------------------------------------------------------------------------

def _run_row(rec: Any) -> list[str]:
    rep = rec.report or {}
    primary = rep.get("primary") or {}
    acts = primary.get("actions_by_type") or {}
    actions = ", ".join(f"{k} {v}" for k, v in acts.items() if v and k != "keep") or "-"
    secs = sum(s.get("seconds", 0.0) for s in rep.get("stages", []))
    pool = (f"{rep.get('pool_before', 0)} -> {rep.get('pool_after', 0)}"
            if primary else "-")
    return [rec.run_id, rec.status, rec.started_at.strftime("%Y-%m-%d %H:%M:%S"),
            f"{secs:.1f}", ",".join(rec.namespaces) or "-", pool, actions,
            "yes" if rep.get("shadow") else "-"]


@click.command("runs")
@click.option("--db", required=True, help="Store: a SQLite path or a postgresql:// URL.")
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--show", "show_id", metavar="RUN_ID", help="Print one run's full JSON report.")
@click.option("--json", "as_json", is_flag=True, help="List runs as JSON.")
@click.option("--decisions", is_flag=True,
              help="With --show: the run's summary and its decisions as a table, not JSON.")
def runs_cmd(db: str, limit: int, show_id: str | None, as_json: bool,
             decisions: bool = False) -> None:
    """List the stored runs, newest first (or print one run's report)."""
    from memmaint.maintenance.report.model import RunReport
    from memmaint.maintenance.report.text import table

    if decisions and not show_id:
        raise click.UsageError("--decisions needs --show RUN_ID")
    store = open_existing(db)
    try:
        if show_id:
            rec = store.get_run(show_id)
            if decisions:
                _echo_report(RunReport.from_dict(dict(rec.report)), decisions=True)
                return
            click.echo(json_for_terminal(
                json.dumps(dict(rec.report), indent=1, ensure_ascii=False, default=str)))
            return
        records = store.list_runs(limit=limit)
    finally:
        store.close()
    if as_json:
        click.echo(json.dumps([
            {"run_id": r.run_id, "status": r.status, "started_at": r.started_at.isoformat(),
             "finished_at": None if r.finished_at is None else r.finished_at.isoformat(),
             "namespaces": list(r.namespaces),
             "config_hash": (r.report or {}).get("config_hash"),
             "skip_reason": (r.report or {}).get("skip_reason")} for r in records], indent=1))
        return
    if not records:
        click.echo("no runs yet")
        return
    click.echo(table(["run id", "status", "started (UTC)", "seconds", "namespaces",
                      "pool", "actions", "shadow"], [_run_row(r) for r in records]))


# -- compare --------------------------------------------------------------------------------

def _emit_comparison(cmp: Any, json_path: str | None, html_path: str | None,
                     title: str) -> None:
    from memmaint.maintenance.report.html import render_html
    from memmaint.maintenance.report.text import format_comparison

    click.echo(for_terminal(format_comparison(cmp), keep_newlines=True))
    if json_path:
        _write(json_path, json.dumps(cmp.to_dict(), indent=1, ensure_ascii=False, default=str),
               "the JSON comparison")
    if html_path:
        _write(html_path, render_html([cmp.a, cmp.b], title=title, comparison=cmp),
               "the HTML comparison")


@click.command("compare")
@click.argument("reports", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--db", help="Store to dry-run both configurations on.")
@click.option("--config", "configs", multiple=True, type=click.Path(dir_okay=False),
              help="A configuration (give exactly two with --db).")
@click.option("--namespace", "namespaces", multiple=True, help="Namespace (repeatable).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False),
              help="Write the comparison as JSON.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False),
              help="Write a self-contained HTML comparison with plots.")
@click.option("--now", "now_text", metavar="ISO-TIME",
              help="The time freshness is judged against (default: now).")
def compare_cmd(reports: tuple[str, ...], db: str | None, configs: tuple[str, ...],
                namespaces: tuple[str, ...], json_path: str | None, html_path: str | None,
                now_text: str | None) -> None:
    """Compare two configurations.

    \b
    memmaint compare --db PATH --config a.toml --config b.toml   (dry run of both)
    memmaint compare A.json B.json                               (two stored run reports)
    memmaint compare RUN.json                                    (its primary vs its shadow)
    """
    from memmaint.maintenance.job.run import compare_configs, shadow_comparison
    from memmaint.maintenance.report.model import RunReport, compare_outcomes

    check_output(json_path, "--json")
    check_output(html_path, "--html")
    if db:
        if reports:
            raise click.UsageError("give either --db with two --config files or report files")
        if len(configs) != 2:
            raise click.UsageError("--db needs exactly two --config files")
        cfg_a, cfg_b = _load(configs[0]), _load(configs[1])
        label_a, label_b = Path(configs[0]).stem, Path(configs[1]).stem
        if label_a == label_b:
            label_a, label_b = "A", "B"
        store = open_existing(db, dry_run=True)  # a dry run of both: writes nothing
        progress = _Progress()
        try:
            cmp = compare_configs(store, cfg_a, cfg_b, namespaces=list(namespaces) or None,
                                  now=_now(now_text), progress=progress,
                                  label_a=label_a, label_b=label_b)
        finally:
            progress.close()
            store.close()
        _emit_comparison(cmp, json_path, html_path, f"memmaint compare {label_a} vs {label_b}")
        return
    if configs or namespaces:
        raise click.UsageError("--config and --namespace need --db")
    if len(reports) == 1:
        rep = RunReport.load(reports[0])
        shadow_cmp = shadow_comparison(rep)
        if shadow_cmp is None:
            raise InputError(f"{reports[0]}: the report has no shadow to compare with; "
                             "give two report files")
        _emit_comparison(shadow_cmp, json_path, html_path, f"memmaint run {rep.run_id}: shadow")
        return
    if len(reports) != 2:
        raise click.UsageError("give two report files, or --db with two --config files")
    ra, rb = RunReport.load(reports[0]), RunReport.load(reports[1])
    for path, rep in zip(reports, (ra, rb)):
        if rep.primary is None:
            raise InputError(f"{path}: run {rep.run_id} was {rep.status} and has no plan "
                             "to compare")
    label_a, label_b = Path(reports[0]).stem, Path(reports[1]).stem
    if label_a == label_b:
        label_a, label_b = "A", "B"
    cmp = compare_outcomes(ra.primary, rb.primary, label_a=label_a,  # type: ignore[arg-type]
                           label_b=label_b)
    _emit_comparison(cmp, json_path, html_path, f"memmaint compare {label_a} vs {label_b}")


# -- demo -----------------------------------------------------------------------------------

#: The demo pool's "now": fixed so that ages, staleness and so the demo's output are the same
#: on every machine and every day.
DEMO_NOW = datetime(2025, 6, 1, 12, 0, tzinfo=timezone.utc)
DEMO_NAMESPACE = "demo"


def demo_configs() -> tuple[Config, Config]:
    """The demo's primary (HDBSCAN on 2-D UMAP, the defaults) and shadow (generalised-kt
    on 3-D UMAP with the published best parameters: p = -1.69, R = 1.2, cos cut 0.26)."""
    from memmaint.maintenance.core.config import config_from_dict

    primary = Config()
    shadow: Config = config_from_dict({
        "reduction": {"method": "umap", "n_components": 3},
        "clustering": {"algorithm": "genkt",
                       "genkt": {"p": -1.69, "R": 1.2, "cos_cut": 0.26}},
    })
    return primary, shadow


def demo_memories(size: int = 500, seed: int = 7) -> list[Any]:
    """A synthetic sample pool of about ``size`` memories for the demo.

    The maintenance scenarios of :func:`memmaint.datasets.make_scenario` (support and mtg:
    duplicates, a price that changed, stale volatile facts, contradictions, one-off noise,
    an injection attempt), classes of related memories from
    :func:`memmaint.datasets.make_memory_pool` (a support agent; timestamps over 120 days,
    kinds with TTLs, bimodal importance, one-off notes), and re-saved copies of about 8% of
    the memories (duplicates, as agents make when they store the same lesson twice).
    Ground truth is in ``metadata["label"]`` (negative for one-offs).
    """
    import dataclasses

    import numpy as np

    from memmaint.datasets.pools import make_memory_pool
    from memmaint.datasets.scenarios import make_scenario

    rng = np.random.default_rng(seed)
    memories: list[Any] = []
    for kind in ("support", "mtg"):
        scenario = make_scenario(kind=kind, seed=seed, now=DEMO_NOW, namespace=DEMO_NAMESPACE)
        for m in scenario.memories:
            label = m.metadata.get("label", -1)
            meta = dict(m.metadata, label=(f"scenario-{kind}:{m.metadata.get('topic', label)}"
                                           if isinstance(label, int) and label >= 0 else -1))
            memories.append(dataclasses.replace(m, id=f"{kind}-{m.id}", metadata=meta))
    n_dup = round(0.08 * size)
    n_base = max(20, size - len(memories) - n_dup)
    base = make_memory_pool(
        kind="support", n_classes=max(3, n_base // 9), per_class=(4, 14), seed=seed,
        weights="bimodal", noise_frac=0.08, time_window_days=120.0, now=DEMO_NOW,
        namespace=DEMO_NAMESPACE)
    memories.extend(base.memories[:n_base])
    originals = [memories[int(i)] for i in rng.choice(len(memories), size=n_dup, replace=False)]
    for k, orig in enumerate(originals):
        later = min(DEMO_NOW, orig.created_at + timedelta(days=float(rng.uniform(0.5, 20))))
        memories.append(dataclasses.replace(orig, id=f"{orig.id}-again{k}", created_at=later,
                                            updated_at=None))
    return memories


def build_demo_store(path: str, *, size: int = 500, config: Config | None = None,
                     progress: Any = None) -> None:
    """Create the demo store at ``path`` with :func:`demo_memories` and cache their
    embeddings (so the dry runs that follow embed nothing)."""
    from memmaint.maintenance.embed.base import embed_memories, get_embedder
    from memmaint.maintenance.store.sqlite import SQLiteStore

    config = config or Config()
    memories = demo_memories(size)
    with SQLiteStore(path) as store:
        store.add_memories(memories)
        embed_memories(store, get_embedder(config.embedding), memories,
                       batch_size=config.embedding.batch_size,
                       progress=None if progress is None else
                       (lambda done, total: progress("embed", done, total)))


@click.command("demo")
@click.option("--db", default="memmaint-demo.db", show_default=True,
              help="Demo store (built with a sample pool if absent).")
@click.option("--html", "html_path", default="memmaint-demo-report.html", show_default=True)
@click.option("--report", "report_path", type=click.Path(dir_okay=False),
              help="Also write the run report as JSON.")
@click.option("--size", type=click.IntRange(min=50, max=20000), default=500, show_default=True,
              help="Memories in the sample pool (only when it is built).")
@click.option("--rebuild", is_flag=True, help="Rebuild the sample pool even if the store exists.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False),
              help="Primary config instead of the demo's (HDBSCAN on 2-D UMAP).")
@click.option("--shadow", "shadow_path", type=click.Path(dir_okay=False),
              help="Shadow config instead of the demo's (generalised-kt on 3-D UMAP).")
def demo_cmd(db: str, html_path: str, report_path: str | None, size: int, rebuild: bool,
             config_path: str | None, shadow_path: str | None) -> None:
    """Dry-run the nightly job on a sample pool: HDBSCAN as primary, generalised-kt in
    shadow. Builds ./memmaint-demo.db (about 500 synthetic memories) if absent, prints the
    comparison and writes memmaint-demo-report.html. Nothing in the store is changed."""
    from memmaint.maintenance.job.run import run_job

    check_output(html_path, "--html")
    check_output(report_path, "--report")
    primary, shadow = demo_configs()
    if config_path:
        primary = _load(config_path)
    if shadow_path:
        shadow = _load(shadow_path)
    path = Path(db)
    if rebuild or not path.exists():
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        click.echo(f"building a sample pool of about {size} memories in {db} ...", err=True)
        progress = _Progress()
        try:
            build_demo_store(str(path), size=size, config=primary, progress=progress)
        finally:
            progress.close()
    store = open_existing(str(path))
    progress = _Progress()
    try:
        report = run_job(store, primary, dry_run=True, force=True, shadow=shadow,
                         now=DEMO_NOW, progress=progress)
    finally:
        progress.close()
        store.close()
    _echo_report(report)
    if report_path:
        _write(report_path, report.to_json(), "the JSON report")
    _write_html(html_path, report)
    click.echo(f"\nHTML report: {Path(html_path).resolve()}")
    click.echo(_demo_summary(report, str(path)))


def _demo_summary(report: Any, db: str) -> str:
    """What the demo did (counts), and the next three commands to try on its store."""
    import shlex

    primary = report.primary
    if primary is None:  # pragma: no cover - the demo forces its run
        return ""
    acts = ", ".join(f"{k} {v}" for k, v in primary.actions_by_type.items()
                     if v and k != "keep") or "keep everything"
    happened = (f"What happened: {report.pool_before} memories in {primary.n_clusters} "
                f"clusters; the plan would {acts} ({primary.memories_affected} memories "
                f"affected, {report.pool_before} -> {report.pool_after} active). It was a dry "
                "run: the store is unchanged.")
    q = shlex.quote(db)
    return "\n".join([
        "", happened, "", "Next, try:",
        f"  memmaint run --db {q} --dry-run --decisions   # each decision and why",
        f"  memmaint run --db {q}                         # apply it (memmaint undo reverts)",
        f"  memmaint runs --db {q}                        # the stored runs",
    ])
