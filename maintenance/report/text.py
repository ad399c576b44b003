"""Run reports and comparisons as terminal text (pure: values in, text out; printing is the
CLI's job): :func:`format_report`, :func:`format_comparison`, the outcome table rows the HTML
report shares (:func:`outcome_rows`) and a plain fixed-width :func:`table`."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from memmaint.maintenance.core.text import for_terminal
from memmaint.maintenance.report.model import (
    DECISION_TYPES,
    Comparison,
    ConfigOutcome,
    RunReport,
    snippet,
)

__all__ = ["OVERLAP_ROWS", "format_comparison", "format_report", "mechanism_lines",
           "outcome_rows", "size_summary", "table"]


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.3f}"
    return str(value)


def size_summary(sizes: Mapping[int, int]) -> str:
    """``min/median/max`` of cluster sizes and how many are singletons."""
    flat = sorted(s for s, c in sizes.items() for _ in range(c))
    if not flat:
        return "-"
    med = flat[len(flat) // 2]
    singles = sizes.get(1, 0)
    return f"{flat[0]}/{med}/{flat[-1]} ({singles} single)"


def _largest(shares: dict[str, float]) -> str:
    """The largest cluster's share of its namespace, at the namespace where it is highest."""
    if not shares:
        return "-"
    ns = max(shares, key=lambda k: (shares[k], k))
    return f"{shares[ns]:.2f}" + (f" ({ns})" if len(shares) > 1 else "")


