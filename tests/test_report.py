"""Run reports, comparisons and the HTML page (pure parts, no store)."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memmaint.maintenance.core.errors import InputError
from memmaint.maintenance.report.html import esc, render_html, size_bins, svg_bars, svg_scatter
from memmaint.maintenance.report.model import (
    REPORT_VERSION,
    ConfigOutcome,
    Decision,
    RunReport,
    StageTiming,
    compare_outcomes,
    map_coordinates,
    sample_indices,
    size_distribution,
)
from memmaint.maintenance.report.text import format_comparison, format_report

EVIL = "<script>document.body.setAttribute('data-pwned','1')</script> & \"quotes\""


def outcome(name: str, decisions: list[Decision], texts: dict[str, str] | None = None,
            **kw) -> ConfigOutcome:
    by_type: dict[str, int] = {}
    for d in decisions:
        by_type[d.type] = by_type.get(d.type, 0) + 1
    base = {
        "name": name, "config_hash": "h-" + name, "algorithm": "hdbscan",
        "description": f"{name} config",
        "reduction": "umap 2-D (seed 0)", "n_memories": 10, "n_clusters": 3, "noise": 1,
        "cluster_sizes": {2: 1, 3: 2}, "pool_before": 10, "pool_after": 10 - len(decisions),
        "actions_by_type": by_type, "memories_affected": len(decisions), "decisions": decisions,
        "texts": texts or {}, "map_points": {"ns": [[0.0, 0.0, 0], [1.0, 1.0, 1], [0.5, 0.2, -1]]},
        "map_axes": "reduced axes 1 and 2",
    }
    base.update(kw)
    return ConfigOutcome(**base)


def d(mid: str, typ: str, group: int, target: str | None = None) -> Decision:
    return Decision("ns", mid, typ, group, target, "rules", f"because {typ}")


@pytest.fixture()
def pair() -> tuple[ConfigOutcome, ConfigOutcome]:
    a = outcome("A", [d("m1", "merge", 0, "new-a"), d("m2", "merge", 0, "new-a"),
                      d("m3", "merge", 0, "new-a"), d("m4", "evict", 1)],
                texts={"ns\x1fm1": "the first memory", "ns\x1fm4": EVIL})
    b = outcome("B", [d("m2", "merge", 0, "new-b"), d("m3", "merge", 0, "new-b"),
                      d("m5", "merge", 1, "new-b2"), d("m6", "merge", 1, "new-b2"),
                      d("m1", "supersede", 2, "m2")],
                texts={"ns\x1fm5": "fifth"})
    return a, b


def test_size_distribution_counts_clusters_sizes_and_noise():
    n, noise, sizes = size_distribution([0, 0, 1, 1, 1, -1, -1, 2, 5, 5])
    assert (n, noise) == (4, 2)
    assert sizes == {1: 1, 2: 2, 3: 1}


def test_overlap_counts(pair):
    a, b = pair
    cmp = compare_outcomes(a, b)
    ov = cmp.overlap
    assert ov.both_merge == 2  # m2, m3
    assert ov.both_merge_same_group == 0  # A merges them with m1 too
    assert ov.only_a_merge == 1  # m1 (B supersedes it)
    assert ov.only_b_merge == 2  # m5, m6
    assert ov.conflicts == 1  # m1: merge vs supersede
    assert ov.same_decision == 2
    assert (ov.affected_both, ov.affected_only_a, ov.affected_only_b) == (3, 1, 2)
    conflict = ov.examples["conflicts"][0]
    assert (conflict.memory_id, conflict.a, conflict.b) == ("m1", "merge with 2 others",
                                                            "supersede -> m2")
    assert conflict.text == "the first memory"


def test_same_partners_detected_even_though_new_ids_differ():
    a = outcome("A", [d("x", "merge", 0, "n1"), d("y", "merge", 0, "n1")])
    b = outcome("B", [d("y", "merge", 7, "n2"), d("x", "merge", 7, "n2")])
    ov = compare_outcomes(a, b).overlap
    assert ov.both_merge == ov.both_merge_same_group == 2
    assert ov.conflicts == ov.only_a_merge == ov.only_b_merge == 0


def test_comparison_is_symmetric(pair):
    a, b = pair
    ab, ba = compare_outcomes(a, b).overlap, compare_outcomes(b, a).overlap
    assert ab.both_merge == ba.both_merge and ab.conflicts == ba.conflicts
    assert ab.only_a_merge == ba.only_b_merge and ab.only_b_merge == ba.only_a_merge


def test_format_comparison_shows_rows_overlap_and_examples(pair):
    a, b = pair
    text = format_comparison(compare_outcomes(a, b, label_a="hdb", label_b="gkt"))
    for needle in ("clusters", "noise", "actions: merge", "actions: evict", "memories affected",
                   "pool before -> after", "LLM tokens", "memories both would merge",
                   "only hdb would merge", "only gkt would merge", "conflicting decisions",
                   "Examples: conflicts", "the first memory", "10 -> 6", "10 -> 5"):
        assert needle in text, needle
    assert "B-cubed" not in text  # no ground truth in these outcomes


def test_bcubed_rows_appear_when_scored(pair):
    from memmaint.maintenance.report.model import BCubedScores

    a, b = pair
    a.bcubed = BCubedScores(0.9, 0.8, 0.85, 0.91, 0.81, 0.86, 10)
    text = format_comparison(compare_outcomes(a, b))
    assert re.search(r"B-cubed precision\s+0\.900\s+-", text)
    assert re.search(r"B-cubed recall\s+0\.800", text)


def test_report_json_round_trip(pair):
    a, b = pair
    rep = RunReport(run_id="r1", started_at="2025-01-01T00:00:00+00:00", status="dry-run",
                    namespaces=["ns"], stages=[StageTiming("embed", 1.5, 10, {"cached": 3})],
                    primary=a, shadow=b, versions={"numpy": "2"}, config={"job": {"seed": 3}})
    back = RunReport.from_json(rep.to_json())
    assert back.to_dict() == rep.to_dict()
    assert back.primary.decision_map()[("ns", "m4")].type == "evict"
    assert back.primary.cluster_sizes == {2: 1, 3: 2}
    assert "embed" in format_report(back) and "dry-run" in format_report(back)


def test_report_load_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match="not valid JSON"):
        RunReport.load(bad)
    bad.write_text(json.dumps({"hello": 1}), encoding="utf-8")
    with pytest.raises(InputError, match="not a memmaint run report"):
        RunReport.load(bad)
    bad.write_text(json.dumps({"run_id": "x", "started_at": "t",
                               "version": REPORT_VERSION + 1}), encoding="utf-8")
    with pytest.raises(InputError, match="newer"):
        RunReport.load(bad)
    with pytest.raises(InputError, match="cannot read"):
        RunReport.load(tmp_path / "missing.json")


def test_map_coordinates_shapes():
    import numpy as np

    rng = np.random.default_rng(0)
    for k in (1, 2, 3, 5):
        xy, axes = map_coordinates(rng.normal(size=(20, k)))
        assert xy.shape == (20, 2) and axes
    assert map_coordinates(np.zeros((0, 2)))[0].shape == (0, 2)


@given(st.integers(0, 300), st.integers(1, 100))
@settings(max_examples=50, deadline=None)
def test_sample_indices(n, limit):
    idx = sample_indices(n, limit)
    assert len(idx) == min(n, limit)
    assert idx == sorted(set(idx)) and all(0 <= i < n for i in idx)


@given(st.dictionaries(st.integers(1, 5000), st.integers(1, 50), max_size=30))
@settings(max_examples=60, deadline=None)
def test_size_bins_cover_every_cluster(sizes):
    bins = size_bins(sizes)
    assert sum(c for _, c in bins) == sum(sizes.values())


# -- HTML -----------------------------------------------------------------------------------

def test_html_escapes_memory_text_and_has_no_script(pair):
    a, b = pair
    a.description = 'desc with "quotes" <b>bold</b>'
    cmp = compare_outcomes(a, b)
    page = render_html([a, b], title="t <i>x</i>", comparison=cmp)
    assert "<script" not in page.lower()
    assert esc(EVIL) in page  # the memory text is there, as text
    assert "<b>bold</b>" not in page and "&lt;b&gt;bold&lt;/b&gt;" in page
    assert page.startswith("<!DOCTYPE html>") and "http" not in page.replace(
        "http://www.w3.org/2000/svg", "")  # nothing external is loaded


def test_html_has_plots_per_configuration(pair):
    a, b = pair
    page = render_html([a, b], comparison=compare_outcomes(a, b))
    assert page.count('class="map"') == 2  # one 2-D map per configuration
    assert page.count('class="bars"') == 3  # two size histograms + actions per type
    assert page.count("<circle") == 6  # three points per map


def test_svg_scatter_draws_every_point_and_greys_noise():
    svg = svg_scatter([[0, 0, -1], [1, 2, 0], [2, 1, 0], [3, 3, 25]])
    assert svg.count("<circle") == 4
    assert svg.count('fill="#c8c8c8"') == 1
    assert "no points" in svg_scatter([])


def test_svg_bars_heights_follow_values():
    svg = svg_bars(["a", "b"], [("s", [10, 5])], height=200)
    heights = [float(h) for h in re.findall(r'class="bar"[^>]*height="([\d.]+)"', svg)]
    assert len(heights) == 2 and heights[0] == pytest.approx(2 * heights[1])


def test_bcubed_scores_scope_labels_by_namespace_and_one_offs():
    from memmaint.maintenance.report.model import bcubed_scores

    ns = ["a"] * 6
    s = bcubed_scores([0, 0, 1, 1, -1, -1], [5, 5, 7, 7, -1, -1], ns, [1.0] * 6)
    assert s.recall == pytest.approx(1.0)
    assert s.precision == pytest.approx(5 / 6)  # the two one-offs share the noise cluster
    assert s.weighted_precision == pytest.approx(5 / 6) and s.n_labelled == 6
    # the same true label in two namespaces is two classes; unlabelled memories are left out
    s = bcubed_scores([0, 0, None], [1, 1, 1], ["a", "b", "a"], [1.0, 1.0, 1.0])
    assert s.n_labelled == 2 and s.precision == pytest.approx(1.0)
    assert s.recall == pytest.approx(1.0)
    assert bcubed_scores([None, None], [0, 0], ["a", "a"], [1.0, 1.0]) is None
