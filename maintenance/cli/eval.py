"""``memmaint eval``: end-to-end evaluation suites (see ``docs/evaluation.md``).

Each suite prints a table on stdout and, with ``--json OUT``, writes every number as JSON.
Configurations: the project defaults (the reference, always first; for ``stale-growth`` the
suite's own maintenance config, see there), then each ``--config FILE``, then every
combination of ``--grid KEY=V1,V2`` applied to each of those. ``--set KEY=VALUE`` overrides a
setting in all of them (for example ``--set embedding.model=hashing`` for a quick check).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from memmaint.maintenance.core.config import Config, load_config, with_overrides
from memmaint.maintenance.core.errors import UserError
from memmaint.maintenance.evaluation.common import EvalCache, expand_grid, parse_grid_value

log = logging.getLogger("memmaint.cli")

DATA_ENV = "MEMMAINT_DATA_DIR"


def _data_dir(value: str | None) -> Path:
    from memmaint.datasets.labelled import data_dir_from_env  # the old name, with a warning

    path = Path(value or os.environ.get(DATA_ENV) or data_dir_from_env()
                or Path("..") / "shared" / "data")
    if not path.is_dir():
        raise UserError(f"data folder {path} not found (pass --data-dir or set {DATA_ENV})")
    return path


def _overrides(values: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for text in values:
        key, vals = parse_grid_value(text)
        if len(vals) != 1:
            raise UserError(f"--set {text!r}: one value expected (use --grid for several)")
        out[key] = vals[0]
    return out


def _configs(base: tuple[str, Config], config_paths: Sequence[str], grid: Sequence[str],
             overrides: Sequence[str]) -> list[tuple[str, Config]]:
    """The reference config, the files, and the grid over each; ``--set`` applied to all."""
    sets = _overrides(overrides)
    bases = [base] + [(Path(p).stem, load_config(p)) for p in config_paths]
    bases = [(name, with_overrides(cfg, sets) if sets else cfg) for name, cfg in bases]
    if not grid:
        return bases
    parsed = dict(parse_grid_value(g) for g in grid)
    out: list[tuple[str, Config]] = []
    for name, cfg in bases:
        out.append((name, cfg))
        out += [(f"{name} {label}", c) for label, c in expand_grid(cfg, parsed)]
    return out


def _ints(text: str, option: str) -> list[int]:
    try:
        values = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        raise UserError(f"{option} {text!r}: expected comma-separated integers") from None
    if not values:
        raise UserError(f"{option}: no values given")
    return values


def _write_json(path: str | None, payload: dict[str, Any]) -> None:
    if not path:
        return
    try:
        Path(path).write_text(json.dumps(payload, indent=1, ensure_ascii=False, default=str)
                              + "\n", encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror}") from None
    log.info("wrote %s", path)


def _common(fn: Any) -> Any:
    options = [
        click.option("--config", "config_paths", multiple=True, type=click.Path(dir_okay=False),
                     help="A config TOML to evaluate besides the reference (repeatable)."),
        click.option("--grid", multiple=True, metavar="KEY=V1,V2",
                     help="Also evaluate every value of a setting (repeatable: the product)."),
        click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
                     help="Override a setting in every configuration (repeatable)."),
        click.option("--json", "json_path", type=click.Path(dir_okay=False),
                     help="Write every number as JSON to this file."),
        click.option("--data-dir", type=click.Path(file_okay=False),
                     help=f"The labelled data folder (default ${DATA_ENV} or ../shared/data)."),
        click.option("--cache", "cache_path", type=click.Path(dir_okay=False),
                     help="Embedding cache file (default: memmaint-eval-cache.sqlite in the "
                          "system temporary folder)."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


@click.group("eval")
def eval_group() -> None:
    """Does maintenance make retrieval better? End-to-end evaluation suites."""


@eval_group.command("locomo")
@_common
@click.option("--data", "data_file", type=click.Path(dir_okay=False), default=None,
              help="A LoCoMo-format JSON file (default: locomo/locomo_dev5.json in the data "
                   "folder).")
@click.option("--conversations", default=None, metavar="N|ID,ID",
              help="How many conversations (the first N) or which sample ids (default: all).")
@click.option("--limit", "limit_pts", type=float, default=1.0, show_default=True,
              help="Largest acceptable drop of evidence recall@10 and of the recall at each "
                   "token budget (honest credit), in points.")
@click.option("--audit-seed", type=int, default=0, show_default=True,
              help="Seed of the 30 merges drawn at random for the JSON report's audit.")
@click.option("--budgets", default="100,200", show_default=True,
              help="Token budgets of retrieved text (whitespace tokens), comma-separated.")
def locomo_cmd(config_paths: tuple[str, ...], grid: tuple[str, ...], overrides: tuple[str, ...],
               json_path: str | None, data_dir: str | None, cache_path: str | None,
               data_file: str | None, conversations: str | None, limit_pts: float,
               audit_seed: int, budgets: str) -> None:
    """LoCoMo evidence recall of a control and after a maintenance run.

    Headline: recall within a fixed budget of whitespace tokens of retrieved text (the
    memory that does not fit is cut), the text shrink in tokens, and the temporal questions
    whose evidence moved to another date. Per memory: recall@5/@10, a merged memory credited
    only with the sources its text covers (the union of its sources' evidence is shown as an
    upper bound).
    """
    from memmaint.maintenance.evaluation.locomo import load_locomo, run_locomo

    which: Any = None
    if conversations:
        which = int(conversations) if conversations.isdigit() else \
            [c.strip() for c in conversations.split(",") if c.strip()]
    budget_list = _ints(budgets, "--budgets")
    if min(budget_list) < 1:
        raise UserError("--budgets: every budget must be >= 1 token")
    convs = load_locomo(data_file if data_file else _data_dir(data_dir), which)
    configs = _configs(("default", Config()), config_paths, grid, overrides)
    with EvalCache(cache_path) as cache:
        report = run_locomo(convs, configs, cache, limit=limit_pts / 100.0,
                            audit_seed=audit_seed, budgets=budget_list)
    click.echo(report.format())
    _write_json(json_path, report.to_dict())


@eval_group.command("stale-growth")
@_common
@click.option("--sizes", default="10,25,50,100,200,500", show_default=True,
              help="Pool sizes to measure (comma-separated).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--feedback/--no-feedback", default=False, show_default=True,
              help="Record each question's outcome on the memory served first, as a "
                   "deployment records usage, so later runs see outcome scores.")
def stale_growth_cmd(config_paths: tuple[str, ...], grid: tuple[str, ...],
                     overrides: tuple[str, ...], json_path: str | None, data_dir: str | None,
                     cache_path: str | None, sizes: str, seed: int, feedback: bool) -> None:
    """Top-1 accuracy as a support agent's pool grows: unbounded, maintained, gated."""
    from memmaint.maintenance.evaluation.stale import maintenance_config, run_stale_growth

    size_list = _ints(sizes, "--sizes")
    configs = _configs(("stale-growth", maintenance_config()), config_paths, grid, overrides)
    with EvalCache(cache_path) as cache:
        report = run_stale_growth(configs, cache, sizes=size_list, seed=seed,
                                  feedback=feedback)
    click.echo(report.format())
    _write_json(json_path, report.to_dict())