def outcome_rows(outcomes: Sequence[ConfigOutcome]) -> list[tuple[str, list[str]]]:
    """The per-configuration metric rows shared by the terminal table and the HTML page."""
    types = [t for t in DECISION_TYPES
             if any(o.actions_by_type.get(t) for o in outcomes)] or ["merge"]
    rows: list[tuple[str, list[str]]] = [
        ("configuration", [o.description for o in outcomes]),
        ("config hash", [o.config_hash for o in outcomes]),
        ("reduction", [o.reduction for o in outcomes]),
        ("memories", [str(o.n_memories) for o in outcomes]),
        ("clusters", [str(o.n_clusters) for o in outcomes]),
        ("size min/median/max", [size_summary(o.cluster_sizes) for o in outcomes]),
        ("largest cluster share", [_largest(o.largest_share) for o in outcomes]),
        ("noise", [str(o.noise) for o in outcomes]),
    ]
    rows += [(f"actions: {t}", [str(o.actions_by_type.get(t, 0)) for o in outcomes])
             for t in types]
    rows += [
        ("memories affected", [str(o.memories_affected) for o in outcomes]),
        ("pool before -> after", [f"{o.pool_before} -> {o.pool_after}" for o in outcomes]),
        ("LLM calls", [str(o.llm_calls) for o in outcomes]),
        ("LLM tokens", [str(o.tokens) for o in outcomes]),
    ]
    for flag in sorted({f for o in outcomes for f in o.flagged}):
        rows.append((f"flagged {flag}", [str(o.flagged.get(flag, 0)) for o in outcomes]))
    if any(o.fallbacks for o in outcomes):
        rows.append(("LLM fallbacks to rules", [str(o.fallbacks) for o in outcomes]))
    if any(o.cap for o in outcomes):
        rows.append(("cap max_active: archived", [
            ", ".join(f"{c['max_active']}: {len(c['archived'])}" for c in o.cap) or "-"
            for o in outcomes]))
    if any(o.routing for o in outcomes):
        rows.append(("routing clusters (unassigned)", [
            f"{sum(len(t['profiles']) for t in _tables(o))} "
            f"({sum(int(t.get('unassigned', 0)) for t in _tables(o))})" if o.routing else "-"
            for o in outcomes]))
    if any(o.bcubed is not None for o in outcomes):
        rows += [
            ("B-cubed precision", [_fmt(o.bcubed and o.bcubed.precision) for o in outcomes]),
            ("B-cubed recall", [_fmt(o.bcubed and o.bcubed.recall) for o in outcomes]),
            ("weighted precision",
             [_fmt(o.bcubed and o.bcubed.weighted_precision) for o in outcomes]),
            ("weighted recall", [_fmt(o.bcubed and o.bcubed.weighted_recall) for o in outcomes]),
        ]
    return rows


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain fixed-width text table, every cell through ``for_terminal``."""
    header, rows = [for_terminal(h) for h in header], [[for_terminal(c) for c in r] for r in rows]
    cols = list(zip(*([list(header)] + [list(r) for r in rows])))
    widths = [max(len(str(c)) for c in col) for col in cols]
    line = "  ".join("-" * w for w in widths)
    out = ["  ".join(str(h).ljust(w) for h, w in zip(header, widths)), line]
    out += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(s.rstrip() for s in out)


OVERLAP_ROWS = (
    ("both_merge", "memories both would merge"),
    ("both_merge_same_group", "  ... with the same partners"),
    ("only_a_merge", "only {a} would merge"),
    ("only_b_merge", "only {b} would merge"),
    ("conflicts", "conflicting decisions"),
    ("same_decision", "same non-keep decision"),
)


def format_comparison(cmp: Comparison) -> str:
    """The comparison as a terminal table, the overlap and examples."""
    a, b = cmp.label_a, cmp.label_b
    lines = [table(["", a, b], [[name, *vals] for name, vals in outcome_rows([cmp.a, cmp.b])])]
    lines += ["", f"Overlap of decisions ({a} vs {b})"]
    ov = asdict(cmp.overlap)
    lines.append(table(["", "memories"], [[label.format(a=a, b=b), str(ov[key])]
                                          for key, label in OVERLAP_ROWS]))
    for key, title in (("both_merge", "both would merge"), ("only_a_merge", f"only {a} merges"),
                       ("only_b_merge", f"only {b} merges"), ("conflicts", "conflicts")):
        exs = cmp.overlap.examples.get(key) or []
        if not exs:
            continue
        lines += ["", f"Examples: {title}"]
        for ex in exs:
            lines.append(f"  [{ex.namespace}/{ex.memory_id}] {a}: {ex.a}; {b}: {ex.b}")
            if ex.text:
                lines.append(f"      {snippet(ex.text, 100)}")
    for outcome in (cmp.a, cmp.b):
        lines += mechanism_lines(outcome)
    return "\n".join(lines)


def _tables(outcome: ConfigOutcome) -> list[Mapping[str, Any]]:
    return list((outcome.routing.get("namespaces") or {}).values()) if outcome.routing else []


def mechanism_lines(outcome: ConfigOutcome, *, n_archived: int = 10,
                    n_clusters: int = 5) -> list[str]:
    """What the cap archived (lowest score first, with value and parts) and the largest
    routing clusters (size, terms, kinds) of one outcome; empty when it used neither."""
    lines: list[str] = []
    for cap in outcome.cap:
        gone = cap.get("archived") or []
        head = (f"{outcome.name}: cap max_active = {cap['max_active']} in {cap['namespace']}: "
                f"{cap['before']} -> {cap['after']} active, {len(gone)} archived")
        if cap.get("short_by"):
            head += f", {cap['short_by']} over the cap (protected)"
        lines += ["", head]
        for v in gone[:n_archived]:
            text = outcome.text_of((cap["namespace"], v["memory_id"]))
            lines.append(f"  [{v['memory_id']}] score {v['score']:.3f} = value "
                         f"{v['value']:.3f} (relevance {v['relevance']:.2f}, importance "
                         f"{v['importance']:.2f}, freshness {v['freshness']:.2f}, outcome "
                         f"{v['outcome']:.2f}) - redundancy {v['redundancy']:.2f}")
            if text:
                lines.append(f"      {snippet(text, 100)}")
        if len(gone) > n_archived:
            lines.append(f"  ... and {len(gone) - n_archived} more")
    for table_ in _tables(outcome):
        profiles = sorted(table_.get("profiles") or [], key=lambda p: (-p["size"], p["label"]))
        head = (f"{outcome.name}: routing in {table_['namespace']}: {len(profiles)} clusters, "
                f"{int(table_.get('unassigned', 0))} memories in none (always scored)")
        lines += ["", head]
        for p in profiles[:n_clusters]:
            kinds = ", ".join(f"{k} {n}" for k, n in p["kinds"].items())
            lines.append(f"  #{p['label']}: {p['size']} memories ({p['attached']} attached "
                         f"noise): {', '.join(p['terms'][:6])}; {kinds}")
    return lines


def format_report(report: RunReport, *, outcomes: bool = True) -> str:
    """A short terminal summary of one run (with its configurations' table unless
    ``outcomes`` is false, e.g. when a comparison table follows)."""
    head = (f"run {report.run_id}: {report.status}"
            + (f" ({report.skip_reason})" if report.skip_reason else "")
            + (f" ({report.error})" if report.error else ""))
    lines = [head, (f"namespaces: {', '.join(report.namespaces) or '-'}; "
                    f"new memories since last run: {report.new_memories}; "
                    f"config {report.config_hash}")]
    if report.stages:
        lines += ["", table(["stage", "seconds", "CPU s", "count"],
                            [[s.name, f"{s.seconds:.2f}", f"{s.cpu_seconds:.2f}", str(s.count)]
                             for s in report.stages])]
    shown = [o for o in (report.primary, report.shadow) if o is not None] if outcomes else []
    if shown:
        header = [""] + [f"{o.name}{'' if o.applied else ' (not applied)'}" for o in shown]
        lines += ["", table(header, [[n, *v] for n, v in outcome_rows(shown)])]
        for o in shown:
            lines += mechanism_lines(o)
        lines += [f"warning ({o.name}): {w}" for o in shown for w in o.warnings]
    return "\n".join(lines)
