"""Study plots as PNG and HTML: optimisation history, precision against recall, importances.

PNGs come from matplotlib (extra ``tune``). The HTML files use ``optuna.visualization``
when plotly is installed; otherwise each is a small self-contained page around an inline
SVG of the same figure (no plotly dependency is added just for this).
"""

from __future__ import annotations

import html
import io
import logging
import warnings
from pathlib import Path
from typing import Any

from memmaint.maintenance.core.errors import require

log = logging.getLogger(__name__)


def _trial_rows(study: Any) -> list[dict[str, Any]]:
    import optuna

    rows = []
    for t in study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,)):
        con = t.user_attrs.get("constraint")
        rows.append({"number": t.number, "recall": t.user_attrs.get("recall", t.value),
                     "precision": t.user_attrs.get("precision"),
                     "feasible": con is not None and all(c <= 0 for c in con),
                     "error": "error" in t.user_attrs})
    return rows


def history_figure(study: Any, title: str = "Optimisation history") -> Any:
    """Recall per trial (feasible and infeasible) and the best feasible recall so far."""
    plt = _pyplot()
    rows = _trial_rows(study)
    fig, ax = plt.subplots(figsize=(7, 4))
    feas = [r for r in rows if r["feasible"]]
    infeas = [r for r in rows if not r["feasible"]]
    ax.scatter([r["number"] for r in infeas], [r["recall"] for r in infeas], s=12,
               color="0.7", label="infeasible (precision below floor)")
    ax.scatter([r["number"] for r in feas], [r["recall"] for r in feas], s=14,
               color="tab:blue", label="feasible")
    best, xs, ys = None, [], []
    for r in sorted(rows, key=lambda r: r["number"]):
        if r["feasible"] and (best is None or r["recall"] > best):
            best = r["recall"]
        if best is not None:
            xs.append(r["number"])
            ys.append(best)
    if xs:
        ax.step(xs, ys, where="post", color="tab:red", label="best feasible so far")
    ax.set_xlabel("trial")
    ax.set_ylabel("mean B-cubed recall")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig


def pareto_figure(study: Any, floor: float, best_number: int | None = None,
                  title: str = "Precision against recall") -> Any:
    """Every completed trial in the precision-recall plane with the floor drawn."""
    plt = _pyplot()
    rows = [r for r in _trial_rows(study) if r["precision"] is not None]
    fig, ax = plt.subplots(figsize=(5.5, 5))
    for feasible, color, label in ((False, "0.65", "infeasible"), (True, "tab:blue",
                                                                    "feasible")):
        sel = [r for r in rows if r["feasible"] is feasible]
        ax.scatter([r["precision"] for r in sel], [r["recall"] for r in sel], s=14,
                   color=color, label=label)
    ax.axvline(floor, color="tab:red", linestyle="--", label=f"precision floor {floor:.2f}")
    best = [r for r in rows if r["number"] == best_number]
    if best:
        ax.scatter([best[0]["precision"]], [best[0]["recall"]], s=120, marker="*",
                   color="gold", edgecolor="k", zorder=5, label=f"best (trial {best_number})")
    ax.set_xlabel("mean B-cubed precision")
    ax.set_ylabel("mean B-cubed recall")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title)
    ax.legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    return fig


def importances(study: Any) -> dict[str, float]:
    """Parameter importances for recall (empty when too few trials to tell)."""
    import optuna

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return dict(optuna.importance.get_param_importances(study))
    except (ValueError, RuntimeError, ZeroDivisionError) as exc:
        log.info("no parameter importances: %s", exc)
        return {}


def importance_figure(imp: dict[str, float], title: str = "Parameter importances") -> Any:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 0.4 * max(len(imp), 2) + 1.2))
    names = list(imp)[::-1]
    ax.barh(names, [imp[n] for n in names], color="tab:blue")
    ax.set_xlabel("importance for recall (fANOVA)")
    if not imp:
        ax.text(0.5, 0.5, "not enough completed trials", ha="center", va="center",
                transform=ax.transAxes)
    ax.set_title(title)
    fig.tight_layout()
    return fig


def _pyplot() -> Any:
    mpl = require("matplotlib", "tune")
    mpl.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def _svg(fig: Any) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    text = buf.getvalue()
    return text[text.index("<svg"):]


def _html_page(title: str, svg: str, caption: str) -> str:
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}"
            f"</title></head>\n<body style=\"font-family:sans-serif;max-width:900px;"
            f"margin:2em auto\">\n<h1>{html.escape(title)}</h1>\n{svg}\n"
            f"<p>{html.escape(caption)}</p>\n</body></html>\n")


def _plotly_html(kind: str, study: Any) -> str | None:
    try:
        import plotly  # noqa: F401
    except ImportError:
        return None
    import optuna.visualization as vis

    fn = {"history": vis.plot_optimization_history, "importances": vis.plot_param_importances,
          "pareto": None}[kind]
    if fn is None:
        return None
    try:
        return fn(study).to_html(include_plotlyjs=True, full_html=True)
    except (ValueError, RuntimeError) as exc:
        log.info("plotly %s plot skipped: %s", kind, exc)
        return None


def write_plots(study: Any, out_dir: str | Path, *, floor: float,
                best_number: int | None = None) -> list[Path]:
    """Write history, precision-recall and importance plots as PNG and HTML; return paths."""
    plt = _pyplot()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    name = study.study_name
    imp = importances(study)
    figures = {
        "history": (history_figure(study, f"{name}: optimisation history"),
                    ("Mean B-cubed recall of every completed trial; grey trials miss the "
                     f"precision floor {floor:.2f}.")),
        "precision_recall": (pareto_figure(study, floor, best_number,
                                           f"{name}: precision against recall"),
                             f"Every completed trial; dashed line: precision floor {floor:.2f}."),
        "importances": (importance_figure(imp, f"{name}: parameter importances"),
                        ("fANOVA importance of each parameter for recall (parameters "
                         "present in every trial).")),
    }
    written: list[Path] = []
    for key, (fig, caption) in figures.items():
        png = out / f"{key}.png"
        fig.savefig(png, dpi=110)
        page = _plotly_html(key if key != "precision_recall" else "pareto", study)
        if page is None:
            page = _html_page(f"{name}: {key.replace('_', ' ')}", _svg(fig), caption)
        html_path = out / f"{key}.html"
        html_path.write_text(page, encoding="utf-8")
        plt.close(fig)
        written += [png, html_path]
    return written