@eval_group.command("scenarios")
@_common
@click.option("--seeds", default="0,1,2", show_default=True, help="Scenario seeds.")
@click.option("--kinds", default="support,mtg", show_default=True, help="Scenario kinds.")
def scenarios_cmd(config_paths: tuple[str, ...], grid: tuple[str, ...],
                  overrides: tuple[str, ...], json_path: str | None, data_dir: str | None,
                  cache_path: str | None, seeds: str, kinds: str) -> None:
    """Maintenance scenarios: expected actions per type, and whether the current fact wins."""
    from memmaint.maintenance.evaluation.scenarios import run_scenarios

    seed_list = _ints(seeds, "--seeds")
    kind_list = [k.strip() for k in kinds.split(",") if k.strip()]
    configs = _configs(("default", Config()), config_paths, grid, overrides)
    with EvalCache(cache_path) as cache:
        report = run_scenarios(configs, cache, kinds=kind_list, seeds=seed_list)
    click.echo(report.format())
    _write_json(json_path, report.to_dict())


@eval_group.command("outcomes")
@_common
@click.option("--part",
              type=click.Choice(["written", "dev", "validation", "sealed", "withheld",
                                 "reserve"]),
              default="written", show_default=True,
              help="written: the 30 written pairs; dev: the generated tuning part; "
                   "validation: the generated held-apart part (other domains and templates); "
                   "sealed: a second held-apart part, written before any run, never tuned on; "
                   "withheld: a third, written after sealed was read, before any run of its own; "
                   "reserve: a fourth, written after withheld was read, before any run of its "
                   "own.")
