"""``memmaint datasets``: write synthetic pools, scenarios and corpus samples as JSONL.

Every file holds one ``Memory.to_dict()`` JSON object per line, the format ``memmaint import``
reads; the class id is kept in ``metadata.label``. Files are written to a temporary name and
renamed, so a failed command never leaves a half-written file, and an existing output is only
replaced with ``--force``.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from memmaint.maintenance.core.errors import InputError, UserError
from memmaint.maintenance.core.io import write_atomically


def _per_class(value: str) -> tuple[int, int]:
    text = value.strip()
    try:
        if "-" in text:
            lo, hi = (int(v) for v in text.split("-", 1))
        else:
            lo = hi = int(text)
    except ValueError:
        raise UserError(f"--per-class must be N or LO-HI, got {value!r}") from None
    if lo < 1 or hi < lo:
        raise UserError(f"--per-class must satisfy 1 <= LO <= HI, got {value!r}")
    return lo, hi


def _write_text(path: Path, text: str) -> None:
    write_atomically(path, lambda fh: fh.write(text))


def _check_output(path: Path, force: bool) -> None:
    if path.exists() and not force:
        raise UserError(f"{path} already exists (use --force to replace it)")
    if not path.parent.is_dir():
        raise UserError(f"folder {path.parent} does not exist")


@click.group("datasets")
def datasets_group() -> None:
    """Synthetic memory pools, maintenance scenarios and labelled-corpus samples."""


@datasets_group.command("make")
@click.option("--kind", type=click.Choice(["mtg", "support"]), default="mtg", show_default=True,
              help="mtg: deck-building assistant; support: customer-support agent.")
@click.option("--classes", "n_classes", type=int, default=20, show_default=True,
              help="Number of latent instructions (classes).")
@click.option("--per-class", default="3-8", show_default=True, help="Members per class: N or LO-HI.")
@click.option("--weights", type=click.Choice(["powerlaw", "uniform", "bimodal", "none"]),
              default="powerlaw", show_default=True, help="Importance distribution.")
@click.option("--noise-frac", type=float, default=0.05, show_default=True,
              help="Share of one-off notes that belong to no class.")
@click.option("--window-days", type=float, default=180.0, show_default=True,
              help="created_at is spread over this many days before now.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--namespace", default="default", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="JSONL file to write.")
@click.option("--force", is_flag=True, help="Replace the output if it exists.")
def make_cmd(kind: str, n_classes: int, per_class: str, weights: str, noise_frac: float,
             window_days: float, seed: int, namespace: str, output: Path, force: bool) -> None:
    """Write a synthetic memory pool with ground-truth classes as JSONL."""
    from memmaint.datasets.pools import make_memory_pool

    _check_output(output, force)
    pool = make_memory_pool(kind=kind, n_classes=n_classes, per_class=_per_class(per_class),
                            seed=seed, weights=weights, noise_frac=noise_frac,
                            time_window_days=window_days, namespace=namespace)
    _write_text(output, pool.to_jsonl())
    n_noise = int((pool.labels < 0).sum())
    click.echo(f"wrote {len(pool)} memories ({pool.n_classes} classes, {n_noise} noise) "
               f"to {output}")


@datasets_group.command("scenario")
@click.option("--kind", type=click.Choice(["support", "mtg"]), default="support",
              show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--keep-stale", is_flag=True,
              help="Expect stale facts with nothing fresher to be kept (evict_stale off).")
@click.option("--keep-noise", is_flag=True,
              help="Expect one-off notes to be kept (evict_noise off).")
@click.option("--opaque-ids", is_flag=True, help="Ids that do not hint the expected action.")
@click.option("--namespace", default="default", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="JSONL file for the memories.")
@click.option("--expected", "expected_path", type=click.Path(dir_okay=False, path_type=Path),
              help="JSON file for the expected action per memory id "
                   "(default: OUTPUT with .expected.json).")
@click.option("--force", is_flag=True, help="Replace the outputs if they exist.")
def scenario_cmd(kind: str, seed: int, keep_stale: bool, keep_noise: bool, opaque_ids: bool,
                 namespace: str, output: Path, expected_path: Path | None, force: bool) -> None:
    """Write a maintenance scenario pool and its expected actions."""
    from memmaint.datasets.scenarios import make_scenario

    expected_path = expected_path or output.with_suffix(".expected.json")
    _check_output(output, force)
    _check_output(expected_path, force)
    scen = make_scenario(kind=kind, seed=seed, evict_stale=not keep_stale,
                         evict_noise=not keep_noise, namespace=namespace, opaque_ids=opaque_ids)
    payload = {
        "kind": kind, "seed": seed, "now": scen.now.isoformat(),
        "agents": {"evict_stale": scen.evict_stale, "evict_noise": scen.evict_noise},
        "expected": {mid: {"action": e.action, "scenario_type": e.scenario_type,
                           "item": e.item, "target": e.target, "reason": e.reason}
                     for mid, e in sorted(scen.expected.items())},
    }
    _write_text(output, "".join(m.to_json() + "\n" for m in scen.memories))
    _write_text(expected_path, json.dumps(payload, indent=2) + "\n")
    click.echo(f"wrote {len(scen)} memories to {output} and expectations to {expected_path}")


@datasets_group.command("sample")
@click.argument("corpus")
@click.option("--pools", "n_pools", type=int, default=5, show_default=True)
@click.option("--classes", "n_classes", type=int, default=20, show_default=True,
              help="Classes per pool (disjoint across pools).")
@click.option("--per-class", default="10", show_default=True,
              help="Texts per class: N or LO-HI.")
@click.option("--weights", type=click.Choice(["none", "powerlaw", "uniform", "bimodal"]),
              default="none", show_default=True,
              help="Importance distribution (ignored with --weight-col).")
@click.option("--text-col", default="text", show_default=True)
@click.option("--label-col", default="label", show_default=True)
@click.option("--weight-col", default=None, help="Column of per-text importance weights.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--namespace", default="default", show_default=True)
@click.option("-o", "--output", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for pool-0.jsonl ... and manifest.json.")
@click.option("--force", is_flag=True, help="Write into a non-empty folder.")
def sample_cmd(corpus: str, n_pools: int, n_classes: int, per_class: str, weights: str,
               text_col: str, label_col: str, weight_col: str | None, seed: int,
               namespace: str, output: Path, force: bool) -> None:
    """Sample disjoint-class pools from CORPUS: a CSV/JSONL file, or banking77 / hwu64
    (read from $MEMMAINT_DATA_DIR, else ../shared/data)."""
    from memmaint.datasets.labelled import CORPORA, load_labelled, sample_pools

    if output.exists() and any(output.iterdir()) and not force:
        raise UserError(f"{output} is not empty (use --force to write into it)")
    path = Path(corpus)
    if path.is_file():
        data = load_labelled(path, text_col, label_col, weight_col)
        name = path.stem
    elif corpus in CORPORA:
        data = CORPORA[corpus](None)
        name = corpus
    else:
        raise InputError(f"{corpus}: no such file, and not a known corpus "
                         f"({', '.join(CORPORA)})")
    pools = sample_pools(data.texts, data.labels, n_pools, n_classes, _per_class(per_class),
                         seed=seed, weights=data.weights if data.weights is not None else weights,
                         kind=name, namespace=namespace)
    output.mkdir(parents=True, exist_ok=True)
    manifest = {"corpus": data.source, "seed": seed, "pools": []}
    for i, pool in enumerate(pools):
        target = output / f"pool-{i}.jsonl"
        _write_text(target, pool.to_jsonl())
        manifest["pools"].append({"file": target.name, "memories": len(pool),  # type: ignore
                                  "classes": pool.classes})
    _write_text(output / "manifest.json", json.dumps(manifest, indent=2) + "\n")
    click.echo(f"wrote {len(pools)} pools ({sum(len(p) for p in pools)} memories) to {output}")
