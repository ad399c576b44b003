"""One self-contained HTML page for a run or a comparison, with plots as inline SVG.

No script, no external resource, no dependency beyond the standard library: the page opens
offline in any browser. Plots per configuration: the 2-D map of the reduced space coloured by
cluster, the cluster-size histogram, and (for all configurations together) actions per type.
Every piece of text that comes from data (memory text, ids, reasons, config values) goes
through :func:`html.escape`, so a memory containing ``<script>`` stays text.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from datetime import datetime, timezone

from memmaint.maintenance.report.model import (
    DECISION_TYPES,
    Comparison,
    ConfigOutcome,
    RunReport,
    snippet,
)
from memmaint.maintenance.report.text import OVERLAP_ROWS, outcome_rows

# Tableau-20-like palette; noise is drawn in light grey.
PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94",
    "#f7b6d2", "#dbdb8d", "#9edae5", "#393b79",
)
NOISE_COLOUR = "#c8c8c8"
SERIES_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728")
MAX_NAMESPACE_MAPS = 4
MAX_ACTION_EXAMPLES = 12

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#222;
background:#fff;max-width:1400px}
h1{font-size:1.5em;margin-bottom:0.2em}h2{font-size:1.2em;margin-top:1.6em;
border-bottom:1px solid #ddd;padding-bottom:4px}h3{font-size:1em;margin:0.6em 0}
table{border-collapse:collapse;margin:8px 0;font-size:0.9em}
td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.num{text-align:right;font-variant-numeric:tabular-nums}
.meta{color:#666;font-size:0.9em}.plots{display:flex;flex-wrap:wrap;gap:18px}
figure{margin:0;border:1px solid #eee;padding:6px;background:#fcfcfc}
figcaption{font-size:0.85em;color:#444;max-width:440px}
.memtext{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:0.85em;
white-space:pre-wrap;word-break:break-word;max-width:720px}
svg text{font-family:system-ui,sans-serif;font-size:11px;fill:#333}
"""


def esc(value: object) -> str:
    """HTML-escape any value's ``str`` (quotes included, for attributes)."""
    return html.escape("" if value is None else str(value), quote=True)


def _colour(label: int) -> str:
    return NOISE_COLOUR if label < 0 else PALETTE[label % len(PALETTE)]


def _num(v: float) -> str:
    return f"{v:.1f}"


# -- SVG plots ------------------------------------------------------------------------------

def svg_scatter(points: Sequence[Sequence[float]], *, width: int = 440, height: int = 380,
                title: str = "") -> str:
    """A scatter plot of ``[x, y, label]`` rows, coloured by label (noise grey, behind)."""
    pad = 28
    parts = [(f'<svg class="map" xmlns="http://www.w3.org/2000/svg" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="{esc(title)}">'),
             f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
             (f'<rect x="{pad}" y="{pad}" width="{width - 2 * pad}" height="{height - 2 * pad}" '
             'fill="none" stroke="#bbb"/>')]
    if title:
        parts.append(f'<text x="{pad}" y="{pad - 10}">{esc(title)}</text>')
    finite = [p for p in points if math.isfinite(p[0]) and math.isfinite(p[1])]
    if finite:
        xs = [p[0] for p in finite]
        ys = [p[1] for p in finite]
        x0, x1 = min(xs), max(xs)
        y0, y1 = min(ys), max(ys)
        sx = (width - 2 * pad - 10) / ((x1 - x0) or 1.0)
        sy = (height - 2 * pad - 10) / ((y1 - y0) or 1.0)
        ordered = sorted(finite, key=lambda p: int(p[2]) >= 0)  # noise first, underneath
        for x, y, label in ordered:
            cx = pad + 5 + (x - x0) * sx
            cy = height - pad - 5 - (y - y0) * sy
            r = 1.8 if int(label) < 0 else 2.6
            parts.append(f'<circle cx="{_num(cx)}" cy="{_num(cy)}" r="{r}" '
                         f'fill="{_colour(int(label))}"/>')
    else:
        parts.append(f'<text x="{width / 2 - 30}" y="{height / 2}">no points</text>')
    parts.append("</svg>")
    return "".join(parts)


def size_bins(sizes: Mapping[int, int]) -> list[tuple[str, int]]:
    """Cluster counts in power-of-two size bins: 1, 2, 3-4, 5-8, ... (empty tail trimmed)."""
    if not sizes:
        return []
    top = max(sizes)
    bins: list[tuple[str, int]] = []
    lo = 1
    while lo <= top:
        hi = max(lo, 2 * lo - 2) if lo > 2 else lo
        count = sum(c for s, c in sizes.items() if lo <= s <= hi)
        bins.append((str(lo) if lo == hi else f"{lo}-{hi}", count))
        lo = hi + 1
    return bins