@click.option("--history/--counters-only", default=True, show_default=True,
              help="dev/validation/sealed/withheld/reserve: give retrieval the serve history "
                   "behind the counters (which query served each advice) or the counters "
                   "alone.")
@click.option("--stress", is_flag=True,
              help="dev/validation/sealed/withheld/reserve: retrieval with counters alone in "
                   "harder arrangements of the part (one shared namespace, needs without "
                   "proven advice).")
def outcomes_cmd(config_paths: tuple[str, ...], grid: tuple[str, ...],
                 overrides: tuple[str, ...], json_path: str | None, data_dir: str | None,
                 cache_path: str | None, part: str, history: bool, stress: bool) -> None:
    """Adversarial advice: good advice with successes against closer advice that failed;
    with --part dev|validation|sealed|withheld|reserve also off-topic proven memories and
    stale-only topics."""
    from memmaint.maintenance.evaluation.outcomes import run_outcome_devset, run_outcomes

    configs = _configs(("default", Config()), config_paths, grid, overrides)
    if stress:
        from memmaint.maintenance.evaluation.outcome_stress import run_outcome_stress

        if part == "written":
            raise UserError("--stress needs --part dev, validation, sealed, withheld or reserve")
        with EvalCache(cache_path) as cache:
            click.echo(run_outcome_stress(configs, cache, part))
        return
    with EvalCache(cache_path) as cache:
        report: Any = (run_outcomes(configs, cache) if part == "written"
                       else run_outcome_devset(configs, cache, part, history))
    click.echo(report.format())
    _write_json(json_path, report.to_dict())


@eval_group.command("decisions")
@_common
@click.option("--part",
              type=click.Choice(["dev", "validation", "fresh", "blind", "sealed", "unseen",
                                 "hidden", "withheld", "spare", "vault", "keep",
                                 "ledger", "harbour", "lantern", "quarry", "orchard"]),
              default="dev", show_default=True,
              help="The tuning part (dev), the held-out validation part, the fresh "
                   "hand-written part (informal wordings, read and fixed against since), "
                   "the blind hand-written part (run once, never tuned on), sealed: a third "
                   "held-out hand-written part: run once at the end of a session, never "
                   "tuned on, unseen: a fourth held-out hand-written part: run once at "
                   "the end of a session, never tuned on, hidden: a fifth held-out "
                   "hand-written part: run once at the end of a session, never tuned on, "
                   "withheld: a sixth held-out hand-written part: run once at the end of a "
                   "session, never tuned on, spare: a seventh held-out hand-written part: "
                   "run once at the end of a session, never tuned on, vault: an eighth "
                   "held-out hand-written part: run once at the end of a session, never tuned "
                   "on, keep: a ninth held-out hand-written part: run once at the end of a "
                   "session, never tuned on, ledger: a tenth held-out hand-written part: run "
                   "once at the end of a session, never tuned on, harbour: an eleventh "
                   "held-out hand-written part: run once at the end of a session, never tuned "
                   "on, lantern: a twelfth held-out hand-written part: run once at the end "
                   "of a session, never tuned on, quarry: a thirteenth held-out "
                   "hand-written part: run once at the end of a session, never tuned on, or "
                   "orchard: a fourteenth held-out hand-written part: run once at the end of "
                   "a session, never tuned on.")
@click.option("--pools", type=int, default=None,
              help="Only the first N generated pools (and the hand-written one).")
@click.option("--failures", type=int, default=0, show_default=True,
              help="Print the first N failed groups with their texts before and after.")
def decisions_cmd(config_paths: tuple[str, ...], grid: tuple[str, ...],
                  overrides: tuple[str, ...], json_path: str | None, data_dir: str | None,
                  cache_path: str | None, part: str, pools: int | None,
                  failures: int) -> None:
    """The labelled decision set: per-type accuracy and the error budget, read from the
    store after a real run (docs/evaluation.md, Decisions)."""
    from memmaint.maintenance.evaluation.decisions import run_decisions

    if pools is not None and pools < 0:
        raise UserError("--pools must be >= 0")
    configs = _configs(("default", Config()), config_paths, grid, overrides)
    with EvalCache(cache_path) as cache:
        report = run_decisions(configs, cache, part=part, pools=pools)
    click.echo(report.format(failures))
    _write_json(json_path, report.to_dict())