def svg_bars(categories: Sequence[str], series: Sequence[tuple[str, Sequence[float]]], *,
             width: int = 440, height: int = 260, title: str = "", log: bool = False) -> str:
    """A vertical grouped bar chart: one group per category, one bar per series."""
    pad_l, pad_r, pad_t, pad_b = 44, 10, 26, 46
    parts = [(f'<svg class="bars" xmlns="http://www.w3.org/2000/svg" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="{esc(title)}">'),
             f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>']
    if title:
        parts.append(f'<text x="{pad_l}" y="14">{esc(title)}</text>')
    values = [v for _, vals in series for v in vals]
    vmax = max(values, default=0)

    def scale(v: float) -> float:
        if vmax <= 0:
            return 0.0
        if log:
            return math.log1p(v) / math.log1p(vmax)
        return v / vmax

    plot_w, plot_h = width - pad_l - pad_r, height - pad_t - pad_b
    base = pad_t + plot_h
    parts.append(f'<line x1="{pad_l}" y1="{base}" x2="{width - pad_r}" y2="{base}" '
                 'stroke="#888"/>')
    parts.append(f'<text x="4" y="{pad_t + 8}">{esc(int(vmax))}</text>')
    n_cat, n_ser = max(len(categories), 1), max(len(series), 1)
    group_w = plot_w / n_cat
    bar_w = max(2.0, group_w * 0.8 / n_ser)
    for ci, cat in enumerate(categories):
        gx = pad_l + ci * group_w + group_w * 0.1
        for si, (_name, vals) in enumerate(series):
            v = vals[ci] if ci < len(vals) else 0
            h = scale(v) * plot_h
            x = gx + si * bar_w
            parts.append(f'<rect class="bar" x="{_num(x)}" y="{_num(base - h)}" '
                         f'width="{_num(bar_w - 1)}" height="{_num(h)}" '
                         f'fill="{SERIES_COLOURS[si % len(SERIES_COLOURS)]}">'
                         f'<title>{esc(_name)}: {esc(v)}</title></rect>')
            if v:
                parts.append(f'<text x="{_num(x)}" y="{_num(base - h - 3)}">{esc(int(v))}</text>')
        parts.append(f'<text x="{_num(gx)}" y="{base + 14}">{esc(cat)}</text>')
    if len(series) > 1:
        for si, (name, _) in enumerate(series):
            y = height - 12
            x = pad_l + si * 150
            parts.append(f'<rect x="{x}" y="{y - 9}" width="10" height="10" '
                         f'fill="{SERIES_COLOURS[si % len(SERIES_COLOURS)]}"/>'
                         f'<text x="{x + 14}" y="{y}">{esc(snippet(name, 22))}</text>')
    parts.append("</svg>")
    return "".join(parts)


# -- page sections --------------------------------------------------------------------------

def _table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = []
    for row in rows:
        cells = []
        for c in row:
            cls = ' class="num"' if isinstance(c, (int, float)) else ""
            cells.append(f"<td{cls}>{esc(c)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def _outcome_plots(o: ConfigOutcome, colour_note: str) -> str:
    figs = []
    namespaces = sorted(o.map_points, key=lambda ns: -len(o.map_points[ns]))
    for ns in namespaces[:MAX_NAMESPACE_MAPS]:
        pts = o.map_points[ns]
        figs.append(
            "<figure>" + svg_scatter(pts, title=f"{o.name}: namespace {ns}")
            + f"<figcaption>2-D map ({esc(o.map_axes)}) of namespace {esc(ns)}, "
            f"{len(pts)} points shown; {esc(colour_note)}</figcaption></figure>")
    if len(namespaces) > MAX_NAMESPACE_MAPS:
        figs.append(f"<p class='meta'>{len(namespaces) - MAX_NAMESPACE_MAPS} more namespaces "
                    "not drawn.</p>")
    bins = size_bins(o.cluster_sizes)
    figs.append(
        "<figure>" + svg_bars([b for b, _ in bins], [(o.name, [c for _, c in bins])],
                              title=f"{o.name}: clusters by size", log=False)
        + f"<figcaption>Cluster-size histogram: {o.n_clusters} clusters, {o.noise} noise "
        "memories (not counted as a cluster).</figcaption></figure>")
    return f"<div class='plots'>{''.join(figs)}</div>"


def _action_examples(o: ConfigOutcome) -> str:
    rows = []
    for d in o.decisions[:MAX_ACTION_EXAMPLES]:
        text = o.text_of(d.key)
        rows.append(
            f"<tr><td>{esc(d.type)}</td><td>{esc(d.namespace)}/{esc(d.memory_id)}</td>"
            f"<td>{esc(d.target or '')}</td><td>{esc(d.agent)}</td><td>{esc(d.reason)}</td>"
            f"<td class='memtext'>{esc(text or '')}</td></tr>")
    if not rows:
        return "<p class='meta'>No actions.</p>"
    more = len(o.decisions) - len(rows)
    tail = f"<p class='meta'>... and {more} more.</p>" if more > 0 else ""
    return ("<table><tr><th>action</th><th>memory</th><th>replaced by</th><th>agent</th>"
            f"<th>reason</th><th>text</th></tr>{''.join(rows)}</table>{tail}")


def _overlap_section(cmp: Comparison) -> str:
    ov = asdict(cmp.overlap)
    rows = [[label.format(a=cmp.label_a, b=cmp.label_b), ov[key]] for key, label in OVERLAP_ROWS]
    parts = ["<h2>Overlap of decisions</h2>", _table(["", "memories"], rows)]
    titles = {"both_merge": "Both would merge", "only_a_merge": f"Only {cmp.label_a} merges",
              "only_b_merge": f"Only {cmp.label_b} merges", "conflicts": "Conflicting decisions"}
    for key, title in titles.items():
        exs = cmp.overlap.examples.get(key) or []
        if not exs:
            continue
        parts.append(f"<h3>{esc(title)}</h3>")
        parts.append(_table(["memory", cmp.label_a, cmp.label_b, "text"],
                            [[f"{e.namespace}/{e.memory_id}", e.a, e.b, e.text or ""]
                             for e in exs]))
    return "".join(parts)


def render_html(outcomes: Sequence[ConfigOutcome], *, title: str = "memmaint report",
                comparison: Comparison | None = None, report: RunReport | None = None,
                generated_at: datetime | None = None) -> str:
    """The whole page as a string: summary table, overlap (for a comparison), plots per
    configuration, actions per type, examples, and the run's stages (for a run report)."""
    when = (generated_at or datetime.now(timezone.utc)).strftime("%Y-%m-%d %H:%M:%S UTC")
    body = [f"<h1>{esc(title)}</h1><p class='meta'>generated {esc(when)} by memmaint</p>"]
    if report is not None:
        body.append(
            f"<p class='meta'>run {esc(report.run_id)}: {esc(report.status)}"
            + (f" ({esc(report.skip_reason)})" if report.skip_reason else "")
            + f"; namespaces {esc(', '.join(report.namespaces))}; config {esc(report.config_hash)}"
            f"; started {esc(report.started_at)}</p>")
    if outcomes:
        header = ["", *[o.name + ("" if o.applied else " (not applied)") for o in outcomes]]
        body.append("<h2>Summary</h2>"
                    + _table(header, [[n, *v] for n, v in outcome_rows(outcomes)]))
    if comparison is not None:
        body.append(_overlap_section(comparison))
    if outcomes:
        types = [t for t in DECISION_TYPES if any(o.actions_by_type.get(t) for o in outcomes)]
        types = types or ["merge", "supersede", "evict"]
        body.append("<h2>Actions per type</h2><div class='plots'><figure>"
                    + svg_bars(types, [(o.name, [o.actions_by_type.get(t, 0) for t in types])
                                       for o in outcomes], title="actions per type",
                               width=max(440, 120 * len(types)))
                    + "<figcaption>Number of memories each action type takes, per "
                    "configuration.</figcaption></figure></div>")
    for o in outcomes:
        body.append(f"<h2>{esc(o.name)}: {esc(o.description)}</h2>")
        if o.warnings:
            body.append("<ul>" + "".join(f"<li>{esc(w)}</li>" for w in o.warnings) + "</ul>")
        body.append(_outcome_plots(o, "colour = cluster, grey = noise"))
        body.append(f"<h3>Actions ({'applied' if o.applied else 'planned, not applied'})</h3>")
        body.append(_action_examples(o))
    if report is not None and report.stages:
        body.append("<h2>Stages</h2>" + _table(
            ["stage", "seconds", "CPU seconds", "count"],
            [[s.name, round(s.seconds, 3), round(s.cpu_seconds, 3), s.count]
             for s in report.stages]))
        if report.versions:
            body.append("<h2>Versions</h2>" + _table(
                ["package", "version"], sorted(report.versions.items())))
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>{esc(title)}</title><style>{CSS}</style></head><body>"
            + "\n".join(body) + "</body></html>\n")


def report_outcomes(report: RunReport) -> list[ConfigOutcome]:
    """The primary and shadow outcomes of a run report (those present)."""
    return [o for o in (report.primary, report.shadow) if o is not None]
